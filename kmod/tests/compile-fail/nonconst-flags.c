// SPDX-License-Identifier: GPL-2.0
/*
 * Flags held in a variable are not a compile-time constant.
 * expect: BUILD_BUG_ON_NON_CONST failed: cf_flags
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

unsigned int cf_flags = RB_UNIQUE_KEYS;

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, /* - */, /* - */, /* - */,
		    struct cf_obj, node, key, cf_flags, cf_cmp, 0)

struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o);
struct cf_obj *cf_use(struct cf_cont *c, struct cf_obj *o)
{
	return cf_insert(c, o);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
