// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree-bench: bench_core.c on the host, over the kernel tree's userspace
 * rbtree (tools/lib/rbtree.c).  Prints the format described in bench.h.
 *
 * usage: rbtree-bench [-c] [-f [-H HINT_N]] [-n SIZE[,SIZE...]] [-r REPS]
 *		      [-m MIN_OPS] [-s SEED]
 *
 * Times are the thread's CPU time.  Pin it to one CPU from outside
 * (taskset); tools/bench does.
 *
 * -c: counting mode, for a run under valgrind --tool=callgrind (the
 * cachegrind simulator, with client requests to delimit each operation):
 * the counters are zeroed before each timed operation and dumped after it
 * as "cell VARIANT OP ORDER N", for the first pass of each recorded
 * repetition.  Outside valgrind the requests are a few no-op instructions.
 *
 * -f: the rbtree family benchmark (bench_family.c) instead of bench_core.c's,
 * its hint group on a tree of HINT_N nodes (default 16384).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static void die_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-c] [-f [-H HINT_N]] [-n SIZE[,SIZE...]] [-r REPS] [-m MIN_OPS] [-s SEED]\n",
		prog);
	exit(2);
}

/* Parse "1000,10000" into @cfg's sizes. */
static int parse_sizes(struct bench_config *cfg, char *list)
{
	char *tok, *end;

	cfg->nr_sizes = 0;
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (cfg->nr_sizes == BENCH_MAX_SIZES)
			return -1;
		cfg->sizes[cfg->nr_sizes++] = strtoul(tok, &end, 0);
		if (*end)
			return -1;
	}
	return cfg->nr_sizes ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct bench_config cfg = {
		.sizes = { 1000, 10000, 100000, 1000000 },
		.nr_sizes = 4,
		.reps = 5,
		.min_ops = 200000,
		.seed = 1,
		.clock = "ns",	/* of thread CPU time */
	};
	struct bench_out *out = bench_user_stdout();
	unsigned long hint_n = 16384;
	int opt, ret, family = 0;

	while ((opt = getopt(argc, argv, "cfH:n:r:m:s:h")) != -1) {
		switch (opt) {
		case 'c':
			bench_user_counting(true);
			break;
		case 'f':
			family = 1;
			break;
		case 'H':
			hint_n = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			if (parse_sizes(&cfg, optarg))
				die_usage(argv[0]);
			break;
		case 'r':
			cfg.reps = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			cfg.min_ops = strtoul(optarg, NULL, 0);
			break;
		case 's':
			cfg.seed = strtoull(optarg, NULL, 0);
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc)
		die_usage(argv[0]);

	ret = family ? bench_family_run(&cfg, hint_n, out) :
		       bench_run(&cfg, out);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[0], strerror(-ret));
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
