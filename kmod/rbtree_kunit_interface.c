// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what RB_DEFINE_INTERFACE()'s generated functions promise, one
 * behaviour a case, each called directly (inlined) on a named interface of
 * rbtree_kunit_named.h; tables of interfaces are KUNIT_CASE_PARAM()s.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_kunit_named.h"

/* An empty tree: nothing found, no first/last, count 0, walk idle. */
static void rbtree_generic_interface_test_empty(struct kunit *test)
{
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_cont *c = &s->c;
	s64 k = 0;

	KUNIT_EXPECT_NULL(test, rbt_set_find(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_bag_find_first(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_bag_find_last(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, NULL, &k));
	KUNIT_EXPECT_NULL(test, rbt_set_first(c));
	KUNIT_EXPECT_NULL(test, rbt_set_last(c));
	KUNIT_EXPECT_NULL(test, rbt_plain_first(c));
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 0UL);
	rbt_set_walk(c, rbt_walk_record, &s->m);
	KUNIT_EXPECT_EQ(test, s->m.nseen, 0U);
}

/* One object is first, last, root and the whole count; removal empties. */
static void rbtree_generic_interface_test_single(struct kunit *test)
{
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	struct rbt_obj *o = rbt_new(test, 42);
	s64 k = 42, below = 41;

	KUNIT_EXPECT_NULL(test, rbt_set_insert(c, o));
	KUNIT_EXPECT_PTR_EQ(test, c->root.rb_node, &o->node);
	KUNIT_EXPECT_PTR_EQ(test, c->left, &o->node);
	KUNIT_EXPECT_PTR_EQ(test, c->right, &o->node);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 1UL);
	KUNIT_EXPECT_NULL(test, rbt_set_next(o));
	KUNIT_EXPECT_NULL(test, rbt_set_prev(o));
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_find(c, &k), o);
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, o, &k));
	KUNIT_EXPECT_NULL(test, rbt_set_find(c, &below));
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_find_near(c, o, &below), o);
	rbt_set_remove(c, o);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&c->root));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&o->node));
	KUNIT_EXPECT_NULL(test, c->left);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 0UL);
}

/* Blank cache members compile and leave the container's fields alone. */
static void rbtree_generic_interface_test_blank_members(struct kunit *test)
{
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	struct rbt_obj *a = rbt_new(test, 1), *b = rbt_new(test, 2);
	s64 k = 1;

	KUNIT_EXPECT_NULL(test, rbt_plain_insert(c, b));
	KUNIT_EXPECT_NULL(test, rbt_plain_insert(c, a));
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_insert(c, rbt_new(test, 2)), b);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_first(c), a);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_last(c), b);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_find(c, &k), a);
	KUNIT_EXPECT_NULL(test, c->left);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, c->count, 0UL);
}

/* A unique tree returns the present object and stays unchanged. */
static void rbtree_generic_interface_test_unique_rejects(struct kunit *test)
{
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	struct rbt_obj *a = rbt_new(test, 5), *b = rbt_new(test, 5);

	KUNIT_EXPECT_NULL(test, rbt_set_insert(c, a));
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_insert(c, b), a);
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_insert_near(c, a, b), a);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 1UL);
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_first(c), a);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&b->node));
}

/* Equal keys keep insertion order; find_* walk exactly the equal run. */
static void rbtree_generic_interface_test_dup_order(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 3, 2, 3 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	unsigned int i;
	s64 k = 3, two = 2;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		KUNIT_EXPECT_NULL(test, rbt_bag_insert(c, objs[i]));
	}
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find(c, &k), objs[0]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_first(c, &k), objs[0]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_last(c, &k), objs[4]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_next(objs[0]), objs[2]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_next(objs[2]), objs[4]);
	KUNIT_EXPECT_NULL(test, rbt_bag_find_next(objs[4]));
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_prev(objs[4]), objs[2]);
	KUNIT_EXPECT_NULL(test, rbt_bag_find_prev(objs[0]));
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_prev(objs[0]), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_first(c), objs[1]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_last(c), objs[4]);
	KUNIT_EXPECT_EQ(test, rbt_bag_count(c), 5UL);
	KUNIT_EXPECT_NULL(test, rbt_bag_find_near(c, objs[1], &k));
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_near(c, objs[4], &two), objs[0]);
}

/* S64_MIN and S64_MAX sort at the ends; near queries at and past them. */
static void rbtree_generic_interface_test_extreme_keys(struct kunit *test)
{
	static const s64 keys[] = { 0, S64_MAX, -1, S64_MIN, 1 };
	static const s64 sorted[] = { S64_MIN, -1, 0, 1, S64_MAX };
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	s64 max = S64_MAX, below_max = S64_MAX - 1, min = S64_MIN;
	struct rbt_obj *o;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		KUNIT_EXPECT_NULL(test, rbt_set_insert(c, rbt_new(test, keys[i])));
	for (o = rbt_set_first(c), i = 0; o && i < 5; o = rbt_set_next(o), i++)
		KUNIT_EXPECT_EQ(test, o->key, sorted[i]);
	KUNIT_EXPECT_EQ(test, i, 5U);
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, rbt_set_first(c), &max));
	KUNIT_EXPECT_EQ(test, rbt_key(rbt_set_find(c, &max)), S64_MAX);
	KUNIT_EXPECT_EQ(test, rbt_key(rbt_set_find_near(c, NULL, &below_max)),
			S64_MAX);
	KUNIT_EXPECT_EQ(test, rbt_key(rbt_set_find_near(c, rbt_set_last(c), &min)),
			-1LL);
	KUNIT_EXPECT_EQ(test, rbt_key(rbt_set_first(c)), S64_MIN);
	KUNIT_EXPECT_EQ(test, rbt_key(rbt_set_last(c)), S64_MAX);
}

/* walk() visits in order and tolerates removal of the visited object. */
static void rbt_walk_remove_even(struct rbt_obj *obj, void *arg)
{
	if (obj->key % 2 == 0)
		rbt_set_remove(arg, obj);
}

static void rbtree_generic_interface_test_walk_removes(struct kunit *test)
{
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	char buf[RBT_VERDICT];
	struct rbt_obj *o;
	s64 k;

	for (k = 0; k < 20; k++)
		rbt_set_insert(c, rbt_new(test, k));
	rbt_set_walk(c, rbt_walk_remove_even, c);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 10UL);
	for (o = rbt_set_first(c), k = 1; o && k < 21; o = rbt_set_next(o), k += 2)
		KUNIT_EXPECT_EQ(test, o->key, k);
	KUNIT_EXPECT_EQ(test, k, 21LL);
	KUNIT_EXPECT_STREQ(test, rbt_check(&c->root, RBT_AUG_NONE, buf), "ok");
}

/* A cache member given with its flag clear is kept: the flag is implied. */
/* A container whose root is a struct rb_root_cached. */
struct rbt_ccont {
	struct rb_root_cached root;
	struct rb_node *right;
	unsigned long count;
};

RB_DEFINE_INTERFACE(rbt_cached, struct rbt_ccont, root, /* root's leftmost */,
		    right, count, struct rbt_obj, node, key, RB_UNIQUE_KEYS,
		    rbt_cmp, 0)

/* A cached root: its type gives RB_CACHED_ROOT, its rb_leftmost is kept. */
static void rbtree_generic_interface_test_cached_root(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 4, 0, 2, 5 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rbt_ccont *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	char buf[RBT_VERDICT];
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	c->root = RB_ROOT_CACHED;
	KUNIT_EXPECT_NULL(test, rbt_cached_first(c));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		KUNIT_EXPECT_NULL(test, rbt_cached_insert(c, objs[i]));
		KUNIT_EXPECT_PTR_EQ(test, c->root.rb_leftmost, rb_first(&c->root.rb_root));
	}
	KUNIT_EXPECT_EQ(test, rbt_cached_rb()->tree_flags,
			(unsigned int)(RB_CACHED_ROOT | RB_HAS_LEFTMOST |
				       RB_HAS_RIGHTMOST | RB_HAS_COUNT |
				       RB_UNIQUE_KEYS));
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->root.rb_leftmost), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_cached_first(c), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->right), objs[5]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_cached_insert(c, rbt_new(test, 1)), objs[1]);
	/* The leftmost, an inner node, the new leftmost: the cache follows. */
	rbt_cached_remove(c, objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->root.rb_leftmost), objs[1]);
	rbt_cached_remove(c, objs[0]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->root.rb_leftmost), objs[1]);
	rbt_cached_remove(c, objs[1]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->root.rb_leftmost), objs[4]);
	KUNIT_EXPECT_PTR_EQ(test, c->root.rb_leftmost, rb_first(&c->root.rb_root));
	KUNIT_EXPECT_EQ(test, c->count, 3UL);
	KUNIT_EXPECT_STREQ(test, rbt_check(&c->root.rb_root, RBT_AUG_NONE, buf), "ok");
}

static void rbtree_generic_interface_test_member_implies_flag(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 4, 0, 2, 1 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rbt_cont *c = &rbt_new_seq(test)->c;
	char buf[RBT_VERDICT];
	unsigned int i;

	KUNIT_EXPECT_NULL(test, rbt_fair_first(c));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		/* Flags 0: equal keys are kept, as in the scheduler. */
		KUNIT_EXPECT_NULL(test, rbt_fair_insert(c, objs[i]));
	}
	KUNIT_EXPECT_EQ(test, rbt_fair_rb()->tree_flags,
			(unsigned int)RB_HAS_LEFTMOST);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->left), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_fair_first(c), objs[3]);
	rbt_fair_remove(c, objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->left), objs[1]);
	rbt_fair_remove(c, objs[1]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_of(c->left), objs[5]);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, c->count, 0UL);
	KUNIT_EXPECT_STREQ(test, rbt_check(&c->root, RBT_AUG_NONE, buf), "ok");
}

/* Insert @n objects with keys i / @div (i from 0), checked. */
static void rbt_fill(struct kunit *test, const struct rbt_iface *t,
		     struct rbt_seq *s, unsigned int n, unsigned int div)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_STREQ(test, rbt_insert_checked(t, s, NULL,
							    rbt_new(test, i / div)),
				   "ok");
}

static const struct rbt_iface *const rbt_replacing[] = {
	&rbt_repl_iface, &rbt_augrepl_iface,
};

KUNIT_ARRAY_PARAM(rbt_replacing, rbt_replacing, rbt_iface_desc);

/* RB_INSERT_REPLACES swaps in the new object and returns the old one. */
static void rbtree_generic_interface_test_insert_replaces(struct kunit *test)
{
	const struct rbt_iface *t = *(const struct rbt_iface *const *)test->param_value;
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_obj *old, *new;
	unsigned int i;

	rbt_fill(test, t, s, 15, 1);
	/* First, middle and last: every cache position. */
	for (i = 0; i < 15; i += 7) {
		old = s->m.objs[i];
		new = rbt_new(test, i);
		KUNIT_EXPECT_PTR_EQ(test, t->op(s, RBT_INSERT, new, NULL, NULL), old);
		KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&old->node));
		s->m.objs[i] = new;
		KUNIT_EXPECT_STREQ(test, rbt_verify(t, s), "ok");
	}
	KUNIT_EXPECT_EQ(test, s->c.count, 15UL);
}

static const struct rbt_iface *const rbt_erasing[] = {
	&rbt_set_iface, &rbt_bag_iface, &rbt_augbag_iface,
};

KUNIT_ARRAY_PARAM(rbt_erasing, rbt_erasing, rbt_iface_desc);

/* Removing the root, the minimum and the maximum keeps every cache. */
static void rbtree_generic_interface_test_erase_root_min_max(struct kunit *test)
{
	const struct rbt_iface *t = *(const struct rbt_iface *const *)test->param_value;
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_model *m = &s->m;
	unsigned int step;

	rbt_fill(test, t, s, 31, 2);
	for (step = 0; m->n; step++) {
		if (step % 3 == 0)
			rbt_remove_checked(test, t, s,
					   rbt_index_of(m, rbt_of(s->c.root.rb_node)));
		else
			rbt_remove_checked(test, t, s, step % 3 == 1 ? 0 : m->n - 1);
	}
	KUNIT_EXPECT_NULL(test, s->c.left);
	KUNIT_EXPECT_NULL(test, s->c.right);
	KUNIT_EXPECT_EQ(test, s->c.count, 0UL);
}

static const struct rbt_iface *const rbt_sized[] = {
	&rbt_aug_iface, &rbt_augbag_iface,
};

KUNIT_ARRAY_PARAM(rbt_sized, rbt_sized, rbt_iface_desc);

/* Subtree sizes stay exact through sorted, reversed and random orders. */
static void rbtree_generic_interface_test_augmented(struct kunit *test)
{
	const struct rbt_iface *t = *(const struct rbt_iface *const *)test->param_value;
	struct rbt_seq *s;
	unsigned int pass, i;
	s64 k;

	for (pass = 0; pass < 3; pass++) {
		s = rbt_new_seq(test);
		for (i = 0; i < 64; i++) {
			k = pass == 0 ? i : pass == 1 ? 64 - i : rbt_rand(test, 1000);
			KUNIT_ASSERT_STREQ(test, rbt_insert_checked(t, s, NULL,
								    rbt_new(test, k)),
					   "ok");
			KUNIT_ASSERT_STREQ(test, rbt_verify(t, s), "ok");
		}
		while (s->m.n)
			rbt_remove_checked(test, t, s, rbt_rand(test, s->m.n));
	}
}

static const struct rbt_iface *const rbt_maxed[] = {
	&rbt_max_iface, &rbt_maxbag_iface, &rbt_maxrepl_iface,
};

KUNIT_ARRAY_PARAM(rbt_maxed, rbt_maxed, rbt_iface_desc);

/*
 * The max augment through random inserts (half from a hint), removals
 * and replacements, every node's max checked after every step: a copy
 * that is not recomputed, or a propagation that stops below a changed
 * ancestor, shows.
 */
static void rbtree_generic_interface_test_max_augment(struct kunit *test)
{
	rbt_run_sequence(test, *(const struct rbt_iface *const *)test->param_value,
			 RBT_STEPS);
}

/* Replace the object with key @k by one with value @val, from @hint. */
static u64 rbt_replace_val(struct kunit *test, struct rbt_seq *s,
			   struct rbt_obj *hint, s64 k, u64 val)
{
	struct rbt_obj *obj = rbt_new(test, k);

	obj->val = val;
	/* A stale max, which the copy from the old object must overwrite. */
	obj->max = 12345;
	KUNIT_EXPECT_STREQ(test, rbt_insert_checked(&rbt_maxrepl_iface, s, hint, obj),
			   "ok");
	KUNIT_EXPECT_STREQ(test, rbt_verify(&rbt_maxrepl_iface, s), "ok");
	return rbt_of(s->c.root.rb_node)->max;
}

/*
 * Replacing changes the max of every ancestor when the replaced object
 * held it or the new one exceeds it, and of none otherwise, whether the
 * replacement comes from insert() or insert_near().
 */
static void rbtree_generic_interface_test_max_replace(struct kunit *test)
{
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_model *m = &s->m;
	struct rbt_obj *obj;
	s64 k;

	for (k = 0; k <= 30; k++) {
		obj = rbt_new(test, k);
		obj->val = k;
		KUNIT_ASSERT_STREQ(test, rbt_insert_checked(&rbt_maxrepl_iface, s,
							    NULL, obj), "ok");
	}
	KUNIT_EXPECT_EQ(test, rbt_of(s->c.root.rb_node)->max, 30ULL);
	/* The holder of the max, a leaf, gets a small value. */
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, NULL, 30, 0), 29ULL);
	/* A node deep on the left gets the largest value... */
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, m->objs[0], 1, 1000), 1000ULL);
	/* ...and loses it again, from a hint on the other side. */
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, m->objs[m->n - 1], 1, 1),
			29ULL);
	/* The root itself. */
	k = rbt_of(s->c.root.rb_node)->key;
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, NULL, k, 500), 500ULL);
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, NULL, k, k), 29ULL);
	/* A value below the max: no ancestor changes. */
	KUNIT_EXPECT_EQ(test, rbt_replace_val(test, s, m->objs[10], 20, 3), 29ULL);
}

static struct kunit_case rbtree_generic_interface_cases[] = {
	KUNIT_CASE(rbtree_generic_interface_test_empty),
	KUNIT_CASE(rbtree_generic_interface_test_single),
	KUNIT_CASE(rbtree_generic_interface_test_blank_members),
	KUNIT_CASE(rbtree_generic_interface_test_unique_rejects),
	KUNIT_CASE(rbtree_generic_interface_test_dup_order),
	KUNIT_CASE(rbtree_generic_interface_test_extreme_keys),
	KUNIT_CASE(rbtree_generic_interface_test_walk_removes),
	KUNIT_CASE(rbtree_generic_interface_test_member_implies_flag),
	KUNIT_CASE(rbtree_generic_interface_test_cached_root),
	KUNIT_CASE_PARAM(rbtree_generic_interface_test_insert_replaces,
			 rbt_replacing_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_interface_test_erase_root_min_max,
			 rbt_erasing_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_interface_test_augmented,
			 rbt_sized_gen_params),
	KUNIT_CASE_PARAM(rbtree_generic_interface_test_max_augment,
			 rbt_maxed_gen_params),
	KUNIT_CASE(rbtree_generic_interface_test_max_replace),
	{}
};

RBT_SUITE(rbtree_generic_interface);
