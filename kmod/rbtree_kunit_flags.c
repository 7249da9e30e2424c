// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: RB_DEFINE_INTERFACE() with every valid combination of its flags
 * (RB_INSERT_REPLACES needs RB_UNIQUE_KEYS: 48 of 64), each run through the
 * same pseudo-random sequence of inserts, hinted inserts, removals and
 * queries, verified against the model after every step.
 *
 * The combinations are generated, not listed: RBT_COMBOS(m) calls m(U, X,
 * L, R, C, A) once for each, with 0 or 1 for each flag, and the member
 * and callback arguments follow from the flags.
 */
#include <kunit/test.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_kunit.h"

RBT_SIZE_CALLBACKS;

#define RBT_MEMBER_L0
#define RBT_MEMBER_L1	left
#define RBT_MEMBER_R0
#define RBT_MEMBER_R1	right
#define RBT_MEMBER_C0
#define RBT_MEMBER_C1	count
#define RBT_AUG_0	NONE
#define RBT_AUG_1	SIZE

#define RBT_FLAGS(u, x, l, r, c, a)					\
	((u) * RB_UNIQUE_KEYS | (x) * RB_INSERT_REPLACES |		\
	 (l) * RB_HAS_LEFTMOST | (r) * RB_HAS_RIGHTMOST |		\
	 (c) * RB_HAS_COUNT | (a) * RB_IS_AUGMENTED)

/* An interface named rbt_fUXLRCA, e.g. rbt_f101011. */
#define RBT_DEFINE(u, x, l, r, c, a)					\
	RBT_IFACE_OF(rbt_f ## u ## x ## l ## r ## c ## a,		\
		     RBT_FLAGS(u, x, l, r, c, a), RBT_MEMBER_L ## l,	\
		     RBT_MEMBER_R ## r, RBT_MEMBER_C ## c, RBT_AUG_ ## a);
/* One more level, so that the pasted arguments are expanded first. */
#define RBT_IFACE_OF(pfx, fl, lm, rm, cnt, kind)				\
	RBT_IFACE(pfx, fl, lm, rm, cnt, kind)
#define RBT_ENTRY(u, x, l, r, c, a)					\
	&rbt_f ## u ## x ## l ## r ## c ## a ## _iface,

#define RBT_COMBOS_A(m, u, x, l, r, c)	m(u, x, l, r, c, 0) m(u, x, l, r, c, 1)
#define RBT_COMBOS_C(m, u, x, l, r)					\
	RBT_COMBOS_A(m, u, x, l, r, 0) RBT_COMBOS_A(m, u, x, l, r, 1)
#define RBT_COMBOS_R(m, u, x, l)					\
	RBT_COMBOS_C(m, u, x, l, 0) RBT_COMBOS_C(m, u, x, l, 1)
#define RBT_COMBOS_L(m, u, x)						\
	RBT_COMBOS_R(m, u, x, 0) RBT_COMBOS_R(m, u, x, 1)
#define RBT_COMBOS(m)							\
	RBT_COMBOS_L(m, 0, 0) RBT_COMBOS_L(m, 1, 0) RBT_COMBOS_L(m, 1, 1)

RBT_COMBOS(RBT_DEFINE)

static const struct rbt_iface *const rbt_combos[] = { RBT_COMBOS(RBT_ENTRY) };
KUNIT_ARRAY_PARAM(rbt_combos, rbt_combos, rbt_iface_desc);

/* The table holds every valid combination, each once. */
static void rbtree_generic_flags_test_all_combinations(struct kunit *test)
{
	unsigned long seen[BITS_TO_LONGS(RB_GENERIC_ALL_FLAGS + 1)] = { 0 };
	unsigned int i, f;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(rbt_combos), 48UL);
	for (i = 0; i < ARRAY_SIZE(rbt_combos); i++) {
		f = rbt_combos[i]->tree_flags;
		KUNIT_EXPECT_FALSE(test, __test_and_set_bit(f, seen));
		KUNIT_EXPECT_TRUE(test, !(f & RB_INSERT_REPLACES) || (f & RB_UNIQUE_KEYS));
	}
}

/* Each combination survives the random sequence. */
static void rbtree_generic_flags_test_sequence(struct kunit *test)
{
	rbt_run_sequence(test, *(const struct rbt_iface *const *)test->param_value,
			 RBT_STEPS);
}

static struct kunit_case rbtree_generic_flags_cases[] = {
	KUNIT_CASE(rbtree_generic_flags_test_all_combinations),
	KUNIT_CASE_PARAM(rbtree_generic_flags_test_sequence,
			 rbt_combos_gen_params),
	{}
};

RBT_SUITE(rbtree_generic_flags);
