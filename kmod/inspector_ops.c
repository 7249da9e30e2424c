// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the query files: `find` and `near` (a result line per
 * open file), `ops` batches and `overlap` queries (results per open file,
 * read back on the descriptor that wrote).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector_fe.h"

/* Past this, a batch's or an overlap query's results are ENOBUFS. */
#define RBTI_RESULTS_MAX	SZ_64M

/* --- find and near: a result line per open file --- */

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

/*
 * `find KEY` or `near KEY [HINTKEY]`. Returns the line length, or an
 * errno: EOPNOTSUPP (near on a tree without it), EINVAL, EUCLEAN (after
 * shape corruption; a hinted near on any corrupt tree, as the hint's climb
 * follows parent pointers), ENOENT.
 */
static int rbti_query(struct rbti_tree *t, char *buf, bool near, char *line)
{
	struct rbti_result *last = near ? &t->near : &t->found;
	struct rbti_op op = { .cmd = near ? 'n' : 'f' };
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
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->shape || (op.hinted && t->corrupt))
		goto unlock;
	n = near ? rbti_do_near(t, &op) : rbti_do_find(t, &op);
	ret = -ENOENT;
	if (!n)
		goto unlock;
	last->valid = true;
	last->id = n->id;
	last->key = n->key;
	last->value = n->value;
	ret = rbti_result_line(t, line, last);
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
		mutex_lock(&t->lock);
		qf->len = rbti_result_line(t, qf->line,
					   qf->near ? &t->near : &t->found);
		mutex_unlock(&t->lock);
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

/* --- Growing texts and files of per-descriptor results --- */

/**
 * rbti_buf_printf() - append to a growing text
 * @b: the text
 * @fmt: format
 *
 * On failure (no memory, or past @b->max) @b->err is set and the text
 * stays as it was.
 */
void rbti_buf_printf(struct rbti_buf *b, const char *fmt, ...)
{
	va_list args;
	size_t len, size;
	char *buf;

	while (!b->err) {
		va_start(args, fmt);
		len = b->buf ? vsnprintf(b->buf + b->len, b->size - b->len, fmt,
					 args) : SIZE_MAX;
		va_end(args);
		if (b->buf && len < b->size - b->len) {
			b->len += len;
			return;
		}
		size = max_t(size_t, b->size * 2, 256);
		if (size > b->max) {
			b->err = -ENOBUFS;
			return;
		}
		buf = kvmalloc(size, GFP_KERNEL);
		if (!buf) {
			b->err = -ENOMEM;
			return;
		}
		if (b->buf)
			memcpy(buf, b->buf, b->len + 1);
		kvfree(b->buf);
		b->buf = buf;
		b->size = size;
	}
}

/**
 * rbti_result_open() - open a file of per-descriptor results
 * @inode: its inode, whose i_private is the tree
 * @file: the file
 *
 * Return: 0 or -ENOMEM.
 */
int rbti_result_open(struct inode *inode, struct file *file)
{
	struct rbti_result_file *rf;

	rf = kzalloc(sizeof(*rf), GFP_KERNEL);
	if (!rf)
		return -ENOMEM;
	rf->tree = inode->i_private;
	mutex_init(&rf->lock);
	file->private_data = rf;
	return 0;
}

/**
 * rbti_result_release() - close a file of per-descriptor results
 * @inode: its inode
 * @file: the file
 *
 * Return: 0.
 */
int rbti_result_release(struct inode *inode, struct file *file)
{
	struct rbti_result_file *rf = file->private_data;

	mutex_destroy(&rf->lock);
	kvfree(rf->results);
	kfree(rf);
	return 0;
}

/**
 * rbti_result_set() - make @results what the descriptor reads
 * @file: the file
 * @results: a kvmalloc()ed text, which the file now owns
 * @len: its length
 * @ppos: the file position, rewound to 0
 *
 * A write moves the position back to 0, so that write(); read() pairs on
 * one descriptor read each answer from its start.
 */
void rbti_result_set(struct file *file, char *results, size_t len,
		     loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;

	mutex_lock(&rf->lock);
	swap(rf->results, results);
	rf->len = len;
	*ppos = 0;
	mutex_unlock(&rf->lock);
	kvfree(results);
}

/**
 * rbti_result_read() - read the results of the descriptor's last write
 * @file: the file
 * @ubuf: user buffer
 * @count: its size
 * @ppos: file position
 *
 * Return: bytes read, or -ENODATA before any successful write on @file.
 */
ssize_t rbti_result_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;
	ssize_t ret = -ENODATA;

	mutex_lock(&rf->lock);
	if (rf->results)
		ret = simple_read_from_buffer(ubuf, count, ppos, rf->results,
					      rf->len);
	mutex_unlock(&rf->lock);
	return ret;
}

/* --- ops: batches whose results belong to the open file --- */

/*
 * The ids of the nodes overlapping [@start, @last], in the API's order,
 * each after " " (with @lines, as "ID START LAST" lines). The walk is
 * bounded by the number of nodes. Returns how many.
 */
static unsigned long rbti_overlap(struct rbti_tree *t, s64 start, s64 last,
				  struct rbti_buf *b, bool lines)
{
	struct rbti_node *n = NULL;
	unsigned long count = 0;

	t->overlaps++;
	while (count <= t->nodes && !b->err &&
	       (n = t->ops->overlap(t, start, last, n))) {
		if (lines)
			rbti_buf_printf(b, "%llu %lld %lld\n", n->id, n->key,
					n->value);
		else
			rbti_buf_printf(b, " %llu", n->id);
		rbti_cond_resched(++count);
	}
	return count;
}

/* A result line "CMD ID KEY" (with " VALUE" on a value tree). */
static void rbti_node_result(struct rbti_tree *t, struct rbti_buf *b,
			     const char *what, struct rbti_node *n)
{
	rbti_buf_printf(b, "%s %llu %lld", what, n->id, n->key);
	if (t->ops->flags & RBTI_VALUE)
		rbti_buf_printf(b, " %lld", n->value);
	rbti_buf_printf(b, "\n");
}

/* "overlap N ID...": the ids go to a text of their own first. */
static void rbti_overlap_result(struct rbti_tree *t, const struct rbti_op *op,
				struct rbti_buf *b)
{
	struct rbti_buf ids = { .max = RBTI_RESULTS_MAX };
	unsigned long count;

	count = rbti_overlap(t, op->key, op->value, &ids, false);
	if (ids.err)
		b->err = ids.err;
	else
		rbti_buf_printf(b, "overlap %lu%s\n", count, ids.buf ?: "");
	kvfree(ids.buf);
}

/* Run one operation, tree locked, its result line appended to @b. */
static void rbti_run_op(struct rbti_tree *t, const struct rbti_op *op,
			struct rbti_node **node, struct rbti_buf *b,
			size_t *added)
{
	struct rbti_node *n;
	u64 old_id;
	int ret;

	switch (op->cmd) {
	case 'i':
		ret = rbti_do_insert(t, *node, op, &old_id);
		if (ret < 0) {
			rbti_buf_printf(b, "EEXIST\n");
			return;
		}
		n = *node;
		*node = NULL;
		if (ret) {
			rbti_buf_printf(b, "replaced %llu %llu\n", n->id, old_id);
			return;
		}
		(*added)++;
		rbti_buf_printf(b, "ok %llu\n", n->id);
		return;
	case 'e':
		n = rbti_do_erase(t, op);
		if (!n)
			break;
		rbti_buf_printf(b, "erased %llu\n", n->id);
		rbti_node_free(n);
		return;
	case 'f':
		n = rbti_do_find(t, op);
		if (n) {
			rbti_node_result(t, b, "found", n);
			return;
		}
		break;
	case 'o':
		rbti_overlap_result(t, op, b);
		return;
	default:
		n = rbti_do_near(t, op);
		if (n) {
			rbti_node_result(t, b, "near", n);
			return;
		}
		break;
	}
	rbti_buf_printf(b, "ENOENT\n");
}

/*
 * Run a parsed batch, all or nothing, its result lines in @b; -ENOBUFS if
 * they would pass RBTI_RESULTS_MAX (the operations have run).
 */
static int rbti_run_ops(struct rbti_tree *t, const struct rbti_op *ops,
			size_t n, struct rbti_buf *b)
{
	struct rbti_node **nodes = NULL;
	size_t i, inserts = 0, added = 0;
	int ret;

	for (i = 0; i < n; i++)
		inserts += ops[i].cmd == 'i';
	/* Allocated unlocked; the limits are checked under the lock. */
	if (inserts)
		nodes = rbti_alloc_nodes(inserts);

	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	ret = rbti_reserve(t, inserts);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	if (inserts && !nodes) {
		rbti_unreserve(inserts);
		goto unlock;
	}
	for (i = 0, inserts = 0; i < n; i++) {
		rbti_run_op(t, &ops[i], ops[i].cmd == 'i' ?
			    &nodes[inserts++] : NULL, b, &added);
		rbti_cond_resched(i + 1);
	}
	rbti_unreserve(inserts - added);
	ret = b->err;
unlock:
	mutex_unlock(&t->lock);
	rbti_free_nodes(nodes, inserts);
	return ret;
}

static ssize_t rbti_ops_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;
	struct rbti_buf b = { .max = RBTI_RESULTS_MAX };
	struct rbti_op *ops;
	char *buf;
	size_t n;
	int ret;

	buf = rbti_copy_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = rbti_parse_ops(rf->tree, buf, &ops, &n);
	kvfree(buf);
	if (ret)
		return ret;
	/* Room for the usual short lines: few batches need to grow it. */
	b.size = min_t(size_t, n * 24 + 1, RBTI_RESULTS_MAX);
	b.buf = kvmalloc(b.size, GFP_KERNEL);
	ret = b.buf ? rbti_run_ops(rf->tree, ops, n, &b) : -ENOMEM;
	kvfree(ops);
	if (ret) {
		kvfree(b.buf);
		return ret;
	}
	rbti_result_set(file, b.buf, b.len, ppos);
	return count;
}

const struct file_operations rbti_ops_fops = {
	.owner = THIS_MODULE,
	.open = rbti_result_open,
	.read = rbti_result_read,
	.write = rbti_ops_write,
	.llseek = default_llseek,
	.release = rbti_result_release,
};

/* --- overlap: interval trees only --- */

/*
 * `START LAST`: one "ID START LAST" line per stored interval overlapping
 * [START, LAST], in the order of iter_first/iter_next, then "end N".
 * Runs on a corrupt tree too (not after shape corruption).
 */
static ssize_t rbti_overlap_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;
	struct rbti_buf b = { .max = RBTI_RESULTS_MAX };
	struct rbti_tree *t = rf->tree;
	unsigned long n;
	s64 start, last;
	char *buf;
	int ret;

	buf = rbti_copy_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = rbti_parse_interval(buf, &start, &last);
	kvfree(buf);
	if (ret)
		return ret;
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (!t->shape) {
		n = rbti_overlap(t, start, last, &b, true);
		rbti_buf_printf(&b, "end %lu\n", n);
		ret = b.err;
	}
	mutex_unlock(&t->lock);
	if (ret) {
		kvfree(b.buf);
		return ret;
	}
	rbti_result_set(file, b.buf, b.len, ppos);
	return count;
}

const struct file_operations rbti_overlap_fops = {
	.owner = THIS_MODULE,
	.open = rbti_result_open,
	.read = rbti_result_read,
	.write = rbti_overlap_write,
	.llseek = default_llseek,
	.release = rbti_result_release,
};
