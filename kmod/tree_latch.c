// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "latch" tree, <linux/rbtree_latch.h> as the module
 * loader keeps module addresses: two copies of the tree under a latch
 * seqcount, so that lookups run under RCU while a writer changes one copy
 * at a time. Each rbti_node carries both linkages (rbti_node.lt, whose
 * node[0] is rbti_node.rb); the dump and the check see both copies.
 *
 * The API has no ordered queries beyond its exact lookup: no near. The
 * `find` file runs that lookup as the API's readers do, under RCU without
 * the tree's lock; the erased nodes are freed after a grace period.
 * The `stress` file's private trees (rbti_latch_stress) are latch trees
 * of their own, whose writers serialise on a mutex and whose erased nodes
 * are freed after a grace period, as the API requires.
 */
#include <linux/mutex.h>
#include <linux/rbtree_latch.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "inspector.h"

static struct rbti_node *latch_entry(struct latch_tree_node *ltn)
{
	return ltn ? container_of(ltn, struct rbti_node, lt) : NULL;
}

static bool latch_less(struct latch_tree_node *a, struct latch_tree_node *b)
{
	return latch_entry(a)->key < latch_entry(b)->key;
}

static int latch_comp(void *key, struct latch_tree_node *b)
{
	return rbti_cmp_keys(*(s64 *)key, latch_entry(b)->key);
}

static const struct latch_tree_ops latch_ops = {
	.less = latch_less,
	.comp = latch_comp,
};

static struct rbti_node *latch_find(struct rbti_tree *t, s64 key)
{
	return latch_entry(latch_tree_find(&key, &t->latch, &latch_ops));
}

/*
 * latch_tree_find() as the `find` file runs it, without the tree's lock:
 * its own loop, with the retries counted and bounded.
 */
static struct rbti_node *latch_find_lockless(struct rbti_tree *t, s64 key,
					     unsigned long *retries)
{
	struct latch_tree_node *ltn;
	unsigned long n;
	unsigned int seq;

	for (n = 0;; n++) {
		seq = raw_read_seqcount_latch(&t->latch.seq);
		ltn = __lt_find(&key, &t->latch, seq & 1, latch_comp);
		if (!raw_read_seqcount_latch_retry(&t->latch.seq, seq))
			break;
		if (n == RBTI_STRESS_MAX_RETRY) {
			ltn = NULL;
			break;
		}
	}
	*retries = n;
	return latch_entry(ltn);
}

static int latch_insert(struct rbti_tree *t, struct rbti_node *n,
			struct rbti_node **replaced)
{
	*replaced = NULL;
	if (latch_find(t, n->key))
		return -EEXIST;
	latch_tree_insert(&n->lt, &t->latch, &latch_ops);
	return 0;
}

static struct rbti_node *latch_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = latch_find(t, key);

	if (n)
		latch_tree_erase(&n->lt, &t->latch, &latch_ops);
	return n;
}

static void latch_unlatch(struct rbti_tree *t, struct rbti_node *n)
{
	rb_erase(&n->lt.node[1], &t->latch.tree[1]);
}

/* --- stress: a private latch tree, lockless lookups under RCU --- */

struct latch_stress {
	struct latch_tree_root root;
	struct mutex lock;	/* serialises the writers */
};

struct latch_stress_node {
	struct latch_tree_node lt;
	s64 key;
	struct rcu_head rcu;
};

static struct latch_stress_node *stress_entry(struct latch_tree_node *ltn)
{
	return container_of(ltn, struct latch_stress_node, lt);
}

static bool stress_less(struct latch_tree_node *a, struct latch_tree_node *b)
{
	return stress_entry(a)->key < stress_entry(b)->key;
}

static int stress_comp(void *key, struct latch_tree_node *b)
{
	return rbti_cmp_keys(*(s64 *)key, stress_entry(b)->key);
}

static const struct latch_tree_ops stress_ops = {
	.less = stress_less,
	.comp = stress_comp,
};

static void *latch_stress_create(void)
{
	struct latch_stress *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	seqcount_latch_init(&s->root.seq);
	s->root.tree[0] = RB_ROOT;
	s->root.tree[1] = RB_ROOT;
	mutex_init(&s->lock);
	return s;
}

static void latch_stress_destroy(void *tree)
{
	struct latch_stress *s = tree;
	struct latch_stress_node *pos, *n;

	rbtree_postorder_for_each_entry_safe(pos, n, &s->root.tree[0],
					     lt.node[0])
		kfree(pos);
	mutex_destroy(&s->lock);
	kfree(s);
}

static int latch_stress_insert(void *tree, s64 key)
{
	struct latch_stress *s = tree;
	struct latch_stress_node *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (!n)
		return -ENOMEM;
	n->key = key;
	mutex_lock(&s->lock);
	latch_tree_insert(&n->lt, &s->root, &stress_ops);
	mutex_unlock(&s->lock);
	return 0;
}

static void latch_stress_erase(void *tree, s64 key)
{
	struct latch_stress *s = tree;
	struct latch_tree_node *ltn;

	mutex_lock(&s->lock);
	ltn = latch_tree_find(&key, &s->root, &stress_ops);
	if (ltn)
		latch_tree_erase(ltn, &s->root, &stress_ops);
	mutex_unlock(&s->lock);
	if (ltn)
		kfree_rcu(stress_entry(ltn), rcu);
}

/*
 * latch_tree_find()'s own loop, with its retries counted and bounded (the
 * API's loop has no bound: a reader that writers never let finish would
 * spin for ever).
 */
static int latch_stress_lookup(void *tree, s64 key, s64 *found,
			       unsigned long *retries)
{
	struct latch_stress *s = tree;
	struct latch_tree_node *ltn;
	unsigned long n;
	unsigned int seq;
	int ret = 0;

	rcu_read_lock();
	for (n = 0;; n++) {
		seq = raw_read_seqcount_latch(&s->root.seq);
		ltn = __lt_find(&key, &s->root, seq & 1, stress_comp);
		if (!raw_read_seqcount_latch_retry(&s->root.seq, seq))
			break;
		if (n == RBTI_STRESS_MAX_RETRY) {
			ret = -EAGAIN;
			break;
		}
	}
	if (!ret && ltn) {
		*found = stress_entry(ltn)->key;
		ret = 1;
	}
	rcu_read_unlock();
	*retries = n;
	return ret;
}

static const struct rbti_stress_ops latch_stress = {
	.create = latch_stress_create,
	.destroy = latch_stress_destroy,
	.insert = latch_stress_insert,
	.erase = latch_stress_erase,
	.lookup = latch_stress_lookup,
};

const struct rbti_tree_ops rbti_latch_ops = {
	.name = "latch",
	.api = "latch",
	.flags = RBTI_UNIQUE | RBTI_LATCH,
	.insert = latch_insert,
	.find = latch_find,
	.find_lockless = latch_find_lockless,
	.erase = latch_erase,
	.unlatch = latch_unlatch,
	.stress = &latch_stress,
};
