// SPDX-License-Identifier: GPL-2.0
/*
 * The 2012 article's fair_tree: a leftmost member with flags 0 (plus the
 * 12th, count argument, blank).  The member implies RB_HAS_LEFTMOST; the
 * KUnit test iface_member_implies_flag checks that the cache is kept.
 * expect: (builds)
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */,
		    /* no count */, struct cf_obj, node, key, 0, cf_cmp, 0)

#include "cf_use.h"
