// SPDX-License-Identifier: GPL-2.0
/*
 * An augmented tree without augment callbacks.
 * expect: RB_DEFINE_INTERFACE: RB_IS_AUGMENTED needs an augment
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key,
		    RB_UNIQUE_KEYS | RB_IS_AUGMENTED, cf_cmp, 0)

#include "cf_use.h"
