// SPDX-License-Identifier: GPL-2.0
/*
 * prefix_count() on a tree that keeps no count.
 * expect: RB_DEFINE_INTERFACE: cf_count() needs RB_HAS_COUNT
 */
#include "cf_common.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp, 0)

unsigned long cf_use_count(struct cf_cont *c);
unsigned long cf_use_count(struct cf_cont *c)
{
	return cf_count(c);
}

#include "cf_use.h"
