// SPDX-License-Identifier: GPL-2.0
/*
 * Control case: a valid interface that must build, so that the failures
 * of the other cases are not a broken harness.
 * expect: (builds)
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */, count,
		    struct cf_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_COUNT | RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
