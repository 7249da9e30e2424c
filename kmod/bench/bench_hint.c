// SPDX-License-Identifier: GPL-2.0
/*
 * Santos's insert_near() and find_near() (../rbtree_santos.h) from a hint d
 * positions in order from the key's place, against the same calls from the root
 * (a group of the family benchmark, bench_family.c).
 *
 * Each pass finds, inserts and then removes a batch of N / BENCH_HINT_BATCH
 * keys, each in a gap of its own between the tree's N base nodes, in random
 * order; hints are base nodes.  find_near runs on the base tree, so d is
 * exact there; during insert_near the batch nodes already inserted between
 * a hint and its place add to d, on average d / (2 * BENCH_HINT_BATCH).
 * The functions are called by the API's names, so this measures whatever
 * the header implements.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>

#include "../rbtree_santos.h"

#include "bench_group.h"

struct bench_hobj {
	struct rb_node node;
	u64 key;
};

struct bench_htree {
	struct rb_root root;
};

static long bench_hint_compare(const u64 *a, const u64 *b)
{
	return (*a > *b) - (*a < *b);
}

RB_DEFINE_INTERFACE(bench_hu, struct bench_htree, root,
		    /* no leftmost */, /* no rightmost */, /* no count */,
		    struct bench_hobj, node, key,
		    RB_UNIQUE_KEYS, bench_hint_compare, 0)

/* One function for every distance: @near NULL searches from the root. */
static BENCH_ENTRY struct bench_hobj *
bench_hint_insert(struct bench_htree *t, struct bench_hobj *near,
		  struct bench_hobj *obj)
{
	return bench_hu_insert_near(t, near, obj);
}

static BENCH_ENTRY struct bench_hobj *
bench_hint_find(struct bench_htree *t, struct bench_hobj *near, u64 key)
{
	return bench_hu_find_near(t, near, &key);
}

static BENCH_ENTRY void bench_hint_remove(struct bench_htree *t,
					  struct bench_hobj *obj)
{
	bench_hu_remove(t, obj);
}

/* Hint distances, in positions in order; 0 is "no hint". */
static const unsigned long bench_hint_dists[] = { 0, 1, 16, 256, 4096 };
static const char *const bench_hint_names[] = {
	"root", "d1", "d16", "d256", "d4096"
};

#define BENCH_HINT_VARIANTS	ARRAY_SIZE(bench_hint_dists)

/**
 * struct bench_hset - the hint group's set
 * @tree: one tree per variant, built alike, so that every variant sees the
 *	same shapes
 * @base: @n nodes per variant, keys 2, 4, ... 2 * @n by index, in @tree
 * @extra: the nodes of one pass's batch, in no tree between passes
 * @gaps: gap of each batch node: its key 2 * gap + 3 falls between the
 *	base nodes of index gap and gap + 1
 * @perm: scratch for choosing the gaps
 * @n: base nodes per tree
 * @batch: nodes inserted per pass
 * @reach: the largest distance in use; gaps are reach .. n - reach - 1
 * @seed: seed of the gaps and the trees' insertion order
 */
struct bench_hset {
	struct bench_htree tree[BENCH_HINT_VARIANTS];
	struct bench_hobj *base[BENCH_HINT_VARIANTS];
	struct bench_hobj *extra;
	u32 *gaps;
	u32 *perm;
	unsigned long n;
	unsigned long batch;
	unsigned long reach;
	u64 seed;
};

enum { BENCH_H_FIND, BENCH_H_INSERT, BENCH_H_REMOVE };

/*
 * Query @i's hint for variant @v: the base node @d positions after gap
 * @gap for even @i (d = 1: the successor), before it for odd @i (d = 1:
 * the predecessor).
 */
static __always_inline struct bench_hobj *
bench_hint_of(struct bench_hset *s, unsigned int v, unsigned long i,
	      unsigned long gap)
{
	unsigned long d = bench_hint_dists[v];

	if (!d)
		return NULL;
	return &s->base[v][i & 1 ? gap + 1 - d : gap + d];
}

static __always_inline u64 bench_hset_loop(struct bench_hset *s,
					   unsigned int v, unsigned int op)
{
	struct bench_htree *t = &s->tree[v];
	struct bench_hobj *found;
	unsigned long i;
	u64 h = 0;

	for (i = 0; i < s->batch; i++) {
		switch (op) {
		case BENCH_H_FIND:
			found = bench_hint_find(t, bench_hint_of(s, v, i, s->gaps[i]),
						s->extra[i].key);
			h = bench_hash(h, found ? found->key : 0);
			break;
		case BENCH_H_INSERT:
			found = bench_hint_insert(t, bench_hint_of(s, v, i, s->gaps[i]),
						  &s->extra[i]);
			h = bench_hash(h, found ? found->key : 0);
			break;
		case BENCH_H_REMOVE:
			bench_hint_remove(t, &s->extra[i]);
			break;
		}
	}
	return h;
}

static BENCH_ENTRY u64 bench_hint_loop(struct bench_hset *s, unsigned int v,
				       unsigned int op)
{
	return bench_hset_loop(s, v, op);
}

static u64 bench_hset_run(void *set, unsigned int v, unsigned int op)
{
	return bench_hint_loop(set, v, op);
}

/* A new batch of distinct gaps in random order; keys between base nodes. */
static void bench_hset_pass(void *set, unsigned int rep, unsigned long pass)
{
	struct bench_hset *s = set;
	u64 state = bench_family_state(s->seed, s->n, rep, pass);
	unsigned long i, span = s->n - 2 * s->reach;

	bench_permute(s->perm, span, &state);
	for (i = 0; i < s->batch; i++) {
		s->gaps[i] = s->reach + s->perm[i];
		s->extra[i].key = 2 * (u64)s->gaps[i] + 3;
	}
}

/* The results, and after insert and remove the tree's keys in order. */
static u64 bench_hset_digest(void *set, unsigned int v, unsigned int op,
			     u64 sum)
{
	struct bench_hset *s = set;
	struct rb_node *n;

	if (op == BENCH_H_FIND)
		return sum;
	for (n = rb_first(&s->tree[v].root); n; n = rb_next(n))
		sum = bench_hash(sum, rb_entry(n, struct bench_hobj, node)->key);
	return sum;
}

static void bench_hset_free(struct bench_hset *s)
{
	unsigned int v;

	for (v = 0; v < BENCH_HINT_VARIANTS; v++)
		bench_free(s->base[v]);
	bench_free(s->extra);
	bench_free(s->gaps);
	bench_free(s->perm);
	bench_free(s);
}

/**
 * bench_hint_group() - the hint group on a tree of @n nodes
 * @cfg: repetitions, least operations per cell, seed
 * @out: where bench_emit() writes
 * @n: number of nodes, at least 16; distances above @n / 4 are left out
 *
 * Return: 0 or -ENOMEM.
 */
int bench_hint_group(const struct bench_config *cfg, struct bench_out *out,
		     unsigned long n)
{
	struct bench_hset *s = bench_alloc(sizeof(*s));
	struct bench_group g = {
		.ops = { "find_near", "insert_near", "remove" }, .nr_ops = 3,
		.order = "random", .n = n, .pass = bench_hset_pass,
		.run = bench_hset_run, .digest = bench_hset_digest, .set = s,
	};
	unsigned long i;
	unsigned int v;
	u64 state;

	if (!s)
		return -ENOMEM;
	*s = (struct bench_hset){ .n = n, .batch = n / BENCH_HINT_BATCH,
				  .seed = cfg->seed };
	/* Distances up to a quarter of the tree. */
	for (v = 0; v < BENCH_HINT_VARIANTS; v++) {
		if (bench_hint_dists[v] > n / 4)
			break;
		g.variants[v] = bench_hint_names[v];
		s->reach = bench_hint_dists[v];
	}
	g.nr_variants = v;
	if (!s->batch)
		s->batch = 1;
	g.per_pass = s->batch;
	s->extra = bench_alloc(s->batch * sizeof(*s->extra));
	s->gaps = bench_alloc(s->batch * sizeof(*s->gaps));
	s->perm = bench_alloc(n * sizeof(*s->perm));
	for (v = 0; v < g.nr_variants; v++)
		s->base[v] = bench_alloc(n * sizeof(*s->base[v]));
	for (v = 0; v < g.nr_variants; v++)
		if (!s->base[v])
			break;
	if (v < g.nr_variants || !s->extra || !s->gaps || !s->perm) {
		bench_hset_free(s);
		return -ENOMEM;
	}
	for (v = 0; v < g.nr_variants; v++) {
		s->tree[v].root = RB_ROOT;
		state = bench_family_state(cfg->seed, n, ~0U, 0);
		bench_permute(s->perm, n, &state);
		for (i = 0; i < n; i++)
			s->base[v][i].key = 2 * (u64)i + 2;
		for (i = 0; i < n; i++)
			bench_hu_insert(&s->tree[v], &s->base[v][s->perm[i]]);
	}
	bench_hset_pass(s, 0, 0);
	bench_group_run(cfg, out, &g);
	bench_hset_free(s);
	return 0;
}
