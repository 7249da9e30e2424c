// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: walks that trust nothing but child pointers, the
 * invariant check built on them, and teardown.
 *
 * Everything here must survive a tree whose colours, keys, parent pointers
 * or caches were broken on purpose, so no rb_next()/rb_prev()/postorder
 * helper (they climb parent pointers) and no recursion (kernel stack).
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/rbtree_augmented.h>
#include <linux/slab.h>

#include "inspector.h"

/* The steps of a node's visit, in order; see rbti_walk_step(). */
enum {
	RBTI_STEP_PRE,
	RBTI_STEP_LEFT,
	RBTI_STEP_IN,
	RBTI_STEP_RIGHT,
	RBTI_STEP_POST,
	RBTI_STEP_POP,
};

static void rbti_walk_push(struct rbti_walk *w, struct rb_node *node)
{
	struct rbti_frame *f;

	if (w->depth == RBTI_MAX_DEPTH) {
		w->too_deep = true;
		return;
	}
	f = &w->stack[w->depth];
	f->node = node;
	f->size = 1;
	f->blacks = (w->depth ? w->stack[w->depth - 1].blacks : 0) +
		    rb_is_black(node);
	f->state = RBTI_STEP_PRE;
	w->depth++;
}

/**
 * rbti_walk_init() - start a walk at the root of a tree
 * @w: the walk
 * @root: the tree
 */
void rbti_walk_init(struct rbti_walk *w, const struct rb_root *root)
{
	w->depth = 0;
	w->too_deep = false;
	if (root->rb_node)
		rbti_walk_push(w, root->rb_node);
}

/**
 * rbti_walk_step() - advance a walk to the next visit
 * @w: the walk
 *
 * Every node is reported three times: before its subtrees (%RBTI_PRE),
 * between them (%RBTI_IN) and after them (%RBTI_POST), with the node and
 * its path on top of @w->stack. At %RBTI_POST the top frame's size is the
 * number of nodes in the subtree.
 *
 * Return: the visit, or %RBTI_DONE at the end or when the next node would
 * be deeper than %RBTI_MAX_DEPTH (then @w->too_deep is set).
 */
enum rbti_visit rbti_walk_step(struct rbti_walk *w)
{
	while (w->depth && !w->too_deep) {
		struct rbti_frame *f = &w->stack[w->depth - 1];
		struct rb_node *child;

		switch (f->state++) {
		case RBTI_STEP_PRE:
			return RBTI_PRE;
		case RBTI_STEP_LEFT:
			child = f->node->rb_left;
			break;
		case RBTI_STEP_IN:
			return RBTI_IN;
		case RBTI_STEP_RIGHT:
			child = f->node->rb_right;
			break;
		case RBTI_STEP_POST:
			return RBTI_POST;
		default:
			w->depth--;
			if (w->depth)
				w->stack[w->depth - 1].size += f->size;
			continue;
		}
		if (child)
			rbti_walk_push(w, child);
	}
	return RBTI_DONE;
}

/**
 * rbti_walk_next() - the next node of a walk in preorder
 * @w: the walk
 *
 * Return: the node (also rbti_walk_node()), or NULL at the end of the walk
 * or if it went too deep.
 */
struct rb_node *rbti_walk_next(struct rbti_walk *w)
{
	enum rbti_visit v;

	while ((v = rbti_walk_step(w)) != RBTI_DONE)
		if (v == RBTI_PRE)
			return rbti_walk_node(w);
	return NULL;
}

/**
 * rbti_height() - nodes on the longest root-to-leaf path
 * @root: the tree
 * @w: scratch walk
 *
 * Return: the height, or %RBTI_MAX_DEPTH + 1 if the tree is deeper than
 * a walk goes.
 */
unsigned int rbti_height(const struct rb_root *root, struct rbti_walk *w)
{
	unsigned int height = 0;

	rbti_walk_init(w, root);
	while (rbti_walk_next(w))
		height = max(height, w->depth);
	return w->too_deep ? RBTI_MAX_DEPTH + 1 : height;
}

/**
 * rbti_black_height() - black nodes on the path from the root to its first
 *	NIL (always the leftmost path)
 * @root: the tree
 *
 * Return: the count, which is the black height of a valid tree.
 */
unsigned int rbti_black_height(const struct rb_root *root)
{
	const struct rb_node *n;
	unsigned int blacks = 0, depth = 0;

	for (n = root->rb_node; n && depth < RBTI_MAX_DEPTH; n = n->rb_left) {
		blacks += rb_is_black(n);
		depth++;
	}
	return blacks;
}

/**
 * rbti_contains() - whether a pointer is a node reachable from the root
 * @root: the tree
 * @w: scratch walk
 * @p: the pointer, never dereferenced
 *
 * Used to name the target of a parent pointer or cache that may be wrong.
 *
 * Return: true if @p is one of the tree's nodes.
 */
bool rbti_contains(const struct rb_root *root, struct rbti_walk *w,
		   const struct rb_node *p)
{
	struct rb_node *n;

	rbti_walk_init(w, root);
	while ((n = rbti_walk_next(w)))
		if (n == p)
			return true;
	return false;
}

/**
 * rbti_free_all() - free every node of a tree, through child pointers only
 * @root: the tree, empty on return
 *
 * Rotates each left child up until the top node has none, then frees it
 * and goes on with its right subtree: O(n), no stack, no allocation, and
 * no trust in colours or parent pointers, so it also empties a corrupted
 * tree.
 */
void rbti_free_all(struct rb_root *root)
{
	struct rb_node *n = root->rb_node, *l;

	while (n) {
		l = n->rb_left;
		if (l) {
			n->rb_left = l->rb_right;
			l->rb_right = n;
			n = l;
		} else {
			l = n->rb_right;
			kfree(rbti_entry(n));
			n = l;
		}
	}
	*root = RB_ROOT;
}

static __printf(4, 5) bool rbti_fail(struct rbti_failure *fail,
				      const char *class, struct rb_node *node,
				      const char *fmt, ...)
{
	va_list args;

	fail->class = class;
	fail->node = node;
	va_start(args, fmt);
	vsnprintf(fail->msg, sizeof(fail->msg), fmt, args);
	va_end(args);
	return false;
}

static u64 rbti_id(struct rb_node *rb)
{
	return rbti_entry(rb)->id;
}

/**
 * rbti_check() - check every red-black tree invariant and every cache
 * @t: the tree, locked
 * @w: scratch walk
 * @fail: where to describe the first violation
 *
 * One walk through child pointers checks, node by node, the classes of
 * DEBUGFS.md: parent links and red-red when a node is entered, the black
 * count of every path that ends at a NIL child, key order in order, and
 * the augmented subtree size once a subtree is done; then the caches and
 * the height bound for the whole tree.
 *
 * Return: true if all hold; otherwise false with @fail filled in.
 */
bool rbti_check(const struct rbti_tree *t, struct rbti_walk *w,
		struct rbti_failure *fail)
{
	const unsigned int flags = t->ops->flags;
	struct rb_node *root = t->root.rb_node, *first = NULL, *prev = NULL;
	unsigned int height = 0, nil_blacks = 0;
	unsigned long n = 0;
	enum rbti_visit v;

	if (root && rb_is_red(root))
		return rbti_fail(fail, "root-color", root, "the root is red");
	if (root && rb_parent(root))
		return rbti_fail(fail, "parent", root,
				 "the root's parent pointer is not NIL");

	rbti_walk_init(w, &t->root);
	while ((v = rbti_walk_step(w)) != RBTI_DONE) {
		struct rb_node *node = rbti_walk_node(w);
		struct rb_node *parent = rbti_walk_parent(w);
		struct rbti_frame *f = &w->stack[w->depth - 1];
		struct rbti_node *e = rbti_entry(node), *p = rbti_entry(prev);

		switch (v) {
		case RBTI_PRE:
			n++;
			height = max(height, w->depth);
			if (parent && rb_parent(node) != parent)
				return rbti_fail(fail, "parent", node,
						 "parent pointer does not point at node %llu, which links to it",
						 rbti_id(parent));
			if (parent && rb_is_red(node) && rb_is_red(parent))
				return rbti_fail(fail, "red-red", node,
						 "red child of red node %llu",
						 rbti_id(parent));
			if (node->rb_left && node->rb_right)
				break;
			/* This node ends a path at a NIL child. */
			if (!nil_blacks)
				nil_blacks = f->blacks;
			else if (f->blacks != nil_blacks)
				return rbti_fail(fail, "black-height", node,
						 "%u black nodes on the path to its NIL child, %u on the first path",
						 f->blacks, nil_blacks);
			break;
		case RBTI_IN:
			if (p && (e->key < p->key ||
				  (e->key == p->key && !(flags & RBTI_DUP))))
				return rbti_fail(fail, "order", node,
						 "key %lld follows key %lld of node %llu",
						 e->key, p->key, p->id);
			if (!prev)
				first = node;
			prev = node;
			break;
		case RBTI_POST:
			if ((flags & RBTI_AUGMENTED) && e->size != f->size)
				return rbti_fail(fail, "augment", node,
						 "aug is %lu, its subtree has %lu nodes",
						 e->size, f->size);
			break;
		case RBTI_DONE:
			break;
		}
	}
	if (w->too_deep)
		return rbti_fail(fail, "height", rbti_walk_node(w),
				 "has a child deeper than %d levels",
				 RBTI_MAX_DEPTH);
	if ((flags & RBTI_COUNT) && t->count != n)
		return rbti_fail(fail, "count", root,
				 "cached count is %lu, %lu nodes reachable",
				 t->count, n);
	if ((flags & RBTI_LEFTMOST) && t->leftmost != first)
		return rbti_fail(fail, "leftmost", first,
				 "cached leftmost is not the first node in order");
	if ((flags & RBTI_RIGHTMOST) && t->rightmost != prev)
		return rbti_fail(fail, "rightmost", prev,
				 "cached rightmost is not the last node in order");
	/*
	 * A valid tree has a black height of at least height / 2 and so at
	 * least 2^(height / 2) - 1 nodes: height <= 2 * log2(n + 1), and as
	 * the black height is a whole number, <= 2 * floor(log2(n + 1)).
	 */
	if (height > 2 * ilog2(n + 1))
		return rbti_fail(fail, "height", root,
				 "height %u exceeds 2 * log2(%lu + 1)",
				 height, n);
	return true;
}
