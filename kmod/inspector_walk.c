// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: walks that trust nothing but child pointers, and the
 * invariant check built on them.
 *
 * Everything here must survive a tree whose colours, keys, parent pointers,
 * caches or child links were broken on purpose, so no rb_next()/rb_prev()/
 * postorder helper (they climb parent pointers), no recursion (kernel
 * stack), and no node entered twice (a cycle or a shared child).
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/rbtree_augmented.h>
#include <linux/sched.h>

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

/* Whether @node is on the walk's path (the current node included). */
static bool rbti_walk_on_path(const struct rbti_walk *w,
			      const struct rb_node *node)
{
	unsigned int i;

	for (i = 0; i < w->depth; i++)
		if (w->stack[i].node == node)
			return true;
	return false;
}

static void rbti_walk_push(struct rbti_walk *w, struct rb_node *node)
{
	struct rbti_frame *f;

	if (rbti_reached(w, node)) {
		/* Not followed: the walk goes on as if the link were NIL. */
		if (!w->bad_from) {
			w->bad_from = w->depth ? rbti_walk_node(w) : NULL;
			w->bad_to = node;
			w->bad_cycle = rbti_walk_on_path(w, node);
		}
		return;
	}
	if (w->depth == RBTI_MAX_DEPTH) {
		w->too_deep = true;
		return;
	}
	rb_entry(node, struct rbti_node, rb)->mark = w->mark;
	rbti_cond_resched(++w->reached);
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
 * @t: the tree, locked until the walk is done
 */
void rbti_walk_init(struct rbti_walk *w, struct rbti_tree *t)
{
	w->depth = 0;
	w->too_deep = false;
	w->mark = ++t->marks;
	w->reached = 0;
	w->bad_from = NULL;
	w->bad_to = NULL;
	w->bad_cycle = false;
	if (t->root.rb_node)
		rbti_walk_push(w, t->root.rb_node);
}

/**
 * rbti_walk_step() - advance a walk to the next visit
 * @w: the walk
 *
 * Every node is reported three times: before its subtrees (%RBTI_PRE),
 * between them (%RBTI_IN) and after them (%RBTI_POST), with the node and
 * its path on top of @w->stack. At %RBTI_POST the top frame's size is the
 * number of nodes in the subtree. A child link to a node already reached
 * is not followed; the first such link is kept in @w->bad_from.
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
 * @t: the tree, locked
 * @w: scratch walk
 *
 * Return: the height, or %RBTI_MAX_DEPTH + 1 if the tree is deeper than
 * a walk goes.
 */
unsigned int rbti_height(struct rbti_tree *t, struct rbti_walk *w)
{
	unsigned int height = 0;

	rbti_walk_init(w, t);
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

/*
 * The shape of the tree: no child link to a node already reached (a cycle
 * or a shared child), and every allocated node reached.
 */
static bool rbti_check_shape(struct rbti_tree *t, struct rbti_walk *w,
			     struct rbti_failure *fail)
{
	struct rbti_node *n;
	unsigned long i = 0;

	rbti_walk_init(w, t);
	while (rbti_walk_next(w))
		;
	if (w->bad_from && w->bad_cycle)
		return rbti_fail(fail, "cycle", w->bad_from,
				 "links to node %llu, itself or its ancestor",
				 rbti_id(w->bad_to));
	if (w->bad_from)
		return rbti_fail(fail, "shared", w->bad_from,
				 "links to node %llu, already reached",
				 rbti_id(w->bad_to));
	/* Beyond the depth limit nothing is reached: `height` says so. */
	if (w->too_deep || w->reached == t->nodes)
		return true;
	list_for_each_entry(n, &t->all, list) {
		rbti_cond_resched(++i);
		if (n->mark != w->mark)
			break;
	}
	return rbti_fail(fail, "unreachable",
			 list_entry_is_head(n, &t->all, list) ? NULL : &n->rb,
			 "%lu nodes allocated, %lu reachable from the root",
			 t->nodes, w->reached);
}

/**
 * rbti_check() - check every red-black tree invariant and every cache
 * @t: the tree, locked
 * @w: scratch walk
 * @fail: where to describe the first violation
 *
 * A first walk checks the shape (`cycle`, `shared`, then `unreachable`
 * against the list of allocated nodes). A second walk through child
 * pointers checks, node by node, the other classes of DEBUGFS.md: parent
 * links and red-red when a node is entered, the black count of every path
 * that ends at a NIL child, key order (and the order of equal keys) in
 * order, and the augmented subtree size once a subtree is done; then the
 * caches and the height bound for the whole tree.
 *
 * Return: true if all hold; otherwise false with @fail filled in.
 */
bool rbti_check(struct rbti_tree *t, struct rbti_walk *w,
		struct rbti_failure *fail)
{
	const unsigned int flags = t->ops->flags;
	struct rb_node *root = t->root.rb_node, *first = NULL, *prev = NULL;
	unsigned int height = 0, nil_blacks = 0;
	bool have_nil = false;
	unsigned long n = 0;
	enum rbti_visit v;

	if (!rbti_check_shape(t, w, fail))
		return false;
	if (root && rb_is_red(root))
		return rbti_fail(fail, "root-color", root, "the root is red");
	if (root && rb_parent(root))
		return rbti_fail(fail, "parent", root,
				 "the root's parent pointer is not NIL");

	rbti_walk_init(w, t);
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
			if (!have_nil) {
				have_nil = true;
				nil_blacks = f->blacks;
			} else if (f->blacks != nil_blacks) {
				return rbti_fail(fail, "black-height", node,
						 "%u black nodes on the path to its NIL child, %u on the first path",
						 f->blacks, nil_blacks);
			}
			break;
		case RBTI_IN:
			if (p && (e->key < p->key ||
				  (e->key == p->key && !(flags & RBTI_DUP))))
				return rbti_fail(fail, "order", node,
						 "key %lld follows key %lld of node %llu",
						 e->key, p->key, p->id);
			if (p && e->key == p->key && e->id < p->id)
				return rbti_fail(fail, "dup-order", node,
						 "equal key %lld follows newer node %llu",
						 e->key, p->id);
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
