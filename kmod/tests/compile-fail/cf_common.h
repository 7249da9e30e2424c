/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every compile-fail case shares: an object, a container with every
 * optional member, and a comparison. Each case differs only in its
 * RB_DEFINE_INTERFACE() line, followed by #include "cf_use.h".
 */
#ifndef _CF_COMMON_H
#define _CF_COMMON_H

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

/* The same with an rb_root_cached root (cases that #define CF_CACHED). */
struct cf_ccont {
	struct rb_root_cached root;
	struct rb_node *left;
	unsigned long count;
};

static inline long cf_cmp(const long *a, const long *b)
{
	return *a < *b ? -1 : *a > *b;
}

/* Augment callbacks (subtree size) for the cases that need some. */
static inline bool cf_compute_size(struct cf_obj *obj, bool exit)
{
	unsigned long size = 1;

	if (obj->node.rb_left)
		size += rb_entry(obj->node.rb_left, struct cf_obj, node)->size;
	if (obj->node.rb_right)
		size += rb_entry(obj->node.rb_right, struct cf_obj, node)->size;
	if (exit && obj->size == size)
		return true;
	obj->size = size;
	return false;
}

RB_DECLARE_CALLBACKS(static, cf_size_cb, struct cf_obj, node, size,
		     cf_compute_size);

#endif /* _CF_COMMON_H */
