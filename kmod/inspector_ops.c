// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: `ops` batches and `overlap` queries, whose results
 * belong to the open file and are read back on the descriptor that wrote
 * (inspector_query.c has `find` and `near`).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector_fe.h"

/* Past this, a batch's or an overlap query's results are ENOBUFS. */
static unsigned long max_result_bytes = SZ_64M;
module_param(max_result_bytes, ulong, 0600);
MODULE_PARM_DESC(max_result_bytes, "maximum bytes of results of one ops batch or overlap query (default 64 MiB)");

/* The longest " ID" of an overlap result. */
#define RBTI_ID_MAX		21
/* "overlap N\n" around the ids. */
#define RBTI_OVERLAP_LINE_MAX	30

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

/*
 * "overlap N ID...": the ids are written first, then the words before them
 * are put in front, in the room rbti_results_bound() counted for them.
 */
static void rbti_overlap_result(struct rbti_tree *t, const struct rbti_op *op,
				struct rbti_buf *b)
{
	size_t at = b->len, len;
	unsigned long count;
	char head[RBTI_OVERLAP_LINE_MAX];

	count = rbti_overlap(t, op->key, op->value, b, false);
	len = scnprintf(head, sizeof(head), "overlap %lu", count);
	if (b->err || b->size - b->len <= len) {
		b->err = b->err ?: -ENOBUFS;
		return;
	}
	memmove(b->buf + at + len, b->buf + at, b->len - at + 1);
	memcpy(b->buf + at, head, len);
	b->len += len;
	rbti_buf_printf(b, "\n");
}

/* Nodes overlapping [@start, @last] on @t (locked), bounded as rbti_overlap(). */
static unsigned long rbti_overlap_count(struct rbti_tree *t, s64 start,
					s64 last)
{
	struct rbti_node *n = NULL;
	unsigned long count = 0;

	while (count <= t->nodes &&
	       (n = t->ops->overlap(t, start, last, n)))
		rbti_cond_resched(++count);
	return count;
}

/*
 * The most bytes a batch's results can take on @t (locked, not corrupt),
 * or SIZE_MAX past @max: a line of at most RBTI_RESULT_MAX bytes an
 * operation, and for an overlap an id for each node it finds now and each
 * node the batch inserts before it (only those can overlap it then).
 */
static size_t rbti_results_bound(struct rbti_tree *t, const struct rbti_op *ops,
				 size_t n, size_t max)
{
	size_t i, bound = 1, inserts = 0, line;
	unsigned long ids;

	for (i = 0; i < n && bound <= max; i++) {
		line = RBTI_RESULT_MAX;
		if (ops[i].cmd == 'o') {
			ids = rbti_overlap_count(t, ops[i].key, ops[i].value) +
			      inserts;
			line = ids > (max - RBTI_OVERLAP_LINE_MAX) / RBTI_ID_MAX ?
			       max + 1 :
			       RBTI_OVERLAP_LINE_MAX + RBTI_ID_MAX * ids;
		}
		inserts += ops[i].cmd == 'i';
		bound = line > max ? SIZE_MAX : bound + line;
		rbti_cond_resched(i + 1);
	}
	return bound > max ? SIZE_MAX : bound;
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
		rbti_node_retire(t, n);
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
 * Room for the results of a batch, checked and allocated before anything
 * is applied, so that the batch cannot fail half way: -ENOBUFS if they
 * could pass max_result_bytes, -ENOMEM.
 */
static int rbti_results_room(struct rbti_tree *t, const struct rbti_op *ops,
			     size_t n, struct rbti_buf *b)
{
	size_t max = READ_ONCE(max_result_bytes);
	size_t bound = rbti_results_bound(t, ops, n, max);

	if (bound == SIZE_MAX)
		return -ENOBUFS;
	b->buf = kvmalloc(bound, GFP_KERNEL);
	if (!b->buf)
		return -ENOMEM;
	b->buf[0] = '\0';
	b->size = bound;
	b->max = bound;
	return 0;
}

/*
 * Run a parsed batch, all or nothing, its result lines in @b: every limit
 * (nodes, results, memory) is checked before the first operation runs.
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
	if (!inserts || nodes)
		ret = rbti_results_room(t, ops, n, b);
	if (ret) {
		rbti_unreserve(inserts);
		goto unlock;
	}
	for (i = 0, inserts = 0; i < n; i++) {
		rbti_run_op(t, &ops[i], ops[i].cmd == 'i' ?
			    &nodes[inserts++] : NULL, b, &added);
		rbti_cond_resched(i + 1);
	}
	rbti_unreserve(inserts - added);
	/* 0: the room was counted. */
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
	struct rbti_buf b = { };
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
	ret = rbti_run_ops(rf->tree, ops, n, &b);
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
 * Runs on a corrupt tree too, unless rbti_queries_safe() says no.
 */
static ssize_t rbti_overlap_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rbti_result_file *rf = file->private_data;
	struct rbti_buf b = { .max = READ_ONCE(max_result_bytes) };
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
	if (rbti_queries_safe(t)) {
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
