// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the nodes (allocated unlocked, counted per tree and
 * module-wide) and the write commands `insert`, `erase` and `clear`, each
 * one write, applied entirely or not at all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "inspector_fe.h"

unsigned long max_nodes = 1048576;
module_param(max_nodes, ulong, 0600);
MODULE_PARM_DESC(max_nodes, "maximum number of nodes per tree (default 1048576)");

static unsigned long max_total_nodes = 2097152;
module_param(max_total_nodes, ulong, 0600);
MODULE_PARM_DESC(max_total_nodes, "maximum number of nodes in all trees together (default 2097152)");

/* Nodes on every tree's list, plus those reserved for a running write. */
static atomic_long_t rbti_total_nodes = ATOMIC_LONG_INIT(0);

/*
 * Nodes come from their own cache, tracked by kmemleak like any other
 * allocation: every node is on its tree's list (rbti_tree.all, in the
 * module's static rbti_trees[]) from allocation until it is freed, or on
 * RCU's callback list while it waits for its grace period, so kmemleak
 * reaches every live node and reports one that was lost.
 */
static struct kmem_cache *rbti_node_cache;

/* Free a node that is on no list and in no tree; NULL is ignored. */
void rbti_node_free(struct rbti_node *n)
{
	if (n)
		kmem_cache_free(rbti_node_cache, n);
}

static void rbti_node_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(rbti_node_cache, container_of(head, struct rbti_node,
						      rcu));
}

/**
 * rbti_node_retire() - free a node that @t no longer links or lists
 * @t: its tree
 * @n: the node, or NULL
 *
 * On a tree whose finds run lockless (rbti_lockless()), a reader may still
 * be walking @n: it is freed after an RCU grace period. rbti_nodes_exit()
 * waits for those with rcu_barrier().
 */
void rbti_node_retire(struct rbti_tree *t, struct rbti_node *n)
{
	if (n && rbti_lockless(t->ops->flags))
		call_rcu(&n->rcu, rbti_node_free_rcu);
	else
		rbti_node_free(n);
}

void rbti_free_nodes(struct rbti_node **nodes, size_t n)
{
	size_t i;

	if (!nodes)
		return;
	for (i = 0; i < n; i++) {
		rbti_node_free(nodes[i]);
		rbti_cond_resched(i + 1);
	}
	kvfree(nodes);
}

/* @n nodes, allocated before the tree is locked; NULL on failure. */
struct rbti_node **rbti_alloc_nodes(size_t n)
{
	struct rbti_node **nodes;
	size_t i;

	nodes = kvcalloc(n, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return NULL;
	for (i = 0; i < n; i++) {
		nodes[i] = kmem_cache_zalloc(rbti_node_cache, GFP_KERNEL);
		if (!nodes[i]) {
			rbti_free_nodes(nodes, i);
			return NULL;
		}
		rbti_cond_resched(i + 1);
	}
	return nodes;
}

/*
 * Make room for @new more nodes in @t (locked): -ENOSPC past max_nodes or
 * past max_total_nodes. The caller gives back what it does not use with
 * rbti_unreserve().
 */
int rbti_reserve(const struct rbti_tree *t, size_t new)
{
	unsigned long max = READ_ONCE(max_nodes);
	unsigned long total = READ_ONCE(max_total_nodes);

	if (new > max || t->nodes > max - new || new > total)
		return -ENOSPC;
	if ((unsigned long)atomic_long_add_return(new, &rbti_total_nodes) >
	    total) {
		atomic_long_sub(new, &rbti_total_nodes);
		return -ENOSPC;
	}
	return 0;
}

void rbti_unreserve(size_t unused)
{
	atomic_long_sub(unused, &rbti_total_nodes);
}

/* A node leaves the tree's list, to be freed by the caller. */
static void rbti_unlist(struct rbti_tree *t, struct rbti_node *n)
{
	list_del(&n->list);
	t->nodes--;
	atomic_long_dec(&rbti_total_nodes);
}

/* Free every node of @t (locked) through its list, never its links. */
void rbti_free_all(struct rbti_tree *t)
{
	struct rbti_node *n, *tmp;
	unsigned long i = 0;

	/* Lockless finds see an empty tree, or nodes not yet freed. */
	if (t->ops->flags & RBTI_LOCKLESS)
		write_seqcount_begin(&t->seq);
	WRITE_ONCE(t->root.rb_node, NULL);
	WRITE_ONCE(t->latch.tree[0].rb_node, NULL);
	WRITE_ONCE(t->latch.tree[1].rb_node, NULL);
	if (t->ops->flags & RBTI_LOCKLESS)
		write_seqcount_end(&t->seq);
	list_for_each_entry_safe(n, tmp, &t->all, list) {
		rbti_node_retire(t, n);
		rbti_cond_resched(++i);
	}
	INIT_LIST_HEAD(&t->all);
	atomic_long_sub(t->nodes, &rbti_total_nodes);
	t->nodes = 0;
	t->leftmost = NULL;
	t->rightmost = NULL;
	t->count = 0;
	t->broken_node = NULL;
}

/* --- Operations, tree locked --- */

/* The node a hint key names (the first with that key), or NULL. */
static struct rbti_node *rbti_hint(struct rbti_tree *t,
				   const struct rbti_op *op)
{
	return op->hinted ? t->ops->find(t, op->hint) : NULL;
}

/*
 * Insert preallocated node @n with @op's key, from @op's hint if that key
 * is present. Returns 0 if a node was added (it takes one reserved place),
 * 1 if it replaced a node (freed, its id in *@old_id), or -EEXIST.
 */
int rbti_do_insert(struct rbti_tree *t, struct rbti_node *n,
		   const struct rbti_op *op, u64 *old_id)
{
	struct rbti_node *old, *hint = rbti_hint(t, op);
	int ret;

	n->key = op->key;
	n->value = op->value;
	n->id = t->next_id;
	if (hint)
		ret = t->ops->insert_hint(t, n, hint, &old);
	else
		ret = t->ops->insert(t, n, &old);
	if (ret)
		return ret;
	t->next_id++;
	t->inserts++;
	t->gen++;
	list_add_tail(&n->list, &t->all);
	if (!old) {
		t->nodes++;
		return 0;
	}
	/* The new node took the old one's place, and its reservation. */
	list_del(&old->list);
	*old_id = old->id;
	rbti_node_retire(t, old);
	return 1;
}

/*
 * Erase one node with @op's key (and value as LAST on an interval tree);
 * returns it for the caller to free, or NULL.
 */
struct rbti_node *rbti_do_erase(struct rbti_tree *t, const struct rbti_op *op)
{
	struct rbti_node *n;

	if (t->ops->flags & RBTI_INTERVAL)
		n = t->ops->erase_interval(t, op->key, op->value);
	else
		n = t->ops->erase(t, op->key);

	if (n) {
		rbti_unlist(t, n);
		t->erases++;
		t->gen++;
	}
	return n;
}

struct rbti_node *rbti_do_find(struct rbti_tree *t, const struct rbti_op *op)
{
	spin_lock(&t->qlock);
	t->finds++;
	spin_unlock(&t->qlock);
	return t->ops->find(t, op->key);
}

struct rbti_node *rbti_do_near(struct rbti_tree *t, const struct rbti_op *op)
{
	struct rbti_node *hint = rbti_hint(t, op);

	spin_lock(&t->qlock);
	t->nears++;
	spin_unlock(&t->qlock);
	if (hint)
		return t->ops->near_hint(t, op->key, hint);
	return t->ops->near(t, op->key);
}

/* --- Commands: one write each, on an unlocked tree --- */

/*
 * On a unique tree every key must be new, and distinct from the others; a
 * replacing tree takes them all, a later equal key replacing the earlier.
 * Returns the number of nodes the keys add, or -EEXIST.
 */
static long rbti_new_nodes(struct rbti_tree *t, const s64 *sorted, size_t n)
{
	bool replace = t->ops->flags & RBTI_REPLACE;
	size_t i, new = 0;

	for (i = 0; i < n; i++) {
		if (i && sorted[i] == sorted[i - 1]) {
			if (!replace)
				return -EEXIST;
			continue;
		}
		if (!t->ops->find(t, sorted[i]))
			new++;
		else if (!replace)
			return -EEXIST;
		rbti_cond_resched(i + 1);
	}
	return new;
}

static int rbti_insert(struct rbti_tree *t, char *buf)
{
	struct rbti_node **nodes = NULL;
	struct rbti_op *ops;
	s64 *sorted = NULL;
	size_t n, i, added = 0;
	long new;
	u64 old_id;
	int ret;

	ret = rbti_parse_keys(t, buf, &ops, &n);
	if (ret)
		return ret;
	if (t->ops->flags & RBTI_UNIQUE) {
		sorted = kvmalloc_array(n, sizeof(*sorted), GFP_KERNEL);
		if (!sorted) {
			kvfree(ops);
			return -ENOMEM;
		}
		for (i = 0; i < n; i++)
			sorted[i] = ops[i].key;
		sort(sorted, n, sizeof(*sorted), rbti_cmp_s64, NULL);
	}
	/* Allocated unlocked; the limits are checked under the lock. */
	nodes = rbti_alloc_nodes(n);

	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	new = sorted ? rbti_new_nodes(t, sorted, n) : n;
	if (new < 0) {
		ret = new;
		goto unlock;
	}
	ret = rbti_reserve(t, new);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	if (!nodes) {
		rbti_unreserve(new);
		goto unlock;
	}
	for (i = 0; i < n; i++) {
		ret = rbti_do_insert(t, nodes[i], &ops[i], &old_id);
		if (ret < 0)
			break;
		nodes[i] = NULL;
		added += !ret;
		rbti_cond_resched(i + 1);
	}
	rbti_unreserve(new - min_t(size_t, new, added));
	if (ret < 0) {
		/*
		 * The API's insert refused a key that its own find did not
		 * see: a bug in the API under test, not in the input. Stop
		 * there and trust the tree no more (corrupt mode), rather
		 * than WARN from a write.
		 */
		pr_err_ratelimited("%s: insert of key %lld refused, find saw no such key\n",
				   t->ops->name, ops[i].key);
		t->corrupt = true;
		t->gen++;
		ret = -EIO;
		goto unlock;
	}
	ret = 0;
unlock:
	mutex_unlock(&t->lock);
	rbti_free_nodes(nodes, n);
	kvfree(sorted);
	kvfree(ops);
	return ret;
}

static int rbti_erase(struct rbti_tree *t, char *buf)
{
	struct rbti_op op = { .cmd = 'e' };
	struct rbti_node *n = NULL;
	int ret;

	if (t->ops->flags & RBTI_INTERVAL)
		ret = rbti_parse_interval(buf, &op.key, &op.value);
	else
		ret = rbti_parse_args(buf, &op.key, 1);
	if (ret)
		return ret;
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (!t->corrupt) {
		n = rbti_do_erase(t, &op);
		ret = n ? 0 : -ENOENT;
	}
	mutex_unlock(&t->lock);
	rbti_node_retire(t, n);
	return ret;
}

static int rbti_clear(struct rbti_tree *t, char *buf)
{
	char *tok = rbti_token(&buf);

	if (!tok || rbti_token(&buf))
		return -EINVAL;
	/* Printable ASCII only: a blank of another kind is not a token. */
	for (; *tok; tok++)
		if (*tok <= ' ' || *tok >= 0x7f)
			return -EINVAL;
	mutex_lock(&t->lock);
	rbti_free_all(t);
	t->corrupt = false;
	/* A lockless find that sees it sees the emptied roots too. */
	smp_store_release(&t->broken, 0);
	t->gen++;
	mutex_unlock(&t->lock);
	return 0;
}

ssize_t rbti_write(struct file *file, const char __user *ubuf, size_t count,
		   int (*cmd)(struct rbti_tree *t, char *buf))
{
	char *buf = rbti_copy_command(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = cmd(file->private_data, buf);
	kvfree(buf);
	return ret ?: count;
}

RBTI_WRITE_FOPS(insert);
RBTI_WRITE_FOPS(erase);
RBTI_WRITE_FOPS(clear);

/* The node cache, created at module load (see rbti_node_cache). */
int rbti_nodes_init(void)
{
	rbti_node_cache = kmem_cache_create("rbti_node", sizeof(struct rbti_node),
					    0, 0, NULL);
	return rbti_node_cache ? 0 : -ENOMEM;
}

/*
 * Waits for the nodes still in their grace period, then WARNs, naming the
 * cache, if a node was never freed.
 */
void rbti_nodes_exit(void)
{
	rcu_barrier();
	kmem_cache_destroy(rbti_node_cache);
}
