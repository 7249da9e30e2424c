// SPDX-License-Identifier: GPL-2.0
/*
 * The "bsd" variant of the benchmark (userspace only): BSD <sys/tree.h>
 * from libbsd, RB_GENERATE_STATIC() over a node of its own (RB_ENTRY: left,
 * right, parent, colour -- 32 bytes against the kernel's 24), the
 * established generic-macro red-black tree a user might pick instead of a
 * kernel API.  The same keys, orders and digests as bench_core.c.
 *
 * Its generated functions compare through bench_bsd_cmp(), which they call
 * directly, so GCC may inline it: the same chance the kernel's generic
 * inline APIs get.  Each operation is a BENCH_ENTRY function, like every
 * other variant's.
 */
#include <stdlib.h>
#include <bsd/sys/tree.h>

#include <linux/compiler.h>
#include <linux/types.h>

#include "bench.h"

struct bench_bsd_obj {
	RB_ENTRY(bench_bsd_obj) entry;
	u64 key;
};

RB_HEAD(bench_bsd_tree, bench_bsd_obj);

struct bench_bsd_set {
	struct bench_bsd_tree root;
	struct bench_bsd_obj *objs;
	unsigned long n;
};

/* The same three-way comparison as bench_cmp_keys() in bench_core.c. */
static inline int bench_bsd_cmp(const struct bench_bsd_obj *a,
				const struct bench_bsd_obj *b)
{
#ifdef BENCH_BRANCHY_CMP
	if (a->key < b->key)
		return -1;
	return a->key > b->key;
#else
	return (a->key > b->key) - (a->key < b->key);
#endif
}

/*
 * libbsd leaves __unused undefined (its cdefs.h explains why); the generated
 * code has unused functions and parameters.
 */
#ifndef __unused
#define __unused __maybe_unused
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
RB_GENERATE_STATIC(bench_bsd_tree, bench_bsd_obj, entry, bench_bsd_cmp)
#pragma GCC diagnostic pop

static inline u64 bench_bsd_hash(u64 h, u64 key)
{
	return (h ^ key) * 0x100000001b3ULL;
}

static BENCH_ENTRY void bench_bsd_insert(struct bench_bsd_tree *t,
					 struct bench_bsd_obj *obj)
{
	RB_INSERT(bench_bsd_tree, t, obj);
}

static BENCH_ENTRY struct bench_bsd_obj *bench_bsd_find(struct bench_bsd_tree *t,
							u64 key)
{
	struct bench_bsd_obj search = { .key = key };

	return RB_FIND(bench_bsd_tree, t, &search);
}

/*
 * First node with a key >= @key: the benchmark only asks for absent keys,
 * for which that is the first node after @key, as the other variants'
 * "greater" answers.
 */
static BENCH_ENTRY struct bench_bsd_obj *
bench_bsd_greater(struct bench_bsd_tree *t, u64 key)
{
	struct bench_bsd_obj search = { .key = key };

	return RB_NFIND(bench_bsd_tree, t, &search);
}

static BENCH_ENTRY void bench_bsd_erase(struct bench_bsd_tree *t,
					struct bench_bsd_obj *obj)
{
	RB_REMOVE(bench_bsd_tree, t, obj);
}

static BENCH_ENTRY u64 bench_bsd_walk(struct bench_bsd_tree *t)
{
	struct bench_bsd_obj *obj;
	u64 h = 0;

	RB_FOREACH(obj, bench_bsd_tree, t)
		h = bench_bsd_hash(h, obj->key);
	return h;
}

struct bench_bsd_set *bench_bsd_new(unsigned long n)
{
	struct bench_bsd_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->objs = calloc(n, sizeof(*s->objs));
	if (!s->objs) {
		free(s);
		return NULL;
	}
	s->n = n;
	RB_INIT(&s->root);
	return s;
}

void bench_bsd_set_keys(struct bench_bsd_set *s, const u64 *keys, size_t stride)
{
	unsigned long i;

	for (i = 0; i < s->n; i++)
		s->objs[i].key = *(const u64 *)((const char *)keys + i * stride);
}

void bench_bsd_free(struct bench_bsd_set *s)
{
	if (s)
		free(s->objs);
	free(s);
}

u64 bench_bsd_run(struct bench_bsd_set *s, enum bench_op op,
		  const u64 *lookup, const u32 *erase)
{
	struct bench_bsd_tree *t = &s->root;
	struct bench_bsd_obj *obj;
	unsigned long i;
	u64 sum = 0;

	switch (op) {
	case BENCH_INSERT:
		for (i = 0; i < s->n; i++)
			bench_bsd_insert(t, &s->objs[i]);
		break;
	case BENCH_FIND_HIT:
		for (i = 0; i < s->n; i++) {
			obj = bench_bsd_find(t, lookup[i]);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_FIND_MISS:
		for (i = 0; i < s->n; i++) {
			obj = bench_bsd_find(t, lookup[i] - 1);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_GREATER:
		for (i = 0; i < s->n; i++) {
			obj = bench_bsd_greater(t, lookup[i] - 1);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_WALK:
		sum = bench_bsd_walk(t);
		break;
	case BENCH_ERASE:
		for (i = 0; i < s->n; i++)
			bench_bsd_erase(t, &s->objs[erase[i]]);
		break;
	default:
		break;
	}
	return sum;
}
