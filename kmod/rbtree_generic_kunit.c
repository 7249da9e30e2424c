// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the two generic red-black tree APIs: Kent Overstreet's
 * rb_insert() & co. (the out-of-line versions come from rbtree_inspector.ko,
 * which must be loaded first) and Daniel Santos's RB_DEFINE_INTERFACE().
 *
 * Every tree is checked against a model (a sorted array of the objects)
 * and for the red-black invariants after each operation.
 * RB_DEFINE_INTERFACE() is instantiated for every valid combination of its
 * flags, and with two augments: a subtree size and a subtree max (which
 * depends on each node's own value).  Both APIs and mainline
 * rb_find_add()/rb_add() are run side by side on the same pseudo-random
 * sequences and must build identical trees.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rbtree_augmented.h>

#include "rbtree_overstreet.h"
#include "rbtree_santos.h"

/* Seed of every pseudo-random sequence, so that failures reproduce. */
#define RBT_SEED	0x5eed2012
/* Operations per pseudo-random sequence. */
#define RBT_STEPS	300
/* Random keys are drawn from [-RBT_KEYS, RBT_KEYS], so that they collide. */
#define RBT_KEYS	20
/* Largest tree any test builds. */
#define RBT_MAX		(2 * RBT_STEPS + 64)

struct rbt_obj {
	struct rb_node node;
	s64 key;
	unsigned long size;	/* augmented: nodes in the subtree */
	unsigned int id;	/* creation order, to tell equal keys apart */
	u64 val;		/* a value of its own, not the key */
	u64 max;		/* augmented: largest val in the subtree */
};

struct rbt_cont {
	struct rb_root root;
	struct rb_node *left;
	struct rb_node *right;
	unsigned long count;
};

/* Per-test state, in test->priv. */
struct rbt_ctx {
	struct rnd_state rnd;
	unsigned int next_id;
};

/* The objects of a tree, in order: what the tree must contain. */
struct rbt_model {
	struct rbt_obj **objs;
	unsigned int n;
	struct rbt_obj **scratch;	/* room for a walk's results */
};

static long rbt_cmp(const s64 *a, const s64 *b)
{
	return *a < *b ? -1 : *a > *b;
}

static unsigned long rbt_size(const struct rb_node *node)
{
	return node ? rb_entry(node, struct rbt_obj, node)->size : 0;
}

static inline bool rbt_compute_size(struct rbt_obj *obj, bool exit)
{
	unsigned long size = 1 + rbt_size(obj->node.rb_left) +
			     rbt_size(obj->node.rb_right);

	if (exit && obj->size == size)
		return true;
	obj->size = size;
	return false;
}

RB_DECLARE_CALLBACKS(static, rbt_size_cb, struct rbt_obj, node, size,
		     rbt_compute_size);

/*
 * A max-style augment, like vmap_area's subtree_max_size: unlike the size,
 * it depends on each node's own value, so copying it on replace and
 * stopping propagation once a value is unchanged can be wrong and show.
 */
static inline u64 rbt_obj_val(const struct rbt_obj *obj)
{
	return obj->val;
}

RB_DECLARE_CALLBACKS_MAX(static, rbt_max_cb, struct rbt_obj, node, u64, max,
			 rbt_obj_val);

#define RBT_L	RB_HAS_LEFTMOST
#define RBT_R	RB_HAS_RIGHTMOST
#define RBT_C	RB_HAS_COUNT
#define RBT_U	RB_UNIQUE_KEYS
#define RBT_X	RB_INSERT_REPLACES
#define RBT_A	RB_IS_AUGMENTED

/*
 * The generated functions of one interface, so that the generic checks
 * below can drive every flag combination.  Taking their addresses gives
 * out-of-line copies; the behaviour tests call them directly.
 */
struct rbt_ops {
	const char *label;
	unsigned int tree_flags;
	const struct rb_augment_callbacks *augment;
	struct rbt_obj *(*insert)(struct rbt_cont *c, struct rbt_obj *o);
	struct rbt_obj *(*insert_near)(struct rbt_cont *c,
				       struct rbt_obj *near,
				       struct rbt_obj *o);
	void (*remove)(struct rbt_cont *c, struct rbt_obj *o);
	struct rbt_obj *(*find)(struct rbt_cont *c, const s64 *k);
	struct rbt_obj *(*find_first)(struct rbt_cont *c, const s64 *k);
	struct rbt_obj *(*find_last)(struct rbt_cont *c, const s64 *k);
	struct rbt_obj *(*find_next)(const struct rbt_obj *o);
	struct rbt_obj *(*find_prev)(const struct rbt_obj *o);
	struct rbt_obj *(*find_near)(struct rbt_cont *c, struct rbt_obj *near,
				     const s64 *k);
	struct rbt_obj *(*first)(struct rbt_cont *c);
	struct rbt_obj *(*last)(struct rbt_cont *c);
	struct rbt_obj *(*next)(const struct rbt_obj *o);
	struct rbt_obj *(*prev)(const struct rbt_obj *o);
	void (*walk)(struct rbt_cont *c,
		     void (*fn)(struct rbt_obj *o, void *arg), void *arg);
	unsigned long (*count)(struct rbt_cont *c);
};

/* An interface and its ops table; no count() without RB_HAS_COUNT. */
#define RBT_COMBO(pfx, fl, lm, rm, cnt, aug)				\
RB_DEFINE_INTERFACE(pfx, struct rbt_cont, root, lm, rm, cnt,		\
		    struct rbt_obj, node, key, fl, rbt_cmp, aug)	\
static unsigned long pfx ## _count_if_any(struct rbt_cont *c)		\
{									\
	if ((fl) & RB_HAS_COUNT)					\
		return pfx ## _count(c);				\
	return 0;							\
}									\
static const struct rbt_ops pfx ## _ops = {				\
	.label = #pfx, .tree_flags = (fl),				\
	.augment = (const struct rb_augment_callbacks *)(aug),	\
	.insert = pfx ## _insert, .insert_near = pfx ## _insert_near,	\
	.remove = pfx ## _remove, .find = pfx ## _find,			\
	.find_first = pfx ## _find_first, .find_last = pfx ## _find_last,	\
	.find_next = pfx ## _find_next, .find_prev = pfx ## _find_prev,	\
	.find_near = pfx ## _find_near,					\
	.first = pfx ## _first, .last = pfx ## _last,			\
	.next = pfx ## _next, .prev = pfx ## _prev,			\
	.walk = pfx ## _walk, .count = pfx ## _count_if_any,		\
}

/* Named interfaces for the behaviour tests; blank members on purpose. */
RB_DEFINE_INTERFACE(rbt_plain, struct rbt_cont, root,
		    /* no leftmost */, /* no rightmost */, /* no count */,
		    struct rbt_obj, node, key, RB_UNIQUE_KEYS, rbt_cmp, 0)
RBT_COMBO(rbt_set, RBT_U | RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_bag, RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_repl, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_aug, RBT_U | RBT_C | RBT_A,
	  /* - */, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_augbag, RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_size_cb);
RBT_COMBO(rbt_augrepl, RBT_U | RBT_X | RBT_L | RBT_C | RBT_A,
	  left, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_max, RBT_U | RBT_C | RBT_A,
	  /* - */, /* - */, count, &rbt_max_cb);
RBT_COMBO(rbt_maxbag, RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_max_cb);
RBT_COMBO(rbt_maxrepl, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_max_cb);

/*
 * The 2012 article's fair_tree: a leftmost member with flags 0 (and the
 * count argument blank).  The member implies RB_HAS_LEFTMOST.
 */
RB_DEFINE_INTERFACE(rbt_fair, struct rbt_cont, root, left, /* no rightmost */,
		    /* no count */, struct rbt_obj, node, key, 0, rbt_cmp, 0)

/* Every valid flag combination: RB_INSERT_REPLACES needs RB_UNIQUE_KEYS. */
RBT_COMBO(rbt_c00, 0,
	  /* - */, /* - */, /* - */, 0);
RBT_COMBO(rbt_c01, RBT_L,
	  left, /* - */, /* - */, 0);
RBT_COMBO(rbt_c02, RBT_R,
	  /* - */, right, /* - */, 0);
RBT_COMBO(rbt_c03, RBT_L | RBT_R,
	  left, right, /* - */, 0);
RBT_COMBO(rbt_c04, RBT_C,
	  /* - */, /* - */, count, 0);
RBT_COMBO(rbt_c05, RBT_L | RBT_C,
	  left, /* - */, count, 0);
RBT_COMBO(rbt_c06, RBT_R | RBT_C,
	  /* - */, right, count, 0);
RBT_COMBO(rbt_c07, RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_c08, RBT_U,
	  /* - */, /* - */, /* - */, 0);
RBT_COMBO(rbt_c09, RBT_U | RBT_L,
	  left, /* - */, /* - */, 0);
RBT_COMBO(rbt_c10, RBT_U | RBT_R,
	  /* - */, right, /* - */, 0);
RBT_COMBO(rbt_c11, RBT_U | RBT_L | RBT_R,
	  left, right, /* - */, 0);
RBT_COMBO(rbt_c12, RBT_U | RBT_C,
	  /* - */, /* - */, count, 0);
RBT_COMBO(rbt_c13, RBT_U | RBT_L | RBT_C,
	  left, /* - */, count, 0);
RBT_COMBO(rbt_c14, RBT_U | RBT_R | RBT_C,
	  /* - */, right, count, 0);
RBT_COMBO(rbt_c15, RBT_U | RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_c24, RBT_U | RBT_X,
	  /* - */, /* - */, /* - */, 0);
RBT_COMBO(rbt_c25, RBT_U | RBT_X | RBT_L,
	  left, /* - */, /* - */, 0);
RBT_COMBO(rbt_c26, RBT_U | RBT_X | RBT_R,
	  /* - */, right, /* - */, 0);
RBT_COMBO(rbt_c27, RBT_U | RBT_X | RBT_L | RBT_R,
	  left, right, /* - */, 0);
RBT_COMBO(rbt_c28, RBT_U | RBT_X | RBT_C,
	  /* - */, /* - */, count, 0);
RBT_COMBO(rbt_c29, RBT_U | RBT_X | RBT_L | RBT_C,
	  left, /* - */, count, 0);
RBT_COMBO(rbt_c30, RBT_U | RBT_X | RBT_R | RBT_C,
	  /* - */, right, count, 0);
RBT_COMBO(rbt_c31, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C,
	  left, right, count, 0);
RBT_COMBO(rbt_c32, RBT_A,
	  /* - */, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c33, RBT_L | RBT_A,
	  left, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c34, RBT_R | RBT_A,
	  /* - */, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c35, RBT_L | RBT_R | RBT_A,
	  left, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c36, RBT_C | RBT_A,
	  /* - */, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c37, RBT_L | RBT_C | RBT_A,
	  left, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c38, RBT_R | RBT_C | RBT_A,
	  /* - */, right, count, &rbt_size_cb);
RBT_COMBO(rbt_c39, RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_size_cb);
RBT_COMBO(rbt_c40, RBT_U | RBT_A,
	  /* - */, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c41, RBT_U | RBT_L | RBT_A,
	  left, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c42, RBT_U | RBT_R | RBT_A,
	  /* - */, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c43, RBT_U | RBT_L | RBT_R | RBT_A,
	  left, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c44, RBT_U | RBT_C | RBT_A,
	  /* - */, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c45, RBT_U | RBT_L | RBT_C | RBT_A,
	  left, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c46, RBT_U | RBT_R | RBT_C | RBT_A,
	  /* - */, right, count, &rbt_size_cb);
RBT_COMBO(rbt_c47, RBT_U | RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_size_cb);
RBT_COMBO(rbt_c56, RBT_U | RBT_X | RBT_A,
	  /* - */, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c57, RBT_U | RBT_X | RBT_L | RBT_A,
	  left, /* - */, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c58, RBT_U | RBT_X | RBT_R | RBT_A,
	  /* - */, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c59, RBT_U | RBT_X | RBT_L | RBT_R | RBT_A,
	  left, right, /* - */, &rbt_size_cb);
RBT_COMBO(rbt_c60, RBT_U | RBT_X | RBT_C | RBT_A,
	  /* - */, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c61, RBT_U | RBT_X | RBT_L | RBT_C | RBT_A,
	  left, /* - */, count, &rbt_size_cb);
RBT_COMBO(rbt_c62, RBT_U | RBT_X | RBT_R | RBT_C | RBT_A,
	  /* - */, right, count, &rbt_size_cb);
RBT_COMBO(rbt_c63, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C | RBT_A,
	  left, right, count, &rbt_size_cb);

static const struct rbt_ops *const rbt_combos[] = {
	&rbt_c00_ops,
	&rbt_c01_ops,
	&rbt_c02_ops,
	&rbt_c03_ops,
	&rbt_c04_ops,
	&rbt_c05_ops,
	&rbt_c06_ops,
	&rbt_c07_ops,
	&rbt_c08_ops,
	&rbt_c09_ops,
	&rbt_c10_ops,
	&rbt_c11_ops,
	&rbt_c12_ops,
	&rbt_c13_ops,
	&rbt_c14_ops,
	&rbt_c15_ops,
	&rbt_c24_ops,
	&rbt_c25_ops,
	&rbt_c26_ops,
	&rbt_c27_ops,
	&rbt_c28_ops,
	&rbt_c29_ops,
	&rbt_c30_ops,
	&rbt_c31_ops,
	&rbt_c32_ops,
	&rbt_c33_ops,
	&rbt_c34_ops,
	&rbt_c35_ops,
	&rbt_c36_ops,
	&rbt_c37_ops,
	&rbt_c38_ops,
	&rbt_c39_ops,
	&rbt_c40_ops,
	&rbt_c41_ops,
	&rbt_c42_ops,
	&rbt_c43_ops,
	&rbt_c44_ops,
	&rbt_c45_ops,
	&rbt_c46_ops,
	&rbt_c47_ops,
	&rbt_c56_ops,
	&rbt_c57_ops,
	&rbt_c58_ops,
	&rbt_c59_ops,
	&rbt_c60_ops,
	&rbt_c61_ops,
	&rbt_c62_ops,
	&rbt_c63_ops,
};

static struct rbt_obj *rbt_new(struct kunit *test, s64 key)
{
	struct rbt_ctx *ctx = test->priv;
	struct rbt_obj *obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	obj->key = key;
	obj->id = ctx->next_id++;
	/* spread over 0..1023, independent of the key, reproducible */
	obj->val = (obj->id * 2654435761U) >> 22;
	RB_CLEAR_NODE(&obj->node);
	return obj;
}

static struct rbt_cont *rbt_new_cont(struct kunit *test)
{
	struct rbt_cont *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, c);
	return c;
}

static struct rbt_model *rbt_new_model(struct kunit *test)
{
	struct rbt_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m);
	m->objs = kunit_kcalloc(test, RBT_MAX, sizeof(*m->objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->objs);
	m->scratch = kunit_kcalloc(test, RBT_MAX, sizeof(*m->scratch),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, m->scratch);
	return m;
}

static struct rbt_obj *rbt_obj_of(const struct rb_node *node)
{
	return node ? rb_entry(node, struct rbt_obj, node) : NULL;
}

/* Key of @obj, or RBT_ABSENT (a key no test inserts) for NULL. */
#define RBT_ABSENT	1000003LL

static s64 rbt_okey(const struct rbt_obj *obj)
{
	return obj ? obj->key : RBT_ABSENT;
}

static u32 rbt_rand(struct kunit *test, u32 range)
{
	struct rbt_ctx *ctx = test->priv;

	return prandom_u32_state(&ctx->rnd) % range;
}

/* A random key, now and then one of the extremes. */
static s64 rbt_rand_key(struct kunit *test)
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

/* Index of the first object with a key greater than @key. */
static unsigned int rbt_model_upper(const struct rbt_model *m, s64 key)
{
	unsigned int i = 0;

	while (i < m->n && m->objs[i]->key <= key)
		i++;
	return i;
}

/* Index of the first object with a key not less than @key. */
static unsigned int rbt_model_lower(const struct rbt_model *m, s64 key)
{
	unsigned int i = 0;

	while (i < m->n && m->objs[i]->key < key)
		i++;
	return i;
}

static struct rbt_obj *rbt_model_at(const struct rbt_model *m, unsigned int i)
{
	return i < m->n ? m->objs[i] : NULL;
}

static void rbt_model_insert(struct rbt_model *m, unsigned int i,
			     struct rbt_obj *obj)
{
	memmove(&m->objs[i + 1], &m->objs[i], (m->n - i) * sizeof(*m->objs));
	m->objs[i] = obj;
	m->n++;
}

static void rbt_model_delete(struct rbt_model *m, unsigned int i)
{
	m->n--;
	memmove(&m->objs[i], &m->objs[i + 1], (m->n - i) * sizeof(*m->objs));
}

/*
 * Red-black checker: black height of the subtree at @node (NIL counts as
 * one black node), or -1 after reporting the first violation.  @size
 * returns the number of nodes and @max the largest val, compared with the
 * augmented value of @aug (&rbt_size_cb, &rbt_max_cb or NULL).
 */
static int rbt_check_subtree(struct kunit *test, const struct rb_node *node,
			     const struct rb_node *parent,
			     const struct rb_augment_callbacks *aug,
			     unsigned long *size, u64 *max)
{
	const struct rbt_obj *obj = rbt_obj_of(node);
	unsigned long left_size, right_size;
	u64 left_max, right_max;
	int left_bh, right_bh;

	*size = 0;
	*max = 0;
	if (!node)
		return 1;
	if (rb_parent(node) != parent) {
		KUNIT_FAIL(test, "parent: node %lld has a wrong parent link",
			   obj->key);
		return -1;
	}
	if (parent && rb_is_red(node) && rb_is_red(parent)) {
		KUNIT_FAIL(test, "red-red: node %lld and its parent are red",
			   obj->key);
		return -1;
	}
	left_bh = rbt_check_subtree(test, node->rb_left, node, aug,
				    &left_size, &left_max);
	if (left_bh < 0)
		return -1;
	right_bh = rbt_check_subtree(test, node->rb_right, node, aug,
				     &right_size, &right_max);
	if (right_bh < 0)
		return -1;
	if (left_bh != right_bh) {
		KUNIT_FAIL(test, "black-height: node %lld: left %d, right %d",
			   obj->key, left_bh, right_bh);
		return -1;
	}
	*size = left_size + right_size + 1;
	*max = max3(obj->val, left_max, right_max);
	if (aug == &rbt_size_cb && obj->size != *size) {
		KUNIT_FAIL(test, "augment: node %lld has size %lu, not %lu",
			   obj->key, obj->size, *size);
		return -1;
	}
	if (aug == &rbt_max_cb && obj->max != *max) {
		KUNIT_FAIL(test, "augment: node %lld has max %llu, not %llu",
			   obj->key, obj->max, *max);
		return -1;
	}
	return left_bh + rb_is_black(node);
}

/* All red-black invariants of @root, and the augmented values of @aug. */
static bool rbt_check_rb(struct kunit *test, const struct rb_root *root,
			 const struct rb_augment_callbacks *aug)
{
	unsigned long size;
	u64 max;

	if (root->rb_node && !rb_is_black(root->rb_node)) {
		KUNIT_FAIL(test, "root-color: root %lld is red",
			   rbt_obj_of(root->rb_node)->key);
		return false;
	}
	return rbt_check_subtree(test, root->rb_node, NULL, aug, &size,
				 &max) >= 0;
}

struct rbt_walk {
	struct rbt_obj **seen;
	unsigned int n;
};

static void rbt_walk_record(struct rbt_obj *obj, void *arg)
{
	struct rbt_walk *walk = arg;

	if (walk->n < RBT_MAX)
		walk->seen[walk->n] = obj;
	walk->n++;
}

/*
 * Everything observable about an interface's tree against the model: shape
 * invariants, in-order content (by identity, so the order of equal keys
 * counts), caches, count, first/last, next/prev and walk.
 */
static bool rbt_verify(struct kunit *test, const struct rbt_ops *ops,
		       struct rbt_cont *c, const struct rbt_model *m)
{
	struct rbt_walk walk = { .seen = m->scratch };
	unsigned int f = ops->tree_flags, i = 0;
	struct rb_node *node;

	if (!rbt_check_rb(test, &c->root, ops->augment))
		goto fail;
	for (node = rb_first(&c->root); node; node = rb_next(node), i++)
		if (i >= m->n || rbt_obj_of(node) != m->objs[i])
			break;
	if (node || i != m->n) {
		KUNIT_FAIL(test, "order: object %u differs from the model", i);
		goto fail;
	}
	if ((f & RB_HAS_COUNT && c->count != m->n) ||
	    (!(f & RB_HAS_COUNT) && c->count)) {
		KUNIT_FAIL(test, "count: cached %lu, %u nodes", c->count, m->n);
		goto fail;
	}
	if (ops->count(c) != (f & RB_HAS_COUNT ? m->n : 0) ||
	    (f & RB_HAS_LEFTMOST && rbt_obj_of(c->left) != rbt_model_at(m, 0)) ||
	    (!(f & RB_HAS_LEFTMOST) && c->left) ||
	    (f & RB_HAS_RIGHTMOST &&
	     rbt_obj_of(c->right) != rbt_model_at(m, m->n - 1)) ||
	    (!(f & RB_HAS_RIGHTMOST) && c->right)) {
		KUNIT_FAIL(test, "leftmost/rightmost/count cache wrong");
		goto fail;
	}
	if (ops->first(c) != rbt_model_at(m, 0) ||
	    ops->last(c) != (m->n ? m->objs[m->n - 1] : NULL)) {
		KUNIT_FAIL(test, "first/last disagree with the model");
		goto fail;
	}
	for (i = 0; i < m->n; i++) {
		if (ops->next(m->objs[i]) != rbt_model_at(m, i + 1) ||
		    ops->prev(m->objs[i]) != (i ? m->objs[i - 1] : NULL)) {
			KUNIT_FAIL(test, "next/prev wrong at object %u", i);
			goto fail;
		}
	}
	ops->walk(c, rbt_walk_record, &walk);
	if (walk.n != m->n ||
	    memcmp(walk.seen, m->objs, m->n * sizeof(*m->objs))) {
		KUNIT_FAIL(test, "walk visited %u objects, not the model's %u",
			   walk.n, m->n);
		goto fail;
	}
	return true;
fail:
	kunit_info(test, "in interface %s with %u objects", ops->label, m->n);
	return false;
}

/* Every query on key @k against the model, searching from @near. */
static bool rbt_verify_queries(struct kunit *test, const struct rbt_ops *ops,
			       struct rbt_cont *c, const struct rbt_model *m,
			       struct rbt_obj *near, s64 k)
{
	unsigned int lo = rbt_model_lower(m, k), hi = rbt_model_upper(m, k);
	struct rbt_obj *first = lo < hi ? m->objs[lo] : NULL;
	struct rbt_obj *last = lo < hi ? m->objs[hi - 1] : NULL;

	if (ops->find(c, &k) != first || ops->find_first(c, &k) != first ||
	    ops->find_last(c, &k) != last) {
		KUNIT_FAIL(test, "find: key %lld", k);
		goto fail;
	}
	if (first && (ops->find_prev(first) ||
		      ops->find_next(last) ||
		      ops->find_next(first) != (lo + 1 < hi ? m->objs[lo + 1] : NULL) ||
		      ops->find_prev(last) != (lo + 1 < hi ? m->objs[hi - 2] : NULL))) {
		KUNIT_FAIL(test, "find_next/find_prev: key %lld", k);
		goto fail;
	}
	if (ops->find_near(c, NULL, &k) != rbt_model_at(m, hi) ||
	    ops->find_near(c, near, &k) != rbt_model_at(m, hi)) {
		KUNIT_FAIL(test, "find_near: key %lld, hint %lld", k,
			   near ? near->key : 0);
		goto fail;
	}
	return true;
fail:
	kunit_info(test, "in interface %s with %u objects", ops->label, m->n);
	return false;
}

/*
 * Insert @obj (from @near if not NULL) and update the model with what the
 * flags promise: returns false after reporting a wrong result.
 */
static bool rbt_insert_checked(struct kunit *test, const struct rbt_ops *ops,
			       struct rbt_cont *c, struct rbt_model *m,
			       struct rbt_obj *near, struct rbt_obj *obj)
{
	unsigned int pos = rbt_model_upper(m, obj->key);
	struct rbt_obj *old = NULL, *ret;

	if (ops->tree_flags & RB_UNIQUE_KEYS && pos &&
	    m->objs[pos - 1]->key == obj->key)
		old = m->objs[pos - 1];
	ret = near ? ops->insert_near(c, near, obj) : ops->insert(c, obj);
	if (ret != old) {
		KUNIT_FAIL(test, "insert %lld%s returned the wrong object",
			   obj->key, near ? " near" : "");
		kunit_info(test, "in interface %s", ops->label);
		return false;
	}
	if (!old)
		rbt_model_insert(m, pos, obj);
	else if (ops->tree_flags & RB_INSERT_REPLACES)
		m->objs[pos - 1] = obj;
	return true;
}

/*
 * A pseudo-random sequence of inserts (half of them near a random hint)
 * and removals, everything verified after each step, then the tree
 * emptied from the root down.
 */
static void rbt_run_sequence(struct kunit *test, const struct rbt_ops *ops,
			     unsigned int steps)
{
	struct rbt_model *m = rbt_new_model(test);
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *near;
	unsigned int step, i;

	for (step = 0; step < steps; step++) {
		near = m->n && rbt_rand(test, 2) ?
			m->objs[rbt_rand(test, m->n)] : NULL;
		if (!m->n || rbt_rand(test, 8) < 5) {
			if (!rbt_insert_checked(test, ops, c, m, near,
						rbt_new(test, rbt_rand_key(test))))
				break;
		} else {
			i = rbt_rand(test, m->n);
			ops->remove(c, m->objs[i]);
			rbt_model_delete(m, i);
		}
		/* a fresh hint: the old one may have been replaced */
		near = m->n ? m->objs[rbt_rand(test, m->n)] : NULL;
		if (!rbt_verify(test, ops, c, m) ||
		    !rbt_verify_queries(test, ops, c, m, near,
					rbt_rand_key(test)))
			break;
	}
	KUNIT_ASSERT_EQ_MSG(test, step, steps, "%s failed at step %u",
			    ops->label, step);

	while (m->n) {
		struct rbt_obj *root = rbt_obj_of(c->root.rb_node);

		for (i = 0; m->objs[i] != root; i++)
			;
		ops->remove(c, root);
		rbt_model_delete(m, i);
		KUNIT_ASSERT_TRUE(test, rbt_verify(test, ops, c, m));
	}
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&c->root));
}

/* ---- rb_insert() & co. ---- */

static int rbt_node_cmp(struct rb_node *l, struct rb_node *r)
{
	return rbt_cmp(&rbt_obj_of(l)->key, &rbt_obj_of(r)->key);
}

/* An on-stack object holding only a key, as rb_search()'s callers use. */
#define RBT_SEARCH(k) (&((struct rbt_obj){ .key = (k) }).node)

static s64 rbt_key_or(const struct rb_node *node, s64 none)
{
	return node ? rbt_obj_of(node)->key : none;
}

static struct rb_node *rbt_node_of(struct rbt_obj *obj)
{
	return obj ? &obj->node : NULL;
}

/* Position of @node in order. */
static unsigned int rbt_index(const struct rb_node *node)
{
	unsigned int i = 0;

	while ((node = rb_prev(node)))
		i++;
	return i;
}

static unsigned int rbt_nodes(const struct rb_root *root)
{
	struct rb_node *node;
	unsigned int n = 0;

	for (node = rb_first(root); node; node = rb_next(node))
		n++;
	return n;
}

/* rb_insert() links a new key (0) and refuses an equal one (-1). */
static void rbtree_generic_test_node_insert_unique(struct kunit *test)
{
	struct rbt_obj *a = rbt_new(test, 5), *b = rbt_new(test, 5);
	struct rbt_obj *c = rbt_new(test, 7);
	struct rb_root root = RB_ROOT;

	KUNIT_EXPECT_EQ(test, rb_insert(&root, &a->node, rbt_node_cmp), 0);
	KUNIT_EXPECT_EQ(test, rb_insert(&root, &c->node, rbt_node_cmp), 0);
	KUNIT_EXPECT_EQ(test, rb_insert(&root, &b->node, rbt_node_cmp), -1);
	KUNIT_EXPECT_EQ(test, rbt_nodes(&root), 2U);
	KUNIT_EXPECT_PTR_EQ(test, root.rb_node, &a->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_next(&a->node), &c->node);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&b->node));
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &root, NULL));
}

/* rb_insert_allow_dup() puts an equal key after the present ones. */
static void rbtree_generic_test_node_insert_dup_order(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 3, 2, 3, 1 };
	static const unsigned int order[] = { 1, 5, 3, 0, 2, 4 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rb_root root = RB_ROOT;
	struct rb_node *node;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		rb_insert_allow_dup(&root, &objs[i]->node, rbt_node_cmp);
	}
	node = rb_first(&root);
	for (i = 0; i < ARRAY_SIZE(order); i++, node = rb_next(node))
		KUNIT_EXPECT_PTR_EQ(test, node, &objs[order[i]]->node);
	KUNIT_EXPECT_NULL(test, node);
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &root, NULL));
}

/* rb_search() finds an equal node or NULL, also on an empty tree. */
static void rbtree_generic_test_node_search(struct kunit *test)
{
	struct rb_root root = RB_ROOT;
	s64 k;

	KUNIT_EXPECT_NULL(test, rb_search(&root, RBT_SEARCH(0), rbt_node_cmp));
	for (k = 0; k < 10; k++)
		rb_insert(&root, &rbt_new(test, 2 * k)->node, rbt_node_cmp);
	for (k = -1; k < 21; k++) {
		struct rb_node *found = rb_search(&root, RBT_SEARCH(k),
						  rbt_node_cmp);

		if (k >= 0 && k <= 18 && k % 2 == 0)
			KUNIT_EXPECT_EQ(test, rbt_okey(rbt_obj_of(found)), k);
		else
			KUNIT_EXPECT_NULL(test, found);
	}
}

/* rb_greater() is the first node strictly above the key, at both ends. */
static void rbtree_generic_test_node_greater(struct kunit *test)
{
	static const s64 keys[] = { 10, 20, 20, 30 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rb_root root = RB_ROOT;
	unsigned int i;

	KUNIT_EXPECT_NULL(test, rb_greater(&root, RBT_SEARCH(0), rbt_node_cmp));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		rb_insert_allow_dup(&root, &objs[i]->node, rbt_node_cmp);
	}
	KUNIT_EXPECT_PTR_EQ(test, rb_greater(&root, RBT_SEARCH(S64_MIN),
					     rbt_node_cmp), &objs[0]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_greater(&root, RBT_SEARCH(9), rbt_node_cmp),
			    &objs[0]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_greater(&root, RBT_SEARCH(10), rbt_node_cmp),
			    &objs[1]->node);
	KUNIT_EXPECT_PTR_EQ(test, rb_greater(&root, RBT_SEARCH(20), rbt_node_cmp),
			    &objs[3]->node);
	KUNIT_EXPECT_NULL(test, rb_greater(&root, RBT_SEARCH(30), rbt_node_cmp));
	KUNIT_EXPECT_NULL(test, rb_greater(&root, RBT_SEARCH(S64_MAX),
					   rbt_node_cmp));
}

/* The inline and out-of-line versions build and search identically. */
static void rbtree_generic_test_node_inline_matches(struct kunit *test)
{
	struct rb_root inl = RB_ROOT, ool = RB_ROOT;
	unsigned int step;
	s64 k;

	for (step = 0; step < RBT_STEPS; step++) {
		k = rbt_rand_key(test);
		KUNIT_ASSERT_EQ(test,
				_rb_insert(&inl, &rbt_new(test, k)->node,
					   rbt_node_cmp),
				rb_insert(&ool, &rbt_new(test, k)->node,
					  rbt_node_cmp));
		k = rbt_rand_key(test);
		KUNIT_ASSERT_EQ(test,
				rbt_key_or(_rb_search(&inl, RBT_SEARCH(k),
						      rbt_node_cmp), 7),
				rbt_key_or(rb_search(&ool, RBT_SEARCH(k),
						     rbt_node_cmp), 7));
		KUNIT_ASSERT_EQ(test,
				rbt_key_or(_rb_greater(&inl, RBT_SEARCH(k),
						       rbt_node_cmp), 7),
				rbt_key_or(rb_greater(&ool, RBT_SEARCH(k),
						      rbt_node_cmp), 7));
	}
	KUNIT_EXPECT_EQ(test, rbt_nodes(&inl), rbt_nodes(&ool));
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &inl, NULL));
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &ool, NULL));
}

/* RB_FIRST/LAST/NEXT/PREV and container_of_or_null() map NULL to NULL. */
static void rbtree_generic_test_node_helpers(struct kunit *test)
{
	struct rbt_obj *a = rbt_new(test, S64_MIN), *b = rbt_new(test, S64_MAX);
	struct rb_root root = RB_ROOT;
	struct rb_node *none = NULL;

	KUNIT_EXPECT_NULL(test, container_of_or_null(none, struct rbt_obj,
						     node));
	KUNIT_EXPECT_NULL(test, RB_FIRST(&root, struct rbt_obj, node));
	KUNIT_EXPECT_NULL(test, RB_LAST(&root, struct rbt_obj, node));
	rb_insert(&root, &b->node, rbt_node_cmp);
	rb_insert(&root, &a->node, rbt_node_cmp);
	KUNIT_EXPECT_PTR_EQ(test, RB_FIRST(&root, struct rbt_obj, node), a);
	KUNIT_EXPECT_PTR_EQ(test, RB_LAST(&root, struct rbt_obj, node), b);
	KUNIT_EXPECT_PTR_EQ(test, RB_NEXT(a, node), b);
	KUNIT_EXPECT_PTR_EQ(test, RB_PREV(b, node), a);
	KUNIT_EXPECT_NULL(test, RB_NEXT(b, node));
	KUNIT_EXPECT_NULL(test, RB_PREV(a, node));
}

/* ---- RB_DEFINE_INTERFACE() ---- */

/* An empty tree: nothing found, no first/last, count 0, walk idle. */
static void rbtree_generic_test_iface_empty(struct kunit *test)
{
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_walk walk = { .seen = NULL };
	s64 k = 0;

	KUNIT_EXPECT_NULL(test, rbt_set_find(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_bag_find_first(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_bag_find_last(c, &k));
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, NULL, &k));
	KUNIT_EXPECT_NULL(test, rbt_set_first(c));
	KUNIT_EXPECT_NULL(test, rbt_set_last(c));
	KUNIT_EXPECT_NULL(test, rbt_plain_first(c));
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 0UL);
	rbt_set_walk(c, rbt_walk_record, &walk);
	KUNIT_EXPECT_EQ(test, walk.n, 0U);
}

/* One object is first, last, root and the whole count; removal empties. */
static void rbtree_generic_test_iface_single(struct kunit *test)
{
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *o = rbt_new(test, 42);
	s64 k;

	KUNIT_EXPECT_NULL(test, rbt_set_insert(c, o));
	KUNIT_EXPECT_PTR_EQ(test, c->root.rb_node, &o->node);
	KUNIT_EXPECT_PTR_EQ(test, c->left, &o->node);
	KUNIT_EXPECT_PTR_EQ(test, c->right, &o->node);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 1UL);
	KUNIT_EXPECT_NULL(test, rbt_set_next(o));
	KUNIT_EXPECT_NULL(test, rbt_set_prev(o));
	k = 42;
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_find(c, &k), o);
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, o, &k));
	k = 41;
	KUNIT_EXPECT_NULL(test, rbt_set_find(c, &k));
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_find_near(c, o, &k), o);
	rbt_set_remove(c, o);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&c->root));
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&o->node));
	KUNIT_EXPECT_NULL(test, c->left);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 0UL);
}

/* Blank cache members compile and leave the container's fields alone. */
static void rbtree_generic_test_iface_blank_members(struct kunit *test)
{
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *a = rbt_new(test, 1), *b = rbt_new(test, 2);
	s64 k = 1;

	KUNIT_EXPECT_NULL(test, rbt_plain_insert(c, b));
	KUNIT_EXPECT_NULL(test, rbt_plain_insert(c, a));
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_insert(c, rbt_new(test, 2)), b);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_first(c), a);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_last(c), b);
	KUNIT_EXPECT_PTR_EQ(test, rbt_plain_find(c, &k), a);
	KUNIT_EXPECT_NULL(test, c->left);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, c->count, 0UL);
}

/* A unique tree returns the present object and stays unchanged. */
static void rbtree_generic_test_iface_unique_rejects(struct kunit *test)
{
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *a = rbt_new(test, 5), *b = rbt_new(test, 5);

	KUNIT_EXPECT_NULL(test, rbt_set_insert(c, a));
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_insert(c, b), a);
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_insert_near(c, a, b), a);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 1UL);
	KUNIT_EXPECT_PTR_EQ(test, rbt_set_first(c), a);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&b->node));
}

/* RB_INSERT_REPLACES swaps in the new object and returns the old one. */
static void rbtree_generic_test_iface_insert_replaces(struct kunit *test)
{
	const struct rbt_ops *const tables[] = { &rbt_repl_ops,
						 &rbt_augrepl_ops };
	struct rbt_model *m;
	struct rbt_cont *c;
	struct rbt_obj *old, *new;
	unsigned int t, i;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		for (i = 0; i < 15; i++)
			KUNIT_ASSERT_TRUE(test,
					  rbt_insert_checked(test, tables[t], c,
							     m, NULL,
							     rbt_new(test, i)));
		/* first, root-ish middle and last: every cache position */
		for (i = 0; i < 15; i += 7) {
			old = m->objs[i];
			new = rbt_new(test, i);
			KUNIT_EXPECT_PTR_EQ(test, tables[t]->insert(c, new),
					    old);
			KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&old->node));
			m->objs[i] = new;
			KUNIT_EXPECT_TRUE(test, rbt_verify(test, tables[t], c,
							   m));
		}
		KUNIT_EXPECT_EQ(test, tables[t]->count(c), 15UL);
	}
}

/* Equal keys keep insertion order; find_* walk exactly the equal run. */
static void rbtree_generic_test_iface_dup_order(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 3, 2, 3 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rbt_cont *c = rbt_new_cont(test);
	unsigned int i;
	s64 k = 3;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		KUNIT_EXPECT_NULL(test, rbt_bag_insert(c, objs[i]));
	}
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find(c, &k), objs[0]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_first(c, &k), objs[0]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_last(c, &k), objs[4]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_next(objs[0]), objs[2]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_next(objs[2]), objs[4]);
	KUNIT_EXPECT_NULL(test, rbt_bag_find_next(objs[4]));
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_prev(objs[4]), objs[2]);
	KUNIT_EXPECT_NULL(test, rbt_bag_find_prev(objs[0]));
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_prev(objs[0]), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_first(c), objs[1]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_last(c), objs[4]);
	KUNIT_EXPECT_EQ(test, rbt_bag_count(c), 5UL);
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_near(c, objs[1], &k), NULL);
	k = 2;
	KUNIT_EXPECT_PTR_EQ(test, rbt_bag_find_near(c, objs[4], &k), objs[0]);
}

/* S64_MIN and S64_MAX sort at the ends; near queries at and past them. */
static void rbtree_generic_test_iface_extreme_keys(struct kunit *test)
{
	static const s64 keys[] = { 0, S64_MAX, -1, S64_MIN, 1 };
	static const s64 sorted[] = { S64_MIN, -1, 0, 1, S64_MAX };
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *o;
	unsigned int i;
	s64 k;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		KUNIT_EXPECT_NULL(test, rbt_set_insert(c, rbt_new(test, keys[i])));
	for (o = rbt_set_first(c), i = 0; o; o = rbt_set_next(o), i++)
		KUNIT_EXPECT_EQ(test, o->key, sorted[i]);
	KUNIT_EXPECT_EQ(test, i, 5U);
	k = S64_MAX;
	KUNIT_EXPECT_NULL(test, rbt_set_find_near(c, rbt_set_first(c), &k));
	KUNIT_EXPECT_EQ(test, rbt_okey(rbt_set_find(c, &k)), S64_MAX);
	k = S64_MAX - 1;
	KUNIT_EXPECT_EQ(test, rbt_okey(rbt_set_find_near(c, NULL, &k)), S64_MAX);
	k = S64_MIN;
	KUNIT_EXPECT_EQ(test, rbt_okey(rbt_set_find_near(c, rbt_set_last(c), &k)),
			-1LL);
	KUNIT_EXPECT_EQ(test, rbt_okey(rbt_set_first(c)), S64_MIN);
	KUNIT_EXPECT_EQ(test, rbt_okey(rbt_set_last(c)), S64_MAX);
}

/* Removing the root, the minimum and the maximum keeps every cache. */
static void rbtree_generic_test_iface_erase_root_min_max(struct kunit *test)
{
	const struct rbt_ops *const tables[] = { &rbt_set_ops, &rbt_bag_ops,
						 &rbt_augbag_ops };
	struct rbt_model *m;
	struct rbt_cont *c;
	struct rbt_obj *victim;
	unsigned int t, i, step;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		for (i = 0; i < 31; i++)
			rbt_insert_checked(test, tables[t], c, m, NULL,
					   rbt_new(test, i / 2));
		for (step = 0; m->n; step++) {
			switch (step % 3) {
			case 0:
				victim = rbt_obj_of(c->root.rb_node);
				break;
			case 1:
				victim = m->objs[0];
				break;
			default:
				victim = m->objs[m->n - 1];
			}
			for (i = 0; m->objs[i] != victim; i++)
				;
			tables[t]->remove(c, victim);
			rbt_model_delete(m, i);
			KUNIT_ASSERT_TRUE(test, rbt_verify(test, tables[t], c,
							   m));
		}
		KUNIT_EXPECT_NULL(test, c->left);
		KUNIT_EXPECT_NULL(test, c->right);
		KUNIT_EXPECT_EQ(test, c->count, 0UL);
	}
}

/* Tables for the near tests: unique, dup, augmented, replacing. */
static const struct rbt_ops *const rbt_near_tables[] = {
	&rbt_set_ops, &rbt_bag_ops, &rbt_aug_ops, &rbt_augbag_ops,
	&rbt_repl_ops, &rbt_augrepl_ops, &rbt_max_ops, &rbt_maxbag_ops,
	&rbt_maxrepl_ops,
};

/* A tree of keys 0, 2, ..., 2 * (n - 1), each twice on dup trees. */
static void rbt_fill_even(struct kunit *test, const struct rbt_ops *ops,
			  struct rbt_cont *c, struct rbt_model *m,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 2 * n; i++)
		KUNIT_ASSERT_TRUE(test, rbt_insert_checked(test, ops, c, m, NULL,
							   rbt_new(test, 2 * (i % n))));
}

/* find_near() gives the root-started answer from every hint. */
static void rbtree_generic_test_iface_find_near_every_hint(struct kunit *test)
{
	const struct rbt_ops *ops;
	struct rbt_model *m;
	struct rbt_cont *c;
	unsigned int t, h;
	s64 k;

	for (t = 0; t < ARRAY_SIZE(rbt_near_tables); t++) {
		ops = rbt_near_tables[t];
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		rbt_fill_even(test, ops, c, m, 20);
		for (k = -2; k <= 40; k++) {
			KUNIT_ASSERT_PTR_EQ(test, ops->find_near(c, NULL, &k),
					    rbt_model_at(m, rbt_model_upper(m, k)));
			for (h = 0; h < m->n; h++)
				KUNIT_ASSERT_TRUE(test,
						  rbt_verify_queries(test, ops, c, m,
								     m->objs[h], k));
		}
		k = S64_MIN;
		KUNIT_EXPECT_PTR_EQ(test, ops->find_near(c, m->objs[m->n - 1], &k),
				    m->objs[0]);
		k = S64_MAX;
		KUNIT_EXPECT_NULL(test, ops->find_near(c, m->objs[0], &k));
	}
}

/*
 * Insert a new object with key @k from @hint (NULL: a hint that is the new
 * object itself), check the tree against the model, then undo the insert
 * so that the next call sees the same tree.
 */
static bool rbt_insert_near_undo(struct kunit *test, const struct rbt_ops *ops,
				 struct rbt_cont *c, struct rbt_model *m,
				 struct rbt_obj *hint, s64 k)
{
	struct rbt_obj *obj = rbt_new(test, k);
	unsigned int i;

	if (!rbt_insert_checked(test, ops, c, m, hint ?: obj, obj) ||
	    !rbt_verify(test, ops, c, m))
		return false;
	for (i = 0; i < m->n && m->objs[i] != obj; i++)
		;
	if (i == m->n)
		return true;
	ops->remove(c, obj);
	rbt_model_delete(m, i);
	if (ops->tree_flags & RB_INSERT_REPLACES) {
		/* put back the one it replaced */
		obj = rbt_new(test, k);
		if (!rbt_insert_checked(test, ops, c, m, NULL, obj))
			return false;
	}
	return rbt_verify(test, ops, c, m);
}

/* insert_near() places the object as insert() would, from every hint. */
static void rbtree_generic_test_iface_insert_near_every_hint(struct kunit *test)
{
	const struct rbt_ops *ops;
	struct rbt_model *m;
	struct rbt_cont *c;
	unsigned int t, h;
	s64 k;

	for (t = 0; t < ARRAY_SIZE(rbt_near_tables); t++) {
		ops = rbt_near_tables[t];
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		rbt_fill_even(test, ops, c, m, 12);
		for (k = -1; k <= 24; k++)
			for (h = 0; h < m->n; h++)
				KUNIT_ASSERT_TRUE(test,
						  rbt_insert_near_undo(test, ops, c, m,
								       m->objs[h], k));
	}
}

/*
 * A hint that was removed from the tree (RB_EMPTY_NODE(): its own parent,
 * which once made the climb loop forever), the object being inserted as
 * its own hint, and a hint whose parent links form a cycle: each is
 * ignored, and every answer is the one a search from the root gives.
 */
static void rbtree_generic_test_iface_removed_hint(struct kunit *test)
{
	struct rbt_obj *gone, *x, *y;
	const struct rbt_ops *ops;
	struct rbt_model *m;
	struct rbt_cont *c;
	unsigned int t;
	s64 k;

	for (t = 0; t < ARRAY_SIZE(rbt_near_tables); t++) {
		ops = rbt_near_tables[t];
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		rbt_fill_even(test, ops, c, m, 8);
		gone = m->objs[m->n / 2];
		ops->remove(c, gone);
		rbt_model_delete(m, m->n / 2);
		KUNIT_ASSERT_TRUE(test, RB_EMPTY_NODE(&gone->node));
		x = rbt_new(test, 7);
		y = rbt_new(test, 9);
		rb_set_parent(&x->node, &y->node);
		rb_set_parent(&y->node, &x->node);
		for (k = -1; k <= 16; k++) {
			KUNIT_ASSERT_TRUE(test, rbt_verify_queries(test, ops, c, m,
								   gone, k));
			KUNIT_ASSERT_TRUE(test, rbt_verify_queries(test, ops, c, m,
								   x, k));
			KUNIT_ASSERT_TRUE(test, rbt_insert_near_undo(test, ops, c, m,
								     gone, k));
			KUNIT_ASSERT_TRUE(test, rbt_insert_near_undo(test, ops, c, m,
								     NULL, k));
			KUNIT_ASSERT_TRUE(test, rbt_insert_near_undo(test, ops, c, m,
								     y, k));
		}
		KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&gone->node));
	}
}

/*
 * A hint from another tree, at its root, inner nodes and leaves, and with
 * keys that fit under it there: the object goes into this tree, answers
 * are this tree's, and the other tree is untouched.
 */
static void rbtree_generic_test_iface_foreign_hint(struct kunit *test)
{
	struct rbt_model *m, *om;
	const struct rbt_ops *ops;
	struct rbt_cont *c, *oc;
	unsigned int t, h;
	s64 k;

	for (t = 0; t < ARRAY_SIZE(rbt_near_tables); t++) {
		ops = rbt_near_tables[t];
		m = rbt_new_model(test);
		c = rbt_new_cont(test);
		om = rbt_new_model(test);
		oc = rbt_new_cont(test);
		rbt_fill_even(test, ops, c, m, 6);
		/* the other tree holds odd keys, between this tree's */
		for (h = 0; h < 6; h++)
			KUNIT_ASSERT_TRUE(test,
					  rbt_insert_checked(test, ops, oc, om, NULL,
							     rbt_new(test, 2 * h + 1)));
		for (k = -1; k <= 12; k++) {
			for (h = 0; h < om->n; h++) {
				KUNIT_ASSERT_TRUE(test,
						  rbt_verify_queries(test, ops, c, m,
								     om->objs[h], k));
				KUNIT_ASSERT_TRUE(test,
						  rbt_insert_near_undo(test, ops, c, m,
								       om->objs[h], k));
				KUNIT_ASSERT_TRUE(test, rbt_verify(test, ops, oc, om));
			}
		}
	}
}

/* Subtree sizes stay exact through sorted, reversed and random orders. */
static void rbtree_generic_test_iface_augmented(struct kunit *test)
{
	const struct rbt_ops *const tables[] = { &rbt_aug_ops, &rbt_augbag_ops };
	struct rbt_model *m;
	struct rbt_cont *c;
	unsigned int t, pass, i;

	for (t = 0; t < ARRAY_SIZE(tables); t++) {
		for (pass = 0; pass < 3; pass++) {
			m = rbt_new_model(test);
			c = rbt_new_cont(test);
			for (i = 0; i < 64; i++) {
				s64 k = pass == 0 ? i : pass == 1 ? 64 - i :
					(s64)rbt_rand(test, 1000);

				rbt_insert_checked(test, tables[t], c, m, NULL,
						   rbt_new(test, k));
				KUNIT_ASSERT_TRUE(test, rbt_verify(test, tables[t],
								   c, m));
			}
			while (m->n) {
				i = rbt_rand(test, m->n);
				tables[t]->remove(c, m->objs[i]);
				rbt_model_delete(m, i);
				KUNIT_ASSERT_TRUE(test, rbt_verify(test, tables[t],
								   c, m));
			}
		}
	}
}

static void rbt_walk_remove_even(struct rbt_obj *obj, void *arg)
{
	if (obj->key % 2 == 0)
		rbt_set_remove(arg, obj);
}

/* walk() visits in order and tolerates removal of the visited object. */
static void rbtree_generic_test_iface_walk_removes(struct kunit *test)
{
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *o;
	s64 k;

	for (k = 0; k < 20; k++)
		rbt_set_insert(c, rbt_new(test, k));
	rbt_set_walk(c, rbt_walk_remove_even, c);
	KUNIT_EXPECT_EQ(test, rbt_set_count(c), 10UL);
	for (o = rbt_set_first(c), k = 1; o; o = rbt_set_next(o), k += 2)
		KUNIT_EXPECT_EQ(test, o->key, k);
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &c->root, NULL));
}

/*
 * The max augment through random inserts (half from a hint), removals and,
 * on the replacing tree, replacements: every node's max is checked after
 * every step, so a copy that is not recomputed or a propagation that stops
 * below a changed ancestor shows.
 */
static void rbtree_generic_test_iface_max_augment(struct kunit *test)
{
	rbt_run_sequence(test, &rbt_max_ops, RBT_STEPS);
	rbt_run_sequence(test, &rbt_maxbag_ops, RBT_STEPS);
	rbt_run_sequence(test, &rbt_maxrepl_ops, RBT_STEPS);
}

/* Replace the object with key @k by one with value @val, from @hint. */
static void rbt_replace_val(struct kunit *test, struct rbt_cont *c,
			    struct rbt_model *m, struct rbt_obj *hint, s64 k,
			    u64 val)
{
	struct rbt_obj *obj = rbt_new(test, k);

	obj->val = val;
	/* a stale max, which the copy from the old object must overwrite */
	obj->max = 12345;
	KUNIT_ASSERT_TRUE(test, rbt_insert_checked(test, &rbt_maxrepl_ops, c, m,
						   hint, obj));
	KUNIT_ASSERT_TRUE(test, rbt_verify(test, &rbt_maxrepl_ops, c, m));
}

/*
 * Replacing changes the max of every ancestor when the replaced object
 * held it or the new one exceeds it, and of none otherwise: the root's max
 * follows exactly, whether the replacement comes from insert() or
 * insert_near().
 */
static void rbtree_generic_test_iface_max_replace(struct kunit *test)
{
	struct rbt_model *m = rbt_new_model(test);
	struct rbt_cont *c = rbt_new_cont(test);
	struct rbt_obj *obj;
	s64 k;

	for (k = 0; k <= 30; k++) {
		obj = rbt_new(test, k);
		obj->val = k;
		KUNIT_ASSERT_TRUE(test, rbt_insert_checked(test, &rbt_maxrepl_ops,
							   c, m, NULL, obj));
	}
	KUNIT_ASSERT_TRUE(test, rbt_verify(test, &rbt_maxrepl_ops, c, m));
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 30ULL);
	/* the holder of the max, a leaf, gets a small value */
	rbt_replace_val(test, c, m, NULL, 30, 0);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 29ULL);
	/* a node deep on the left gets the largest value */
	rbt_replace_val(test, c, m, m->objs[0], 1, 1000);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 1000ULL);
	/* and loses it again, from a hint on the other side */
	rbt_replace_val(test, c, m, m->objs[m->n - 1], 1, 1);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 29ULL);
	/* the root itself */
	k = rbt_obj_of(c->root.rb_node)->key;
	rbt_replace_val(test, c, m, NULL, k, 500);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 500ULL);
	rbt_replace_val(test, c, m, NULL, k, k);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 29ULL);
	/* a value below the max: no ancestor changes */
	rbt_replace_val(test, c, m, m->objs[10], 20, 3);
	KUNIT_EXPECT_EQ(test, rbt_obj_of(c->root.rb_node)->max, 29ULL);
}

/* A cache member given with its flag clear is kept: the flag is implied. */
static void rbtree_generic_test_iface_member_implies_flag(struct kunit *test)
{
	static const s64 keys[] = { 3, 1, 4, 0, 2, 1 };
	struct rbt_obj *objs[ARRAY_SIZE(keys)];
	struct rbt_cont *c = rbt_new_cont(test);
	unsigned int i;

	KUNIT_EXPECT_NULL(test, rbt_fair_first(c));
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		objs[i] = rbt_new(test, keys[i]);
		/* flags 0: equal keys are kept, as in the scheduler */
		KUNIT_EXPECT_NULL(test, rbt_fair_insert(c, objs[i]));
	}
	KUNIT_EXPECT_EQ(test, rbt_fair_rb()->tree_flags,
			(unsigned int)RB_HAS_LEFTMOST);
	KUNIT_EXPECT_PTR_EQ(test, rbt_obj_of(c->left), objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_fair_first(c), objs[3]);
	rbt_fair_remove(c, objs[3]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_obj_of(c->left), objs[1]);
	rbt_fair_remove(c, objs[1]);
	KUNIT_EXPECT_PTR_EQ(test, rbt_obj_of(c->left), objs[5]);
	KUNIT_EXPECT_NULL(test, c->right);
	KUNIT_EXPECT_EQ(test, c->count, 0UL);
	KUNIT_EXPECT_TRUE(test, rbt_check_rb(test, &c->root, NULL));
}

/* Every valid flag combination survives the random sequence. */
static void rbtree_generic_test_iface_flag_combinations(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(rbt_combos), 48U);
	for (i = 0; i < ARRAY_SIZE(rbt_combos); i++)
		rbt_run_sequence(test, rbt_combos[i], RBT_STEPS);
}

/* ---- all APIs side by side ---- */

static int rbt_ml_cmp(struct rb_node *a, const struct rb_node *b)
{
	return rbt_cmp(&rbt_obj_of(a)->key, &rbt_obj_of(b)->key);
}

static bool rbt_ml_less(struct rb_node *a, const struct rb_node *b)
{
	return rbt_obj_of(a)->key < rbt_obj_of(b)->key;
}

static int rbt_ml_key_cmp(const void *key, const struct rb_node *node)
{
	return rbt_cmp(key, &rbt_obj_of(node)->key);
}

/* For rb_find_first(): "equal" means greater than the key. */
static int rbt_ml_above_cmp(const void *key, const struct rb_node *node)
{
	return rbt_obj_of(node)->key > *(const s64 *)key ? 0 : 1;
}

/* Same keys, colours and links everywhere. */
static bool rbt_same_shape(const struct rb_node *a, const struct rb_node *b)
{
	if (!a || !b)
		return a == b;
	return rbt_obj_of(a)->key == rbt_obj_of(b)->key &&
	       rb_color(a) == rb_color(b) &&
	       rbt_same_shape(a->rb_left, b->rb_left) &&
	       rbt_same_shape(a->rb_right, b->rb_right);
}

static struct rb_node *rbt_nth(const struct rb_root *root, unsigned int n)
{
	struct rb_node *node = rb_first(root);

	while (n--)
		node = rb_next(node);
	return node;
}

enum {
	RBT_NODE,
	RBT_NODE_INLINE,
	RBT_IFACE,
	RBT_IFACE_AUG,
	RBT_MAINLINE,
	RBT_TREES
};

/*
 * The same pseudo-random sequence on unique trees of each API: insert
 * results, find and near answers and the trees themselves, colours
 * included, are identical (all use the same descent and rebalancing).
 */
static void rbtree_generic_test_cross_api_unique(struct kunit *test)
{
	struct rbt_cont *sc = rbt_new_cont(test), *ac = rbt_new_cont(test);
	struct rb_root os = RB_ROOT, osi = RB_ROOT, ml = RB_ROOT;
	struct rb_root *roots[RBT_TREES] = { &os, &osi, &sc->root, &ac->root,
					     &ml };
	int added[RBT_TREES];
	unsigned int step, t, i;
	struct rb_node *near;
	s64 k;

	for (step = 0; step < 2 * RBT_STEPS; step++) {
		k = rbt_rand_key(test);
		if (rbt_nodes(&os) && rbt_rand(test, 3) == 0) {
			i = rbt_rand(test, rbt_nodes(&os));
			rb_erase(rbt_nth(&os, i), &os);
			rb_erase(rbt_nth(&osi, i), &osi);
			rbt_set_remove(sc, rbt_obj_of(rbt_nth(&sc->root, i)));
			rbt_aug_remove(ac, rbt_obj_of(rbt_nth(&ac->root, i)));
			rb_erase(rbt_nth(&ml, i), &ml);
		} else {
			added[RBT_NODE] = rb_insert(&os, &rbt_new(test, k)->node,
						    rbt_node_cmp);
			added[RBT_NODE_INLINE] =
				_rb_insert(&osi, &rbt_new(test, k)->node,
					   rbt_node_cmp);
			added[RBT_IFACE] = rbt_set_insert(sc, rbt_new(test, k)) ?
					    -1 : 0;
			added[RBT_IFACE_AUG] =
				rbt_aug_insert(ac, rbt_new(test, k)) ? -1 : 0;
			added[RBT_MAINLINE] =
				rb_find_add(&rbt_new(test, k)->node, &ml,
					    rbt_ml_cmp) ? -1 : 0;
			for (t = 1; t < RBT_TREES; t++)
				KUNIT_ASSERT_EQ(test, added[t], added[0]);
		}
		k = rbt_rand_key(test);
		near = rbt_nodes(&os) ?
		       rbt_nth(&sc->root, rbt_rand(test, rbt_nodes(&os))) : NULL;
		for (t = 1; t < RBT_TREES; t++)
			KUNIT_ASSERT_TRUE(test, rbt_same_shape(roots[0]->rb_node,
							       roots[t]->rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_check_rb(test, &os, NULL));
		KUNIT_ASSERT_TRUE(test, rbt_check_rb(test, &ac->root, &rbt_size_cb));
		KUNIT_ASSERT_EQ(test, rbt_key_or(rb_search(&os, RBT_SEARCH(k),
							   rbt_node_cmp), 7),
				rbt_key_or(rb_find(&k, &ml, rbt_ml_key_cmp), 7));
		KUNIT_ASSERT_EQ(test, rbt_key_or(rb_search(&os, RBT_SEARCH(k),
							   rbt_node_cmp), 7),
				rbt_key_or(rbt_node_of(rbt_set_find(sc, &k)), 7));
		KUNIT_ASSERT_EQ(test, rbt_key_or(rb_greater(&os, RBT_SEARCH(k),
							    rbt_node_cmp), 7),
				rbt_key_or(rb_find_first(&k, &ml,
							 rbt_ml_above_cmp), 7));
		KUNIT_ASSERT_PTR_EQ(test, rbt_set_find_near(sc, rbt_obj_of(near), &k),
				    rbt_obj_of(rb_greater(&sc->root, RBT_SEARCH(k),
							  rbt_node_cmp)));
	}
}

/*
 * The same sequence on trees that keep equal keys: rb_insert_allow_dup(),
 * an interface without RB_UNIQUE_KEYS and mainline rb_add() put an
 * equal key in the same place and so build identical trees.
 */
static void rbtree_generic_test_cross_api_dup(struct kunit *test)
{
	struct rbt_cont *sc = rbt_new_cont(test), *ac = rbt_new_cont(test);
	struct rb_root os = RB_ROOT, ml = RB_ROOT;
	unsigned int step, i, n = 0;
	s64 k;

	for (step = 0; step < 2 * RBT_STEPS; step++) {
		k = rbt_rand_key(test);
		if (n && rbt_rand(test, 3) == 0) {
			i = rbt_rand(test, n--);
			rb_erase(rbt_nth(&os, i), &os);
			rbt_bag_remove(sc, rbt_obj_of(rbt_nth(&sc->root, i)));
			rbt_augbag_remove(ac, rbt_obj_of(rbt_nth(&ac->root, i)));
			rb_erase(rbt_nth(&ml, i), &ml);
		} else {
			rb_insert_allow_dup(&os, &rbt_new(test, k)->node,
					    rbt_node_cmp);
			KUNIT_ASSERT_NULL(test, rbt_bag_insert(sc, rbt_new(test, k)));
			KUNIT_ASSERT_NULL(test, rbt_augbag_insert(ac, rbt_new(test, k)));
			rb_add(&rbt_new(test, k)->node, &ml, rbt_ml_less);
			n++;
		}
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, sc->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ac->root.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_same_shape(os.rb_node, ml.rb_node));
		KUNIT_ASSERT_TRUE(test, rbt_check_rb(test, &ac->root, &rbt_size_cb));
		KUNIT_ASSERT_EQ(test, rbt_bag_count(sc), (unsigned long)n);
		KUNIT_ASSERT_EQ(test, rbt_key_or(rb_greater(&os, RBT_SEARCH(k),
							    rbt_node_cmp), 7),
				rbt_key_or(rb_find_first(&k, &ml,
							 rbt_ml_above_cmp), 7));
		if (rbt_bag_find_first(sc, &k))
			KUNIT_ASSERT_EQ(test,
					rbt_index(&rbt_bag_find_first(sc, &k)->node),
					rbt_index(rb_find_first(&k, &ml,
								rbt_ml_key_cmp)));
		else
			KUNIT_ASSERT_NULL(test, rb_find_first(&k, &ml,
							      rbt_ml_key_cmp));
	}
}

static int rbt_init(struct kunit *test)
{
	struct rbt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	prandom_seed_state(&ctx->rnd, RBT_SEED);
	test->priv = ctx;
	return 0;
}

static struct kunit_case rbtree_generic_test_cases[] = {
	KUNIT_CASE(rbtree_generic_test_node_insert_unique),
	KUNIT_CASE(rbtree_generic_test_node_insert_dup_order),
	KUNIT_CASE(rbtree_generic_test_node_search),
	KUNIT_CASE(rbtree_generic_test_node_greater),
	KUNIT_CASE(rbtree_generic_test_node_inline_matches),
	KUNIT_CASE(rbtree_generic_test_node_helpers),
	KUNIT_CASE(rbtree_generic_test_iface_empty),
	KUNIT_CASE(rbtree_generic_test_iface_single),
	KUNIT_CASE(rbtree_generic_test_iface_blank_members),
	KUNIT_CASE(rbtree_generic_test_iface_unique_rejects),
	KUNIT_CASE(rbtree_generic_test_iface_insert_replaces),
	KUNIT_CASE(rbtree_generic_test_iface_dup_order),
	KUNIT_CASE(rbtree_generic_test_iface_extreme_keys),
	KUNIT_CASE(rbtree_generic_test_iface_erase_root_min_max),
	KUNIT_CASE(rbtree_generic_test_iface_find_near_every_hint),
	KUNIT_CASE(rbtree_generic_test_iface_insert_near_every_hint),
	KUNIT_CASE(rbtree_generic_test_iface_removed_hint),
	KUNIT_CASE(rbtree_generic_test_iface_foreign_hint),
	KUNIT_CASE(rbtree_generic_test_iface_augmented),
	KUNIT_CASE(rbtree_generic_test_iface_max_augment),
	KUNIT_CASE(rbtree_generic_test_iface_max_replace),
	KUNIT_CASE(rbtree_generic_test_iface_walk_removes),
	KUNIT_CASE(rbtree_generic_test_iface_member_implies_flag),
	KUNIT_CASE(rbtree_generic_test_iface_flag_combinations),
	KUNIT_CASE(rbtree_generic_test_cross_api_unique),
	KUNIT_CASE(rbtree_generic_test_cross_api_dup),
	{}
};

static struct kunit_suite rbtree_generic_test_suite = {
	.name = "rbtree_generic",
	.init = rbt_init,
	.test_cases = rbtree_generic_test_cases,
};

kunit_test_suites(&rbtree_generic_test_suite);

MODULE_DESCRIPTION("KUnit tests for the generic rbtree helpers");
MODULE_LICENSE("GPL");
