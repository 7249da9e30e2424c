// SPDX-License-Identifier: GPL-2.0
/*
 * Augment callbacks through a pointer variable are not a constant.
 * expect: BUILD_BUG_ON_NON_CONST2_failed
 */
#include "cf_common.h"

const struct rb_augment_callbacks *cf_aug_var = &cf_size_cb;

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS | RB_IS_AUGMENTED,
		    cf_cmp, cf_aug_var)

#include "cf_use.h"
