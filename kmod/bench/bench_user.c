// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree-bench's environment on the host (bench.h's "Provided by the
 * environment"; bench_module.c is the kernel's): the thread's CPU time,
 * malloc, stdio, and valgrind's client requests around each timed
 * operation in counting mode (bench_main.c's -c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <valgrind/callgrind.h>

#include "bench.h"

struct bench_out {
	FILE *file;
};

static bool counting;

void bench_user_counting(bool on)
{
	counting = on;
}

struct bench_out *bench_user_stdout(void)
{
	static struct bench_out out;

	out.file = stdout;
	return &out;
}

/*
 * CPU time of this thread, not wall time: on a loaded machine the time
 * other tasks run on our CPU is then not counted against a variant.
 */
u64 bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void *bench_alloc(size_t size)
{
	return malloc(size);
}

void bench_free(void *p)
{
	free(p);
}

void bench_yield(void)
{
}

void bench_mark_begin(void)
{
	if (counting)
		CALLGRIND_ZERO_STATS;
}

void bench_mark_end(const char *variant, const char *op, const char *order,
		    unsigned long n, bool record)
{
	char what[128];

	if (!counting || !record)
		return;
	snprintf(what, sizeof(what), "cell %s %s %s %lu", variant, op, order, n);
	CALLGRIND_DUMP_STATS_AT(what);
}

void bench_mark_end_ops(const char *variant, const char *op,
			const char *order, unsigned long n, unsigned long ops,
			bool record)
{
	char what[160];

	if (!counting || !record)
		return;
	snprintf(what, sizeof(what), "fcell %s %s %s %lu %lu", variant, op,
		 order, n, ops);
	CALLGRIND_DUMP_STATS_AT(what);
}

void bench_emit(struct bench_out *out, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vfprintf(out->file, fmt, args);
	va_end(args);
}
