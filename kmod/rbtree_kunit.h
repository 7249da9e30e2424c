/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the KUnit suites of the generic rbtree APIs (rbtree_kunit_*.c):
 * the objects the trees hold, a model of what a tree must contain, an
 * iterative red-black checker, and struct rbt_iface, through which shared
 * code drives any RB_DEFINE_INTERFACE() tree. Each interface's functions
 * are called directly in that interface's own dispatch function (see
 * RBT_IFACE()), so what the tests run is the code a caller inlines.
 */
#ifndef _RBTREE_KUNIT_H
#define _RBTREE_KUNIT_H

#include <kunit/test.h>
#include <linux/rbtree_augmented.h>
#include <linux/types.h>

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
/* Deepest path the checker follows: 2 * log2(RBT_MAX + 1) is 20. */
#define RBT_MAX_HEIGHT	32
/* Room for a checker's or a verifier's verdict. */
#define RBT_VERDICT	96

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

/* The objects of a tree, in order: what the tree must contain. */
struct rbt_model {
	struct rbt_obj **objs;
	unsigned int n;
	struct rbt_obj **seen;	/* what a walk visited */
	unsigned int nseen;
};

/* The augmented value an interface keeps, which the checker recomputes. */
enum rbt_aug {
	RBT_AUG_NONE,
	RBT_AUG_SIZE,	/* rbt_obj.size: nodes in the subtree */
	RBT_AUG_MAX,	/* rbt_obj.max: largest val in the subtree */
};

static inline unsigned long rbt_size(const struct rb_node *node)
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

/*
 * The max augment is like vmap_area's subtree_max_size: unlike the size,
 * it depends on each node's own value, so copying it on replace and
 * stopping propagation once a value is unchanged can be wrong and show.
 */
static inline u64 rbt_obj_val(const struct rbt_obj *obj)
{
	return obj->val;
}

/*
 * The callbacks, static in each file that uses them, so that the
 * interfaces there see constants (RB_DEFINE_INTERFACE() requires it).
 */
#define RBT_SIZE_CALLBACKS						\
RB_DECLARE_CALLBACKS(static __maybe_unused, rbt_size_cb, struct rbt_obj,	\
		     node, size, rbt_compute_size)
#define RBT_MAX_CALLBACKS						\
RB_DECLARE_CALLBACKS_MAX(static __maybe_unused, rbt_max_cb,		\
			 struct rbt_obj, node, u64, max, rbt_obj_val)
#define RBT_AUG_CB_NONE	0
#define RBT_AUG_CB_SIZE	(&rbt_size_cb)
#define RBT_AUG_CB_MAX	(&rbt_max_cb)

/* A tree under test and its model; test->priv's random state aside. */
struct rbt_seq {
	struct rbt_cont c;
	struct rbt_model m;
	char verdict[RBT_VERDICT];
};

/* The operations of an interface, as rbt_iface.op() takes them. */
enum rbt_op {
	RBT_INSERT, RBT_INSERT_NEAR, RBT_REMOVE,
	RBT_FIND, RBT_FIND_FIRST, RBT_FIND_LAST, RBT_FIND_NEXT,
	RBT_FIND_PREV, RBT_FIND_NEAR, RBT_FIRST, RBT_LAST, RBT_NEXT,
	RBT_PREV, RBT_WALK, RBT_COUNT,
};

/**
 * struct rbt_iface - one RB_DEFINE_INTERFACE() tree, for shared test code
 * @label: the interface's prefix
 * @tree_flags: its flags
 * @aug: the augmented value it keeps
 * @op: run @op on @s's tree with object @o, hint @h and key @k; returns
 *	the operation's object (the count, for %RBT_COUNT, in @s->m.nseen)
 */
struct rbt_iface {
	const char *label;
	unsigned int tree_flags;
	enum rbt_aug aug;
	struct rbt_obj *(*op)(struct rbt_seq *s, enum rbt_op op,
			      struct rbt_obj *o, struct rbt_obj *h,
			      const s64 *k);
};

static inline long rbt_cmp(const s64 *a, const s64 *b)
{
	return *a < *b ? -1 : *a > *b;
}

void rbt_walk_record(struct rbt_obj *obj, void *arg);

/*
 * RBT_IFACE() - an interface, its dispatch function and its rbt_iface
 * @pfx: the prefix; @fl: flags; @lm, @rm, @cnt: cache members or blank;
 * @kind: NONE, SIZE or MAX (RBT_SIZE_CALLBACKS or RBT_MAX_CALLBACKS must
 * come first)
 *
 * The dispatch function is the only place the generated functions are
 * called from, each directly, with constant arguments: they are inlined
 * there as in any caller.
 */
#define RBT_IFACE(pfx, fl, lm, rm, cnt, kind)				\
RB_DEFINE_INTERFACE(pfx, struct rbt_cont, root, lm, rm, cnt,		\
		    struct rbt_obj, node, key, fl, rbt_cmp,		\
		    RBT_AUG_CB_ ## kind)					\
static __maybe_unused struct rbt_obj *				\
pfx ## _op(struct rbt_seq *s, enum rbt_op op, struct rbt_obj *o,	\
	   struct rbt_obj *h, const s64 *k)				\
{									\
	struct rbt_cont *c = &s->c;					\
									\
	switch (op) {							\
	case RBT_INSERT:	return pfx ## _insert(c, o);		\
	case RBT_INSERT_NEAR:	return pfx ## _insert_near(c, h, o);	\
	case RBT_REMOVE:						\
		pfx ## _remove(c, o);					\
		return NULL;						\
	case RBT_FIND:		return pfx ## _find(c, k);		\
	case RBT_FIND_FIRST:	return pfx ## _find_first(c, k);	\
	case RBT_FIND_LAST:	return pfx ## _find_last(c, k);		\
	case RBT_FIND_NEXT:	return pfx ## _find_next(o);		\
	case RBT_FIND_PREV:	return pfx ## _find_prev(o);		\
	case RBT_FIND_NEAR:	return pfx ## _find_near(c, h, k);	\
	case RBT_FIRST:		return pfx ## _first(c);		\
	case RBT_LAST:		return pfx ## _last(c);			\
	case RBT_NEXT:		return pfx ## _next(o);			\
	case RBT_PREV:		return pfx ## _prev(o);			\
	case RBT_WALK:							\
		s->m.nseen = 0;						\
		pfx ## _walk(c, rbt_walk_record, &s->m);		\
		return NULL;						\
	case RBT_COUNT:							\
		if ((fl) & RB_HAS_COUNT)				\
			s->m.nseen = pfx ## _count(c);			\
		return NULL;						\
	}								\
	return NULL;							\
}									\
static const struct rbt_iface __maybe_unused pfx ## _iface = {		\
	.label = #pfx, .tree_flags = (fl), .op = pfx ## _op,		\
	.aug = RBT_AUG_ ## kind,					\
}

struct rbt_obj *rbt_new(struct kunit *test, s64 key);
struct rbt_seq *rbt_new_seq(struct kunit *test);
u32 rbt_rand(struct kunit *test, u32 range);
s64 rbt_rand_key(struct kunit *test);
int rbt_init(struct kunit *test);

/**
 * rbt_of() - the object of a node, NULL-safe
 * @node: the node or NULL
 *
 * Return: the object, or NULL.
 */
static inline struct rbt_obj *rbt_of(const struct rb_node *node)
{
	return node ? rb_entry(node, struct rbt_obj, node) : NULL;
}

/* Key of @obj, or RBT_ABSENT (a key no test inserts) for NULL. */
#define RBT_ABSENT	1000003LL

/**
 * rbt_key() - the key of an object, NULL-safe
 * @obj: the object or NULL
 *
 * Return: its key, or %RBT_ABSENT.
 */
static inline s64 rbt_key(const struct rbt_obj *obj)
{
	return obj ? obj->key : RBT_ABSENT;
}

unsigned int rbt_upper(const struct rbt_model *m, s64 key);
unsigned int rbt_lower(const struct rbt_model *m, s64 key);
struct rbt_obj *rbt_at(const struct rbt_model *m, unsigned int i);
unsigned int rbt_index_of(const struct rbt_model *m, const struct rbt_obj *o);
void rbt_model_delete(struct rbt_model *m, unsigned int i);

const char *rbt_check(const struct rb_root *root, enum rbt_aug aug,
		      char *buf);
const char *rbt_verify(const struct rbt_iface *t, struct rbt_seq *s);
const char *rbt_verify_queries(const struct rbt_iface *t, struct rbt_seq *s,
			       struct rbt_obj *near, s64 k);
const char *rbt_insert_checked(const struct rbt_iface *t, struct rbt_seq *s,
			       struct rbt_obj *near, struct rbt_obj *obj);
void rbt_remove_checked(struct kunit *test, const struct rbt_iface *t,
			struct rbt_seq *s, unsigned int i);
void rbt_run_sequence(struct kunit *test, const struct rbt_iface *t,
		      unsigned int steps);
void rbt_iface_desc(const struct rbt_iface *const *t, char *desc);

/*
 * RBT_SUITE() - the suite @suite, of the cases @suite_cases, with rbt_init()
 * @suite: the suite's name, also the prefix of its cases' names
 */
#define RBT_SUITE(suite)						\
struct kunit_suite suite ## _suite = {					\
	.name = #suite, .init = rbt_init, .test_cases = suite ## _cases,	\
}

/* The suites, registered together in rbtree_kunit_lib.c. */
extern struct kunit_suite rbtree_generic_node_suite;
extern struct kunit_suite rbtree_generic_interface_suite;
extern struct kunit_suite rbtree_generic_hints_suite;
extern struct kunit_suite rbtree_generic_flags_suite;
extern struct kunit_suite rbtree_generic_cross_suite;

#endif /* _RBTREE_KUNIT_H */
