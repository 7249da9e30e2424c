// SPDX-License-Identifier: GPL-2.0
/*
 * Augment callbacks given, but RB_IS_AUGMENTED clear: they would never run.
 * expect: RB_DEFINE_INTERFACE: an augment needs RB_IS_AUGMENTED
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, &cf_size_cb)

#include "cf_use.h"
