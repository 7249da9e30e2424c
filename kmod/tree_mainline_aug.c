// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "mainline_aug" tree, in the shape of EEVDF's
 * runqueue and vmalloc's free areas: rb_add_augmented_cached() with
 * RB_DECLARE_CALLBACKS_MAX, each node's augment being the greatest value
 * in its subtree.
 */
#include <linux/rbtree_augmented.h>

#include "compat.h"
#include "inspector.h"

static s64 aug_value(struct rbti_node *n)
{
	return n->value;
}

RB_DECLARE_CALLBACKS_MAX(static, aug_callbacks, struct rbti_node, rb, s64,
			 max, aug_value);

static int aug_cmp(const void *key, const struct rb_node *rb)
{
	return rbti_cmp_keys(*(const s64 *)key,
			     rb_entry(rb, const struct rbti_node, rb)->key);
}

static bool aug_less(struct rb_node *a, const struct rb_node *b)
{
	return aug_cmp(&rbti_entry(a)->key, b) < 0;
}

static int aug_above(const void *key, const struct rb_node *rb)
{
	return aug_cmp(key, rb) >= 0;
}

static int aug_insert(struct rbti_tree *t, struct rbti_node *n,
		      struct rbti_node **replaced)
{
	*replaced = NULL;
	if (rb_find(&n->key, &t->root, aug_cmp))
		return -EEXIST;
	n->max = n->value;
	rb_add_augmented_cached(&n->rb, &t->cached, aug_less, &aug_callbacks);
	return 0;
}

static struct rbti_node *aug_find(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find(&key, &t->root, aug_cmp));
}

static struct rbti_node *aug_near(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find_first(&key, &t->root, aug_above));
}

static struct rbti_node *aug_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = aug_find(t, key);

	if (n)
		rb_erase_augmented_cached(&n->rb, &t->cached, &aug_callbacks);
	return n;
}

const struct rbti_tree_ops rbti_mainline_aug_ops = {
	.name = "mainline_aug",
	.api = "mainline",
	.flags = RBTI_UNIQUE | RBTI_LEFTMOST | RBTI_AUGMENTED | RBTI_VALUE,
	.aug = RBTI_AUG_MAX,
	.value_name = "value",
	.insert = aug_insert,
	.find = aug_find,
	.near = aug_near,
	.erase = aug_erase,
};
