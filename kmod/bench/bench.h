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
 * operations, equal for every variant when they agree, and independent of
 * the number of passes (see bench_cycle()), so equal across runs with the
 * same sizes and seed.  Meta keys include "profile", the mitigation
 * profile the userspace build was compiled for ("kernel" in the module).
 */
#ifndef _RBTREE_BENCH_H
#define _RBTREE_BENCH_H

#include <linux/compiler.h>
#include <linux/types.h>

/*
 * Every benchmark entry point: never inlined, cloned, folded with an
 * identical function or analysed by its callers (GCC's noipa; noinline
 * alone still lets GCC make .isra/.constprop clones and fold bodies).
 */
#ifndef BENCH_ENTRY
#if defined(__has_attribute)
#if __has_attribute(__noipa__)
#define BENCH_ENTRY	__attribute__((__noipa__))
#endif
#endif
#endif
#ifndef BENCH_ENTRY
#define BENCH_ENTRY	noinline
#endif

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

enum bench_op {
	BENCH_INSERT,
	BENCH_FIND_HIT,
	BENCH_FIND_MISS,
	BENCH_GREATER,
	BENCH_WALK,
	BENCH_ERASE,
	BENCH_NR_OPS
};

/* Order-sensitive digest of a sequence of keys. */
static __always_inline u64 bench_hash(u64 h, u64 key)
{
	return (h ^ key) * 0x100000001b3ULL;
}

/* xorshift64*: the same key orders in the kernel and in userspace. */
static inline u64 bench_rand(u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/* @perm = 0 .. @n - 1, shuffled if @state is not NULL. */
static inline void bench_permute(u32 *perm, unsigned long n, u64 *state)
{
	unsigned long i, j;
	u32 tmp;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; state && i > 0; i--) {
		j = ((bench_rand(state) >> 32) * (i + 1)) >> 32;
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
}

/* Where results go; defined by the environment. */
struct bench_out;

/* Provided by the environment. */
u64 bench_now(void);
void *bench_alloc(size_t size);
void bench_free(void *p);
void bench_yield(void);
__printf(2, 3) void bench_emit(struct bench_out *out, const char *fmt, ...);
/*
 * Around each timed operation: the userspace build under valgrind
 * (rbtree-bench -c) counts instructions, branches and cache misses between
 * the two; @record is false for the warm-up and for passes after the
 * first.  No-ops in the kernel.
 */
void bench_mark_begin(void);
void bench_mark_end(const char *variant, const char *op, const char *order,
		    unsigned long n, bool record);

#ifdef BENCH_BSD_TREE
/*
 * The BSD <sys/tree.h> variant (bench_bsd.c, userspace only): @n nodes of
 * its own, whose keys bench_bsd_set_keys() reads at @keys, @stride bytes
 * apart, in insertion order; bench_bsd_run() runs @op over all of them
 * (@lookup and @erase as in struct bench_set; for BENCH_WALK they may be
 * NULL) and returns its digest.
 */
struct bench_bsd_set;
struct bench_bsd_set *bench_bsd_new(unsigned long n);
void bench_bsd_set_keys(struct bench_bsd_set *s, const u64 *keys,
			size_t stride);
void bench_bsd_free(struct bench_bsd_set *s);
u64 bench_bsd_run(struct bench_bsd_set *s, enum bench_op op,
		  const u64 *lookup, const u32 *erase);
#endif

/*
 * Userspace only (bench_user.c, for bench_main.c): counting mode on
 * (valgrind's client requests around each timed operation), and the
 * output that writes to stdout.
 */
void bench_user_counting(bool on);
struct bench_out *bench_user_stdout(void);

/* Provided by bench_core.c. */
size_t bench_output_size(const struct bench_config *cfg);
int bench_run(const struct bench_config *cfg, struct bench_out *out);

#ifdef BENCH_FAMILY
/*
 * The rbtree family beyond rb_add() (bench_family.c, userspace only):
 * rb_add_cached(), INTERVAL_TREE_DEFINE() and the Santos hint, in the
 * format of bench_family_run()'s comment.  @hint_n is the size of the
 * hint benchmark's tree; @cfg's sizes are those of the other two.
 */
int bench_family_run(const struct bench_config *cfg, unsigned long hint_n,
		     struct bench_out *out);
/*
 * bench_mark_end() for a cell of @n nodes whose pass runs @ops operations:
 * dumped as "fcell VARIANT OP ORDER N OPS".
 */
void bench_mark_end_ops(const char *variant, const char *op,
			const char *order, unsigned long n, unsigned long ops,
			bool record);
#endif

#endif /* _RBTREE_BENCH_H */
