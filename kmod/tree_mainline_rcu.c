// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "mainline_rcu" tree, as uprobes keeps its tree on
 * 6.12: writers rb_find_add_rcu() and rb_erase() inside a write seqcount
 * section, under the tree's lock; lookups rb_find_rcu() under RCU and
 * retry while the seqcount says a writer ran (a descent that races a
 * rotation may miss a present key; it cannot find a wrong one). The
 * `find` file runs that lookup without the tree's lock; erased nodes are
 * freed after a grace period. `near` (rb_find_first(), which has no RCU
 * form) runs under the lock.
 *
 * Built only on kernels that have rb_find_add_rcu() (compat.h).
 */
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "inspector.h"

#if RBTI_HAVE_FIND_RCU

static int rcu_cmp(const void *key, const struct rb_node *rb)
{
	return rbti_cmp_keys(*(const s64 *)key,
			     rb_entry(rb, const struct rbti_node, rb)->key);
}

static int rcu_node_cmp(struct rb_node *a, const struct rb_node *b)
{
	return rcu_cmp(&rbti_entry(a)->key, b);
}

static int rcu_above(const void *key, const struct rb_node *rb)
{
	return rcu_cmp(key, rb) >= 0;
}

static int rcu_insert(struct rbti_tree *t, struct rbti_node *n,
		      struct rbti_node **replaced)
{
	struct rb_node *old;

	*replaced = NULL;
	write_seqcount_begin(&t->seq);
	old = rb_find_add_rcu(&n->rb, &t->root, rcu_node_cmp);
	write_seqcount_end(&t->seq);
	return old ? -EEXIST : 0;
}

/*
 * The lockless lookup, bounded: uprobes' find_uprobe_rcu(), which the
 * `find` file runs under rcu_read_lock() without the tree's lock, and the
 * other operations under the lock.
 */
static struct rbti_node *rcu_find_lockless(struct rbti_tree *t, s64 key,
					   unsigned long *retries)
{
	struct rb_node *rb = NULL;
	unsigned int seq;
	unsigned long i;

	for (i = 0; i < RBTI_STRESS_MAX_RETRY; i++) {
		seq = read_seqcount_begin(&t->seq);
		rb = rb_find_rcu(&key, &t->root, rcu_cmp);
		if (rb || !read_seqcount_retry(&t->seq, seq))
			break;
	}
	*retries = i;
	return rbti_entry(rb);
}

static struct rbti_node *rcu_find(struct rbti_tree *t, s64 key)
{
	unsigned long retries;
	struct rbti_node *n;

	rcu_read_lock();
	n = rcu_find_lockless(t, key, &retries);
	rcu_read_unlock();
	return n;
}

static struct rbti_node *rcu_near(struct rbti_tree *t, s64 key)
{
	return rbti_entry(rb_find_first(&key, &t->root, rcu_above));
}

static struct rbti_node *rcu_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = rcu_find(t, key);

	if (n) {
		write_seqcount_begin(&t->seq);
		rb_erase(&n->rb, &t->root);
		write_seqcount_end(&t->seq);
	}
	return n;
}

/* --- stress: a private tree, writers under a spinlock --- */

struct rcu_stress {
	struct rb_root root;
	spinlock_t lock;	/* serialises the writers */
	seqcount_spinlock_t seq;
};

struct rcu_stress_node {
	struct rb_node rb;
	s64 key;
	struct rcu_head rcu;
};

static int stress_cmp(const void *key, const struct rb_node *rb)
{
	return rbti_cmp_keys(*(const s64 *)key,
			     rb_entry(rb, const struct rcu_stress_node, rb)->key);
}

static int stress_node_cmp(struct rb_node *a, const struct rb_node *b)
{
	return stress_cmp(&rb_entry(a, struct rcu_stress_node, rb)->key, b);
}

/*
 * Add @add, or erase @del, inside the write seqcount section, the writer
 * lock held: what readers retry on.
 */
static void rcu_stress_change(struct rcu_stress *s, struct rb_node *add,
			      struct rb_node *del)
{
	write_seqcount_begin(&s->seq);
	if (add)
		rb_find_add_rcu(add, &s->root, stress_node_cmp);
	else
		rb_erase(del, &s->root);
	write_seqcount_end(&s->seq);
}

static void *rcu_stress_create(void)
{
	struct rcu_stress *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->root = RB_ROOT;
	spin_lock_init(&s->lock);
	seqcount_spinlock_init(&s->seq, &s->lock);
	return s;
}

static void rcu_stress_destroy(void *tree)
{
	struct rcu_stress *s = tree;
	struct rcu_stress_node *pos, *n;

	rbtree_postorder_for_each_entry_safe(pos, n, &s->root, rb)
		kfree(pos);
	kfree(s);
}

static int rcu_stress_insert(void *tree, s64 key)
{
	struct rcu_stress *s = tree;
	struct rcu_stress_node *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (!n)
		return -ENOMEM;
	n->key = key;
	spin_lock(&s->lock);
	rcu_stress_change(s, &n->rb, NULL);
	spin_unlock(&s->lock);
	return 0;
}

static void rcu_stress_erase(void *tree, s64 key)
{
	struct rcu_stress *s = tree;
	struct rb_node *rb;

	spin_lock(&s->lock);
	rb = rb_find(&key, &s->root, stress_cmp);
	if (rb)
		rcu_stress_change(s, NULL, rb);
	spin_unlock(&s->lock);
	if (rb)
		kfree_rcu(rb_entry(rb, struct rcu_stress_node, rb), rcu);
}

/* uprobes' find_uprobe_rcu(), with the retries counted and bounded. */
static int rcu_stress_lookup(void *tree, s64 key, s64 *found,
			     unsigned long *retries)
{
	struct rcu_stress *s = tree;
	struct rb_node *rb;
	unsigned long n;
	unsigned int seq;
	int ret = 0;

	rcu_read_lock();
	for (n = 0;; n++) {
		seq = read_seqcount_begin(&s->seq);
		rb = rb_find_rcu(&key, &s->root, stress_cmp);
		if (rb) {
			*found = rb_entry(rb, struct rcu_stress_node, rb)->key;
			ret = 1;
			break;
		}
		if (!read_seqcount_retry(&s->seq, seq))
			break;
		if (n == RBTI_STRESS_MAX_RETRY) {
			ret = -EAGAIN;
			break;
		}
	}
	rcu_read_unlock();
	*retries = n;
	return ret;
}

static const struct rbti_stress_ops rcu_stress = {
	.create = rcu_stress_create,
	.destroy = rcu_stress_destroy,
	.insert = rcu_stress_insert,
	.erase = rcu_stress_erase,
	.lookup = rcu_stress_lookup,
};

const struct rbti_tree_ops rbti_mainline_rcu_ops = {
	.name = "mainline_rcu",
	.api = "mainline",
	.flags = RBTI_UNIQUE | RBTI_LOCKLESS,
	.insert = rcu_insert,
	.find = rcu_find,
	.find_lockless = rcu_find_lockless,
	.near = rcu_near,
	.erase = rcu_erase,
	.stress = &rcu_stress,
};

#endif /* RBTI_HAVE_FIND_RCU */
