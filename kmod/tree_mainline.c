// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "mainline" tree, built with the helpers that 6.1's
 * <linux/rbtree.h> already has (rb_find_add(), rb_find(), rb_find_first()),
 * as the baseline the 2012 proposals are compared with.
 */
#include <linux/rbtree.h>

#include "inspector.h"

static int mainline_cmp(const void *key, const struct rb_node *rb)
{
	return rbti_cmp_keys(*(const s64 *)key,
			     rb_entry(rb, const struct rbti_node, rb)->key);
}

static int mainline_node_cmp(struct rb_node *a, const struct rb_node *b)
{
	return mainline_cmp(&rbti_entry(a)->key, b);
}

/*
 * Orders the nodes whose key is above *key after all the others, so that
 * rb_find_first() returns the first of them.
 */
static int mainline_above(const void *key, const struct rb_node *rb)
{
	return mainline_cmp(key, rb) >= 0;
}

static int mainline_insert(struct rbti_tree *t, struct rbti_node *n,
			   struct rbti_node **replaced)
{
	*replaced = NULL;
	return rb_find_add(&n->rb, &t->root, mainline_node_cmp) ? -EEXIST : 0;
}

static struct rbti_node *mainline_find(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find(&key, &t->root, mainline_cmp));
}

static struct rbti_node *mainline_near(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find_first(&key, &t->root, mainline_above));
}

static struct rbti_node *mainline_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = mainline_find(t, key);

	if (n)
		rb_erase(&n->rb, &t->root);
	return n;
}

const struct rbti_tree_ops rbti_mainline_ops = {
	.name = "mainline",
	.api = "mainline",
	.flags = RBTI_UNIQUE,
	.insert = mainline_insert,
	.find = mainline_find,
	.near = mainline_near,
	.erase = mainline_erase,
};
