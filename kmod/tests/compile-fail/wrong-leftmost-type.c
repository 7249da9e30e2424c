// SPDX-License-Identifier: GPL-2.0
/*
 * The leftmost cache is not a struct rb_node * (here the count).
 * expect: RB_DEFINE_INTERFACE: leftmost member is not a struct rb_node *
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, count, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
