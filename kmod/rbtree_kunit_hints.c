// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hinted operations of RB_DEFINE_INTERFACE(), find_near() and
 * insert_near(), on every kind of tree (unique, equal keys kept,
 * replacing; plain, size and max augments): from every hint their answer
 * is the one a search from the root gives, and a hint that is no longer
 * in the tree, the new object itself, a hint with circular parent links
 * or one from another tree changes nothing.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_kunit_named.h"

static const struct rbt_iface *const rbt_near_ifaces[] = {
	&rbt_set_iface, &rbt_bag_iface, &rbt_aug_iface, &rbt_augbag_iface,
	&rbt_repl_iface, &rbt_augrepl_iface, &rbt_max_iface,
	&rbt_maxbag_iface, &rbt_maxrepl_iface,
};

KUNIT_ARRAY_PARAM(rbt_near, rbt_near_ifaces, rbt_iface_desc);

static const struct rbt_iface *rbt_param(struct kunit *test)
{
	return *(const struct rbt_iface *const *)test->param_value;
}

/* A tree of keys 0, 2, ..., 2 * (n - 1), each twice on dup trees. */
static void rbt_fill_even(struct kunit *test, const struct rbt_iface *t,
			  struct rbt_seq *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 2 * n; i++)
		KUNIT_ASSERT_STREQ(test, rbt_insert_checked(t, s, NULL,
							    rbt_new(test, 2 * (i % n))),
				   "ok");
}

/*
 * Insert a new object with key @k from @hint (NULL: the new object as its
 * own hint), verify, then undo the insert so that the next call sees the
 * same tree.
 */
static const char *rbt_insert_near_undo(struct kunit *test,
					const struct rbt_iface *t,
					struct rbt_seq *s, struct rbt_obj *hint,
					s64 k)
{
	struct rbt_obj *obj = rbt_new(test, k);
	unsigned int i;

	if (strcmp(rbt_insert_checked(t, s, hint ?: obj, obj), "ok") ||
	    strcmp(rbt_verify(t, s), "ok"))
		return s->verdict;
	i = rbt_index_of(&s->m, obj);
	if (i == s->m.n)
		return s->verdict;
	t->op(s, RBT_REMOVE, obj, NULL, NULL);
	rbt_model_delete(&s->m, i);
	/* Put back the object it replaced, if it replaced one. */
	if (t->tree_flags & RB_INSERT_REPLACES &&
	    strcmp(rbt_insert_checked(t, s, NULL, rbt_new(test, k)), "ok"))
		return s->verdict;
	return rbt_verify(t, s);
}

/* find_near() gives the root-started answer from every hint. */
static void rbtree_generic_hints_test_find_near_every_hint(struct kunit *test)
{
	const struct rbt_iface *t = rbt_param(test);
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_model *m = &s->m;
	unsigned int h;
	s64 k;

	rbt_fill_even(test, t, s, 20);
	for (k = -2; k <= 40; k++)
		for (h = 0; h < m->n; h++)
			KUNIT_ASSERT_STREQ(test, rbt_verify_queries(t, s, m->objs[h], k),
					   "ok");
	k = S64_MIN;
	KUNIT_EXPECT_PTR_EQ(test, t->op(s, RBT_FIND_NEAR, NULL, m->objs[m->n - 1], &k),
			    m->objs[0]);
	k = S64_MAX;
	KUNIT_EXPECT_NULL(test, t->op(s, RBT_FIND_NEAR, NULL, m->objs[0], &k));
}

/* insert_near() places the object as insert() would, from every hint. */
static void rbtree_generic_hints_test_insert_near_every_hint(struct kunit *test)
{
	const struct rbt_iface *t = rbt_param(test);
	struct rbt_seq *s = rbt_new_seq(test);
	unsigned int h;
	s64 k;

	rbt_fill_even(test, t, s, 12);
	for (k = -1; k <= 24; k++)
		for (h = 0; h < s->m.n; h++)
			KUNIT_ASSERT_STREQ(test,
					   rbt_insert_near_undo(test, t, s, s->m.objs[h], k),
					   "ok");
}

/*
 * A hint that was removed from the tree (RB_EMPTY_NODE(): its own parent,
 * which once made the climb loop forever), the object being inserted as
 * its own hint, and a hint whose parent links form a cycle: each is
 * ignored, and every answer is the one a search from the root gives.
 */
static void rbtree_generic_hints_test_removed_hint(struct kunit *test)
{
	const struct rbt_iface *t = rbt_param(test);
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_obj *gone, *x = rbt_new(test, 7), *y = rbt_new(test, 9);
	s64 k;

	rbt_fill_even(test, t, s, 8);
	gone = s->m.objs[s->m.n / 2];
	rbt_remove_checked(test, t, s, s->m.n / 2);
	KUNIT_ASSERT_TRUE(test, RB_EMPTY_NODE(&gone->node));
	rb_set_parent(&x->node, &y->node);
	rb_set_parent(&y->node, &x->node);
	for (k = -1; k <= 16; k++) {
		KUNIT_ASSERT_STREQ(test, rbt_verify_queries(t, s, gone, k), "ok");
		KUNIT_ASSERT_STREQ(test, rbt_verify_queries(t, s, x, k), "ok");
		KUNIT_ASSERT_STREQ(test, rbt_insert_near_undo(test, t, s, gone, k), "ok");
		KUNIT_ASSERT_STREQ(test, rbt_insert_near_undo(test, t, s, NULL, k), "ok");
		KUNIT_ASSERT_STREQ(test, rbt_insert_near_undo(test, t, s, y, k), "ok");
	}
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&gone->node));
}

/*
 * A hint from another tree, at its root, inner nodes and leaves, with
 * keys that fit under it there: the object goes into this tree, answers
 * are this tree's, and the other tree is untouched.
 */
static void rbtree_generic_hints_test_foreign_hint(struct kunit *test)
{
	const struct rbt_iface *t = rbt_param(test);
	struct rbt_seq *s = rbt_new_seq(test), *o = rbt_new_seq(test);
	unsigned int h;
	s64 k;

	rbt_fill_even(test, t, s, 6);
	/* The other tree holds odd keys, between this tree's. */
	for (h = 0; h < 6; h++)
		KUNIT_ASSERT_STREQ(test, rbt_insert_checked(t, o, NULL,
							    rbt_new(test, 2 * h + 1)),
				   "ok");
	for (k = -1; k <= 12; k++) {
		for (h = 0; h < o->m.n; h++) {
			KUNIT_ASSERT_STREQ(test, rbt_verify_queries(t, s, o->m.objs[h], k),
					   "ok");
			KUNIT_ASSERT_STREQ(test,
					   rbt_insert_near_undo(test, t, s, o->m.objs[h], k),
					   "ok");
			KUNIT_ASSERT_STREQ(test, rbt_verify(t, o), "ok");
		}
	}
}

static struct kunit_case rbtree_generic_hints_cases[] = {
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_find_near_every_hint,
			 rbt_near_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_insert_near_every_hint,
			 rbt_near_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_removed_hint,
			 rbt_near_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_foreign_hint,
			 rbt_near_gen_params),
	{}
};

RBT_SUITE(rbtree_generic_hints);
