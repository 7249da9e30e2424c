// SPDX-License-Identifier: GPL-2.0
/*
 * The rbtree helpers the kernel runs beyond rb_add(), on the kernel tree's
 * own userspace headers (tools/include), each against what it replaces:
 *
 *	cached	rb_add_cached(), rb_first_cached(), rb_erase_cached() (the
 *		leftmost cache of the scheduler and timerqueue) against
 *		rb_add(), rb_first(), rb_erase() on the same keys: insert,
 *		first (the leftmost, N times), erase, and pop (first then
 *		erase, until empty, as a timer queue drains)
 *	interval INTERVAL_TREE_DEFINE() (<linux/interval_tree_generic.h>)
 *		against a scan of a dense array of the same intervals: Q
 *		stabbing queries [x, x] and Q short-range queries
 *		[x, x + BENCH_IV_RANGE - 1]; both must return the same set
 *	hint	RB_DEFINE_INTERFACE()'s insert_near() and find_near()
 *		(../rbtree_santos.h) from a hint d positions in order from
 *		the place of the key, against the same calls without a hint
 *		(from the root)
 *
 * One file a group (bench_cached.c, bench_interval.c, bench_hint.c), each
 * timed by bench_group.c's engine; this one runs them.  Userspace only
 * (rbtree-bench -f), in bench_core.c's manner: every operation a
 * BENCH_ENTRY function, every variant interleaved with the others of its
 * group, and every cell a digest of its results that must be equal for all
 * the variants of its group (a cross-check of the helpers as well as a
 * benchmark).  Output, one record a line:
 *
 *	rbtree-bench-family 1
 *	meta KEY VALUE...
 *	cell VARIANT OP ORDER N REP OPS TIME CHECK
 *	hits OP N QUERIES HITS
 *	end
 *
 * "cell" is bench.h's, N the size of the tree (nodes, or intervals); the
 * variants of one group share their operations, and no operation name is
 * in two groups.  "hits": intervals found by QUERIES queries of kind OP
 * over N intervals.  Under valgrind (-c) each cell's first pass is dumped
 * as "fcell VARIANT OP ORDER N OPS", OPS the operations of one pass.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "bench_group.h"

/**
 * bench_family_run() - run the cached, interval and hint groups
 * @cfg: sizes (of the cached trees and of the interval sets),
 *	repetitions, least operations per cell, seed
 * @hint_n: nodes of the hint group's tree (at least 16; distances above
 *	@hint_n / 4 are left out)
 * @out: where bench_emit() writes
 *
 * Return: 0, -EINVAL for a size out of 1..2^30, a @hint_n out of
 * 16..2^30 or repetitions out of 1..BENCH_MAX_REPS, or -ENOMEM.
 */
int bench_family_run(const struct bench_config *cfg, unsigned long hint_n,
		     struct bench_out *out)
{
	unsigned int i;
	int ret;

	if (!cfg->reps || cfg->reps > BENCH_MAX_REPS || !cfg->nr_sizes ||
	    cfg->nr_sizes > BENCH_MAX_SIZES || hint_n < 16 ||
	    hint_n > (1UL << 30))
		return -EINVAL;
	for (i = 0; i < cfg->nr_sizes; i++)
		if (!cfg->sizes[i] || cfg->sizes[i] > (1UL << 30))
			return -EINVAL;

	bench_emit(out, "rbtree-bench-family %d\n", BENCH_FAMILY_VERSION);
	bench_emit(out, "meta clock %s\n", cfg->clock);
	bench_emit(out, "meta profile %s\n", BENCH_PROFILE);
	bench_emit(out, "meta reps %u\n", cfg->reps);
	bench_emit(out, "meta min_ops %lu\n", cfg->min_ops);
	bench_emit(out, "meta seed %llu\n", (unsigned long long)cfg->seed);
	bench_emit(out, "meta interval_queries %u\n", BENCH_IV_QUERIES);
	bench_emit(out, "meta interval_range %u\n", BENCH_IV_RANGE);
	bench_emit(out, "meta hint_batch %lu\n", hint_n / BENCH_HINT_BATCH);

	for (i = 0; i < cfg->nr_sizes; i++) {
		ret = bench_cached_group(cfg, out, cfg->sizes[i], true);
		if (!ret)
			ret = bench_cached_group(cfg, out, cfg->sizes[i], false);
		if (!ret)
			ret = bench_interval_group(cfg, out, cfg->sizes[i]);
		if (ret)
			return ret;
	}
	ret = bench_hint_group(cfg, out, hint_n);
	if (ret)
		return ret;
	bench_emit(out, "end\n");
	return 0;
}
