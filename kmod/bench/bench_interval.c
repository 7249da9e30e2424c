// SPDX-License-Identifier: GPL-2.0
/*
 * INTERVAL_TREE_DEFINE() against a scan of a dense array of the same intervals
 * (a group of the family benchmark, bench_family.c).
 */
#include <linux/errno.h>
#include <linux/interval_tree_generic.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>

#include "bench_group.h"

struct bench_iv {
	struct rb_node rb;
	u64 start;
	u64 last;
	u64 subtree_last;
};

/* The same intervals, dense, for the scan. */
struct bench_span {
	u64 start;
	u64 last;
};

#define BENCH_IV_START(iv)	((iv)->start)
#define BENCH_IV_LAST(iv)	((iv)->last)

INTERVAL_TREE_DEFINE(struct bench_iv, rb, u64, subtree_last,
		     BENCH_IV_START, BENCH_IV_LAST, static inline, ivt)

/* What a found interval adds to a query's digest: any order sums alike. */
static __always_inline u64 bench_iv_mix(u64 start, u64 last)
{
	return bench_hash(bench_hash(0xcbf29ce484222325ULL, start), last);
}

static BENCH_ENTRY u64 bench_itree_query(struct rb_root_cached *root,
					 u64 first, u64 last)
{
	struct bench_iv *iv;
	u64 sum = 0;

	for (iv = ivt_iter_first(root, first, last); iv;
	     iv = ivt_iter_next(iv, first, last))
		sum += bench_iv_mix(iv->start, iv->last);
	return sum;
}

static BENCH_ENTRY u64 bench_scan_query(const struct bench_span *spans,
					unsigned long n, u64 first, u64 last)
{
	unsigned long i;
	u64 sum = 0;

	for (i = 0; i < n; i++)
#ifdef BENCH_FAMILY_BREAK
		if (spans[i].start < last && first <= spans[i].last)
#else
		if (spans[i].start <= last && first <= spans[i].last)
#endif
			sum += bench_iv_mix(spans[i].start, spans[i].last);
	return sum;
}

/**
 * struct bench_ivset - the interval group's set
 * @root: the interval tree of @nodes
 * @nodes: the intervals as tree nodes
 * @spans: the same intervals, in the same order, for the scan
 * @queries: left ends of the queries of one pass
 * @n: number of intervals
 * @seed: seed of the intervals and queries
 */
struct bench_ivset {
	struct rb_root_cached root;
	struct bench_iv *nodes;
	struct bench_span *spans;
	u64 queries[BENCH_IV_QUERIES];
	unsigned long n;
	u64 seed;
};

enum { BENCH_IV_STAB, BENCH_IV_SHORT };

/* Each query's found set, summed, into an order-sensitive digest. */
static __always_inline u64
bench_ivset_loop(struct bench_ivset *s, unsigned int op, bool tree)
{
	u64 width = op == BENCH_IV_STAB ? 0 : BENCH_IV_RANGE - 1;
	u64 h = 0, x, found;
	unsigned long i;

	for (i = 0; i < BENCH_IV_QUERIES; i++) {
		x = s->queries[i];
		if (tree)
			found = bench_itree_query(&s->root, x, x + width);
		else
			found = bench_scan_query(s->spans, s->n, x, x + width);
		h = bench_hash(h, found);
	}
	return h;
}

static BENCH_ENTRY u64 bench_itree_loop(struct bench_ivset *s, unsigned int op)
{
	return bench_ivset_loop(s, op, true);
}

static BENCH_ENTRY u64 bench_scan_loop(struct bench_ivset *s, unsigned int op)
{
	return bench_ivset_loop(s, op, false);
}

static u64 bench_ivset_run(void *set, unsigned int v, unsigned int op)
{
	return v ? bench_scan_loop(set, op) : bench_itree_loop(set, op);
}

static void bench_ivset_pass(void *set, unsigned int rep, unsigned long pass)
{
	struct bench_ivset *s = set;
	u64 state = bench_family_state(s->seed, s->n, rep, pass);
	u64 domain = s->n * BENCH_IV_SPREAD + BENCH_IV_MAXLEN;
	unsigned long i;

	for (i = 0; i < BENCH_IV_QUERIES; i++)
		s->queries[i] = bench_rand(&state) % domain;
}

/* Intervals found by one pass's queries of kind @op, counted apart. */
static unsigned long bench_ivset_hits(struct bench_ivset *s, unsigned int op)
{
	u64 width = op == BENCH_IV_STAB ? 0 : BENCH_IV_RANGE - 1;
	unsigned long i, hits = 0;
	struct bench_iv *iv;
	u64 x;

	for (i = 0; i < BENCH_IV_QUERIES; i++) {
		x = s->queries[i];
		for (iv = ivt_iter_first(&s->root, x, x + width); iv;
		     iv = ivt_iter_next(iv, x, x + width))
			hits++;
	}
	return hits;
}

/**
 * bench_interval_group() - the interval group on @n intervals
 * @cfg: repetitions, least operations per cell, seed
 * @out: where bench_emit() writes
 * @n: number of intervals
 *
 * Return: 0 or -ENOMEM.
 */
int bench_interval_group(const struct bench_config *cfg, struct bench_out *out,
			 unsigned long n)
{
	struct bench_ivset *s = bench_alloc(sizeof(*s));
	struct bench_group g = {
		.variants = { "itree", "scan" }, .nr_variants = 2,
		.ops = { "stab", "short" }, .nr_ops = 2,
		.order = "random", .n = n, .per_pass = BENCH_IV_QUERIES,
		.weight = (n + BENCH_IV_SCAN_UNIT - 1) / BENCH_IV_SCAN_UNIT,
		.pass = bench_ivset_pass, .run = bench_ivset_run,
		.set = s,
	};
	u64 state;
	unsigned long i;
	int ret = -ENOMEM;

	if (!s)
		return ret;
	*s = (struct bench_ivset){ .root = RB_ROOT_CACHED, .n = n,
				   .seed = cfg->seed };
	s->nodes = bench_alloc(n * sizeof(*s->nodes));
	s->spans = bench_alloc(n * sizeof(*s->spans));
	if (s->nodes && s->spans) {
		state = bench_family_state(cfg->seed, n, ~0U, 0);
		for (i = 0; i < n; i++) {
			s->spans[i].start = bench_rand(&state) %
					    (n * BENCH_IV_SPREAD);
			s->spans[i].last = s->spans[i].start +
					   bench_rand(&state) % BENCH_IV_MAXLEN;
			s->nodes[i].start = s->spans[i].start;
			s->nodes[i].last = s->spans[i].last;
			ivt_insert(&s->nodes[i], &s->root);
		}
		bench_ivset_pass(s, 0, 0);
		bench_emit(out, "hits stab %lu %u %lu\n", n, BENCH_IV_QUERIES,
			   bench_ivset_hits(s, BENCH_IV_STAB));
		bench_emit(out, "hits short %lu %u %lu\n", n, BENCH_IV_QUERIES,
			   bench_ivset_hits(s, BENCH_IV_SHORT));
		bench_group_run(cfg, out, &g);
		ret = 0;
	}
	bench_free(s->nodes);
	bench_free(s->spans);
	bench_free(s);
	return ret;
}
