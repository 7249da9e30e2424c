// SPDX-License-Identifier: GPL-2.0
/*
 * A comparison of another key type (int, where the key is a long).
 * expect: RB_DEFINE_INTERFACE: compare is not long (*)(const KEY *, const KEY *)
 */
#include "cf_common.h"

static inline long cf_cmp_int(const int *a, const int *b)
{
	return *a < *b ? -1 : *a > *b;
}

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp_int, 0)

#include "cf_use.h"
