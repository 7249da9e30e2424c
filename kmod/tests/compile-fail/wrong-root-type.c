// SPDX-License-Identifier: GPL-2.0
/*
 * The root member is not a struct rb_root (here the count).
 * expect: RB_DEFINE_INTERFACE: root member is not a struct rb_root
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, count, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, 0)

#include "cf_use.h"
