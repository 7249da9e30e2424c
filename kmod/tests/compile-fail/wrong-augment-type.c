// SPDX-License-Identifier: GPL-2.0
/*
 * The augment argument is not struct rb_augment_callbacks (a function).
 * expect: RB_DEFINE_INTERFACE: augment is not a const struct rb_augment_callbacks *
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS | RB_IS_AUGMENTED,
		    cf_cmp, &cf_cmp)

#include "cf_use.h"
