// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "mainline_cached" tree, in the shape of timerqueue
 * and the scheduler's runqueues: rb_add_cached() with equal keys after
 * their equals, rb_erase_cached(), and the leftmost cache those keep.
 */
#include <linux/rbtree.h>

#include "inspector.h"

static int cached_cmp(const void *key, const struct rb_node *rb)
{
	return rbti_cmp_keys(*(const s64 *)key,
			     rb_entry(rb, const struct rbti_node, rb)->key);
}

static bool cached_less(struct rb_node *a, const struct rb_node *b)
{
	return cached_cmp(&rbti_entry(a)->key, b) < 0;
}

/* Nodes whose key is above *key go after all others: see tree_mainline.c. */
static int cached_above(const void *key, const struct rb_node *rb)
{
	return cached_cmp(key, rb) >= 0;
}

static int cached_insert(struct rbti_tree *t, struct rbti_node *n,
			 struct rbti_node **replaced)
{
	*replaced = NULL;
	rb_add_cached(&n->rb, &t->cached, cached_less);
	return 0;
}

static struct rbti_node *cached_find(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find_first(&key, &t->root, cached_cmp));
}

static struct rbti_node *cached_near(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find_first(&key, &t->root, cached_above));
}

static struct rbti_node *cached_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = cached_find(t, key);

	if (n)
		rb_erase_cached(&n->rb, &t->cached);
	return n;
}

const struct rbti_tree_ops rbti_mainline_cached_ops = {
	.name = "mainline_cached",
	.api = "mainline",
	.flags = RBTI_DUP | RBTI_LEFTMOST,
	.insert = cached_insert,
	.find = cached_find,
	.near = cached_near,
	.erase = cached_erase,
};
