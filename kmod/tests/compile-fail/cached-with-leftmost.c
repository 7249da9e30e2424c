// SPDX-License-Identifier: GPL-2.0
/*
 * A leftmost member beside an rb_root_cached root: two caches of one node.
 * expect: RB_DEFINE_INTERFACE: leftmost member given with an rb_root_cached root
 */
#include "cf_common.h"

#define CF_CACHED
RB_DEFINE_INTERFACE(cf, struct cf_ccont, root, left, /* no rightmost */,
		    /* no count */, struct cf_obj, node, key, 0, cf_cmp, 0)

#include "cf_use.h"
