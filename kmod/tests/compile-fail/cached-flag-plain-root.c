// SPDX-License-Identifier: GPL-2.0
/*
 * RB_CACHED_ROOT asked for over a plain struct rb_root.
 * expect: RB_DEFINE_INTERFACE: RB_CACHED_ROOT needs an rb_root_cached root
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */,
		    /* no count */, struct cf_obj, node, key, RB_CACHED_ROOT,
		    cf_cmp, 0)

#include "cf_use.h"
