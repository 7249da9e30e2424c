// SPDX-License-Identifier: GPL-2.0
/*
 * Flags held in a variable are not a compile-time constant.
 * expect: BUILD_BUG_ON_NON_CONST_failed
 */
#include "cf_common.h"

unsigned int cf_flags = RB_UNIQUE_KEYS;

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, cf_flags, cf_cmp, 0)

#include "cf_use.h"
