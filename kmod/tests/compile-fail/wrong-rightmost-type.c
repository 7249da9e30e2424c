// SPDX-License-Identifier: GPL-2.0
/*
 * The rightmost cache is not a struct rb_node * (here the root).
 * expect: RB_DEFINE_INTERFACE: rightmost member is not a struct rb_node *
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, root, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
