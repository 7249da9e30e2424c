/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rbtree family benchmark (bench_family.c): what its groups share.
 */
#ifndef _RBTREE_BENCH_FAMILY_H
#define _RBTREE_BENCH_FAMILY_H

#include "bench.h"

#define BENCH_FAMILY_VERSION		1
#define BENCH_FAMILY_MAX_VARIANTS	8
#define BENCH_FAMILY_MAX_OPS		4
/* Q: queries of each kind per pass of the interval group. */
#define BENCH_IV_QUERIES	1000
/* Interval lengths are 0 .. BENCH_IV_MAXLEN - 1; starts 0 .. 64 N - 1. */
#define BENCH_IV_MAXLEN		256
#define BENCH_IV_SPREAD		64
#define BENCH_IV_RANGE		64
/* Intervals a scan's query covers in the time of a tree operation, about. */
#define BENCH_IV_SCAN_UNIT	1000
/* The hint group inserts N / BENCH_HINT_BATCH nodes a pass. */
#define BENCH_HINT_BATCH	64

#ifndef BENCH_PROFILE
#define BENCH_PROFILE	"unknown"
#endif

/**
 * struct bench_group - one group of variants over one set
 * @variants: variant names, @nr_variants of them
 * @nr_variants: number of variants
 * @ops: operation names, run in this order every pass
 * @nr_ops: number of operations
 * @order: key order of the set, the cells' ORDER
 * @n: size of the set, the cells' N
 * @per_pass: operations of one pass of each operation
 * @weight: cost of one of them, in units of a tree operation: passes are
 *	fewer by this factor (the scan's queries, O(N) each)
 * @pass: choose the keys of pass @pass of repetition @rep (untimed)
 * @prepare: before operation @op of variant @v (untimed), or NULL
 * @run: operation @op of variant @v over the set; returns its result
 * @digest: the cell's check from @run's result (untimed), or NULL: the
 *	result itself
 * @set: the group's data
 */
struct bench_group {
	const char *variants[BENCH_FAMILY_MAX_VARIANTS];
	unsigned int nr_variants;
	const char *ops[BENCH_FAMILY_MAX_OPS];
	unsigned int nr_ops;
	const char *order;
	unsigned long n;
	unsigned long per_pass;
	unsigned long weight;
	void (*pass)(void *set, unsigned int rep, unsigned long pass);
	void (*prepare)(void *set, unsigned int v, unsigned int op);
	u64 (*run)(void *set, unsigned int v, unsigned int op);
	u64 (*digest)(void *set, unsigned int v, unsigned int op, u64 sum);
	void *set;
};

/* A fresh random state for pass @pass of repetition @rep. */
static inline u64 bench_family_state(u64 seed, unsigned long n,
				     unsigned int rep, unsigned long pass)
{
	return (seed ^ n ^ ((u64)rep << 40) ^ ((u64)pass << 20)) *
		0x9e3779b97f4a7c15ULL | 1;
}

void bench_group_run(const struct bench_config *cfg, struct bench_out *out,
		     const struct bench_group *g);

/* The groups, in bench_cached.c, bench_interval.c and bench_hint.c. */
int bench_cached_group(const struct bench_config *cfg, struct bench_out *out,
		       unsigned long n, bool random);
int bench_interval_group(const struct bench_config *cfg, struct bench_out *out,
			 unsigned long n);
int bench_hint_group(const struct bench_config *cfg, struct bench_out *out,
		     unsigned long n);

#endif /* _RBTREE_BENCH_FAMILY_H */
