// SPDX-License-Identifier: GPL-2.0
/*
 * A comparison through a function pointer variable is not a constant.
 * expect: BUILD_BUG_ON_NON_CONST2_failed
 */
#include "cf_common.h"

long (*cf_cmp_var)(const long *a, const long *b) = cf_cmp;

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp_var, 0)

#include "cf_use.h"
