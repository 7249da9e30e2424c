/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The variants of bench_core.c: each API's insert, find, greater, erase
 * and walk (the list is bench_core.c's head comment). Included once, by
 * bench_core.c, where they are static BENCH_ENTRY functions of its one
 * translation unit, beside the timed loops that call them directly; not a
 * header for anything else.
 */
#ifndef RBTREE_BENCH_VARIANTS_H
#define RBTREE_BENCH_VARIANTS_H

/* --- open: the classic open-coded loops of block/elevator.c --- */

static BENCH_ENTRY void bench_open_insert(struct bench_tree *t,
					  struct bench_obj *obj)
{
	struct rb_node **p = &t->root.rb_node;
	struct rb_node *parent = NULL;

	while (*p) {
		parent = *p;
		if (obj->key < bench_obj_of(parent)->key)
			p = &(*p)->rb_left;
		else
			p = &(*p)->rb_right;
	}

	rb_link_node(&obj->node, parent, p);
	rb_insert_color(&obj->node, &t->root);
}

static BENCH_ENTRY struct bench_obj *bench_open_find(struct bench_tree *t,
						     u64 key)
{
	struct rb_node *n = t->root.rb_node;
	struct bench_obj *obj;

	while (n) {
		obj = bench_obj_of(n);
		if (key < obj->key)
			n = n->rb_left;
		else if (key > obj->key)
			n = n->rb_right;
		else
			return obj;
	}

	return NULL;
}

static BENCH_ENTRY struct bench_obj *bench_open_greater(struct bench_tree *t,
							u64 key)
{
	struct rb_node *n = t->root.rb_node, *greater = NULL;

	while (n) {
		if (key < bench_obj_of(n)->key) {
			greater = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}

	return rb_entry_safe(greater, struct bench_obj, node);
}

/*
 * --- open_bf: the same loops, branch-free in the choice of child ---
 *
 * GCC compiles "less ? &n->rb_left : &n->rb_right" to a branch here, so the
 * child is indexed by the comparison instead: rb_left follows rb_right in
 * struct rb_node (checked at build time).  Find still branches on equality,
 * as rb_find() does; greater keeps its candidate with a mask.
 */
static __always_inline struct rb_node **bench_child(struct rb_node *n, bool left)
{
	BUILD_BUG_ON(offsetof(struct rb_node, rb_left) !=
		     offsetof(struct rb_node, rb_right) + sizeof(n->rb_right));
	return (struct rb_node **)((char *)&n->rb_right +
				   left * sizeof(n->rb_right));
}

static BENCH_ENTRY void bench_open_bf_insert(struct bench_tree *t,
					     struct bench_obj *obj)
{
	struct rb_node **p = &t->root.rb_node;
	struct rb_node *parent = NULL;

	while (*p) {
		parent = *p;
		p = bench_child(parent, obj->key < bench_obj_of(parent)->key);
	}

	rb_link_node(&obj->node, parent, p);
	rb_insert_color(&obj->node, &t->root);
}

static BENCH_ENTRY struct bench_obj *bench_open_bf_find(struct bench_tree *t,
							u64 key)
{
	struct rb_node *n = t->root.rb_node;
	struct bench_obj *obj;

	while (n) {
		obj = bench_obj_of(n);
		if (key == obj->key)
			return obj;
		n = *bench_child(n, key < obj->key);
	}

	return NULL;
}

static BENCH_ENTRY struct bench_obj *bench_open_bf_greater(struct bench_tree *t,
							   u64 key)
{
	struct rb_node *n = t->root.rb_node, *greater = NULL;
	unsigned long mask;
	bool left;

	while (n) {
		left = key < bench_obj_of(n)->key;
		mask = -(unsigned long)left;
		greater = (struct rb_node *)(((unsigned long)n & mask) |
					     ((unsigned long)greater & ~mask));
		n = *bench_child(n, left);
	}

	return rb_entry_safe(greater, struct bench_obj, node);
}

/*
 * --- open_cmp: open-coded loops over the three-way comparison ---
 *
 * The decisions the generic APIs make, written out by hand: the sign of
 * bench_cmp_keys(), as a comparison callback returns it.  Against these,
 * a generic API's extra instructions are its own, not its comparison's.
 */
static BENCH_ENTRY void bench_open_cmp_insert(struct bench_tree *t,
					      struct bench_obj *obj)
{
	struct rb_node **p = &t->root.rb_node;
	struct rb_node *parent = NULL;

	while (*p) {
		parent = *p;
		if (bench_cmp_keys(obj->key, bench_obj_of(parent)->key) < 0)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}

	rb_link_node(&obj->node, parent, p);
	rb_insert_color(&obj->node, &t->root);
}

static BENCH_ENTRY struct bench_obj *bench_open_cmp_find(struct bench_tree *t,
							 u64 key)
{
	struct rb_node *n = t->root.rb_node;
	struct bench_obj *obj;
	int c;

	while (n) {
		obj = bench_obj_of(n);
		c = bench_cmp_keys(key, obj->key);
		if (c < 0)
			n = n->rb_left;
		else if (c > 0)
			n = n->rb_right;
		else
			return obj;
	}

	return NULL;
}

static BENCH_ENTRY struct bench_obj *
bench_open_cmp_greater(struct bench_tree *t, u64 key)
{
	struct rb_node *n = t->root.rb_node, *greater = NULL;

	while (n) {
		if (bench_cmp_keys(key, bench_obj_of(n)->key) < 0) {
			greater = n;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}

	return rb_entry_safe(greater, struct bench_obj, node);
}

/* open_cmp_u: an equal key is not linked, as on a unique tree. */
static BENCH_ENTRY void bench_open_cmp_u_insert(struct bench_tree *t,
						struct bench_obj *obj)
{
	struct rb_node **p = &t->root.rb_node;
	struct rb_node *parent = NULL;
	long c;

	while (*p) {
		parent = *p;
		c = bench_cmp_keys(obj->key, bench_obj_of(parent)->key);
		if (c < 0)
			p = &parent->rb_left;
		else if (c > 0)
			p = &parent->rb_right;
		else
			return;
	}

	rb_link_node(&obj->node, parent, p);
	rb_insert_color(&obj->node, &t->root);
}

/* open_cmp_u: equality first, then the child by the sign. */
static BENCH_ENTRY struct bench_obj *bench_open_cmp_u_find(struct bench_tree *t,
							   u64 key)
{
	struct rb_node *n = t->root.rb_node;
	int c;

	while (n) {
		c = bench_cmp_keys(key, bench_obj_of(n)->key);
		if (!c)
			return bench_obj_of(n);
		n = c < 0 ? n->rb_left : n->rb_right;
	}

	return NULL;
}

/* open_cmp_first: the first node in order with @key, down to a leaf. */
static BENCH_ENTRY struct bench_obj *
bench_open_cmp_first_find(struct bench_tree *t, u64 key)
{
	struct rb_node *n = t->root.rb_node, *match = NULL;
	int c;

	while (n) {
		c = bench_cmp_keys(key, bench_obj_of(n)->key);
		if (!c)
			match = n;
		if (c < 0 || !c)
			n = n->rb_left;
		else
			n = n->rb_right;
	}

	return rb_entry_safe(match, struct bench_obj, node);
}

/* Shared by every variant whose API has no erase or walk of its own. */
static BENCH_ENTRY void bench_plain_erase(struct bench_tree *t,
					  struct bench_obj *obj)
{
	rb_erase(&obj->node, &t->root);
}

static BENCH_ENTRY u64 bench_plain_walk(struct bench_tree *t)
{
	struct rb_node *n;
	u64 h = 0;

	for (n = rb_first(&t->root); n; n = rb_next(n))
		h = bench_hash(h, bench_obj_of(n)->key);
	return h;
}

/* --- mainline: 6.1's rb_add() and rb_find() --- */

static __always_inline bool bench_mainline_less(struct rb_node *a,
						const struct rb_node *b)
{
	return bench_obj_of(a)->key < bench_obj_of(b)->key;
}

static __always_inline int bench_mainline_cmp(const void *key,
					      const struct rb_node *n)
{
	return bench_cmp_keys(*(const u64 *)key, bench_obj_of(n)->key);
}

static BENCH_ENTRY void bench_mainline_insert(struct bench_tree *t,
					      struct bench_obj *obj)
{
	rb_add(&obj->node, &t->root, bench_mainline_less);
}

static BENCH_ENTRY struct bench_obj *bench_mainline_find(struct bench_tree *t,
							 u64 key)
{
	return rb_entry_safe(rb_find(&key, &t->root, bench_mainline_cmp),
			     struct bench_obj, node);
}

/*
 * --- mainline_u: rb_find_add(), mainline's unique insert ---
 *
 * An equal key is returned, not linked: the insert of a unique tree, with
 * the three-way comparison of mainline's find, here on two nodes.  Find,
 * erase and walk are mainline's.
 */
static __always_inline int bench_mainline_node_cmp(struct rb_node *a,
						   const struct rb_node *b)
{
	return bench_cmp_keys(bench_obj_of(a)->key, bench_obj_of(b)->key);
}

static BENCH_ENTRY void bench_mainline_u_insert(struct bench_tree *t,
						struct bench_obj *obj)
{
	rb_find_add(&obj->node, &t->root, bench_mainline_node_cmp);
}

/* --- Overstreet: one node comparison, inline or through the pointer --- */

static int bench_ovs_cmp(const struct rb_node *l, const struct rb_node *r)
{
	return bench_cmp_keys(bench_obj_of(l)->key, bench_obj_of(r)->key);
}

static BENCH_ENTRY void bench_ovs_inline_insert(struct bench_tree *t,
						struct bench_obj *obj)
{
	_rb_insert_allow_dup(&t->root, &obj->node, bench_ovs_cmp);
}

static BENCH_ENTRY struct bench_obj *bench_ovs_inline_find(struct bench_tree *t,
							   u64 key)
{
	struct bench_obj search = { .key = key };

	return container_of_or_null(_rb_search(&t->root, &search.node,
					       bench_ovs_cmp),
				    struct bench_obj, node);
}

static BENCH_ENTRY struct bench_obj *
bench_ovs_inline_greater(struct bench_tree *t, u64 key)
{
	struct bench_obj search = { .key = key };

	return container_of_or_null(_rb_find_first_greater(&t->root,
							   &search.node,
							   bench_ovs_cmp),
				    struct bench_obj, node);
}

static BENCH_ENTRY void bench_ovs_ool_insert(struct bench_tree *t,
					     struct bench_obj *obj)
{
	rb_insert_allow_dup(&t->root, &obj->node, bench_ovs_cmp);
}

static BENCH_ENTRY struct bench_obj *bench_ovs_ool_find(struct bench_tree *t,
							u64 key)
{
	struct bench_obj search = { .key = key };

	return container_of_or_null(rb_search(&t->root, &search.node,
					      bench_ovs_cmp),
				    struct bench_obj, node);
}

static BENCH_ENTRY struct bench_obj *bench_ovs_ool_greater(struct bench_tree *t,
							   u64 key)
{
	struct bench_obj search = { .key = key };

	return container_of_or_null(rb_find_first_greater(&t->root,
							  &search.node,
							  bench_ovs_cmp),
				    struct bench_obj, node);
}

static BENCH_ENTRY u64 bench_ovs_walk(struct bench_tree *t)
{
	struct bench_obj *obj;
	u64 h = 0;

	for (obj = RB_FIRST(&t->root, struct bench_obj, node); obj;
	     obj = RB_NEXT(obj, node))
		h = bench_hash(h, obj->key);
	return h;
}

/* --- Santos: generated typed interfaces --- */

static long bench_santos_compare(const u64 *a, const u64 *b)
{
	return bench_cmp_keys(*a, *b);
}

RB_DEFINE_INTERFACE(bench_su, struct bench_tree, root,
		    /* no leftmost */, /* no rightmost */, /* no count */,
		    struct bench_obj, node, key,
		    RB_UNIQUE_KEYS, bench_santos_compare, 0)

RB_DEFINE_INTERFACE(bench_slc, struct bench_tree, root,
		    leftmost, /* no rightmost */, count,
		    struct bench_obj, node, key,
		    RB_UNIQUE_KEYS | RB_HAS_LEFTMOST | RB_HAS_COUNT,
		    bench_santos_compare, 0)

RB_DEFINE_INTERFACE(bench_sdup, struct bench_tree, root,
		    /* no leftmost */, /* no rightmost */, /* no count */,
		    struct bench_obj, node, key,
		    0, bench_santos_compare, 0)

static __always_inline void bench_santos_visit(struct bench_obj *obj,
					       void *arg)
{
	u64 *h = arg;

	*h = bench_hash(*h, obj->key);
}

/* The five operations of one Santos interface, as BENCH_ENTRY functions. */
#define BENCH_SANTOS_OPS(name, prefix)					\
static BENCH_ENTRY void bench_##name##_insert(struct bench_tree *t,	\
					      struct bench_obj *obj)	\
{									\
	prefix##_insert(t, obj);					\
}									\
									\
static BENCH_ENTRY struct bench_obj *bench_##name##_find(struct bench_tree *t, \
							 u64 key)	\
{									\
	return prefix##_find(t, &key);					\
}									\
									\
static BENCH_ENTRY struct bench_obj *					\
bench_##name##_greater(struct bench_tree *t, u64 key)			\
{									\
	return prefix##_find_near(t, NULL, &key);			\
}									\
									\
static BENCH_ENTRY void bench_##name##_erase(struct bench_tree *t,	\
					     struct bench_obj *obj)	\
{									\
	prefix##_remove(t, obj);					\
}									\
									\
static BENCH_ENTRY u64 bench_##name##_walk(struct bench_tree *t)		\
{									\
	u64 h = 0;							\
									\
	prefix##_walk(t, bench_santos_visit, &h);			\
	return h;							\
}

BENCH_SANTOS_OPS(santos, bench_su)
BENCH_SANTOS_OPS(santos_lc, bench_slc)
BENCH_SANTOS_OPS(santos_dup, bench_sdup)

#endif /* RBTREE_BENCH_VARIANTS_H */
