// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hinted operations of RB_DEFINE_INTERFACE(), find_near() and
 * insert_near(), on every kind of tree (unique, equal keys kept,
 * replacing; plain, size and max augments): from every hint, at every
 * distance from the answer, their answer is the one a search from the
 * root gives, and the climb from the hint is as short as the distance
 * allows. Hints are always nodes linked in the tree, as the API requires.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/rbtree.h>

/*
 * The parent links the generic API reads in this file's interfaces: every
 * rb_parent() of the code generated below, whose only reader on a find or
 * a plain insert is the climb from a hint. (lib/rbtree.c is compiled
 * apart and keeps the kernel's rb_parent().)
 */
static unsigned int rbt_parent_reads;

static inline struct rb_node *rbt_counted_parent(const struct rb_node *node)
{
	rbt_parent_reads++;
	return (struct rb_node *)(node->__rb_parent_color & ~3UL);
}

#undef rb_parent
#define rb_parent(node) rbt_counted_parent(node)

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
 * Insert a new object with key @k from @hint, verify, then undo the insert
 * so that the next call sees the same tree.
 */
static const char *rbt_insert_near_undo(struct kunit *test,
					const struct rbt_iface *t,
					struct rbt_seq *s, struct rbt_obj *hint,
					s64 k)
{
	struct rbt_obj *obj = rbt_new(test, k);
	unsigned int i;

	if (strcmp(rbt_insert_checked(t, s, hint, obj), "ok") ||
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

/* The mean number of parent links read per climb, in hundredths. */
static unsigned int rbt_mean100(unsigned long reads, unsigned int n)
{
	return n ? reads * 100 / n : 0;
}

/*
 * Climb from each hint to a key d objects away, on both sides, for d = 1,
 * 2, 4, ..., 128, counting the parent links read (rbt_parent_reads): the
 * climb stops at the lowest ancestor that brackets the key, so the mean
 * grows with log2(d), not with the tree's height. A climb to the root
 * from every hint (about 7.5 reads a climb on these 300 nodes) fails the
 * bound at d = 1. find_near() and, on trees without augment callbacks
 * (whose propagation reads parent links too), insert_near() are measured;
 * every answer is checked against a search from the root.
 */
static void rbtree_generic_hints_test_climb_is_short(struct kunit *test)
{
	const struct rbt_iface *t = rbt_param(test);
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_model *m = &s->m;
	unsigned int n = 300, h, d, i, climbs, max;
	struct rbt_obj *want, *obj;
	unsigned long reads;
	s64 k;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_STREQ(test, rbt_insert_checked(t, s, NULL,
							    rbt_new(test, 2 * i)),
				   "ok");
	for (d = 1; d <= 128; d *= 2) {
		reads = 0;
		climbs = 0;
		max = 0;
		for (h = 0; h < n; h++) {
			for (i = 0; i < 2; i++) {
				/* The first key above k is 2 (h +/- d). */
				k = i ? 2 * ((s64)h + d) - 1 : 2 * ((s64)h - d) - 1;
				if (k < -1 || k >= 2 * (s64)n)
					continue;
				want = t->op(s, RBT_FIND_NEAR, NULL, NULL, &k);
				rbt_parent_reads = 0;
				KUNIT_ASSERT_PTR_EQ(test, t->op(s, RBT_FIND_NEAR, NULL,
								m->objs[h], &k),
						    want);
				reads += rbt_parent_reads;
				max = max(max, rbt_parent_reads);
				climbs++;
				if (t->aug != RBT_AUG_NONE)
					continue;
				obj = rbt_new(test, k);
				rbt_parent_reads = 0;
				KUNIT_ASSERT_NULL(test, t->op(s, RBT_INSERT_NEAR, obj,
							      m->objs[h], NULL));
				reads += rbt_parent_reads;
				max = max(max, rbt_parent_reads);
				climbs++;
				KUNIT_ASSERT_PTR_EQ(test, rbt_of(rb_next(&obj->node)), want);
				t->op(s, RBT_REMOVE, obj, NULL, NULL);
			}
		}
		kunit_info(test, "%s: d=%u: %u climbs, %lu.%02lu parent reads a climb, at most %u\n",
			   t->label, d, climbs, rbt_mean100(reads, climbs) / 100UL,
			   rbt_mean100(reads, climbs) % 100UL, max);
		KUNIT_EXPECT_LE_MSG(test, rbt_mean100(reads, climbs),
				    100 * (2 * ilog2(d) + 3), "d=%u", d);
		KUNIT_EXPECT_LE_MSG(test, max, 2 * ilog2(n + 1) + 1, "d=%u", d);
	}
	KUNIT_EXPECT_STREQ(test, rbt_verify(t, s), "ok");
}

static struct kunit_case rbtree_generic_hints_cases[] = {
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_find_near_every_hint,
			 rbt_near_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_insert_near_every_hint,
			 rbt_near_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_hints_test_climb_is_short,
			 rbt_near_gen_params),
	{}
};

RBT_SUITE(rbtree_generic_hints);
