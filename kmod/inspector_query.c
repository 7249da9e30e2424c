// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the `find` and `near` files, a result line per open
 * file. `find` on a tree whose API has lockless readers runs as they do,
 * under rcu_read_lock() without the tree's lock.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector_fe.h"

/**
 * struct rbti_query_file - an open `find` or `near` file
 * @tree: the tree
 * @near: this is `near`, not `find`
 * @lock: protects @line and @len
 * @line: the result line this descriptor reads
 * @len: its length, 0 before the descriptor has one
 *
 * A successful write sets @line and also the tree's last result. A read
 * on a descriptor without a line of its own takes a copy of the tree's
 * last result first, so that `echo K > find; cat find` works; from then
 * on every read of the descriptor sees that same line until its next
 * successful write.
 */
struct rbti_query_file {
	struct rbti_tree *tree;
	bool near;
	struct mutex lock;	/* protects line and len */
	char line[RBTI_RESULT_MAX];
	int len;
};

static int rbti_query_open(struct inode *inode, struct file *file, bool near)
{
	struct rbti_query_file *qf;

	qf = kzalloc(sizeof(*qf), GFP_KERNEL);
	if (!qf)
		return -ENOMEM;
	qf->tree = inode->i_private;
	qf->near = near;
	mutex_init(&qf->lock);
	file->private_data = qf;
	return 0;
}

static int rbti_find_open(struct inode *inode, struct file *file)
{
	return rbti_query_open(inode, file, false);
}

static int rbti_near_open(struct inode *inode, struct file *file)
{
	return rbti_query_open(inode, file, true);
}

static int rbti_query_release(struct inode *inode, struct file *file)
{
	struct rbti_query_file *qf = file->private_data;

	mutex_destroy(&qf->lock);
	kfree(qf);
	return 0;
}

/* "ID KEY", or "ID KEY VALUE" on a value tree, and a newline. */
static int rbti_result_line(const struct rbti_tree *t, char *line,
			    const struct rbti_result *res)
{
	if (!res->valid)
		return 0;
	if (t->ops->flags & RBTI_VALUE)
		return scnprintf(line, RBTI_RESULT_MAX, "%llu %lld %lld\n",
				 res->id, res->key, res->value);
	return scnprintf(line, RBTI_RESULT_MAX, "%llu %lld\n", res->id,
			 res->key);
}

/* Keep @n's fields as the tree's last result of this kind, in @res. */
static void rbti_keep_result(struct rbti_tree *t, bool near,
			     const struct rbti_node *n, struct rbti_result *res)
{
	res->valid = true;
	res->id = n->id;
	res->key = READ_ONCE(n->key);
	res->value = n->value;
	spin_lock(&t->qlock);
	*(near ? &t->near : &t->found) = *res;
	spin_unlock(&t->qlock);
}

/*
 * A find on a tree whose API has lockless readers, as they run it: under
 * rcu_read_lock() only (erased nodes are freed after a grace period, see
 * rbti_node_retire()). Returns 1 if it ran (*@ret the errno or line
 * length), 0 if a `corrupt` is changing the tree: the caller takes the
 * lock, as that waits for it.
 */
static int rbti_find_lockless(struct rbti_tree *t, s64 key, char *line,
			      int *ret)
{
	struct rbti_result res = { };
	unsigned long retries = 0;
	struct rbti_node *n;

	rcu_read_lock();
	/* Pairs with the release in rbti_corrupt(): the tree as it left it. */
	if (smp_load_acquire(&t->gate)) {
		rcu_read_unlock();
		return 0;
	}
	*ret = -EUCLEAN;
	if (rbti_queries_safe(t)) {
		n = t->ops->find_lockless(t, key, &retries);
		*ret = -ENOENT;
		if (n)
			rbti_keep_result(t, false, n, &res);
	}
	rcu_read_unlock();
	spin_lock(&t->qlock);
	t->finds += *ret != -EUCLEAN;
	t->lockless_finds += *ret != -EUCLEAN;
	t->retries += retries;
	spin_unlock(&t->qlock);
	if (res.valid)
		*ret = rbti_result_line(t, line, &res);
	return 1;
}

/*
 * `find KEY` or `near KEY [HINTKEY]`. Returns the line length, or an
 * errno: EOPNOTSUPP (near on a tree without it), EINVAL, EUCLEAN (after a
 * corruption of links the tree's queries follow, see rbti_queries_safe();
 * a hinted near on any corrupt tree, as the hint's climb follows parent
 * pointers), ENOENT. `find` on a lockless tree runs without the lock.
 */
static int rbti_query(struct rbti_tree *t, char *buf, bool near, char *line)
{
	struct rbti_op op = { .cmd = near ? 'n' : 'f' };
	struct rbti_result res;
	struct rbti_node *n;
	unsigned int nargs;
	s64 args[2] = { 0, 0 };
	int ret;

	if (near && !t->ops->near)
		return -EOPNOTSUPP;
	ret = rbti_parse_some(buf, args, 1, near && t->ops->near_hint ? 2 : 1,
			      &nargs);
	if (ret)
		return ret;
	op.key = args[0];
	op.hinted = nargs == 2;
	op.hint = args[1];
	if (!near && t->ops->find_lockless &&
	    rbti_find_lockless(t, op.key, line, &ret))
		return ret;
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (!rbti_queries_safe(t) || (op.hinted && t->corrupt))
		goto unlock;
	n = near ? rbti_do_near(t, &op) : rbti_do_find(t, &op);
	ret = -ENOENT;
	if (!n)
		goto unlock;
	rbti_keep_result(t, near, n, &res);
	ret = rbti_result_line(t, line, &res);
unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * Like `ops`, a successful write moves the file position back to 0, so
 * that write(); read() pairs on one descriptor read each answer whole.
 */
static ssize_t rbti_query_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct rbti_query_file *qf = file->private_data;
	char line[RBTI_RESULT_MAX];
	char *buf;
	int ret;

	buf = rbti_copy_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = rbti_query(qf->tree, buf, qf->near, line);
	kvfree(buf);
	if (ret < 0)
		return ret;
	mutex_lock(&qf->lock);
	memcpy(qf->line, line, ret);
	qf->len = ret;
	*ppos = 0;
	mutex_unlock(&qf->lock);
	return count;
}

static ssize_t rbti_query_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct rbti_query_file *qf = file->private_data;
	struct rbti_tree *t = qf->tree;
	ssize_t ret;

	mutex_lock(&qf->lock);
	if (!qf->len) {
		struct rbti_result res;

		spin_lock(&t->qlock);
		res = qf->near ? t->near : t->found;
		spin_unlock(&t->qlock);
		qf->len = rbti_result_line(t, qf->line, &res);
	}
	ret = -ENODATA;
	if (qf->len)
		ret = simple_read_from_buffer(ubuf, count, ppos, qf->line,
					      qf->len);
	mutex_unlock(&qf->lock);
	return ret;
}

const struct file_operations rbti_find_fops = {
	.owner = THIS_MODULE,
	.open = rbti_find_open,
	.read = rbti_query_read,
	.write = rbti_query_write,
	.llseek = default_llseek,
	.release = rbti_query_release,
};

const struct file_operations rbti_near_fops = {
	.owner = THIS_MODULE,
	.open = rbti_near_open,
	.read = rbti_query_read,
	.write = rbti_query_write,
	.llseek = default_llseek,
	.release = rbti_query_release,
};
