// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "overstreet" trees, built with Kent Overstreet's
 * rb_insert(), rb_insert_allow_dup(), rb_search() and
 * rb_find_first_greater(), called out of line through their exports as
 * their users in other files would.
 *
 * The API compares whole nodes, so every search builds a dummy node on the
 * stack that carries only the key.
 */
#include <linux/limits.h>
#include <linux/rbtree.h>

#include "inspector.h"
#include "rbtree_overstreet.h"

static int overstreet_cmp(const struct rb_node *l, const struct rb_node *r)
{
	return rbti_cmp_keys(rb_entry(l, const struct rbti_node, rb)->key,
			     rb_entry(r, const struct rbti_node, rb)->key);
}

static int overstreet_insert(struct rbti_tree *t, struct rbti_node *n,
			     struct rbti_node **replaced)
{
	*replaced = NULL;
	/* The node in the way is left alone: the insert is refused. */
	return rb_insert(&t->root, &n->rb, overstreet_cmp) ? -EEXIST : 0;
}

static int overstreet_dup_insert(struct rbti_tree *t, struct rbti_node *n,
				 struct rbti_node **replaced)
{
	*replaced = NULL;
	rb_insert_allow_dup(&t->root, &n->rb, overstreet_cmp);
	return 0;
}

static struct rbti_node *overstreet_search(struct rbti_tree *t, s64 key)
{
	struct rbti_node search = { .key = key };

	return rbti_entry(rb_search(&t->root, &search.rb, overstreet_cmp));
}

static struct rbti_node *overstreet_near(struct rbti_tree *t, s64 key)
{
	struct rbti_node search = { .key = key };

	return rbti_entry(rb_find_first_greater(&t->root, &search.rb,
						 overstreet_cmp));
}

/*
 * rb_search() returns any of several equal nodes; the first of them is the
 * first node greater than the key before, or the first node at all.
 */
static struct rbti_node *overstreet_dup_find(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n;
	struct rb_node *rb;

	if (key == S64_MIN) {
		/* rb_first() follows rb_left only, safe when corrupted. */
		rb = rb_first(&t->root);
		n = rbti_entry(rb);
	} else {
		n = overstreet_near(t, key - 1);
	}
	return n && n->key == key ? n : NULL;
}

/* Erases the node that rb_search() finds, as DEBUGFS.md says. */
static struct rbti_node *overstreet_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = overstreet_search(t, key);

	if (n)
		rb_erase(&n->rb, &t->root);
	return n;
}

const struct rbti_tree_ops rbti_overstreet_ops = {
	.name = "overstreet",
	.api = "overstreet",
	.flags = RBTI_UNIQUE | RBTI_OUTOFLINE,
	.insert = overstreet_insert,
	.find = overstreet_search,
	.near = overstreet_near,
	.erase = overstreet_erase,
};

const struct rbti_tree_ops rbti_overstreet_dup_ops = {
	.name = "overstreet_dup",
	.api = "overstreet",
	.flags = RBTI_DUP | RBTI_OUTOFLINE,
	.insert = overstreet_dup_insert,
	.find = overstreet_dup_find,
	.near = overstreet_near,
	.erase = overstreet_erase,
};
