// SPDX-License-Identifier: GPL-2.0
/*
 * Replacing an equal key only makes sense on a unique tree.
 * expect: RB_DEFINE_INTERFACE: RB_INSERT_REPLACES needs RB_UNIQUE_KEYS
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_INSERT_REPLACES, cf_cmp, 0)

#include "cf_use.h"
