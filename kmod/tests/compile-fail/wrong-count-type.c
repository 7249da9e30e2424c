// SPDX-License-Identifier: GPL-2.0
/*
 * The count is not an unsigned long (here the leftmost pointer).
 * expect: RB_DEFINE_INTERFACE: count member is not an unsigned long
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, left,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
