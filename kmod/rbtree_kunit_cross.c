// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: all APIs side by side. The same pseudo-random sequences run on
 * trees built with rb_insert() (out of line and inlined), with
 * RB_DEFINE_INTERFACE() (plain and augmented) and with mainline's
 * rb_find_add()/rb_add(): all use the same descent and rebalancing, so
 * their results and their trees, colours included, must be identical.
 */
#include <kunit/test.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_kunit.h"

RBT_SIZE_CALLBACKS;

RB_DEFINE_INTERFACE(rbt_xset, struct rbt_cont, root, left, right, count,
		    struct rbt_obj, node, key,
		    RB_UNIQUE_KEYS | RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST |
		    RB_HAS_COUNT, rbt_cmp, 0)
RB_DEFINE_INTERFACE(rbt_xaug, struct rbt_cont, root, /* - */, /* - */, count,
		    struct rbt_obj, node, key,
		    RB_UNIQUE_KEYS | RB_HAS_COUNT | RB_IS_AUGMENTED, rbt_cmp,
		    &rbt_size_cb)
RB_DEFINE_INTERFACE(rbt_xbag, struct rbt_cont, root, left, right, count,
		    struct rbt_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST | RB_HAS_COUNT, rbt_cmp, 0)
RB_DEFINE_INTERFACE(rbt_xaugbag, struct rbt_cont, root, left, right, count,
		    struct rbt_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST | RB_HAS_COUNT |
		    RB_IS_AUGMENTED, rbt_cmp, &rbt_size_cb)

static int rbt_node_cmp(const struct rb_node *l, const struct rb_node *r)
{
	return rbt_cmp(&rbt_of(l)->key, &rbt_of(r)->key);
}

static int rbt_ml_cmp(struct rb_node *a, const struct rb_node *b)
{
	return rbt_cmp(&rbt_of(a)->key, &rbt_of(b)->key);
}

static bool rbt_ml_less(struct rb_node *a, const struct rb_node *b)
{
	return rbt_of(a)->key < rbt_of(b)->key;
}

static int rbt_ml_key_cmp(const void *key, const struct rb_node *node)
{
	return rbt_cmp(key, &rbt_of(node)->key);
}

/* For rb_find_first(): "equal" means greater than the key. */
static int rbt_ml_above_cmp(const void *key, const struct rb_node *node)
{
	return rbt_of(node)->key > *(const s64 *)key ? 0 : 1;
}

#define RBT_SEARCH(k) (&((struct rbt_obj){ .key = (k) }).node)

/*
 * Same keys, colours and links in both trees, in preorder; iterative and
 * bounded by the size of the largest tree a test builds.
 */
static bool rbt_same_shape(const struct rb_node *a, const struct rb_node *b)
{
	const struct rb_node *sa[RBT_MAX_HEIGHT], *sb[RBT_MAX_HEIGHT];
	unsigned int depth = 0, seen = 0;

	for (;;) {
		if (!a || !b) {
			if (a != b)
				return false;
			if (!depth)
				return true;
			depth--;
			a = sa[depth]->rb_right;
			b = sb[depth]->rb_right;
			continue;
		}
		if (rbt_of(a)->key != rbt_of(b)->key ||
		    rb_color(a) != rb_color(b) || depth == RBT_MAX_HEIGHT ||
		    ++seen > RBT_MAX)
			return false;
		sa[depth] = a;
		sb[depth++] = b;
		a = a->rb_left;
		b = b->rb_left;
	}
}

static struct rb_node *rbt_nth(const struct rb_root *root, unsigned int n)
{
	struct rb_node *node = rb_first(root);

	while (n--)
		node = rb_next(node);
	return node;
}

/* The in-order position of @node. */
static unsigned int rbt_position(const struct rb_node *node)
{
	unsigned int i = 0;

	while ((node = rb_prev(node)))
		i++;
	return i;
}

/*
 * A step of a cross-API sequence: a new random key in *@k, and whether to
 * erase instead, the node at in-order position *@i of the @n present.
 */
static bool rbt_erase_step(struct kunit *test, unsigned int n,
			   unsigned int *i, s64 *k)
{
	*k = rbt_rand_key(test);
	if (!n || rbt_rand(test, 3))
		return false;
	*i = rbt_rand(test, n);
	return true;
}

/* The key of the node in the way of an insert, or RBT_ABSENT if linked. */
static s64 rbt_in_way(const struct rb_node *conflict)
{
	return rbt_key(rbt_of(conflict));
}

/*
 * Unique trees: insert results, find and near answers and the trees
 * themselves agree across all APIs.
 */
static void rbtree_generic_cross_test_unique(struct kunit *test)
{
	struct rbt_cont *sc = &rbt_new_seq(test)->c, *ac = &rbt_new_seq(test)->c;
	struct rb_root os = RB_ROOT, osi = RB_ROOT, ml = RB_ROOT;
	unsigned int step, i, n = 0;
	char buf[RBT_VERDICT];
	struct rb_node *near;
	s64 k;

	for (step = 0; step < 2 * RBT_STEPS; step++) {
		if (rbt_erase_step(test, n, &i, &k)) {
			n--;
			rb_erase(rbt_nth(&os, i), &os);
			rb_erase(rbt_nth(&osi, i), &osi);
			rbt_xset_remove(sc, rbt_of(rbt_nth(&sc->root, i)));
			rbt_xaug_remove(ac, rbt_of(rbt_nth(&ac->root, i)));
			rb_erase(rbt_nth(&ml, i), &ml);
		} else {
			s64 way = rbt_in_way(rb_insert(&os, &rbt_new(test, k)->node,
						       rbt_node_cmp));

			n += way == RBT_ABSENT;
			KUNIT_ASSERT_EQ(test, rbt_in_way(_rb_insert(&osi,
								    &rbt_new(test, k)->node,
								    rbt_node_cmp)), way);
			KUNIT_ASSERT_EQ(test, rbt_key(rbt_xset_insert(sc, rbt_new(test, k))),
					way);
			KUNIT_ASSERT_EQ(test, rbt_key(rbt_xaug_insert(ac, rbt_new(test, k))),
					way);
			KUNIT_ASSERT_EQ(test, rbt_in_way(rb_find_add(&rbt_new(test, k)->node,
								     &ml, rbt_ml_cmp)),
					way);
		}
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, osi.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, sc->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ac->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ml.rb_node));
		KUNIT_ASSERT_STREQ(test, rbt_check(&os, RBT_AUG_NONE, buf), "ok");
		KUNIT_ASSERT_STREQ(test, rbt_check(&ac->root, RBT_AUG_SIZE, buf), "ok");
		k = rbt_rand_key(test);
		near = n ? rbt_nth(&sc->root, rbt_rand(test, n)) : NULL;
		KUNIT_ASSERT_EQ(test, rbt_key(rbt_of(rb_search(&os, RBT_SEARCH(k),
							       rbt_node_cmp))),
				rbt_key(rbt_of(rb_find(&k, &ml, rbt_ml_key_cmp))));
		KUNIT_ASSERT_EQ(test, rbt_key(rbt_of(rb_search(&os, RBT_SEARCH(k),
							       rbt_node_cmp))),
				rbt_key(rbt_xset_find(sc, &k)));
		KUNIT_ASSERT_EQ(test, rbt_key(rbt_of(rb_find_first_greater(&os,
									   RBT_SEARCH(k),
									   rbt_node_cmp))),
				rbt_key(rbt_of(rb_find_first(&k, &ml, rbt_ml_above_cmp))));
		KUNIT_ASSERT_PTR_EQ(test, rbt_xset_find_near(sc, rbt_of(near), &k),
				    rbt_of(rb_find_first_greater(&sc->root, RBT_SEARCH(k),
								 rbt_node_cmp)));
	}
}

/*
 * Trees that keep equal keys: rb_insert_allow_dup(), an interface without
 * RB_UNIQUE_KEYS and mainline rb_add() put an equal key in the same place.
 */
static void rbtree_generic_cross_test_dup(struct kunit *test)
{
	struct rbt_cont *sc = &rbt_new_seq(test)->c, *ac = &rbt_new_seq(test)->c;
	struct rb_root os = RB_ROOT, ml = RB_ROOT;
	unsigned int step, i, n = 0;
	char buf[RBT_VERDICT];
	struct rbt_obj *first;
	s64 k;

	for (step = 0; step < 2 * RBT_STEPS; step++) {
		if (rbt_erase_step(test, n, &i, &k)) {
			n--;
			rb_erase(rbt_nth(&os, i), &os);
			rbt_xbag_remove(sc, rbt_of(rbt_nth(&sc->root, i)));
			rbt_xaugbag_remove(ac, rbt_of(rbt_nth(&ac->root, i)));
			rb_erase(rbt_nth(&ml, i), &ml);
		} else {
			rb_insert_allow_dup(&os, &rbt_new(test, k)->node, rbt_node_cmp);
			KUNIT_ASSERT_NULL(test, rbt_xbag_insert(sc, rbt_new(test, k)));
			KUNIT_ASSERT_NULL(test, rbt_xaugbag_insert(ac, rbt_new(test, k)));
			rb_add(&rbt_new(test, k)->node, &ml, rbt_ml_less);
			n++;
		}
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, sc->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ac->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ml.rb_node));
		KUNIT_ASSERT_STREQ(test, rbt_check(&ac->root, RBT_AUG_SIZE, buf), "ok");
		KUNIT_ASSERT_EQ(test, rbt_xbag_count(sc), (unsigned long)n);
		KUNIT_ASSERT_EQ(test, rbt_key(rbt_of(rb_find_first_greater(&os,
									   RBT_SEARCH(k),
									   rbt_node_cmp))),
				rbt_key(rbt_of(rb_find_first(&k, &ml, rbt_ml_above_cmp))));
		first = rbt_xbag_find_first(sc, &k);
		if (first)
			KUNIT_ASSERT_EQ(test, rbt_position(&first->node),
					rbt_position(rb_find_first(&k, &ml,
								   rbt_ml_key_cmp)));
		else
			KUNIT_ASSERT_NULL(test, rb_find_first(&k, &ml, rbt_ml_key_cmp));
	}
}

static struct kunit_case rbtree_generic_cross_cases[] = {
	KUNIT_CASE(rbtree_generic_cross_test_unique),
	KUNIT_CASE(rbtree_generic_cross_test_dup),
	{}
};

RBT_SUITE(rbtree_generic_cross);
