// SPDX-License-Identifier: GPL-2.0
/*
 * rb_add_cached(), rb_first_cached() and rb_erase_cached() against rb_add(),
 * rb_first() and rb_erase() on the same keys
 * (a group of the family benchmark, bench_family.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>

#include "bench_group.h"

struct bench_cobj {
	struct rb_node node;
	u64 key;
};

#define bench_cobj_of(n)	rb_entry(n, struct bench_cobj, node)

static __always_inline bool bench_cobj_less(struct rb_node *a,
					    const struct rb_node *b)
{
	return bench_cobj_of(a)->key < bench_cobj_of(b)->key;
}

/* Both variants on a struct rb_root_cached; rb_add() leaves rb_leftmost. */
static BENCH_ENTRY void bench_add_insert(struct rb_root_cached *t,
					 struct bench_cobj *obj)
{
	rb_add(&obj->node, &t->rb_root, bench_cobj_less);
}

static BENCH_ENTRY struct rb_node *bench_add_first(struct rb_root_cached *t)
{
	return rb_first(&t->rb_root);
}

static BENCH_ENTRY void bench_add_erase(struct rb_root_cached *t,
					struct bench_cobj *obj)
{
	rb_erase(&obj->node, &t->rb_root);
}

static BENCH_ENTRY struct rb_node *bench_add_pop(struct rb_root_cached *t)
{
	struct rb_node *n = rb_first(&t->rb_root);

	rb_erase(n, &t->rb_root);
	return n;
}

static BENCH_ENTRY void bench_cached_insert(struct rb_root_cached *t,
					    struct bench_cobj *obj)
{
	rb_add_cached(&obj->node, t, bench_cobj_less);
}

static BENCH_ENTRY struct rb_node *bench_cached_first(struct rb_root_cached *t)
{
	return rb_first_cached(t);
}

/*
 * BENCH_FAMILY_BREAK: two deliberate bugs, a stale leftmost cache and a
 * scan that misses intervals starting at a query's last point, that the
 * smoke test must see as disagreements.
 */
static BENCH_ENTRY void bench_cached_erase(struct rb_root_cached *t,
					   struct bench_cobj *obj)
{
#ifdef BENCH_FAMILY_BREAK
	rb_erase(&obj->node, &t->rb_root);
#else
	rb_erase_cached(&obj->node, t);
#endif
}

static BENCH_ENTRY struct rb_node *bench_cached_pop(struct rb_root_cached *t)
{
	struct rb_node *n = rb_first_cached(t);

	rb_erase_cached(n, t);
	return n;
}

/**
 * struct bench_cset - the cached group's set
 * @tree: the tree, empty between passes
 * @objs: the nodes, inserted in array order; keys 2, 4, ... 2 * @n
 * @erase: indices into @objs, the erase order
 * @n: number of nodes
 * @random: random insertion and erase orders, new every pass (else
 *	ascending)
 * @seed: seed of the orders
 */
struct bench_cset {
	struct rb_root_cached tree;
	struct bench_cobj *objs;
	u32 *erase;
	unsigned long n;
	bool random;
	u64 seed;
};

enum { BENCH_C_INSERT, BENCH_C_FIRST, BENCH_C_ERASE, BENCH_C_POP };

static void bench_cset_pass(void *set, unsigned int rep, unsigned long pass)
{
	struct bench_cset *s = set;
	u64 state = bench_family_state(s->seed, s->n, rep, pass);
	unsigned long i;

	if (pass && !s->random)
		return;
	bench_permute(s->erase, s->n, s->random ? &state : NULL);
	for (i = 0; i < s->n; i++)
		s->objs[i].key = 2 * ((u64)s->erase[i] + 1);
	bench_permute(s->erase, s->n, s->random ? &state : NULL);
}

/* One variant's operations, the calls direct as in bench_core.c. */
static __always_inline u64
bench_cset_loop(struct bench_cset *s, unsigned int op,
		void (*insert)(struct rb_root_cached *t, struct bench_cobj *obj),
		struct rb_node *(*first)(struct rb_root_cached *t),
		void (*erase)(struct rb_root_cached *t, struct bench_cobj *obj),
		struct rb_node *(*pop)(struct rb_root_cached *t))
{
	unsigned long i;
	u64 sum = 0;

	switch (op) {
	case BENCH_C_INSERT:
		for (i = 0; i < s->n; i++)
			insert(&s->tree, &s->objs[i]);
		break;
	case BENCH_C_FIRST:
		for (i = 0; i < s->n; i++)
			sum += bench_cobj_of(first(&s->tree))->key;
		break;
	case BENCH_C_ERASE:
		for (i = 0; i < s->n; i++)
			erase(&s->tree, &s->objs[s->erase[i]]);
		break;
	case BENCH_C_POP:
		for (i = 0; i < s->n; i++)
			sum = bench_hash(sum, bench_cobj_of(pop(&s->tree))->key);
		break;
	}
	return sum;
}

static BENCH_ENTRY u64 bench_add_loop(struct bench_cset *s, unsigned int op)
{
	return bench_cset_loop(s, op, bench_add_insert, bench_add_first,
			       bench_add_erase, bench_add_pop);
}

static BENCH_ENTRY u64 bench_cached_loop(struct bench_cset *s, unsigned int op)
{
	return bench_cset_loop(s, op, bench_cached_insert, bench_cached_first,
			       bench_cached_erase, bench_cached_pop);
}

static u64 bench_cset_run(void *set, unsigned int v, unsigned int op)
{
	return v ? bench_cached_loop(set, op) : bench_add_loop(set, op);
}

/* Pop needs a full tree: erase left it empty. */
static void bench_cset_prepare(void *set, unsigned int v, unsigned int op)
{
	struct bench_cset *s = set;
	unsigned long i;

	if (op != BENCH_C_POP)
		return;
	for (i = 0; i < s->n; i++)
		rb_add_cached(&s->objs[i].node, &s->tree, bench_cobj_less);
	if (!v)
		s->tree.rb_leftmost = NULL;
}

/*
 * After insert and erase, the keys in order, and for rb_add_cached()
 * whether the cache is the first node: a stale cache changes the digest.
 */
static u64 bench_cset_digest(void *set, unsigned int v, unsigned int op,
			     u64 sum)
{
	struct bench_cset *s = set;
	struct rb_node *n;
	u64 h = 0;

	if (op != BENCH_C_INSERT && op != BENCH_C_ERASE &&
	    !(op == BENCH_C_POP && s->tree.rb_root.rb_node))
		return sum;
	for (n = rb_first(&s->tree.rb_root); n; n = rb_next(n))
		h = bench_hash(h, bench_cobj_of(n)->key);
	if (v && s->tree.rb_leftmost != rb_first(&s->tree.rb_root))
		h ^= 1;
	return h;
}

/**
 * bench_cached_group() - the cached group on @n nodes
 * @cfg: repetitions, least operations per cell, seed
 * @out: where bench_emit() writes
 * @n: number of nodes
 * @random: random key orders, else ascending
 *
 * Return: 0 or -ENOMEM.
 */
int bench_cached_group(const struct bench_config *cfg, struct bench_out *out,
		       unsigned long n, bool random)
{
	struct bench_cset s = { .tree = RB_ROOT_CACHED, .n = n,
				.random = random, .seed = cfg->seed };
	struct bench_group g = {
		.variants = { "rb_add", "rb_add_cached" }, .nr_variants = 2,
		.ops = { "insert", "first", "erase", "pop" }, .nr_ops = 4,
		.order = random ? "random" : "sequential", .n = n,
		.per_pass = n, .pass = bench_cset_pass,
		.prepare = bench_cset_prepare, .run = bench_cset_run,
		.digest = bench_cset_digest, .set = &s,
	};
	int ret = -ENOMEM;

	s.objs = bench_alloc(n * sizeof(*s.objs));
	s.erase = bench_alloc(n * sizeof(*s.erase));
	if (s.objs && s.erase) {
		bench_cset_pass(&s, 0, 0);
		bench_group_run(cfg, out, &g);
		ret = 0;
	}
	bench_free(s.objs);
	bench_free(s.erase);
	return ret;
}
