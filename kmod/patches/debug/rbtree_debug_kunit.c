// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for CONFIG_DEBUG_RBTREE (lib/rbtree_debug.c): the verdict of
 * rb_debug_check_link() and rb_debug_check_node() on a valid tree and on
 * each kind of broken link, the corruptions a stray write leaves (a
 * parent link pointing elsewhere, a node detached from its parent, a
 * parent linking to a node twice, a child link pointing up), an insertion
 * into a taken or foreign slot, a second insertion of a node already in
 * the tree (with and without a right child), an erase of a node not in a
 * tree; that nodes never inserted, or erased, pass whatever their fields
 * hold; that the inline check agrees with the verdict; that the quiet
 * erase of a cleared node and rb_insert_color() of a node that was not
 * linked write nothing.  The verdicts report nothing; a refused write
 * reports through CHECK_DATA_CORRUPTION(), a WARNING, and is tested
 * outside KUnit.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/rbtree_augmented.h>

#define RBK_N 64

struct rbk_node {
	struct rb_node rb;
	u32 key;
};

static bool rbk_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct rbk_node, rb)->key < rb_entry(b, struct rbk_node, rb)->key;
}

/* @n nodes, not in a tree, keys 0..n-1 in a scattered order. */
static struct rbk_node *rbk_nodes(struct kunit *test, unsigned int n)
{
	struct rbk_node *nodes = kunit_kcalloc(test, n, sizeof(*nodes), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nodes);
	for (i = 0; i < n; i++) {
		nodes[i].key = (i * 37) % n;
		RB_CLEAR_NODE(&nodes[i].rb);
	}
	return nodes;
}

/* A tree of @n nodes inserted with rb_add(). */
static struct rbk_node *rbk_tree(struct kunit *test, struct rb_root *root, unsigned int n)
{
	struct rbk_node *nodes = rbk_nodes(test, n);
	unsigned int i;

	*root = RB_ROOT;
	for (i = 0; i < n; i++)
		rb_add(&nodes[i].rb, root, rbk_less);
	return nodes;
}

/* A valid tree: every node and every empty slot passes. */
static void rbk_test_debug_valid(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rbk_node *new = rbk_nodes(test, 1);
	struct rb_node *rb;
	unsigned int i, faults = 0;

	for (i = 0; i < RBK_N; i++) {
		rb = &nodes[i].rb;
		faults += rb_debug_check_node(rb, &root) != RB_FAULT_NONE;
		faults += !__rb_node_links_valid(rb, &root);
		if (!rb->rb_left)
			faults += rb_debug_check_link(&new->rb, rb, &rb->rb_left) != RB_FAULT_NONE;
	}
	KUNIT_EXPECT_EQ(test, faults, 0);
	root = RB_ROOT;
	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&new->rb, NULL, &root.rb_node), RB_FAULT_NONE);
}

/* A node of a tree of RBK_N whose parent and both children exist. */
static struct rb_node *rbk_inner(struct kunit *test, struct rb_root *root)
{
	struct rbk_node *nodes = rbk_tree(test, root, RBK_N);
	unsigned int i;

	for (i = 0; i < RBK_N; i++)
		if (rb_parent(&nodes[i].rb) && nodes[i].rb.rb_left && nodes[i].rb.rb_right)
			return &nodes[i].rb;
	KUNIT_FAIL(test, "no inner node in a tree of %d", RBK_N);
	return root->rb_node;
}

static void rbk_test_debug_slot_taken(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);
	struct rbk_node *new = rbk_nodes(test, 1);

	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&new->rb, rb, &rb->rb_left),
			RB_FAULT_SLOT_TAKEN);
	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&new->rb, NULL, &root.rb_node),
			RB_FAULT_SLOT_TAKEN);
}

static void rbk_test_debug_slot_not_child(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root), *other = rb_parent(rb);
	struct rbk_node *new = rbk_nodes(test, 1);

	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&new->rb, other, &rb->rb_left),
			RB_FAULT_SLOT_NOT_CHILD);
}

static void rbk_test_debug_link_self(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);

	KUNIT_EXPECT_EQ(test, rb_debug_check_link(rb, rb, &rb->rb_left), RB_FAULT_LINK_SELF);
}

/*
 * Erasing a node that was never inserted, or erased already: cleared and
 * childless (mainline's quiet no-op), cleared with the children it had,
 * or zeroed.
 */
static void rbk_test_debug_not_in_tree(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);
	struct rbk_node *new = rbk_nodes(test, 2);

	KUNIT_EXPECT_EQ(test, rb_debug_check_node(&new[0].rb, &root), RB_FAULT_CLEARED);
	memset(&new[1].rb, 0, sizeof(new[1].rb));
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(&new[1].rb, &root), RB_FAULT_NOT_CHILD);
	KUNIT_EXPECT_FALSE(test, __rb_node_links_valid(&new[1].rb, &root));
	rb_erase(rb, &root);
	RB_CLEAR_NODE(rb);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_CLEARED_CHILDREN);
	KUNIT_EXPECT_FALSE(test, __rb_node_links_valid(rb, &root));
}

/* rb_erase() of a cleared node without children: quiet, nothing written. */
static void rbk_test_debug_quiet_erase(struct kunit *test)
{
	struct rb_root root, saved;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rbk_node *copy = kunit_kmalloc_array(test, RBK_N, sizeof(*copy), GFP_KERNEL);
	struct rbk_node *new = rbk_nodes(test, 1), was;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, copy);
	memcpy(copy, nodes, RBK_N * sizeof(*copy));
	saved = root;
	was = *new;
	rb_erase(&new->rb, &root);
	KUNIT_EXPECT_PTR_EQ(test, root.rb_node, saved.rb_node);
	KUNIT_EXPECT_EQ(test, memcmp(copy, nodes, RBK_N * sizeof(*copy)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&was, new, sizeof(was)), 0);
}

/* The inspector's "parent": the node's parent link points elsewhere. */
static void rbk_test_debug_parent(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);

	rb_set_parent(rb, rb->rb_left);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_NOT_CHILD);
}

/* "detach": the parent's link to the node is gone. */
static void rbk_test_debug_detach(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root), *parent = rb_parent(rb);

	if (parent->rb_left == rb)
		parent->rb_left = NULL;
	else
		parent->rb_right = NULL;
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_NOT_CHILD);
}

/* A node without a parent that is not the root. */
static void rbk_test_debug_not_root(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);

	rb_set_parent(rb, NULL);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_NOT_CHILD);
}

/* "share": the parent links to the node from both sides. */
static void rbk_test_debug_share(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root), *parent = rb_parent(rb);

	parent->rb_left = rb;
	parent->rb_right = rb;
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_SHARED);
}

/* "cycle": the node's left link points up at its parent. */
static void rbk_test_debug_cycle(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);

	rb->rb_left = rb_parent(rb);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_LEFT_PARENT);
}

/* The right child's parent link points elsewhere. */
static void rbk_test_debug_right_parent(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);

	rb_set_parent(rb->rb_right, rb->rb_left);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_RIGHT_PARENT);
}

/* The slot rb_add() would link @node at: its descent, equal keys right. */
static struct rb_node **rbk_slot(struct rb_root *root, struct rb_node *node,
				 struct rb_node **parent)
{
	struct rb_node **link = &root->rb_node;

	*parent = NULL;
	while (*link) {
		*parent = *link;
		link = rbk_less(node, *parent) ? &(*parent)->rb_left : &(*parent)->rb_right;
	}
	return link;
}

/*
 * A second insert of a node already in the tree ends at its own empty
 * right slot (no right child) or in its right subtree (one): found both
 * ways.
 */
static void rbk_test_debug_double_insert(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rb_node *parent, **link;
	unsigned int i, self = 0, ancestor = 0;

	for (i = 0; i < RBK_N; i++) {
		link = rbk_slot(&root, &nodes[i].rb, &parent);
		if (nodes[i].rb.rb_right) {
			ancestor++;
			KUNIT_EXPECT_EQ(test, rb_debug_check_link(&nodes[i].rb, parent, link),
					RB_FAULT_LINK_ANCESTOR);
		} else {
			self++;
			KUNIT_EXPECT_EQ(test, rb_debug_check_link(&nodes[i].rb, parent, link),
					RB_FAULT_LINK_SELF);
		}
	}
	KUNIT_EXPECT_GT(test, self, 0);
	KUNIT_EXPECT_GT(test, ancestor, 0);
}

/*
 * No false positive: a node that was never inserted (its fields garbage)
 * or was erased and not cleared (its links stale) may be linked; none of
 * its fields is read.
 */
static void rbk_test_debug_fresh_nodes(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rbk_node *garbage = rbk_nodes(test, 1);
	struct rb_node *parent, **link, *rb = &nodes[RBK_N / 2].rb;

	memset(&garbage->rb, 0xa5, sizeof(garbage->rb));
	garbage->key = RBK_N;
	link = rbk_slot(&root, &garbage->rb, &parent);
	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&garbage->rb, parent, link), RB_FAULT_NONE);

	rb_erase(rb, &root);
	link = rbk_slot(&root, rb, &parent);
	KUNIT_EXPECT_EQ(test, rb_debug_check_link(rb, parent, link), RB_FAULT_NONE);
}

/* A parent link in a cycle: the walk stops at RB_DEBUG_MAX_DEPTH. */
static void rbk_test_debug_too_deep(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, 3);

	rb_set_parent(&nodes[0].rb, &nodes[1].rb);
	rb_set_parent(&nodes[1].rb, &nodes[0].rb);
	nodes[0].rb.rb_left = NULL;
	KUNIT_EXPECT_EQ(test, rb_debug_check_link(&nodes[2].rb, &nodes[0].rb,
						  &nodes[0].rb.rb_left), RB_FAULT_TOO_DEEP);
}

static void rbk_noop_propagate(struct rb_node *rb, struct rb_node *stop)
{
}

static void rbk_noop_pair(struct rb_node *old, struct rb_node *new)
{
}

static const struct rb_augment_callbacks rbk_noop_callbacks = {
	.propagate = rbk_noop_propagate,
	.copy = rbk_noop_pair,
	.rotate = rbk_noop_pair,
};

/*
 * __rb_linked(): true just after rb_link_node(), false for a node it did
 * not link (cleared, zeroed, or with children); rb_insert_color_cached()
 * and rb_insert_augmented_cached() of a node that was not linked touch
 * neither the tree nor the cache.
 */
static void rbk_test_debug_not_linked(struct kunit *test)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct rbk_node *nodes = rbk_nodes(test, 4), saved[4];
	struct rb_node *first, *out = &nodes[2].rb;
	int round;

	rb_add_cached(&nodes[0].rb, &root, rbk_less);
	rb_add_cached(&nodes[1].rb, &root, rbk_less);
	first = rb_first_cached(&root);
	rb_link_node(&nodes[3].rb, first, &first->rb_left);
	KUNIT_EXPECT_TRUE(test, __rb_linked(&nodes[3].rb, &root.rb_root));
	first->rb_left = NULL;
	KUNIT_EXPECT_FALSE(test, __rb_linked(&nodes[3].rb, &root.rb_root));
	KUNIT_EXPECT_FALSE(test, __rb_linked(root.rb_root.rb_node, &root.rb_root));

	/* @out cleared (as rbk_nodes() leaves it), then zeroed. */
	for (round = 0; round < 2; round++) {
		if (round)
			memset(out, 0, sizeof(*out));
		KUNIT_EXPECT_FALSE(test, __rb_linked(out, &root.rb_root));
		memcpy(saved, nodes, sizeof(saved));
		rb_insert_color_cached(out, &root, true);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), first);
		rb_insert_augmented_cached(out, &root, true, &rbk_noop_callbacks);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), first);
		KUNIT_EXPECT_EQ(test, memcmp(saved, nodes, sizeof(saved)), 0);
	}
	KUNIT_EXPECT_NULL(test, rb_next(rb_next(first)));
}

static struct kunit_case rbk_debug_cases[] = {
	KUNIT_CASE(rbk_test_debug_valid),
	KUNIT_CASE(rbk_test_debug_slot_taken),
	KUNIT_CASE(rbk_test_debug_slot_not_child),
	KUNIT_CASE(rbk_test_debug_link_self),
	KUNIT_CASE(rbk_test_debug_not_in_tree),
	KUNIT_CASE(rbk_test_debug_quiet_erase),
	KUNIT_CASE(rbk_test_debug_parent),
	KUNIT_CASE(rbk_test_debug_detach),
	KUNIT_CASE(rbk_test_debug_not_root),
	KUNIT_CASE(rbk_test_debug_share),
	KUNIT_CASE(rbk_test_debug_cycle),
	KUNIT_CASE(rbk_test_debug_right_parent),
	KUNIT_CASE(rbk_test_debug_double_insert),
	KUNIT_CASE(rbk_test_debug_fresh_nodes),
	KUNIT_CASE(rbk_test_debug_too_deep),
	KUNIT_CASE(rbk_test_debug_not_linked),
	{}
};

static struct kunit_suite rbk_debug_suite = {
	.name = "rbtree_debug",
	.test_cases = rbk_debug_cases,
};

kunit_test_suites(&rbk_debug_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests for CONFIG_DEBUG_RBTREE");
MODULE_LICENSE("GPL");
