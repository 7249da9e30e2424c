// SPDX-License-Identifier: GPL-2.0
/*
 * The object's node member is not a struct rb_node (here the size).
 * expect: RB_DEFINE_INTERFACE: node member is not a struct rb_node
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, size, key, RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
