// SPDX-License-Identifier: GPL-2.0
/*
 * RB_HAS_RIGHTMOST with no rightmost member to keep it in.
 * expect: RB_DEFINE_INTERFACE: RB_HAS_RIGHTMOST set but rightmost member blank
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */,
		    count, struct cf_obj, node, key,
		    RB_HAS_RIGHTMOST | RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
