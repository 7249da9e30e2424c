// SPDX-License-Identifier: GPL-2.0
/*
 * RB_HAS_LEFTMOST with no leftmost member to keep it in.
 * expect: RB_DEFINE_INTERFACE: RB_HAS_LEFTMOST set but leftmost member blank
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* no leftmost */, /* - */, count,
		    struct cf_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_COUNT, cf_cmp, 0)

#include "cf_use.h"
