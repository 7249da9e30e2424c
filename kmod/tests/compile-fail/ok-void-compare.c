// SPDX-License-Identifier: GPL-2.0
/*
 * The v2 posting's comparison type, on const void *, is accepted.
 * expect: (builds)
 */
#include "cf_common.h"

static inline long cf_cmp_void(const void *a, const void *b)
{
	return cf_cmp(a, b);
}

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, RB_UNIQUE_KEYS, cf_cmp_void, 0)

#include "cf_use.h"
