// SPDX-License-Identifier: GPL-2.0
/*
 * user-hints: the generic tree header in userspace, over the kernel tree's
 * own tools/lib/rbtree.c, driven with hints that are not nodes of the tree
 * (a removed node, a node of another tree).  Each case must return, and
 * give what a search from the root gives.  Run by ./run with a timeout:
 * before the hint checks, the removed-hint case never returned.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../rbtree_santos.h"

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

RB_DEFINE_INTERFACE(ubag, struct cont, root, left, right, count,
		    struct obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST | RB_HAS_COUNT,
		    obj_cmp, 0)

static int passes, failures;

static void expect(int ok, const char *what)
{
	if (ok)
		passes++;
	else
		failures++;
	/* KTAP: numbered lines, counted by the judge (qemu/results). */
	printf("%s %d - %s\n", ok ? "ok" : "not ok", passes + failures, what);
}

static struct obj *new_obj(long key)
{
	struct obj *o = calloc(1, sizeof(*o));

	if (!o)
		abort();
	o->key = key;
	RB_CLEAR_NODE(&o->node);
	return o;
}

/* In-order keys of @c, and the caches, as one check. */
static int tree_is(struct cont *c, const long *keys, unsigned int n)
{
	struct obj *o;
	unsigned int i = 0;

	for (o = uset_first(c); o; o = uset_next(o), i++)
		if (i >= n || o->key != keys[i])
			return 0;
	return i == n && c->count == n;
}

int main(void)
{
	static const long five[] = { 10, 20, 30, 40, 50 };
	static const long after[] = { 10, 20, 35, 40, 50 };
	static const long b_keys[] = { 999, 1000, 1001 };
	static struct cont a, b;
	struct obj *objs[5], *gone, *foreign, *o;
	unsigned int i;
	long k;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < 5; i++) {
		objs[i] = new_obj(five[i]);
		uset_insert(&a, objs[i]);
	}
	gone = objs[2];
	uset_remove(&a, gone);
	expect(RB_EMPTY_NODE(&gone->node), "a removed node is RB_EMPTY_NODE");

	printf("insert_near(removed hint) ...\n");
	o = new_obj(35);
	expect(!uset_insert_near(&a, gone, o), "insert_near(removed hint) returns and links");
	expect(tree_is(&a, after, 5), "insert_near(removed hint) puts the key in order");

	k = 36;
	expect(uset_find_near(&a, gone, &k) == objs[3],
	       "find_near(removed hint) = first key > k");
	o = new_obj(40);
	expect(uset_insert_near(&a, gone, o) == objs[3],
	       "insert_near(removed hint) of a present key returns it");

	/* A hint linked in another tree must not link into that tree. */
	/* b: 1000 at the root, 999 and 1001 its leaves; hint at a leaf. */
	foreign = new_obj(1001);
	uset_insert(&b, new_obj(1000));
	uset_insert(&b, new_obj(999));
	uset_insert(&b, foreign);
	/* 1002 would fit under the hint: the climb stops below b's root. */
	o = new_obj(1002);
	expect(!uset_insert_near(&a, foreign, o), "insert_near(foreign hint) returns and links");
	expect(tree_is(&b, b_keys, 3) && uset_find(&a, &o->key) == o,
	       "insert_near(foreign hint) goes into this tree, not the hint's");
	k = 1001;
	expect(uset_find_near(&a, foreign, &k) == o,
	       "find_near(foreign hint) answers for this tree");
	expect(!ubag_insert_near(&b, gone, new_obj(1000)) && b.count == 4,
	       "dup tree: insert_near(removed hint) links");

	printf("%d passed, %d failed\n", passes, failures);
	return failures != 0;
}
