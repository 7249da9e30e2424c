// SPDX-License-Identifier: GPL-2.0
/*
 * The engine of the rbtree family benchmark's groups (bench_group.h): a
 * group's variants interleaved, timed and cross-checked, one "cell" line
 * a variant and operation.  The groups (bench_cached.c, bench_interval.c,
 * bench_hint.c) call it; bench_family.c runs the groups.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "bench_group.h"

/*
 * Every variant of @g, interleaved, @cfg->reps times after a warm-up
 * (repetition 0, not printed), each over enough passes for
 * @cfg->min_ops operations; one cell per variant and operation.  A pass
 * draws new keys or queries, so a cell's check is the sum of its passes'
 * digests: equal for all variants, and for all runs with the same sizes,
 * passes and seed.
 */
void bench_group_run(const struct bench_config *cfg, struct bench_out *out,
		     const struct bench_group *g)
{
	unsigned long per_pass = g->per_pass * (g->weight ? g->weight : 1);
	unsigned long passes = (cfg->min_ops + per_pass - 1) / per_pass;
	u64 elapsed[BENCH_FAMILY_MAX_OPS], check[BENCH_FAMILY_MAX_OPS];
	unsigned int rep, k, v, op;
	unsigned long pass;
	u64 t0, sum;

	if (!passes)
		passes = 1;
	for (rep = 0; rep <= cfg->reps; rep++) {
		for (k = 0; k < g->nr_variants; k++) {
			v = (k + rep) % g->nr_variants;
			memset(elapsed, 0, sizeof(elapsed));
			memset(check, 0, sizeof(check));
			for (pass = 0; pass < passes; pass++) {
				g->pass(g->set, rep, pass);
				for (op = 0; op < g->nr_ops; op++) {
					if (g->prepare)
						g->prepare(g->set, v, op);
					t0 = bench_now();
					bench_mark_begin();
					sum = g->run(g->set, v, op);
					bench_mark_end_ops(g->variants[v], g->ops[op],
							   g->order, g->n,
							   g->per_pass,
							   rep && !pass);
					elapsed[op] += bench_now() - t0;
					if (g->digest)
						sum = g->digest(g->set, v, op, sum);
					check[op] += sum;
				}
			}
			for (op = 0; rep && op < g->nr_ops; op++)
				bench_emit(out, "cell %s %s %s %lu %u %lu %llu %llx\n",
					   g->variants[v], g->ops[op], g->order,
					   g->n, rep - 1, passes * g->per_pass,
					   (unsigned long long)elapsed[op],
					   (unsigned long long)check[op]);
		}
	}
}
