/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbtree API benchmark: the interface between the benchmark proper
 * (bench_core.c, built unchanged both in the kernel and in userspace over
 * tools/lib/rbtree.c) and the environment that runs it (bench_module.c in
 * the kernel, bench_user.c on the host).
 *
 * Output format, one record a line, fields separated by single spaces,
 * values never contain spaces except in the last field of a "meta" line:
 *
 *	rbtree-bench 1
 *	meta KEY VALUE...
 *	variant NAME
 *	cell VARIANT OP ORDER N REP OPS TIME CHECK
 *	end
 *
 * A cell is one timed operation: OPS operations of kind OP took TIME in
 * total, in the unit of "meta clock" (ns, or cycles in the kernel, whose
 * clocksource under QEMU's TCG is jiffies), for VARIANT on a tree of N
 * nodes built in ORDER (random or sequential), repetition REP (from 0; the
 * warm-up is not printed).  CHECK is a hexadecimal digest of the results of the same
 * operations, equal for every variant when they agree.
 */
#ifndef _RBTREE_BENCH_H
#define _RBTREE_BENCH_H

#include <linux/compiler.h>
#include <linux/types.h>

#define BENCH_FORMAT_VERSION	1
#define BENCH_MAX_SIZES		8
#define BENCH_MAX_REPS		100

/**
 * struct bench_config - what to measure
 * @sizes: tree sizes, in nodes
 * @nr_sizes: number of entries of @sizes in use
 * @reps: timed repetitions of every cell, after one warm-up (at most
 *	BENCH_MAX_REPS)
 * @min_ops: least number of operations timed in a cell; trees smaller than
 *	this are built and torn down several times per repetition
 * @seed: seed of the key orders, so that every run sees the same keys
 * @clock: unit of bench_now(), "ns" or "cycles"
 */
struct bench_config {
	unsigned long sizes[BENCH_MAX_SIZES];
	unsigned int nr_sizes;
	unsigned int reps;
	unsigned long min_ops;
	u64 seed;
	const char *clock;
};

/* Where results go; defined by the environment. */
struct bench_out;

/* Provided by the environment. */
u64 bench_now(void);
void *bench_alloc(size_t size);
void bench_free(void *p);
void bench_yield(void);
__printf(2, 3) void bench_emit(struct bench_out *out, const char *fmt, ...);

/* Provided by bench_core.c. */
size_t bench_output_size(const struct bench_config *cfg);
int bench_run(const struct bench_config *cfg, struct bench_out *out);

#endif /* _RBTREE_BENCH_H */
