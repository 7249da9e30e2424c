// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: live red-black trees built with the 2012 generic rbtree
 * proposals (and with 6.1's own helpers), exposed through debugfs for
 * fuzzing, invariant checking and pictures. The interface is specified in
 * DEBUGFS.md; the front end is written once over the trees' struct
 * rbti_tree_ops. This file holds the module, its trees and files, and the
 * small reports; inspector_fe.h says which file does the rest.
 *
 * Every write is one command, parsed completely and with everything it
 * needs allocated before the tree is touched, so it applies entirely or
 * not at all. Each tree has one mutex; user memory is copied in before it
 * is taken and copied out after it is dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "compat.h"
#include "inspector_fe.h"

#define RBTI_FORMAT		1

static const struct rbti_tree_ops *const rbti_all_ops[] = {
	&rbti_overstreet_ops,
	&rbti_overstreet_dup_ops,
	&rbti_santos_ops,
	&rbti_santos_dup_ops,
	&rbti_santos_aug_ops,
	&rbti_santos_replace_ops,
	&rbti_mainline_ops,
	&rbti_mainline_cached_ops,
	&rbti_mainline_aug_ops,
	&rbti_interval_ops,
	&rbti_latch_ops,
#if RBTI_HAVE_FIND_RCU
	&rbti_mainline_rcu_ops,
#endif
};

static struct rbti_tree rbti_trees[ARRAY_SIZE(rbti_all_ops)];
static struct dentry *rbti_dir;

const char *const rbti_flag_names[RBTI_NR_FLAGS] = {
	"unique", "dup", "replace", "leftmost", "rightmost", "count",
	"augmented", "outofline", "value", "interval", "latch", "lockless",
};

static void rbti_seq_flags(struct seq_file *m, unsigned int flags)
{
	const char *sep = "";
	unsigned int i;

	if (!flags)
		seq_putc(m, '-');
	for (i = 0; i < RBTI_NR_FLAGS; i++) {
		if (flags & BIT(i)) {
			seq_printf(m, "%s%s", sep, rbti_flag_names[i]);
			sep = ",";
		}
	}
}

/* --- Read-only reports --- */

/* " ID" of a node the caller knows to be one of the tree's, or " -". */
static void rbti_seq_id(struct seq_file *m, struct rb_node *rb)
{
	if (rb)
		seq_printf(m, " %llu", rbti_entry(rb)->id);
	else
		seq_puts(m, " -");
}

static int rbti_stats_show(struct seq_file *m, void *unused)
{
	struct rbti_tree *t = m->private;
	u64 finds, nears, lockless_finds, retries;
	struct rbti_walk *w;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	spin_lock(&t->qlock);
	finds = t->finds;
	nears = t->nears;
	lockless_finds = t->lockless_finds;
	retries = t->retries;
	spin_unlock(&t->qlock);
	mutex_lock(&t->lock);
	seq_printf(m, "count %lu\n", rbti_count(t));
	seq_printf(m, "height %u\n", rbti_height(t, w));
	seq_printf(m, "black_height %u\n",
		   rbti_black_height(rbti_root(t, 0)));
	seq_printf(m, "inserts %llu\n", t->inserts);
	seq_printf(m, "erases %llu\n", t->erases);
	seq_printf(m, "finds %llu\n", finds);
	seq_printf(m, "nears %llu\n", nears);
	seq_printf(m, "overlaps %llu\n", t->overlaps);
	seq_printf(m, "max_nodes %lu\n", READ_ONCE(max_nodes));
	seq_printf(m, "corrupt %d\n", t->corrupt);
	seq_printf(m, "dump_lines %llu\n", t->dump_lines);
	seq_printf(m, "lockless_finds %llu\n", lockless_finds);
	seq_printf(m, "retries %llu\n", retries);
	mutex_unlock(&t->lock);
	kfree(w);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbti_stats);

static int rbti_check_show(struct seq_file *m, void *unused)
{
	struct rbti_tree *t = m->private;
	struct rbti_failure fail;
	struct rbti_walk *w;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mutex_lock(&t->lock);
	if (rbti_check(t, w, &fail)) {
		seq_puts(m, "ok\n");
	} else {
		seq_printf(m, "fail %s node", fail.class);
		rbti_seq_id(m, fail.node);
		seq_printf(m, ": %s\n", fail.msg);
	}
	mutex_unlock(&t->lock);
	kfree(w);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbti_check);

static int rbti_trees_show(struct seq_file *m, void *unused)
{
	size_t i;

	seq_printf(m, "rbtree-inspector format %d\n", RBTI_FORMAT);
	for (i = 0; i < ARRAY_SIZE(rbti_all_ops); i++) {
		seq_printf(m, "%s %s ", rbti_all_ops[i]->name,
			   rbti_all_ops[i]->api);
		rbti_seq_flags(m, rbti_all_ops[i]->flags);
		seq_putc(m, '\n');
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rbti_trees);

/* --- Module --- */

/* The files of a tree directory; @needs: flags a tree needs for it (any). */
static const struct {
	const char *name;
	const struct file_operations *fops;
	unsigned int needs;
} rbti_files[] = {
	{ "insert",	&rbti_insert_fops },
	{ "find",	&rbti_find_fops },
	{ "erase",	&rbti_erase_fops },
	{ "near",	&rbti_near_fops },
	{ "dump",	&rbti_dump_fops },
	{ "stats",	&rbti_stats_fops },
	{ "check",	&rbti_check_fops },
	{ "clear",	&rbti_clear_fops },
	{ "ops",	&rbti_ops_fops },
	{ "corrupt",	&rbti_corrupt_fops },
	{ "overlap",	&rbti_overlap_fops,	RBTI_INTERVAL },
	{ "stress",	&rbti_stress_fops,	RBTI_LATCH | RBTI_LOCKLESS },
};

static int __init rbti_init(void)
{
	struct dentry *dir;
	size_t i, j;

	int ret = rbti_nodes_init();

	if (ret)
		return ret;
	rbti_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(rbti_dir)) {
		rbti_nodes_exit();
		return PTR_ERR(rbti_dir);
	}
	debugfs_create_file("trees", 0600, rbti_dir, NULL, &rbti_trees_fops);
	rbti_stress_fault_init(rbti_dir);

	for (i = 0; i < ARRAY_SIZE(rbti_trees); i++) {
		struct rbti_tree *t = &rbti_trees[i];

		t->root = RB_ROOT;
		seqcount_latch_init(&t->latch.seq);
		t->latch.tree[0] = RB_ROOT;
		t->latch.tree[1] = RB_ROOT;
		INIT_LIST_HEAD(&t->all);
		t->ops = rbti_all_ops[i];
		t->next_id = 1;
		mutex_init(&t->lock);
		seqcount_mutex_init(&t->seq, &t->lock);
		spin_lock_init(&t->qlock);
		mutex_init(&t->stress_lock);
		dir = debugfs_create_dir(t->ops->name, rbti_dir);
		for (j = 0; j < ARRAY_SIZE(rbti_files); j++)
			if (!rbti_files[j].needs ||
			    (t->ops->flags & rbti_files[j].needs))
				debugfs_create_file(rbti_files[j].name, 0600,
						    dir, t, rbti_files[j].fops);
	}
	return 0;
}

static void __exit rbti_exit(void)
{
	size_t i;

	/* A stress in progress ends early, so that the wait below is short. */
	rbti_stress_stop_all();
	/* Waits for every file operation in progress, then none can start. */
	debugfs_remove_recursive(rbti_dir);
	for (i = 0; i < ARRAY_SIZE(rbti_trees); i++) {
		mutex_lock(&rbti_trees[i].lock);
		rbti_free_all(&rbti_trees[i]);
		mutex_unlock(&rbti_trees[i].lock);
		mutex_destroy(&rbti_trees[i].stress_lock);
		mutex_destroy(&rbti_trees[i].lock);
	}
	rbti_nodes_exit();
}

module_init(rbti_init);
module_exit(rbti_exit);

MODULE_DESCRIPTION("debugfs inspector for generic red-black tree APIs");
MODULE_LICENSE("GPL");
