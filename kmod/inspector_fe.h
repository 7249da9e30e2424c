/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbtree_inspector: what the front end's files share (inspector*.c). The
 * front end is split by job: inspector_main.c the module and its reports,
 * inspector_parse.c parsing, inspector_cmd.c nodes and the write commands,
 * inspector_query.c find and near, inspector_ops.c batches and overlap,
 * inspector_corrupt.c corruption, inspector_stress.c the lockless stress,
 * inspector_dump.c the dump, inspector_walk.c walks and the check.
 */
#ifndef _RBTREE_INSPECTOR_FE_H
#define _RBTREE_INSPECTOR_FE_H

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/sizes.h>

#include "compat.h"
#include "inspector.h"

#define RBTI_MAX_WRITE		SZ_256K
/* Longest result line: "found ID KEY VALUE\n" (3 * 20 digits and signs). */
#define RBTI_RESULT_MAX		96

/**
 * struct rbti_op - one operation of an `ops` batch or an `insert` write
 * @cmd: 'i', 'f', 'e', 'n' or 'o'
 * @hinted: @hint names the node to start from (Santos trees)
 * @key: the key (an interval's START)
 * @hint: the key of the hint node
 * @value: the value inserted on an %RBTI_VALUE tree; LAST of `e` and `o`
 *	on an %RBTI_INTERVAL tree
 */
struct rbti_op {
	char cmd;
	bool hinted;
	s64 key;
	s64 hint;
	s64 value;
};

/**
 * rbti_queries_safe() - whether find, near and overlap may run on a tree
 * @t: the tree; locked, or in a lockless find's rcu_read_lock() section
 *
 * Return: false if a corruption broke a link the tree's queries follow
 * (always child links), so that they could loop or read garbage.
 */
static inline bool rbti_queries_safe(const struct rbti_tree *t)
{
	unsigned int follows = RBTI_LINK_CHILD | t->ops->follows;

	/*
	 * INTERVAL_TREE_DEFINE()'s iter_first() descends by the augmented
	 * max where the kernel's subtree search trusts it (compat.h).
	 */
	if (RBTI_INTERVAL_TRUSTS_MAX && (t->ops->flags & RBTI_INTERVAL))
		follows |= RBTI_LINK_AUG;
	/* Pairs with the release in `corrupt` and `clear`. */
	return !(smp_load_acquire(&t->broken) & follows);
}

/* inspector_parse.c */
char *rbti_token(char **s);
int rbti_parse_some(char *s, s64 *keys, unsigned int min, unsigned int max,
		    unsigned int *n);
int rbti_parse_args(char *s, s64 *keys, unsigned int n);
int rbti_parse_interval(char *s, s64 *start, s64 *last);
int rbti_parse_keys(const struct rbti_tree *t, char *s, struct rbti_op **opsp,
		    size_t *np);
int rbti_parse_ops(const struct rbti_tree *t, char *s, struct rbti_op **opsp,
		   size_t *np);
char *rbti_copy_command(const char __user *ubuf, size_t count);
int rbti_cmp_s64(const void *a, const void *b);

/* inspector_cmd.c */
extern unsigned long max_nodes;
int rbti_nodes_init(void);
void rbti_nodes_exit(void);
void rbti_node_free(struct rbti_node *n);
void rbti_node_retire(struct rbti_tree *t, struct rbti_node *n);
void rbti_free_nodes(struct rbti_node **nodes, size_t n);
struct rbti_node **rbti_alloc_nodes(size_t n);
int rbti_reserve(const struct rbti_tree *t, size_t new);
void rbti_unreserve(size_t unused);
void rbti_free_all(struct rbti_tree *t);
int rbti_do_insert(struct rbti_tree *t, struct rbti_node *n,
		   const struct rbti_op *op, u64 *old_id);
struct rbti_node *rbti_do_erase(struct rbti_tree *t, const struct rbti_op *op);
struct rbti_node *rbti_do_find(struct rbti_tree *t, const struct rbti_op *op);
struct rbti_node *rbti_do_near(struct rbti_tree *t, const struct rbti_op *op);
ssize_t rbti_write(struct file *file, const char __user *ubuf, size_t count,
		   int (*cmd)(struct rbti_tree *t, char *buf));
extern const struct file_operations rbti_insert_fops, rbti_erase_fops,
	rbti_clear_fops;

/* The file_operations rbti_CMD_fops of a write-only file, run by rbti_CMD(). */
#define RBTI_WRITE_FOPS(cmd)						\
static ssize_t rbti_##cmd##_write(struct file *file,			\
				  const char __user *ubuf,		\
				  size_t count, loff_t *ppos)		\
{									\
	return rbti_write(file, ubuf, count, rbti_##cmd);		\
}									\
									\
const struct file_operations rbti_##cmd##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = rbti_##cmd##_write,					\
	.llseek = noop_llseek,						\
}

/* inspector_corrupt.c */
extern const struct file_operations rbti_corrupt_fops;

/**
 * struct rbti_buf - a growing text
 * @buf: the text, NUL-terminated, NULL before the first printf
 * @len: its length
 * @size: bytes allocated
 * @max: the size it may not pass
 * @err: -ENOMEM, or -ENOBUFS past @max; then nothing more is written
 */
struct rbti_buf {
	char *buf;
	size_t len, size, max;
	int err;
};

__printf(2, 3) void rbti_buf_printf(struct rbti_buf *b, const char *fmt, ...);

/**
 * struct rbti_result_file - an open file whose reads return the results
 *	of the last write on the same descriptor (`ops`, `overlap`, `stress`)
 * @tree: the tree
 * @lock: protects @results and @len
 * @results: result text of the last successful write, NULL before it
 * @len: its length
 */
struct rbti_result_file {
	struct rbti_tree *tree;
	struct mutex lock;	/* protects results and len */
	char *results;
	size_t len;
};

int rbti_result_open(struct inode *inode, struct file *file);
int rbti_result_release(struct inode *inode, struct file *file);
ssize_t rbti_result_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos);
void rbti_result_set(struct file *file, char *results, size_t len,
		     loff_t *ppos);

/* inspector_ops.c, inspector_query.c */
extern const struct file_operations rbti_find_fops, rbti_near_fops,
	rbti_ops_fops, rbti_overlap_fops;

/* inspector_stress.c */
extern const struct file_operations rbti_stress_fops;
void rbti_stress_stop_all(void);
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
void rbti_stress_fault_init(struct dentry *dir);
#else
static inline void rbti_stress_fault_init(struct dentry *dir)
{
}
#endif

#endif /* _RBTREE_INSPECTOR_FE_H */
