// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the two generic red-black tree APIs: Kent Overstreet's
 * rb_insert() & co. (the out-of-line versions come from rbtree_inspector.ko,
 * which must be loaded first) and Daniel Santos's RB_DEFINE_INTERFACE().
 *
 * This file holds what the suites share: objects, a model of a tree's
 * contents, the red-black checker and the verifiers that compare an
 * interface's tree with its model. The suites are in rbtree_kunit_*.c.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rbtree_augmented.h>
#include <linux/string.h>

#include "rbtree_kunit.h"

/* Per-test state, in test->priv. */
struct rbt_ctx {
	struct rnd_state rnd;
	unsigned int next_id;
};

/**
 * rbt_init() - the suites' init: a seeded random state per test
 * @test: the test
 *
 * Return: 0, or -ENOMEM.
 */
int rbt_init(struct kunit *test)
{
	struct rbt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	prandom_seed_state(&ctx->rnd, RBT_SEED);
	test->priv = ctx;
	return 0;
}

/**
 * rbt_new() - a new object, not in any tree
 * @test: the test, which frees it
 * @key: its key
 *
 * Return: the object; its val is spread over 0..1023 by its id.
 */
struct rbt_obj *rbt_new(struct kunit *test, s64 key)
{
	struct rbt_ctx *ctx = test->priv;
	struct rbt_obj *obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	obj->key = key;
	obj->id = ctx->next_id++;
	obj->val = (obj->id * 2654435761U) >> 22;
	RB_CLEAR_NODE(&obj->node);
	return obj;
}

/**
 * rbt_new_seq() - an empty tree and its empty model
 * @test: the test, which frees them
 *
 * Return: the pair.
 */
struct rbt_seq *rbt_new_seq(struct kunit *test)
{
	struct rbt_seq *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	s->m.objs = kunit_kcalloc(test, RBT_MAX, sizeof(*s->m.objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->m.objs);
	s->m.seen = kunit_kcalloc(test, RBT_MAX, sizeof(*s->m.seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s->m.seen);
	return s;
}

/**
 * rbt_rand() - a pseudo-random number
 * @test: the test, whose random state it advances
 * @range: the bound
 *
 * Return: a number in [0, @range).
 */
u32 rbt_rand(struct kunit *test, u32 range)
{
	struct rbt_ctx *ctx = test->priv;

	return prandom_u32_state(&ctx->rnd) % range;
}

/**
 * rbt_rand_key() - a random key, now and then one of the extremes
 * @test: the test
 *
 * Return: S64_MIN, S64_MAX or a key in [-%RBT_KEYS, %RBT_KEYS].
 */
s64 rbt_rand_key(struct kunit *test)
{
	switch (rbt_rand(test, 32)) {
	case 0:
		return S64_MIN;
	case 1:
		return S64_MAX;
	default:
		return (s64)rbt_rand(test, 2 * RBT_KEYS + 1) - RBT_KEYS;
	}
}

/**
 * rbt_walk_record() - a walk() callback that records what it visits
 * @obj: the object visited
 * @arg: the &struct rbt_model whose seen array records it
 */
void rbt_walk_record(struct rbt_obj *obj, void *arg)
{
	struct rbt_model *m = arg;

	if (m->nseen < RBT_MAX)
		m->seen[m->nseen] = obj;
	m->nseen++;
}

/* --- The model: the objects in order --- */

/* Index of the first object with a key greater than @key. */
unsigned int rbt_upper(const struct rbt_model *m, s64 key)
{
	unsigned int i = 0;

	while (i < m->n && m->objs[i]->key <= key)
		i++;
	return i;
}

/* Index of the first object with a key not less than @key. */
unsigned int rbt_lower(const struct rbt_model *m, s64 key)
{
	unsigned int i = 0;

	while (i < m->n && m->objs[i]->key < key)
		i++;
	return i;
}

/* The object at index @i, or NULL past the end. */
struct rbt_obj *rbt_at(const struct rbt_model *m, unsigned int i)
{
	return i < m->n ? m->objs[i] : NULL;
}

/* Index of @o in the model, or m->n if it is not there. */
unsigned int rbt_index_of(const struct rbt_model *m, const struct rbt_obj *o)
{
	unsigned int i = 0;

	while (i < m->n && m->objs[i] != o)
		i++;
	return i;
}

static void rbt_model_insert(struct rbt_model *m, unsigned int i,
			     struct rbt_obj *obj)
{
	memmove(&m->objs[i + 1], &m->objs[i], (m->n - i) * sizeof(*m->objs));
	m->objs[i] = obj;
	m->n++;
}

/* Drop the object at index @i. */
void rbt_model_delete(struct rbt_model *m, unsigned int i)
{
	m->n--;
	memmove(&m->objs[i], &m->objs[i + 1], (m->n - i) * sizeof(*m->objs));
}

/* --- The red-black checker --- */

/* A node on the checker's path, and what its finished subtrees gave. */
struct rbt_frame {
	const struct rb_node *node;
	u64 max;
	u32 size;
	s16 bh;			/* black height of its first subtree, or -1 */
	u16 state;		/* 0: entered, 1: left done, 2: both done */
};

static __printf(2, 3) const char *rbt_say(char *buf, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, RBT_VERDICT, fmt, args);
	va_end(args);
	return buf;
}

/* Fold a finished subtree (or a NIL, @bh 1) into its parent's frame. */
static bool rbt_merge(struct rbt_frame *f, int bh, unsigned long size,
		      u64 max)
{
	if (f->bh >= 0 && f->bh != bh)
		return false;
	f->bh = bh;
	f->size += size;
	f->max = max(f->max, max);
	return true;
}

/* Push @child of @parent (NULL: the root), or return why it cannot be. */
static const char *rbt_enter(struct rbt_frame *stack, unsigned int *depth,
			     const struct rb_node *child,
			     const struct rb_node *parent, char *buf)
{
	const struct rbt_obj *obj = rbt_of(child);

	if (*depth == RBT_MAX_HEIGHT)
		return rbt_say(buf, "height: node %lld deeper than %d",
			       obj->key, RBT_MAX_HEIGHT);
	if (rb_parent(child) != parent)
		return rbt_say(buf, "parent: node %lld has a wrong parent",
			       obj->key);
	if (parent && rb_is_red(child) && rb_is_red(parent))
		return rbt_say(buf, "red-red: node %lld and its parent",
			       obj->key);
	stack[(*depth)++] = (struct rbt_frame){
		.node = child, .bh = -1, .size = 1, .max = obj->val,
	};
	return NULL;
}

/**
 * rbt_check() - every red-black invariant, and an augmented value
 * @root: the tree
 * @aug: the augmented value its nodes keep
 * @buf: %RBT_VERDICT bytes for the verdict
 *
 * Walks child pointers with an explicit stack of %RBT_MAX_HEIGHT frames:
 * a child whose parent pointer is not the node that links to it (as in any
 * cycle of child links) fails as "parent", and a tree deeper than the
 * stack fails as "height", so a broken tree ends the walk instead of
 * overflowing the kernel stack.
 *
 * Return: @buf, holding "ok" or the first violation.
 */
const char *rbt_check(const struct rb_root *root, enum rbt_aug aug, char *buf)
{
	struct rbt_frame stack[RBT_MAX_HEIGHT], *f;
	const struct rb_node *child;
	const struct rbt_obj *obj;
	unsigned int depth = 0;
	const char *why;
	int bh;

	if (root->rb_node && rb_is_red(root->rb_node))
		return rbt_say(buf, "root-color: root %lld is red",
			       rbt_of(root->rb_node)->key);
	why = root->rb_node ? rbt_enter(stack, &depth, root->rb_node, NULL, buf) :
			      NULL;
	if (why)
		return why;
	while (depth) {
		f = &stack[depth - 1];
		if (f->state < 2) {
			/* Its left, then its right child; a NIL is one black. */
			child = f->state++ ? f->node->rb_right : f->node->rb_left;
			if (!child) {
				if (!rbt_merge(f, 1, 0, 0))
					goto black_height;
				continue;
			}
			why = rbt_enter(stack, &depth, child, f->node, buf);
			if (why)
				return why;
			continue;
		}
		obj = rbt_of(f->node);
		if (aug == RBT_AUG_SIZE && obj->size != f->size)
			return rbt_say(buf, "augment: node %lld has size %lu, not %u",
				       obj->key, obj->size, f->size);
		if (aug == RBT_AUG_MAX && obj->max != f->max)
			return rbt_say(buf, "augment: node %lld has max %llu, not %llu",
				       obj->key, obj->max, f->max);
		bh = f->bh + rb_is_black(f->node);
		if (--depth && !rbt_merge(&stack[depth - 1], bh, f->size, f->max))
			goto black_height;
	}
	return rbt_say(buf, "ok");
black_height:
	return rbt_say(buf, "black-height: paths differ under node %lld",
		       rbt_of(stack[depth - 1].node)->key);
}

/* --- An interface's tree against its model --- */

static struct rbt_obj *rbt_op(const struct rbt_iface *t, struct rbt_seq *s,
			      enum rbt_op op, struct rbt_obj *o)
{
	return t->op(s, op, o, NULL, NULL);
}

/* The model's caches: what leftmost, rightmost and count must hold. */
static bool rbt_caches_ok(const struct rbt_iface *t, struct rbt_seq *s)
{
	const struct rbt_model *m = &s->m;
	unsigned int f = t->tree_flags;
	struct rbt_obj *first = rbt_at(m, 0);
	struct rbt_obj *last = m->n ? m->objs[m->n - 1] : NULL;

	s->m.nseen = 0;
	rbt_op(t, s, RBT_COUNT, NULL);
	if (f & RB_HAS_COUNT ? s->c.count != m->n || s->m.nseen != m->n :
	    s->c.count != 0)
		return false;
	if (rbt_of(s->c.left) != (f & RB_HAS_LEFTMOST ? first : NULL))
		return false;
	return rbt_of(s->c.right) == (f & RB_HAS_RIGHTMOST ? last : NULL);
}

/**
 * rbt_verify() - everything observable about a tree against its model
 * @t: the interface
 * @s: its tree and model
 *
 * The red-black invariants and augmented values; the objects in order (by
 * identity, so that the order of equal keys counts); the caches and the
 * count; first/last, next/prev at every object; and walk().
 *
 * Return: "ok" or what differs (in @s->verdict).
 */
const char *rbt_verify(const struct rbt_iface *t, struct rbt_seq *s)
{
	const struct rbt_model *m = &s->m;
	struct rb_node *node;
	unsigned int i = 0;

	if (strcmp(rbt_check(&s->c.root, t->aug, s->verdict), "ok"))
		return s->verdict;
	/* The check passed: the tree is finite, rb_next() ends. */
	for (node = rb_first(&s->c.root); node && i < m->n;
	     node = rb_next(node), i++)
		if (rbt_of(node) != m->objs[i])
			break;
	if (node || i != m->n)
		return rbt_say(s->verdict, "order: object %u is not the model's", i);
	if (!rbt_caches_ok(t, s))
		return rbt_say(s->verdict, "caches: leftmost, rightmost or count");
	if (rbt_op(t, s, RBT_FIRST, NULL) != rbt_at(m, 0) ||
	    rbt_op(t, s, RBT_LAST, NULL) != (m->n ? m->objs[m->n - 1] : NULL))
		return rbt_say(s->verdict, "first/last: not the model's");
	for (i = 0; i < m->n; i++)
		if (rbt_op(t, s, RBT_NEXT, m->objs[i]) != rbt_at(m, i + 1) ||
		    rbt_op(t, s, RBT_PREV, m->objs[i]) != (i ? m->objs[i - 1] : NULL))
			return rbt_say(s->verdict, "next/prev: wrong at object %u", i);
	rbt_op(t, s, RBT_WALK, NULL);
	if (m->nseen != m->n ||
	    memcmp(m->seen, m->objs, m->n * sizeof(*m->objs)))
		return rbt_say(s->verdict, "walk: visited %u objects, not the model's %u",
			       m->nseen, m->n);
	return rbt_say(s->verdict, "ok");
}

/**
 * rbt_verify_queries() - every query on one key against the model
 * @t: the interface
 * @s: its tree and model
 * @near: a hint for find_near(), or NULL
 * @k: the key
 *
 * find, find_first, find_last, find_next/find_prev over the equal run, and
 * find_near() from the root and from @near.
 *
 * Return: "ok" or what differs (in @s->verdict).
 */
const char *rbt_verify_queries(const struct rbt_iface *t, struct rbt_seq *s,
			       struct rbt_obj *near, s64 k)
{
	const struct rbt_model *m = &s->m;
	unsigned int lo = rbt_lower(m, k), hi = rbt_upper(m, k);
	struct rbt_obj *first = lo < hi ? m->objs[lo] : NULL;
	struct rbt_obj *last = lo < hi ? m->objs[hi - 1] : NULL;

	if (t->op(s, RBT_FIND, NULL, NULL, &k) != first ||
	    t->op(s, RBT_FIND_FIRST, NULL, NULL, &k) != first ||
	    t->op(s, RBT_FIND_LAST, NULL, NULL, &k) != last)
		return rbt_say(s->verdict, "find: key %lld", k);
	if (first &&
	    (rbt_op(t, s, RBT_FIND_PREV, first) || rbt_op(t, s, RBT_FIND_NEXT, last) ||
	     rbt_op(t, s, RBT_FIND_NEXT, first) != (lo + 1 < hi ? m->objs[lo + 1] : NULL) ||
	     rbt_op(t, s, RBT_FIND_PREV, last) != (lo + 1 < hi ? m->objs[hi - 2] : NULL)))
		return rbt_say(s->verdict, "find_next/find_prev: key %lld", k);
	if (t->op(s, RBT_FIND_NEAR, NULL, NULL, &k) != rbt_at(m, hi) ||
	    t->op(s, RBT_FIND_NEAR, NULL, near, &k) != rbt_at(m, hi))
		return rbt_say(s->verdict, "find_near: key %lld, hint %lld", k,
			       rbt_key(near));
	return rbt_say(s->verdict, "ok");
}

/**
 * rbt_insert_checked() - insert, and update the model as the flags promise
 * @t: the interface
 * @s: its tree and model
 * @near: the hint for insert_near(), or NULL for insert()
 * @obj: the new object
 *
 * Return: "ok", or "insert: ..." if the result is not the object the flags
 * say (NULL, or the equal object that stays or is replaced).
 */
const char *rbt_insert_checked(const struct rbt_iface *t, struct rbt_seq *s,
			       struct rbt_obj *near, struct rbt_obj *obj)
{
	struct rbt_model *m = &s->m;
	unsigned int pos = rbt_upper(m, obj->key);
	struct rbt_obj *old = NULL, *ret;

	if (t->tree_flags & RB_UNIQUE_KEYS && pos &&
	    m->objs[pos - 1]->key == obj->key)
		old = m->objs[pos - 1];
	ret = t->op(s, near ? RBT_INSERT_NEAR : RBT_INSERT, obj, near, NULL);
	if (ret != old)
		return rbt_say(s->verdict, "insert: %s key %lld returned %lld",
			       t->label, obj->key, rbt_key(ret));
	if (!old)
		rbt_model_insert(m, pos, obj);
	else if (t->tree_flags & RB_INSERT_REPLACES)
		m->objs[pos - 1] = obj;
	return rbt_say(s->verdict, "ok");
}

/**
 * rbt_remove_checked() - remove the model's object @i and verify
 * @test: the test, failed (and ended) if the tree is then wrong
 * @t: the interface
 * @s: its tree and model
 * @i: the index in the model
 */
void rbt_remove_checked(struct kunit *test, const struct rbt_iface *t,
			struct rbt_seq *s, unsigned int i)
{
	rbt_op(t, s, RBT_REMOVE, s->m.objs[i]);
	rbt_model_delete(&s->m, i);
	KUNIT_ASSERT_STREQ_MSG(test, rbt_verify(t, s), "ok", "in %s", t->label);
}

/**
 * rbt_run_sequence() - a pseudo-random sequence on one interface
 * @test: the test
 * @t: the interface
 * @steps: how many inserts (half of them from a random hint) and removals
 *
 * Everything is verified after every step; then the tree is emptied from
 * the root down.
 */
void rbt_run_sequence(struct kunit *test, const struct rbt_iface *t,
		      unsigned int steps)
{
	struct rbt_seq *s = rbt_new_seq(test);
	struct rbt_model *m = &s->m;
	struct rbt_obj *near, *obj;
	unsigned int step;

	for (step = 0; step < steps; step++) {
		near = m->n && rbt_rand(test, 2) ?
			m->objs[rbt_rand(test, m->n)] : NULL;
		if (!m->n || rbt_rand(test, 8) < 5) {
			obj = rbt_new(test, rbt_rand_key(test));
			KUNIT_ASSERT_STREQ_MSG(test, rbt_insert_checked(t, s, near, obj),
					       "ok", "step %u", step);
			KUNIT_ASSERT_STREQ_MSG(test, rbt_verify(t, s), "ok",
					       "step %u", step);
		} else {
			rbt_remove_checked(test, t, s, rbt_rand(test, m->n));
		}
		/* A fresh hint: the old one may have been replaced. */
		near = m->n ? m->objs[rbt_rand(test, m->n)] : NULL;
		KUNIT_ASSERT_STREQ_MSG(test,
				       rbt_verify_queries(t, s, near, rbt_rand_key(test)),
				       "ok", "step %u", step);
	}
	while (m->n)
		rbt_remove_checked(test, t, s,
				   rbt_index_of(m, rbt_of(s->c.root.rb_node)));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&s->c.root));
}

/**
 * rbt_iface_desc() - a KUNIT_ARRAY_PARAM description: label and flags
 * @t: the parameter, an interface
 * @desc: %KUNIT_PARAM_DESC_SIZE bytes
 */
void rbt_iface_desc(const struct rbt_iface *const *t, char *desc)
{
	static const char *const names[] = {
		"leftmost", "rightmost", "count", "unique", "replaces",
		"augmented",
	};
	static const unsigned int bits[] = {
		RB_HAS_LEFTMOST, RB_HAS_RIGHTMOST, RB_HAS_COUNT,
		RB_UNIQUE_KEYS, RB_INSERT_REPLACES, RB_IS_AUGMENTED,
	};
	size_t i, len;

	len = scnprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", (*t)->label);
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if ((*t)->tree_flags & bits[i])
			len += scnprintf(desc + len, KUNIT_PARAM_DESC_SIZE - len,
					 " %s", names[i]);
	if ((*t)->aug == RBT_AUG_MAX)
		scnprintf(desc + len, KUNIT_PARAM_DESC_SIZE - len, " (max)");
}

kunit_test_suites(&rbtree_generic_node_suite,
		  &rbtree_generic_interface_suite,
		  &rbtree_generic_hints_suite,
		  &rbtree_generic_flags_suite,
		  &rbtree_generic_cross_suite);

MODULE_DESCRIPTION("KUnit tests for the generic rbtree helpers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RBTREE_INSPECTOR);
