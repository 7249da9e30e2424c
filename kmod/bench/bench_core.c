// SPDX-License-Identifier: GPL-2.0
/*
 * What does a generic rbtree API cost?  The same operations on the same
 * nodes and keys, through each API:
 *
 *	open		open-coded loops, as elv_rb_add() and elv_rb_find():
 *			branchy, an if on every key comparison
 *	open_bf		the same loops written branch-free (a conditional
 *			choice of child, which GCC compiles to cmov), the
 *			baseline for generic loops over a branch-free
 *			comparison function
 *	open_cmp	open-coded loops that decide through the same
 *			three-way bench_cmp_keys() as the generic APIs'
 *			comparison functions (cmp < 0: left, > 0: right, 0:
 *			found): what an API costs beyond its comparison form
 *	open_cmp_u	open_cmp for a unique tree, as the generic APIs
 *			write it: insert tests for an equal key on the way
 *			down (Santos's unique insert), find tests equality
 *			first (_rb_search(), Santos's unique find)
 *	open_cmp_first	open_cmp whose find returns the first of equal
 *			keys (Santos's find on a tree with equal keys)
 *	mainline	6.1's rb_add() and rb_find() (no "greater" helper)
 *	mainline_u	mainline for a unique tree: rb_find_add(), which
 *			returns an equal key instead of linking the node,
 *			and rb_find()
 *	ovs_inline	Overstreet's _rb_insert_allow_dup(), _rb_search(),
 *			_rb_find_first_greater()
 *	ovs_ool		Overstreet's out-of-line rb_insert_allow_dup(),
 *			rb_search(), rb_find_first_greater(), comparing
 *			through the function pointer as a module calls them
 *	santos		RB_DEFINE_INTERFACE() with RB_UNIQUE_KEYS
 *	santos_lc	the same plus RB_HAS_LEFTMOST and RB_HAS_COUNT
 *	santos_dup	RB_DEFINE_INTERFACE() without flags: equal keys allowed,
 *			as in the elevator, so find means find-first
 *	bsd		(userspace only) BSD <sys/tree.h> RB_GENERATE, from
 *			libbsd: the established generic-macro rbtree, on
 *			its own nodes (bench_bsd.c)
 *
 * Every operation of every variant is a function of its own, as
 * elv_rb_add() is, marked BENCH_ENTRY (noipa): not inlined, not cloned
 * (.isra/.constprop), not folded with an identical one, and its callers
 * assume nothing about it, so that every variant pays the same call and its
 * code size can be read with nm.  kmod/bench/check-entries fails the build
 * if GCC cloned or folded one anyway.  Operations an API does not have (erase, and
 * walk except for Santos) use the plain rb_erase() and rb_first()/rb_next()
 * functions, which makes those cells of identical code a measure of noise.
 *
 * This file is compiled unchanged in the kernel (bench_module.c) and in
 * userspace over tools/lib/rbtree.c (bench_user.c); see bench.h.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/string.h>

#include "../rbtree_overstreet.h"
#include "../rbtree_santos.h"
#include "bench.h"

/* The layout every variant works on: a sector-like key after the node. */
struct bench_obj {
	struct rb_node node;
	u64 key;
};

/* Container; only the Santos variants with caches use more than @root. */
struct bench_tree {
	struct rb_root root;
	struct rb_node *leftmost;
	unsigned long count;
};

/* Sparse does not predefine __VERSION__. */
#ifdef __VERSION__
#define BENCH_COMPILER	__VERSION__
#else
#define BENCH_COMPILER	"unknown"
#endif

#define bench_obj_of(n)	rb_entry(n, struct bench_obj, node)

/* Mitigation profile of the build: set by the userspace Makefile. */
#ifndef BENCH_PROFILE
#define BENCH_PROFILE	"kernel"
#endif

#ifdef BENCH_BRANCHY_CMP
#define BENCH_CMP_NAME	"branchy"
#else
#define BENCH_CMP_NAME	"arith"
#endif

/*
 * Three-way key comparison without overflow, the way every variant's
 * comparison function computes it.  By default the branch-free idiom
 * (a > b) - (a < b); with BENCH_BRANCHY_CMP the if-chain most
 * hand-written comparators use.  The generic loops' code depends on it:
 * GCC turns "cmp() < 0 ? left : right" into a conditional move when the
 * sign is computed arithmetically, but branches on an if-chain, as in the
 * open-coded loops.
 */
static __always_inline int bench_cmp_keys(u64 a, u64 b)
{
#ifdef BENCH_BRANCHY_CMP
	if (a < b)
		return -1;
	return a > b;
#else
	return (a > b) - (a < b);
#endif
}

/* The variants: each API's operations, static in this translation unit. */
#include "bench_variants.h"

/* --- the timed loops --- */

static const char *const bench_op_names[BENCH_NR_OPS] = {
	[BENCH_INSERT]		= "insert",
	[BENCH_FIND_HIT]	= "find_hit",
	[BENCH_FIND_MISS]	= "find_miss",
	[BENCH_GREATER]		= "greater",
	[BENCH_WALK]		= "walk",
	[BENCH_ERASE]		= "erase",
};

/**
 * struct bench_set - one tree size and key order
 * @tree: the tree, empty between cycles
 * @objs: the nodes, inserted in array order, so that allocation order is
 *	insertion order; their keys are 2, 4, ... 2 * @n in @order
 * @keys: keys looked up, one per node in lookup order; @keys[i] - 1 is
 *	absent, and its successor is @keys[i]
 * @erase: indices into @objs, in the same lookup order
 * @inv: scratch, the index into @objs of each key rank
 * @n: number of nodes
 * @order: "random" or "sequential"
 * @random: the keys are in random order, drawn anew for every pass
 * @seed: seed of the random orders
 * @bsd: the BSD variant's own nodes and tree (bench_bsd.c), same keys
 */
struct bench_set {
	struct bench_tree tree;
	struct bench_obj *objs;
	u64 *keys;
	u32 *erase;
	u32 *inv;
	unsigned long n;
	const char *order;
	bool random;
	u64 seed;
#ifdef BENCH_BSD_TREE
	struct bench_bsd_set *bsd;
#endif
};

/*
 * One operation over the whole set.  Called with constant function
 * pointers from each variant's bench_*_loop(), so that the calls in the
 * loops are direct, as in real users.
 */
static __always_inline u64
bench_loop(struct bench_set *s, enum bench_op op,
	   void (*insert)(struct bench_tree *t, struct bench_obj *obj),
	   struct bench_obj *(*find)(struct bench_tree *t, u64 key),
	   struct bench_obj *(*greater)(struct bench_tree *t, u64 key),
	   void (*erase)(struct bench_tree *t, struct bench_obj *obj),
	   u64 (*walk)(struct bench_tree *t))
{
	struct bench_tree *t = &s->tree;
	struct bench_obj *obj;
	unsigned long i;
	u64 sum = 0;

	switch (op) {
	case BENCH_INSERT:
		for (i = 0; i < s->n; i++)
			insert(t, &s->objs[i]);
		break;
	case BENCH_FIND_HIT:
		for (i = 0; i < s->n; i++) {
			obj = find(t, s->keys[i]);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_FIND_MISS:
		for (i = 0; i < s->n; i++) {
			obj = find(t, s->keys[i] - 1);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_GREATER:
		for (i = 0; greater && i < s->n; i++) {
			obj = greater(t, s->keys[i] - 1);
			sum += obj ? obj->key : 0;
		}
		break;
	case BENCH_WALK:
		sum = walk(t);
		break;
	case BENCH_ERASE:
		for (i = 0; i < s->n; i++)
			erase(t, &s->objs[s->erase[i]]);
		break;
	default:
		break;
	}

	return sum;
}

#define BENCH_VARIANT(name, insert, find, greater, erase, walk)	\
static BENCH_ENTRY u64 bench_##name##_loop(struct bench_set *s,		\
					   enum bench_op op)		\
{									\
	return bench_loop(s, op, insert, find, greater, erase, walk);	\
}

BENCH_VARIANT(open, bench_open_insert, bench_open_find, bench_open_greater,
	      bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(open_bf, bench_open_bf_insert, bench_open_bf_find,
	      bench_open_bf_greater, bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(open_cmp, bench_open_cmp_insert, bench_open_cmp_find,
	      bench_open_cmp_greater, bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(open_cmp_u, bench_open_cmp_u_insert, bench_open_cmp_u_find,
	      bench_open_cmp_greater, bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(open_cmp_first, bench_open_cmp_insert, bench_open_cmp_first_find,
	      bench_open_cmp_greater, bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(mainline, bench_mainline_insert, bench_mainline_find, NULL,
	      bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(mainline_u, bench_mainline_u_insert, bench_mainline_find, NULL,
	      bench_plain_erase, bench_plain_walk)
BENCH_VARIANT(ovs_inline, bench_ovs_inline_insert, bench_ovs_inline_find,
	      bench_ovs_inline_greater, bench_plain_erase, bench_ovs_walk)
BENCH_VARIANT(ovs_ool, bench_ovs_ool_insert, bench_ovs_ool_find,
	      bench_ovs_ool_greater, bench_plain_erase, bench_ovs_walk)
BENCH_VARIANT(santos, bench_santos_insert, bench_santos_find,
	      bench_santos_greater, bench_santos_erase, bench_santos_walk)
BENCH_VARIANT(santos_lc, bench_santos_lc_insert, bench_santos_lc_find,
	      bench_santos_lc_greater, bench_santos_lc_erase,
	      bench_santos_lc_walk)
BENCH_VARIANT(santos_dup, bench_santos_dup_insert, bench_santos_dup_find,
	      bench_santos_dup_greater, bench_santos_dup_erase,
	      bench_santos_dup_walk)

#ifdef BENCH_BSD_TREE
static BENCH_ENTRY u64 bench_bsd_loop(struct bench_set *s, enum bench_op op)
{
	return bench_bsd_run(s->bsd, op, s->keys, s->erase);
}
#endif

/**
 * struct bench_variant - one API under test
 * @name: name in the output
 * @loop: runs one operation over a whole set
 * @has_greater: the API has a "first node after a key" search
 * @has_caches: the variant keeps @leftmost and @count of struct bench_tree
 * @is_bsd: the variant works on the BSD nodes of struct bench_set
 */
struct bench_variant {
	const char *name;
	u64 (*loop)(struct bench_set *s, enum bench_op op);
	bool has_greater;
	bool has_caches;
	bool is_bsd;
};

static const struct bench_variant bench_variants[] = {
	{ "open",	bench_open_loop,	true,	false,	false },
	{ "open_bf",	bench_open_bf_loop,	true,	false,	false },
	{ "open_cmp",	bench_open_cmp_loop,	true,	false,	false },
	{ "open_cmp_u",	bench_open_cmp_u_loop,	true,	false,	false },
	{ "open_cmp_first", bench_open_cmp_first_loop, true, false,	false },
	{ "mainline",	bench_mainline_loop,	false,	false,	false },
	{ "mainline_u",	bench_mainline_u_loop,	false,	false,	false },
	{ "ovs_inline",	bench_ovs_inline_loop,	true,	false,	false },
	{ "ovs_ool",	bench_ovs_ool_loop,	true,	false,	false },
	{ "santos",	bench_santos_loop,	true,	false,	false },
	{ "santos_lc",	bench_santos_lc_loop,	true,	true,	false },
	{ "santos_dup",	bench_santos_dup_loop,	true,	false,	false },
#ifdef BENCH_BSD_TREE
	{ "bsd",	bench_bsd_loop,		true,	false,	true },
#endif
};

#define BENCH_NR_VARIANTS	ARRAY_SIZE(bench_variants)

/*
 * Digest of the tree's shape-independent state after an insert or erase
 * pass: its keys in order, and whether the caches agree with the tree (a
 * stale cache changes the digest, so it shows as a disagreement).
 */
static u64 bench_digest(const struct bench_set *s,
			const struct bench_variant *v)
{
	const struct bench_tree *t = &s->tree;
	unsigned long count = 0;
	struct rb_node *n;
	u64 h = 0;

#ifdef BENCH_BSD_TREE
	if (v->is_bsd)
		return bench_bsd_run(s->bsd, BENCH_WALK, NULL, NULL);
#endif
	for (n = rb_first(&t->root); n; n = rb_next(n)) {
		h = bench_hash(h, bench_obj_of(n)->key);
		count++;
	}
	if (v->has_caches) {
		if (t->leftmost != rb_first(&t->root))
			h ^= 1;
		if (t->count != count)
			h ^= 2;
	}
	return h;
}

static void bench_set_free(struct bench_set *s)
{
#ifdef BENCH_BSD_TREE
	bench_bsd_free(s->bsd);
#endif
	bench_free(s->objs);
	bench_free(s->keys);
	bench_free(s->erase);
	bench_free(s->inv);
}

/*
 * Give the nodes their keys (insertion order) and choose the lookup and
 * erase order, from @state, or ascending if @state is NULL.
 */
static void bench_set_keys(struct bench_set *s, u64 *state)
{
	unsigned long i, n = s->n;

	/* Insertion order: objs[i] gets the key of rank perm[i]. */
	bench_permute(s->erase, n, state);
	for (i = 0; i < n; i++) {
		s->objs[i].key = 2 * ((u64)s->erase[i] + 1);
		s->inv[s->erase[i]] = i;
	}
	/* Lookup and erase order: an independent permutation of the ranks. */
	bench_permute(s->erase, n, state);
	for (i = 0; i < n; i++) {
		s->keys[i] = 2 * ((u64)s->erase[i] + 1);
		s->erase[i] = s->inv[s->erase[i]];
	}
#ifdef BENCH_BSD_TREE
	bench_bsd_set_keys(s->bsd, &s->objs[0].key, sizeof(*s->objs));
#endif
}

/*
 * The keys of pass @pass of repetition @rep.  For a random set a new random
 * order every pass, the same for every variant: repeated from pass to pass,
 * the same sequence of a thousand branches is partly learnt by the branch
 * predictor, and by how much depends on what ran in between -- identical
 * code then differed by up to 40 % between variants at N = 1000.
 */
static void bench_set_pass(struct bench_set *s, unsigned int rep,
			   unsigned long pass)
{
	u64 state;

	if (!s->random)
		return;
	state = (s->seed ^ s->n ^ ((u64)rep << 40) ^ ((u64)pass << 20)) *
		0x9e3779b97f4a7c15ULL | 1;
	bench_set_keys(s, &state);
}

/* Nodes and key orders for @n nodes; @random or ascending keys. */
static int bench_set_init(struct bench_set *s, unsigned long n, bool random,
			  u64 seed)
{
	*s = (struct bench_set){ .n = n, .random = random, .seed = seed,
				 .order = random ? "random" : "sequential" };
	s->objs = bench_alloc(n * sizeof(*s->objs));
	s->keys = bench_alloc(n * sizeof(*s->keys));
	s->erase = bench_alloc(n * sizeof(*s->erase));
	s->inv = bench_alloc(n * sizeof(*s->inv));
#ifdef BENCH_BSD_TREE
	s->bsd = bench_bsd_new(n);
	if (!s->bsd) {
		bench_set_free(s);
		return -ENOMEM;
	}
#endif
	if (!s->objs || !s->keys || !s->erase || !s->inv) {
		bench_set_free(s);
		return -ENOMEM;
	}
	bench_set_pass(s, 0, 0);
	if (!random)
		bench_set_keys(s, NULL);
	return 0;
}

/*
 * One repetition of variant @v on @s: @passes times build the tree, run
 * every search and the walk, and tear it down; add up the time of each
 * operation.  Its digest is that of one pass: every pass must give the same
 * results, and a pass that does not sets the digest to BENCH_BAD_DIGEST, so
 * that digests do not depend on the number of passes and runs with
 * different ones (host and guest) can be compared.  Repetition @rep 0 is
 * the warm-up, which the environment does not record (bench_mark_end()).
 */
#define BENCH_BAD_DIGEST	0xbadULL

static void bench_cycle(struct bench_set *s, const struct bench_variant *v,
			unsigned long passes, u64 *elapsed, u64 *check,
			unsigned int rep)
{
	bool record = rep;
	unsigned long pass;
	u64 t0, sum;
	int op;

	for (pass = 0; pass < passes; pass++) {
		bench_set_pass(s, rep, pass);
		for (op = 0; op < BENCH_NR_OPS; op++) {
			if (op == BENCH_GREATER && !v->has_greater)
				continue;
			t0 = bench_now();
			bench_mark_begin();
			sum = v->loop(s, op);
			bench_mark_end(v->name, bench_op_names[op], s->order,
				       s->n, record && !pass);
			elapsed[op] += bench_now() - t0;
			if (op == BENCH_INSERT || op == BENCH_ERASE)
				sum = bench_digest(s, v);
			if (!pass)
				check[op] = sum;
			else if (check[op] != sum)
				check[op] = BENCH_BAD_DIGEST;
			bench_yield();
		}
	}
}

static void bench_emit_cells(struct bench_out *out, const struct bench_set *s,
			     const struct bench_variant *v, unsigned int rep,
			     unsigned long ops, const u64 *elapsed, const u64 *check)
{
	int op;

	for (op = 0; op < BENCH_NR_OPS; op++) {
		if (op == BENCH_GREATER && !v->has_greater)
			continue;
		bench_emit(out, "cell %s %s %s %lu %u %lu %llu %llx\n",
			   v->name, bench_op_names[op], s->order, s->n, rep, ops,
			   (unsigned long long)elapsed[op],
			   (unsigned long long)check[op]);
	}
}

/* All variants on one set, interleaved: each repetition in a new order. */
static void bench_set_run(const struct bench_config *cfg,
			  struct bench_out *out, struct bench_set *s)
{
	unsigned long passes = (cfg->min_ops + s->n - 1) / s->n;
	const struct bench_variant *v;
	u64 elapsed[BENCH_NR_OPS], check[BENCH_NR_OPS];
	unsigned int rep, k;

	if (!passes)
		passes = 1;
	/* Repetition 0 is the warm-up. */
	for (rep = 0; rep <= cfg->reps; rep++) {
		for (k = 0; k < BENCH_NR_VARIANTS; k++) {
			v = &bench_variants[(k + rep) % BENCH_NR_VARIANTS];
			memset(elapsed, 0, sizeof(elapsed));
			memset(check, 0, sizeof(check));
			bench_cycle(s, v, passes, elapsed, check, rep);
			if (rep)
				bench_emit_cells(out, s, v, rep - 1,
						 passes * s->n, elapsed, check);
		}
	}
}

/**
 * bench_output_size() - bound on the length of bench_run()'s output
 * @cfg: sizes and repetitions
 *
 * Return: bytes that are always enough for the output of a run with @cfg.
 */
size_t bench_output_size(const struct bench_config *cfg)
{
	size_t cells = (size_t)cfg->nr_sizes * cfg->reps * 2 *
		       BENCH_NR_VARIANTS * BENCH_NR_OPS;

	/* a cell line is at most ~110 bytes; header and meta well below 4K */
	return cells * 128 + 4096;
}

/**
 * bench_run() - run the whole benchmark and print its results
 * @cfg: sizes, repetitions and seed
 * @out: where bench_emit() writes
 *
 * Return: 0, -EINVAL for a size of 0 or above 2^30 or a number of
 * repetitions out of 1..BENCH_MAX_REPS, or -ENOMEM.
 */
int bench_run(const struct bench_config *cfg, struct bench_out *out)
{
	struct bench_set s;
	unsigned int i, order;
	int ret;

	if (!cfg->reps || cfg->reps > BENCH_MAX_REPS || !cfg->nr_sizes ||
	    cfg->nr_sizes > BENCH_MAX_SIZES)
		return -EINVAL;
	for (i = 0; i < cfg->nr_sizes; i++)
		if (!cfg->sizes[i] || cfg->sizes[i] > (1UL << 30))
			return -EINVAL;

	bench_emit(out, "rbtree-bench %d\n", BENCH_FORMAT_VERSION);
	bench_emit(out, "meta compiler %s\n", BENCH_COMPILER);
	bench_emit(out, "meta clock %s\n", cfg->clock);
	bench_emit(out, "meta cmp %s\n", BENCH_CMP_NAME);
	bench_emit(out, "meta profile %s\n", BENCH_PROFILE);
	bench_emit(out, "meta reps %u\n", cfg->reps);
	bench_emit(out, "meta min_ops %lu\n", cfg->min_ops);
	bench_emit(out, "meta seed %llu\n", (unsigned long long)cfg->seed);
	for (i = 0; i < BENCH_NR_VARIANTS; i++)
		bench_emit(out, "variant %s\n", bench_variants[i].name);

	for (i = 0; i < cfg->nr_sizes; i++) {
		for (order = 0; order < 2; order++) {
			ret = bench_set_init(&s, cfg->sizes[i], !order,
					     cfg->seed);
			if (ret)
				return ret;
			bench_set_run(cfg, out, &s);
			bench_set_free(&s);
		}
	}

	bench_emit(out, "end\n");
	return 0;
}
