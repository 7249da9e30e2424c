// SPDX-License-Identifier: GPL-2.0
/*
 * RB_HAS_COUNT with no count member to keep it in.
 * expect: RB_DEFINE_INTERFACE: RB_HAS_COUNT set but count member blank
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* - */, /* no count */,
		    struct cf_obj, node, key, RB_HAS_COUNT | RB_UNIQUE_KEYS,
		    cf_cmp, 0)

#include "cf_use.h"
