// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: Kent Overstreet's rb_insert(), rb_insert_allow_dup(), rb_search()
 * and rb_find_first_greater(), out of line and inlined (_rb_insert() & co., called
 * here with a constant comparison, as a caller would); the checker's own
 * behaviour on a broken tree; and all APIs side by side (mainline's
 * rb_find_add()/rb_add() included) on the same sequences.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_kunit.h"

static int rbt_node_cmp(const struct rb_node *l, const struct rb_node *r)
{
	return rbt_cmp(&rbt_of(l)->key, &rbt_of(r)->key);
}

/* An on-stack object holding only a key, as rb_search()'s callers use. */
#define RBT_SEARCH(k) (&((struct rbt_obj){ .key = (k) }).node)

static unsigned int rbt_nodes(const struct rb_root *root)
{
	struct rb_node *node;
	unsigned int n = 0;

	for (node = rb_first(root); node && n <= RBT_MAX; node = rb_next(node))
		n++;
	return n;
}

/*
 * rb_insert() links a new key (NULL) and refuses an equal one, returning
 * the node in the way, as rb_find_add() does.
 */
static void rbtree_generic_node_test_insert_unique(struct kunit *test)
{
	struct rbt_obj *a = rbt_new(test, 5), *b = rbt_new(test, 5);
	struct rbt_obj *c = rbt_new(test, 7);
	struct rb_root root = RB_ROOT;
	char buf[RBT_VERDICT];

	KUNIT_EXPECT_NULL(test, rb_insert(&root, &a->node, rbt_node_cmp));
	KUNIT_EXPECT_NULL(test, rb_insert(&root, &c->node, rbt_node_cmp));
	KUNIT_EXPECT_PTR_EQ(test, rb_insert(&root, &b->node, rbt_node_cmp),
			    &a->node);
	KUNIT_EXPECT_PTR_EQ(test, _rb_insert(&root, &b->node, rbt_node_cmp),
			    &a->node);
	KUNIT_EXPECT_EQ(test, rbt_nodes(&root), 2U);
	KUNIT_EXPECT_PTR_EQ(test, root.rb_node, &a->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_next(&a->node), &c->node);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&b->node));
	KUNIT_EXPECT_STREQ(test, rbt_check(&root, RBT_AUG_NONE, buf), "ok");
}

/* rb_insert_allow_dup() puts an equal key after the present ones. */
static void rbtree_generic_node_test_insert_dup_order(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 3, 2, 3, 1 };
	static const unsigned int order[] = { 1, 5, 3, 0, 2, 4 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rb_root root = RB_ROOT;
	struct rb_node *node;
	char buf[RBT_VERDICT];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		rb_insert_allow_dup(&root, &objs[i]->node, rbt_node_cmp);
	}
	node = rb_first(&root);
	for (i = 0; i < ARRAY_SIZE(order) && node; i++, node = rb_next(node))
		KUNIT_EXPECT_PTR_EQ(test, node, &objs[order[i]]->node);
	KUNIT_EXPECT_EQ(test, i, (unsigned int)ARRAY_SIZE(order));
	KUNIT_EXPECT_NULL(test, node);
	KUNIT_EXPECT_STREQ(test, rbt_check(&root, RBT_AUG_NONE, buf), "ok");
}

/* rb_search() finds an equal node or NULL, also on an empty tree. */
static void rbtree_generic_node_test_search(struct kunit *test)
{
	struct rb_root root = RB_ROOT;
	s64 k;

	KUNIT_EXPECT_NULL(test, rb_search(&root, RBT_SEARCH(0), rbt_node_cmp));
	for (k = 0; k < 10; k++)
		rb_insert(&root, &rbt_new(test, 2 * k)->node, rbt_node_cmp);
	for (k = -1; k < 21; k++)
		KUNIT_EXPECT_EQ(test,
				rbt_key(rbt_of(rb_search(&root, RBT_SEARCH(k),
							 rbt_node_cmp))),
				k >= 0 && k <= 18 && k % 2 == 0 ? k : RBT_ABSENT);
}

/*
 * rb_find_first_greater() is the first node strictly above the key (the
 * upper bound), at both ends; it and rb_search() take a const root.
 */
static void rbtree_generic_node_test_first_greater(struct kunit *test)
{
	static const s64 keys[] = { 10, 20, 20, 30 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rb_root root = RB_ROOT;
	const struct rb_root *croot = &root;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, rb_find_first_greater(croot, RBT_SEARCH(0),
						      rbt_node_cmp));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		rb_insert_allow_dup(&root, &objs[i]->node, rbt_node_cmp);
	}
	KUNIT_EXPECT_PTR_EQ(test, rb_find_first_greater(croot, RBT_SEARCH(S64_MIN),
							rbt_node_cmp),
			    &objs[0]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_find_first_greater(croot, RBT_SEARCH(9),
							rbt_node_cmp),
			    &objs[0]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_find_first_greater(croot, RBT_SEARCH(10),
							rbt_node_cmp),
			    &objs[1]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_find_first_greater(croot, RBT_SEARCH(20),
							rbt_node_cmp),
			    &objs[3]->node);
	KUNIT_EXPECT_NULL(test, rb_find_first_greater(croot, RBT_SEARCH(30),
						      rbt_node_cmp));
	KUNIT_EXPECT_NULL(test, rb_find_first_greater(croot, RBT_SEARCH(S64_MAX),
						      rbt_node_cmp));
	KUNIT_EXPECT_PTR_EQ(test, rb_search(croot, RBT_SEARCH(30), rbt_node_cmp),
			    &objs[3]->node);
}

/*
 * The inlined versions, called here with a constant comparison as their
 * callers do, build and search exactly as the out-of-line ones.
 */
static void rbtree_generic_node_test_inline_matches(struct kunit *test)
{
	struct rb_root inl = RB_ROOT, ool = RB_ROOT;
	char buf[RBT_VERDICT];
	unsigned int step;
	s64 k;

	for (step = 0; step < RBT_STEPS; step++) {
		k = rbt_rand_key(test);
		KUNIT_ASSERT_EQ(test,
				rbt_key(rbt_of(_rb_insert(&inl, &rbt_new(test, k)->node,
							  rbt_node_cmp))),
				rbt_key(rbt_of(rb_insert(&ool, &rbt_new(test, k)->node,
							 rbt_node_cmp))));
		k = rbt_rand_key(test);
		KUNIT_ASSERT_EQ(test,
				rbt_key(rbt_of(_rb_search(&inl, RBT_SEARCH(k),
							  rbt_node_cmp))),
				rbt_key(rbt_of(rb_search(&ool, RBT_SEARCH(k),
							 rbt_node_cmp))));
		KUNIT_ASSERT_EQ(test,
				rbt_key(rbt_of(_rb_find_first_greater(&inl, RBT_SEARCH(k),
								      rbt_node_cmp))),
				rbt_key(rbt_of(rb_find_first_greater(&ool, RBT_SEARCH(k),
								     rbt_node_cmp))));
	}
	KUNIT_EXPECT_EQ(test, rbt_nodes(&inl), rbt_nodes(&ool));
	KUNIT_EXPECT_STREQ(test, rbt_check(&inl, RBT_AUG_NONE, buf), "ok");
	KUNIT_EXPECT_STREQ(test, rbt_check(&ool, RBT_AUG_NONE, buf), "ok");
}

/* RB_FIRST/LAST/NEXT/PREV and container_of_or_null() map NULL to NULL. */
static void rbtree_generic_node_test_helpers(struct kunit *test)
{
	struct rbt_obj *a = rbt_new(test, S64_MIN), *b = rbt_new(test, S64_MAX);
	struct rb_root root = RB_ROOT;
	struct rb_node *none = NULL;

	KUNIT_EXPECT_NULL(test, container_of_or_null(none, struct rbt_obj, node));
	KUNIT_EXPECT_NULL(test, RB_FIRST(&root, struct rbt_obj, node));
	KUNIT_EXPECT_NULL(test, RB_LAST(&root, struct rbt_obj, node));
	rb_insert(&root, &b->node, rbt_node_cmp);
	rb_insert(&root, &a->node, rbt_node_cmp);
	KUNIT_EXPECT_PTR_EQ(test, RB_FIRST(&root, struct rbt_obj, node), a);
	KUNIT_EXPECT_PTR_EQ(test, RB_LAST(&root, struct rbt_obj, node), b);
	KUNIT_EXPECT_PTR_EQ(test, RB_NEXT(a, node), b);
	KUNIT_EXPECT_PTR_EQ(test, RB_PREV(b, node), a);
	KUNIT_EXPECT_NULL(test, RB_NEXT(b, node));
	KUNIT_EXPECT_NULL(test, RB_PREV(a, node));
}

/*
 * The checker fails a tree whose child links loop, whatever the parent
 * links say, without recursing: a child link back to the root, and a
 * chain deeper than its stack whose parent links all agree.
 */
static void rbtree_generic_node_test_checker_bounded(struct kunit *test)
{
	struct rbt_obj *objs[RBT_MAX_HEIGHT + 1];
	struct rb_root root = RB_ROOT;
	char buf[RBT_VERDICT];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = rbt_new(test, i);
	rb_insert(&root, &objs[1]->node, rbt_node_cmp);
	rb_insert(&root, &objs[0]->node, rbt_node_cmp);
	objs[0]->node.rb_left = &objs[1]->node;
	KUNIT_EXPECT_STREQ(test, rbt_check(&root, RBT_AUG_NONE, buf),
			   "parent: node 1 has a wrong parent");

	/* A black chain to the right, each node its child's parent. */
	root.rb_node = &objs[0]->node;
	rb_set_parent_color(&objs[0]->node, NULL, RB_BLACK);
	objs[0]->node.rb_left = NULL;
	for (i = 1; i < ARRAY_SIZE(objs); i++) {
		objs[i - 1]->node.rb_right = &objs[i]->node;
		rb_set_parent_color(&objs[i]->node, &objs[i - 1]->node, RB_BLACK);
		objs[i]->node.rb_left = NULL;
		objs[i]->node.rb_right = NULL;
	}
	KUNIT_EXPECT_STREQ(test, rbt_check(&root, RBT_AUG_NONE, buf),
			   "height: node 32 deeper than 32");
}

static struct kunit_case rbtree_generic_node_cases[] = {
	KUNIT_CASE(rbtree_generic_node_test_insert_unique),
	KUNIT_CASE(rbtree_generic_node_test_insert_dup_order),
	KUNIT_CASE(rbtree_generic_node_test_search),
	KUNIT_CASE(rbtree_generic_node_test_first_greater),
	KUNIT_CASE(rbtree_generic_node_test_inline_matches),
	KUNIT_CASE(rbtree_generic_node_test_helpers),
	KUNIT_CASE(rbtree_generic_node_test_checker_bounded),
	{}
};

RBT_SUITE(rbtree_generic_node);
