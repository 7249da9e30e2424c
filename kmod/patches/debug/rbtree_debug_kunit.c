// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for CONFIG_DEBUG_RBTREE (lib/rbtree_debug.c): the verdict of
 * rb_debug_check_link() and rb_debug_check_node() on a valid tree and on
 * each kind of broken link, the corruptions a stray write leaves (a
 * parent link pointing elsewhere, a node detached from its parent, a
 * parent linking to a node twice, a child link pointing up), an insertion
 * into a taken or foreign slot, an erase of a node not in a tree, and
 * that a node a refused insertion left out is not cached as the leftmost.
 * The checks report nothing themselves: the *_valid_or_report() functions
 * that lib/rbtree.c calls do, through CHECK_DATA_CORRUPTION().
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

/* Erasing a node that was never inserted, or erased already. */
static void rbk_test_debug_not_in_tree(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb = rbk_inner(test, &root);
	struct rbk_node *new = rbk_nodes(test, 1);

	KUNIT_EXPECT_EQ(test, rb_debug_check_node(&new->rb, &root), RB_FAULT_NOT_IN_TREE);
	rb_erase(rb, &root);
	RB_CLEAR_NODE(rb);
	KUNIT_EXPECT_EQ(test, rb_debug_check_node(rb, &root), RB_FAULT_NOT_IN_TREE);
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
 * What a refused rb_link_node() leaves (no parent, no children, not the
 * root) is never cached as the leftmost, by rb_insert_color_cached() or
 * rb_insert_augmented_cached(); the nodes of the tree are not "refused".
 */
static void rbk_test_debug_refused_not_cached(struct kunit *test)
{
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct rbk_node *nodes = rbk_nodes(test, 3);
	struct rb_node *first, *out = &nodes[2].rb;

	rb_add_cached(&nodes[0].rb, &root, rbk_less);
	rb_add_cached(&nodes[1].rb, &root, rbk_less);
	first = rb_first_cached(&root);
	KUNIT_EXPECT_FALSE(test, __rb_link_refused(&nodes[0].rb, &root.rb_root));
	KUNIT_EXPECT_FALSE(test, __rb_link_refused(&nodes[1].rb, &root.rb_root));

	out->__rb_parent_color = 0;
	out->rb_left = NULL;
	out->rb_right = NULL;
	KUNIT_EXPECT_TRUE(test, __rb_link_refused(out, &root.rb_root));
	rb_insert_color_cached(out, &root, true);
	KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), first);

	out->__rb_parent_color = 0;
	rb_insert_augmented_cached(out, &root, true, &rbk_noop_callbacks);
	KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), first);
	KUNIT_EXPECT_NULL(test, rb_next(rb_next(first)));
}

/* Every verdict reads differently; a value out of range is named so. */
static void rbk_test_debug_fault_str(struct kunit *test)
{
	enum rb_debug_fault a, b;

	for (a = RB_FAULT_NONE; a <= RB_FAULT_RIGHT_PARENT; a++) {
		KUNIT_EXPECT_STRNEQ(test, rb_debug_fault_str(a), "unknown fault");
		for (b = RB_FAULT_NONE; b < a; b++)
			KUNIT_EXPECT_STRNEQ(test, rb_debug_fault_str(a), rb_debug_fault_str(b));
	}
	KUNIT_EXPECT_STREQ(test, rb_debug_fault_str(RB_FAULT_RIGHT_PARENT + 1), "unknown fault");
}

static struct kunit_case rbk_debug_cases[] = {
	KUNIT_CASE(rbk_test_debug_valid),
	KUNIT_CASE(rbk_test_debug_slot_taken),
	KUNIT_CASE(rbk_test_debug_slot_not_child),
	KUNIT_CASE(rbk_test_debug_link_self),
	KUNIT_CASE(rbk_test_debug_not_in_tree),
	KUNIT_CASE(rbk_test_debug_parent),
	KUNIT_CASE(rbk_test_debug_detach),
	KUNIT_CASE(rbk_test_debug_not_root),
	KUNIT_CASE(rbk_test_debug_share),
	KUNIT_CASE(rbk_test_debug_cycle),
	KUNIT_CASE(rbk_test_debug_right_parent),
	KUNIT_CASE(rbk_test_debug_refused_not_cached),
	KUNIT_CASE(rbk_test_debug_fault_str),
	{}
};

static struct kunit_suite rbk_debug_suite = {
	.name = "rbtree_debug",
	.test_cases = rbk_debug_cases,
};

kunit_test_suites(&rbk_debug_suite);

MODULE_DESCRIPTION("KUnit tests for CONFIG_DEBUG_RBTREE");
MODULE_LICENSE("GPL");
