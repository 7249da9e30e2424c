// SPDX-License-Identifier: GPL-2.0
/*
 * user-hints: the generic tree header in userspace, over the kernel tree's
 * own tools/lib/rbtree.c, on a tree of 65,535 keys: from every hint, at
 * distances 1, 2, 4, ..., 32,768 from the answer on either side,
 * find_near() and insert_near() give what a search from the root gives,
 * and the climb from the hint reads few parent links: rb_parent() is
 * counted in the generated code.  Prints the mean and the largest count
 * for each distance and checks the mean against 2 log2(d) + 3; a climb to
 * the root every time reads about 15 links a climb on this tree.  Run by
 * ./run with a timeout and with AddressSanitizer, so that a climb that
 * loops or reads outside the tree fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/rbtree.h>

/* Every rb_parent() of the code that rbtree_santos.h generates below. */
static unsigned long parent_reads;

static inline struct rb_node *counted_parent(const struct rb_node *node)
{
	parent_reads++;
	return (struct rb_node *)(node->__rb_parent_color & ~3UL);
}

#undef rb_parent
#define rb_parent(node) counted_parent(node)

#include "../../rbtree_santos.h"

#define NKEYS	65535U
#define MAXD	32768U

struct obj {
	struct rb_node node;
	long key;
};

struct cont {
	struct rb_root root;
	struct rb_node *left;
	struct rb_node *right;
	unsigned long count;
};

static long obj_cmp(const long *a, const long *b)
{
	return *a < *b ? -1 : *a > *b;
}

RB_DEFINE_INTERFACE(uset, struct cont, root, left, right, count,
		    struct obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST | RB_HAS_COUNT |
		    RB_UNIQUE_KEYS, obj_cmp, 0)

static int passes, failures;

static void expect(int ok, const char *what, unsigned int d)
{
	if (ok)
		passes++;
	else
		failures++;
	/* KTAP: numbered lines, counted by the judge (qemu/results). */
	printf("%s %d - %s, d=%u\n", ok ? "ok" : "not ok", passes + failures,
	       what, d);
}

static unsigned int log2u(unsigned int x)
{
	unsigned int l = 0;

	while (x >>= 1)
		l++;
	return l;
}

int main(void)
{
	static struct cont c;
	static struct obj objs[NKEYS], extra;
	const struct obj *want;
	unsigned long reads, climbs, max, n;
	unsigned int h, d, side, wrong;
	long k;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("# a tree of %u keys\n", NKEYS);
	/* Keys 0, 2, 4, ...: every odd key falls between two of them. */
	for (h = 0; h < NKEYS; h++) {
		objs[h].key = 2L * h;
		if (uset_insert(&c, &objs[h]))
			abort();
	}
	for (d = 1; d <= MAXD; d *= 2) {
		reads = climbs = max = 0;
		wrong = 0;
		for (h = 0; h < NKEYS; h++) {
			for (side = 0; side < 2; side++) {
				/* The first key above k is that of objs[h +/- d]. */
				k = side ? 2L * ((long)h + d) - 1 : 2L * ((long)h - d) - 1;
				if (k < -1 || k >= 2L * NKEYS)
					continue;
				want = uset_find_near(&c, NULL, &k);
				parent_reads = 0;
				wrong += uset_find_near(&c, &objs[h], &k) != want;
				extra.key = k;
				wrong += uset_insert_near(&c, &objs[h], &extra) != NULL;
				n = parent_reads;
				wrong += uset_next(&extra) != want;
				uset_remove(&c, &extra);
				/* Both climbs read the same links. */
				reads += n;
				climbs += 2;
				if (n / 2 > max)
					max = n / 2;
			}
		}
		printf("# d=%u: %lu climbs, %.2f parent reads a climb, at most %lu\n",
		       d, climbs, (double)reads / climbs, max);
		expect(!wrong, "find_near and insert_near from every hint agree with the root", d);
		expect(reads <= (2 * log2u(d) + 3) * climbs,
		       "the mean climb is at most 2 log2(d) + 3 parent reads", d);
	}
	expect(c.count == NKEYS && uset_first(&c) == &objs[0] &&
	       uset_last(&c) == &objs[NKEYS - 1], "the tree is as built", 0);

	printf("%d passed, %d failed\n", passes, failures);
	return failures != 0;
}
