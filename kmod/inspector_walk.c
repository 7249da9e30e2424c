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
	rbti_copy_entry(node, w->copy)->mark = w->mark;
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
 * rbti_walk_init_copy() - start a walk at the root of a tree or latch copy
 * @w: the walk
 * @t: the tree, locked until the walk is done
 * @copy: 0, or 1 for a latch tree's second copy
 */
void rbti_walk_init_copy(struct rbti_walk *w, struct rbti_tree *t,
			 unsigned int copy)
{
	struct rb_node *root = rbti_root(t, copy)->rb_node;

	w->depth = 0;
	w->copy = copy;
	w->too_deep = false;
	w->mark = ++t->marks;
	w->reached = 0;
	w->bad_from = NULL;
	w->bad_to = NULL;
	w->bad_cycle = false;
	if (root)
		rbti_walk_push(w, root);
}

/**
 * rbti_walk_init() - start a walk at the root of a tree (of copy 0)
 * @w: the walk
 * @t: the tree, locked until the walk is done
 */
void rbti_walk_init(struct rbti_walk *w, struct rbti_tree *t)
{
	rbti_walk_init_copy(w, t, 0);
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

static __printf(5, 6) bool rbti_fail(struct rbti_failure *fail,
				      const char *class, struct rb_node *node,
				      unsigned int copy, const char *fmt, ...)
{
	va_list args;
	int len = 0;

	fail->class = class;
	/* Blamed by the node, whatever copy it was found in. */
	fail->node = node ? &rbti_copy_entry(node, copy)->rb : NULL;
	if (copy)
		len = scnprintf(fail->msg, sizeof(fail->msg), "copy %u: ", copy);
	va_start(args, fmt);
	vsnprintf(fail->msg + len, sizeof(fail->msg) - len, fmt, args);
	va_end(args);
	return false;
}

/*
 * The shape of the tree: no child link to a node already reached (a cycle
 * or a shared child), and (copy 0) every allocated node reached.
 */
static bool rbti_check_shape(struct rbti_tree *t, struct rbti_walk *w,
			     unsigned int copy, struct rbti_failure *fail)
{
	struct rbti_node *n;
	unsigned long i = 0;

	rbti_walk_init_copy(w, t, copy);
	while (rbti_walk_next(w))
		;
	if (w->bad_from && w->bad_cycle)
		return rbti_fail(fail, "cycle", w->bad_from, copy,
				 "links to node %llu, itself or its ancestor",
				 rbti_copy_entry(w->bad_to, copy)->id);
	if (w->bad_from)
		return rbti_fail(fail, "shared", w->bad_from, copy,
				 "links to node %llu, already reached",
				 rbti_copy_entry(w->bad_to, copy)->id);
	/* Beyond the depth limit nothing is reached: `height` says so. */
	if (copy || w->too_deep || w->reached == t->nodes)
		return true;
	list_for_each_entry(n, &t->all, list) {
		rbti_cond_resched(++i);
		if (n->mark != w->mark)
			break;
	}
	return rbti_fail(fail, "unreachable",
			 list_entry_is_head(n, &t->all, list) ? NULL : &n->rb, 0,
			 "%lu nodes allocated, %lu reachable from the root",
			 t->nodes, w->reached);
}

/* The augment of node @e at the end of its subtree (frame @f) is right. */
static bool rbti_check_aug(struct rbti_tree *t, struct rbti_node *e,
			   const struct rbti_frame *f, struct rbti_failure *fail)
{
	struct rb_node *l = e->rb.rb_left, *r = e->rb.rb_right;
	s64 max = e->value;

	if (t->ops->aug == RBTI_AUG_SIZE) {
		if (e->size == f->size)
			return true;
		return rbti_fail(fail, "augment", &e->rb, 0,
				 "aug is %lu, its subtree has %lu nodes",
				 e->size, f->size);
	}
	/* The walk reached the children: their links are nodes. */
	if (l)
		max = max(max, rbti_entry(l)->max);
	if (r)
		max = max(max, rbti_entry(r)->max);
	if (e->max == max)
		return true;
	return rbti_fail(fail, "augment", &e->rb, 0,
			 "aug is %lld, the greatest %s in its subtree is %lld",
			 e->max, t->ops->value_name, max);
}

/*
 * The classes checked node by node, on copy @copy: parent, red-red,
 * black-height, order, dup-order and (copy 0) augment. The first and last
 * node in order go to *@firstp and *@lastp, the number of nodes to
 * *@count, the height to *@heightp.
 */
static bool rbti_check_nodes(struct rbti_tree *t, struct rbti_walk *w,
			     unsigned int copy, struct rbti_failure *fail,
			     struct rb_node **firstp, struct rb_node **lastp,
			     unsigned long *count, unsigned int *heightp)
{
	const unsigned int flags = t->ops->flags;
	struct rb_node *root = rbti_root(t, copy)->rb_node;
	struct rb_node *first = NULL, *prev = NULL;
	unsigned int height = 0, nil_blacks = 0;
	bool have_nil = false;
	unsigned long n = 0;
	enum rbti_visit v;

	if (root && rb_is_red(root))
		return rbti_fail(fail, "root-color", root, copy,
				 "the root is red");
	if (root && rb_parent(root))
		return rbti_fail(fail, "parent", root, copy,
				 "the root's parent pointer is not NIL");

	rbti_walk_init_copy(w, t, copy);
	while ((v = rbti_walk_step(w)) != RBTI_DONE) {
		struct rb_node *node = rbti_walk_node(w);
		struct rb_node *parent = rbti_walk_parent(w);
		struct rbti_frame *f = &w->stack[w->depth - 1];
		struct rbti_node *e = rbti_copy_entry(node, copy);
		struct rbti_node *p = prev ? rbti_copy_entry(prev, copy) : NULL;

		switch (v) {
		case RBTI_PRE:
			n++;
			height = max(height, w->depth);
			if (parent && rb_parent(node) != parent)
				return rbti_fail(fail, "parent", node, copy,
						 "parent pointer does not point at node %llu, which links to it",
						 rbti_copy_entry(parent, copy)->id);
			if (parent && rb_is_red(node) && rb_is_red(parent))
				return rbti_fail(fail, "red-red", node, copy,
						 "red child of red node %llu",
						 rbti_copy_entry(parent, copy)->id);
			if (node->rb_left && node->rb_right)
				break;
			/* This node ends a path at a NIL child. */
			if (!have_nil) {
				have_nil = true;
				nil_blacks = f->blacks;
			} else if (f->blacks != nil_blacks) {
				return rbti_fail(fail, "black-height", node, copy,
						 "%u black nodes on the path to its NIL child, %u on the first path",
						 f->blacks, nil_blacks);
			}
			break;
		case RBTI_IN:
			if (p && (e->key < p->key ||
				  (e->key == p->key && !(flags & RBTI_DUP))))
				return rbti_fail(fail, "order", node, copy,
						 "key %lld follows key %lld of node %llu",
						 e->key, p->key, p->id);
			if (p && e->key == p->key && e->id < p->id)
				return rbti_fail(fail, "dup-order", node, copy,
						 "equal key %lld follows newer node %llu",
						 e->key, p->id);
			if (!prev)
				first = node;
			prev = node;
			break;
		case RBTI_POST:
			if (!copy && (flags & RBTI_AUGMENTED) &&
			    !rbti_check_aug(t, e, f, fail))
				return false;
			break;
		case RBTI_DONE:
			break;
		}
	}
	if (w->too_deep)
		return rbti_fail(fail, "height", rbti_walk_node(w), copy,
				 "has a child deeper than %d levels",
				 RBTI_MAX_DEPTH);
	*firstp = first;
	*lastp = prev;
	*count = n;
	*heightp = height;
	return true;
}

/*
 * A valid tree has a black height of at least height / 2 and so at least
 * 2^(height / 2) - 1 nodes: height <= 2 * log2(n + 1), and as the black
 * height is a whole number, <= 2 * floor(log2(n + 1)).
 */
static bool rbti_check_height(struct rbti_tree *t, unsigned int copy,
			      unsigned int height, unsigned long n,
			      struct rbti_failure *fail)
{
	if (height > 2 * ilog2(n + 1))
		return rbti_fail(fail, "height", rbti_root(t, copy)->rb_node,
				 copy, "height %u exceeds 2 * log2(%lu + 1)",
				 height, n);
	return true;
}

/* The ids of copy @copy's nodes in order, at most @max of them. */
static unsigned long rbti_inorder_ids(struct rbti_tree *t, struct rbti_walk *w,
				      unsigned int copy, u64 *ids,
				      unsigned long max)
{
	unsigned long n = 0;
	enum rbti_visit v;

	rbti_walk_init_copy(w, t, copy);
	while ((v = rbti_walk_step(w)) != RBTI_DONE)
		if (v == RBTI_IN && n < max)
			ids[n++] = rbti_copy_entry(rbti_walk_node(w), copy)->id;
	return n;
}

/*
 * A latch tree's copy 1: the classes of one copy, then `latch` if its
 * nodes in order are not copy 0's. Returns false with @fail filled in.
 */
static bool rbti_check_latch(struct rbti_tree *t, struct rbti_walk *w,
			     struct rbti_failure *fail)
{
	struct rb_node *first, *last;
	unsigned long n0, n1, i, count;
	unsigned int height;
	u64 *ids;

	if (!rbti_check_shape(t, w, 1, fail) ||
	    !rbti_check_nodes(t, w, 1, fail, &first, &last, &count, &height) ||
	    !rbti_check_height(t, 1, height, count, fail))
		return false;
	ids = kvmalloc_array(2 * (t->nodes + 1), sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return rbti_fail(fail, "latch", NULL, 0,
				 "no memory to compare the copies");
	n0 = rbti_inorder_ids(t, w, 0, ids, t->nodes + 1);
	n1 = rbti_inorder_ids(t, w, 1, ids + t->nodes + 1, t->nodes + 1);
	for (i = 0; i < n0 && i < n1; i++)
		if (ids[i] != ids[t->nodes + 1 + i])
			break;
	if (i < n0 || i < n1) {
		u64 id = i < n0 ? ids[i] : ids[t->nodes + 1 + i];
		struct rbti_node *n;

		kvfree(ids);
		list_for_each_entry(n, &t->all, list)
			if (n->id == id)
				break;
		return rbti_fail(fail, "latch", &n->rb, 0,
				 "node %llu is number %lu in order in copy %u, not in copy %u",
				 id, i + 1, i < n0 ? 0 : 1, i < n0 ? 1 : 0);
	}
	kvfree(ids);
	return true;
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
 * order, and the augment by its rule once a subtree is done; then the
 * caches and the height bound for the whole tree. A latch tree's copy 1
 * is checked last, as a tree and against copy 0.
 *
 * Return: true if all hold; otherwise false with @fail filled in.
 */
bool rbti_check(struct rbti_tree *t, struct rbti_walk *w,
		struct rbti_failure *fail)
{
	const unsigned int flags = t->ops->flags;
	struct rb_node *root = rbti_root(t, 0)->rb_node, *first, *last;
	unsigned int height;
	unsigned long n;

	if (!rbti_check_shape(t, w, 0, fail) ||
	    !rbti_check_nodes(t, w, 0, fail, &first, &last, &n, &height))
		return false;
	if ((flags & RBTI_COUNT) && t->count != n)
		return rbti_fail(fail, "count", root, 0,
				 "cached count is %lu, %lu nodes reachable",
				 t->count, n);
	if ((flags & RBTI_LEFTMOST) && t->leftmost != first)
		return rbti_fail(fail, "leftmost", first, 0,
				 "cached leftmost is not the first node in order");
	if ((flags & RBTI_RIGHTMOST) && t->rightmost != last)
		return rbti_fail(fail, "rightmost", last, 0,
				 "cached rightmost is not the last node in order");
	if (!rbti_check_height(t, 0, height, n, fail))
		return false;
	if (flags & RBTI_LATCH)
		return rbti_check_latch(t, w, fail);
	return true;
}
