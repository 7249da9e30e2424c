// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "santos" trees, one RB_DEFINE_INTERFACE() each
 * from Daniel Santos's generic rbtree, over the same container and object
 * types, so that each differs only in its flags.
 */
#include <linux/rbtree_augmented.h>

#include "inspector.h"
#include "rbtree_santos.h"

static long santos_cmp(const s64 *a, const s64 *b)
{
	return rbti_cmp_keys(*a, *b);
}

/* santos_aug keeps rbti_node.size, the number of nodes in the subtree. */
static inline unsigned long santos_size(const struct rb_node *rb)
{
	return rb ? rb_entry(rb, const struct rbti_node, rb)->size : 0;
}

static inline bool santos_size_compute(struct rbti_node *n, bool exit)
{
	unsigned long size = 1 + santos_size(n->rb.rb_left) +
			     santos_size(n->rb.rb_right);

	if (exit && n->size == size)
		return true;
	n->size = size;
	return false;
}

RB_DECLARE_CALLBACKS(static, santos_size_callbacks, struct rbti_node, rb,
		     size, santos_size_compute);

/*
 * santos and santos_dup keep all three caches; their root is the tree's
 * struct rb_root_cached, whose rb_leftmost the kernel's _cached functions
 * keep (the leftmost flag is implied).
 */
#define SANTOS_CACHED	(RB_HAS_RIGHTMOST | RB_HAS_COUNT)

RB_DEFINE_INTERFACE(santos, struct rbti_tree, cached, /* rb_leftmost */,
		    rightmost, count, struct rbti_node, rb, key,
		    SANTOS_CACHED | RB_UNIQUE_KEYS, santos_cmp, 0)
RB_DEFINE_INTERFACE(santos_dup, struct rbti_tree, cached, /* rb_leftmost */,
		    rightmost, count, struct rbti_node, rb, key,
		    SANTOS_CACHED, santos_cmp, 0)
RB_DEFINE_INTERFACE(santos_aug, struct rbti_tree, root, /* no leftmost */,
		    /* no rightmost */, count,
		    struct rbti_node, rb, key,
		    RB_HAS_COUNT | RB_UNIQUE_KEYS | RB_IS_AUGMENTED, santos_cmp,
		    &santos_size_callbacks)
RB_DEFINE_INTERFACE(santos_replace, struct rbti_tree, root,
		    /* no leftmost */, /* no rightmost */, count,
		    struct rbti_node, rb, key,
		    RB_HAS_COUNT | RB_UNIQUE_KEYS | RB_INSERT_REPLACES,
		    santos_cmp, 0)

/*
 * The ops of one interface: each a call of the generated function that does
 * the job. An insert that returns a node either left the tree unchanged
 * (-EEXIST) or, on a replacing tree, replaced that node. A hint is always
 * a node linked in this tree (the front end looks it up by key just
 * before), never a removed or foreign one.
 */
#define SANTOS_TREE_OPS(prefix, rbti_flags)				\
static int prefix##_ops_insert(struct rbti_tree *t, struct rbti_node *n,	\
			       struct rbti_node **replaced)		\
{									\
	struct rbti_node *old = prefix##_insert(t, n);			\
									\
	*replaced = prefix##_rb()->tree_flags & RB_INSERT_REPLACES ?	\
		    old : NULL;						\
	return old && !*replaced ? -EEXIST : 0;				\
}									\
									\
static struct rbti_node *prefix##_ops_find(struct rbti_tree *t, s64 key)	\
{									\
	return prefix##_find_first(t, &key);				\
}									\
									\
static struct rbti_node *prefix##_ops_near(struct rbti_tree *t, s64 key)	\
{									\
	return prefix##_find_near(t, NULL, &key);			\
}									\
									\
static int prefix##_ops_insert_hint(struct rbti_tree *t, struct rbti_node *n,	\
				    struct rbti_node *hint,		\
				    struct rbti_node **replaced)	\
{									\
	struct rbti_node *old = prefix##_insert_near(t, hint, n);	\
									\
	*replaced = prefix##_rb()->tree_flags & RB_INSERT_REPLACES ?	\
		    old : NULL;						\
	return old && !*replaced ? -EEXIST : 0;				\
}									\
									\
static struct rbti_node *prefix##_ops_near_hint(struct rbti_tree *t,	\
						s64 key,		\
						struct rbti_node *hint)	\
{									\
	return prefix##_find_near(t, hint, &key);			\
}									\
									\
static struct rbti_node *prefix##_ops_erase(struct rbti_tree *t, s64 key)	\
{									\
	struct rbti_node *n = prefix##_find_first(t, &key);		\
									\
	if (n)								\
		prefix##_remove(t, n);					\
	return n;							\
}									\
									\
const struct rbti_tree_ops rbti_##prefix##_ops = {			\
	.name = #prefix,						\
	.api = "santos",						\
	.flags = rbti_flags,						\
	.insert = prefix##_ops_insert,					\
	.find = prefix##_ops_find,					\
	.near = prefix##_ops_near,					\
	.erase = prefix##_ops_erase,					\
	.insert_hint = prefix##_ops_insert_hint,			\
	.near_hint = prefix##_ops_near_hint,				\
}

#define RBTI_CACHED	(RBTI_LEFTMOST | RBTI_RIGHTMOST | RBTI_COUNT)

SANTOS_TREE_OPS(santos, RBTI_UNIQUE | RBTI_CACHED);
SANTOS_TREE_OPS(santos_dup, RBTI_DUP | RBTI_CACHED);
SANTOS_TREE_OPS(santos_aug, RBTI_UNIQUE | RBTI_COUNT | RBTI_AUGMENTED);
SANTOS_TREE_OPS(santos_replace, RBTI_UNIQUE | RBTI_REPLACE | RBTI_COUNT);
