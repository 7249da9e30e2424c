// SPDX-License-Identifier: GPL-2.0
/*
 * Control case: a valid interface that must build, so that the failures
 * of the other cases are not a broken harness.
 * expect: (builds)
 */
#include <linux/module.h>

#include "rbtree_santos.h"

struct cf_obj {
	struct rb_node node;
	long key;
	unsigned long size;
};

struct cf_cont {
	struct rb_root root;
	struct rb_node *left;
	unsigned long count;
};

static long cf_cmp(const long *a, const long *b)
{
	return *a < *b ? -1 : *a > *b;
}

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */, count,
		    struct cf_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_COUNT | RB_UNIQUE_KEYS, cf_cmp, 0)

struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o);
struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o)
{
	return cf_insert(c, o);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
