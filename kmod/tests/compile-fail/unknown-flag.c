// SPDX-License-Identifier: GPL-2.0
/*
 * A flag that enum rb_generic_flags does not define.
 * expect: RB_DEFINE_INTERFACE: unknown flag
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key,
		    /* the bit above every flag */
		    RB_UNIQUE_KEYS | (RB_GENERIC_ALL_FLAGS + 1), cf_cmp, 0)

#include "cf_use.h"
