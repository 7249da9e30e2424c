// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: RB_DEFINE_INTERFACE() with every valid combination of its flags
 * (RB_INSERT_REPLACES needs RB_UNIQUE_KEYS: 48 of 64), each run through the
 * same pseudo-random sequence of inserts, hinted inserts, removals and
 * queries, verified against the model after every step.
 *
 * RBT_DEFINE(U, X, L, R, C, A) defines one combination, with 0 or 1 for
 * each flag; the member and callback arguments follow from the flags. The
 * table lists every definition; all_combinations checks that it holds each
 * valid combination once.
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

/* The interface rbt_fUXLRCA, e.g. rbt_f101011. */
#define RBT_DEFINE(u, x, l, r, c, a)					\
	RBT_IFACE_OF(rbt_f ## u ## x ## l ## r ## c ## a,		\
		     RBT_FLAGS(u, x, l, r, c, a), RBT_MEMBER_L ## l,	\
		     RBT_MEMBER_R ## r, RBT_MEMBER_C ## c, RBT_AUG_ ## a)
/* One more level, so that the pasted arguments are expanded first. */
#define RBT_IFACE_OF(pfx, fl, lm, rm, cnt, kind)				\
	RBT_IFACE(pfx, fl, lm, rm, cnt, kind)

RBT_DEFINE(0, 0, 0, 0, 0, 0);
RBT_DEFINE(0, 0, 0, 0, 0, 1);
RBT_DEFINE(0, 0, 0, 0, 1, 0);
RBT_DEFINE(0, 0, 0, 0, 1, 1);
RBT_DEFINE(0, 0, 0, 1, 0, 0);
RBT_DEFINE(0, 0, 0, 1, 0, 1);
RBT_DEFINE(0, 0, 0, 1, 1, 0);
RBT_DEFINE(0, 0, 0, 1, 1, 1);
RBT_DEFINE(0, 0, 1, 0, 0, 0);
RBT_DEFINE(0, 0, 1, 0, 0, 1);
RBT_DEFINE(0, 0, 1, 0, 1, 0);
RBT_DEFINE(0, 0, 1, 0, 1, 1);
RBT_DEFINE(0, 0, 1, 1, 0, 0);
RBT_DEFINE(0, 0, 1, 1, 0, 1);
RBT_DEFINE(0, 0, 1, 1, 1, 0);
RBT_DEFINE(0, 0, 1, 1, 1, 1);
RBT_DEFINE(1, 0, 0, 0, 0, 0);
RBT_DEFINE(1, 0, 0, 0, 0, 1);
RBT_DEFINE(1, 0, 0, 0, 1, 0);
RBT_DEFINE(1, 0, 0, 0, 1, 1);
RBT_DEFINE(1, 0, 0, 1, 0, 0);
RBT_DEFINE(1, 0, 0, 1, 0, 1);
RBT_DEFINE(1, 0, 0, 1, 1, 0);
RBT_DEFINE(1, 0, 0, 1, 1, 1);
RBT_DEFINE(1, 0, 1, 0, 0, 0);
RBT_DEFINE(1, 0, 1, 0, 0, 1);
RBT_DEFINE(1, 0, 1, 0, 1, 0);
RBT_DEFINE(1, 0, 1, 0, 1, 1);
RBT_DEFINE(1, 0, 1, 1, 0, 0);
RBT_DEFINE(1, 0, 1, 1, 0, 1);
RBT_DEFINE(1, 0, 1, 1, 1, 0);
RBT_DEFINE(1, 0, 1, 1, 1, 1);
RBT_DEFINE(1, 1, 0, 0, 0, 0);
RBT_DEFINE(1, 1, 0, 0, 0, 1);
RBT_DEFINE(1, 1, 0, 0, 1, 0);
RBT_DEFINE(1, 1, 0, 0, 1, 1);
RBT_DEFINE(1, 1, 0, 1, 0, 0);
RBT_DEFINE(1, 1, 0, 1, 0, 1);
RBT_DEFINE(1, 1, 0, 1, 1, 0);
RBT_DEFINE(1, 1, 0, 1, 1, 1);
RBT_DEFINE(1, 1, 1, 0, 0, 0);
RBT_DEFINE(1, 1, 1, 0, 0, 1);
RBT_DEFINE(1, 1, 1, 0, 1, 0);
RBT_DEFINE(1, 1, 1, 0, 1, 1);
RBT_DEFINE(1, 1, 1, 1, 0, 0);
RBT_DEFINE(1, 1, 1, 1, 0, 1);
RBT_DEFINE(1, 1, 1, 1, 1, 0);
RBT_DEFINE(1, 1, 1, 1, 1, 1);

static const struct rbt_iface *const rbt_combos[] = {
	&rbt_f000000_iface, &rbt_f000001_iface, &rbt_f000010_iface,
	&rbt_f000011_iface, &rbt_f000100_iface, &rbt_f000101_iface,
	&rbt_f000110_iface, &rbt_f000111_iface, &rbt_f001000_iface,
	&rbt_f001001_iface, &rbt_f001010_iface, &rbt_f001011_iface,
	&rbt_f001100_iface, &rbt_f001101_iface, &rbt_f001110_iface,
	&rbt_f001111_iface, &rbt_f100000_iface, &rbt_f100001_iface,
	&rbt_f100010_iface, &rbt_f100011_iface, &rbt_f100100_iface,
	&rbt_f100101_iface, &rbt_f100110_iface, &rbt_f100111_iface,
	&rbt_f101000_iface, &rbt_f101001_iface, &rbt_f101010_iface,
	&rbt_f101011_iface, &rbt_f101100_iface, &rbt_f101101_iface,
	&rbt_f101110_iface, &rbt_f101111_iface, &rbt_f110000_iface,
	&rbt_f110001_iface, &rbt_f110010_iface, &rbt_f110011_iface,
	&rbt_f110100_iface, &rbt_f110101_iface, &rbt_f110110_iface,
	&rbt_f110111_iface, &rbt_f111000_iface, &rbt_f111001_iface,
	&rbt_f111010_iface, &rbt_f111011_iface, &rbt_f111100_iface,
	&rbt_f111101_iface, &rbt_f111110_iface, &rbt_f111111_iface,
};

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
