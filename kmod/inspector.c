// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: live red-black trees built with the 2012 generic rbtree
 * proposals (and with 6.1's own helpers), exposed through debugfs for
 * fuzzing, invariant checking and pictures. The interface is specified in
 * DEBUGFS.md; this file is its front end, written once over the trees'
 * struct rbti_tree_ops.
 *
 * Every write is one command, parsed completely and with everything it
 * needs allocated before the tree is touched, so it applies entirely or
 * not at all. Each tree has one mutex; user memory is copied in before it
 * is taken and copied out after it is dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree_augmented.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector.h"

static unsigned long max_nodes = 1048576;
module_param(max_nodes, ulong, 0600);
MODULE_PARM_DESC(max_nodes, "maximum number of nodes per tree (default 1048576)");

static bool allow_corrupt;
module_param(allow_corrupt, bool, 0600);
MODULE_PARM_DESC(allow_corrupt, "allow the corrupt files to break trees (default 0)");

#define RBTI_FORMAT		1
#define RBTI_MAX_WRITE		SZ_256K
/* Longest ops result line: "replaced ID OLDID\n" or "found ID KEY\n". */
#define RBTI_RESULT_MAX		64

static const struct rbti_tree_ops *const rbti_all_ops[] = {
	&rbti_overstreet_ops,
	&rbti_overstreet_dup_ops,
	&rbti_santos_ops,
	&rbti_santos_dup_ops,
	&rbti_santos_aug_ops,
	&rbti_santos_replace_ops,
	&rbti_mainline_ops,
};

static struct rbti_tree rbti_trees[ARRAY_SIZE(rbti_all_ops)];
static struct dentry *rbti_dir;

static const char *const rbti_flag_names[RBTI_NR_FLAGS] = {
	"unique", "dup", "replace", "leftmost", "rightmost", "count",
	"augmented", "outofline",
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

/* " ID" of a node the caller knows to be in the tree, or " -". */
static void rbti_seq_id(struct seq_file *m, struct rb_node *rb)
{
	if (rb)
		seq_printf(m, " %llu", rbti_entry(rb)->id);
	else
		seq_puts(m, " -");
}

/* As rbti_seq_id(), for a pointer that may be wrong: " ?" if not a node. */
static void rbti_seq_ref(struct seq_file *m, const struct rb_root *root,
			 struct rbti_walk *w, struct rb_node *rb)
{
	if (rb && !rbti_contains(root, w, rb))
		seq_puts(m, " ?");
	else
		rbti_seq_id(m, rb);
}

/* The count the tree reports: its cache if it has one. */
static unsigned long rbti_count(const struct rbti_tree *t)
{
	return t->ops->flags & RBTI_COUNT ? t->count : t->nodes;
}

/* --- Parsing --- */

/* Cut the next whitespace-separated token out of *s; NULL if none left. */
static char *rbti_token(char **s)
{
	char *tok = skip_spaces(*s), *end = tok;

	if (!*tok)
		return NULL;
	while (*end && !isspace(*end))
		end++;
	if (*end)
		*end++ = '\0';
	*s = end;
	return tok;
}

static int rbti_parse_key(const char *tok, s64 *key)
{
	/* Decimal only; out of range (-ERANGE) is -EINVAL too. */
	return kstrtos64(tok, 10, key) ? -EINVAL : 0;
}

/* Exactly @n keys and nothing else. */
static int rbti_parse_args(char *s, s64 *keys, unsigned int n)
{
	unsigned int i;
	char *tok;

	for (i = 0; i < n; i++) {
		tok = rbti_token(&s);
		if (!tok || rbti_parse_key(tok, &keys[i]))
			return -EINVAL;
	}
	return rbti_token(&s) ? -EINVAL : 0;
}

/* Any number of keys, at least one; *keysp to be kvfree()d. */
static int rbti_parse_keys(char *s, s64 **keysp, size_t *np)
{
	/* Each key takes a character and all but the last a separator. */
	size_t n = 0, max = strlen(s) / 2 + 1;
	s64 *keys;
	char *tok;

	keys = kvmalloc_array(max, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	while ((tok = rbti_token(&s))) {
		if (rbti_parse_key(tok, &keys[n++])) {
			kvfree(keys);
			return -EINVAL;
		}
	}
	if (!n) {
		kvfree(keys);
		return -EINVAL;
	}
	*keysp = keys;
	*np = n;
	return 0;
}

/*
 * Copy in a command: at most 256 KiB, NUL-terminated, with no NUL of its
 * own. Returns a buffer to kvfree() or an ERR_PTR().
 */
static char *rbti_copy_command(const char __user *ubuf, size_t count)
{
	char *buf;

	if (count > RBTI_MAX_WRITE)
		return ERR_PTR(-E2BIG);
	buf = kvmalloc(count + 1, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(buf, ubuf, count)) {
		kvfree(buf);
		return ERR_PTR(-EFAULT);
	}
	buf[count] = '\0';
	if (strlen(buf) != count) {
		kvfree(buf);
		return ERR_PTR(-EINVAL);
	}
	return buf;
}

static int rbti_cmp_s64(const void *a, const void *b)
{
	return rbti_cmp_keys(*(const s64 *)a, *(const s64 *)b);
}

/* --- Nodes --- */

static void rbti_free_nodes(struct rbti_node **nodes, size_t n)
{
	size_t i;

	if (!nodes)
		return;
	for (i = 0; i < n; i++)
		kfree(nodes[i]);
	kvfree(nodes);
}

static struct rbti_node **rbti_alloc_nodes(size_t n)
{
	struct rbti_node **nodes;
	size_t i;

	nodes = kvcalloc(n, sizeof(*nodes), GFP_KERNEL);
	if (!nodes)
		return NULL;
	for (i = 0; i < n; i++) {
		nodes[i] = kzalloc(sizeof(*nodes[i]), GFP_KERNEL);
		if (!nodes[i]) {
			rbti_free_nodes(nodes, i);
			return NULL;
		}
	}
	return nodes;
}

/* Whether @new more nodes would take the tree past max_nodes. */
static bool rbti_would_overflow(const struct rbti_tree *t, size_t new)
{
	unsigned long max = READ_ONCE(max_nodes);

	return new > max || t->nodes > max - new;
}

/* --- Operations, tree locked --- */

/*
 * Insert preallocated node @n with @key. Returns 0 if inserted, 1 if it
 * replaced a node (freed, its id in *@old_id), or -EEXIST.
 */
static int rbti_do_insert(struct rbti_tree *t, struct rbti_node *n, s64 key,
			  u64 *old_id)
{
	struct rbti_node *old;
	int ret;

	n->key = key;
	n->id = t->next_id;
	ret = t->ops->insert(t, n, &old);
	if (ret)
		return ret;
	t->next_id++;
	t->inserts++;
	t->gen++;
	if (!old) {
		t->nodes++;
		return 0;
	}
	*old_id = old->id;
	kfree(old);
	return 1;
}

/* Erase one node with @key; returns it for the caller to free, or NULL. */
static struct rbti_node *rbti_do_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = t->ops->erase(t, key);

	if (n) {
		t->nodes--;
		t->erases++;
		t->gen++;
	}
	return n;
}

static struct rbti_node *rbti_do_find(struct rbti_tree *t, s64 key)
{
	t->finds++;
	return t->ops->find(t, key);
}

static struct rbti_node *rbti_do_near(struct rbti_tree *t, s64 key)
{
	t->nears++;
	return t->ops->near(t, key);
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
	}
	return new;
}

static int rbti_insert(struct rbti_tree *t, char *buf)
{
	struct rbti_node **nodes = NULL;
	s64 *keys, *sorted = NULL;
	long new;
	size_t n, i;
	u64 old_id;
	int ret;

	ret = rbti_parse_keys(buf, &keys, &n);
	if (ret)
		return ret;
	if (t->ops->flags & RBTI_UNIQUE) {
		sorted = kvmalloc_array(n, sizeof(*sorted), GFP_KERNEL);
		if (!sorted) {
			kvfree(keys);
			return -ENOMEM;
		}
		memcpy(sorted, keys, n * sizeof(*sorted));
		sort(sorted, n, sizeof(*sorted), rbti_cmp_s64, NULL);
	}

	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	new = sorted ? rbti_new_nodes(t, sorted, n) : n;
	if (new < 0) {
		ret = new;
		goto unlock;
	}
	ret = -ENOSPC;
	if (rbti_would_overflow(t, new))
		goto unlock;
	ret = -ENOMEM;
	nodes = rbti_alloc_nodes(n);
	if (!nodes)
		goto unlock;
	for (i = 0; i < n; i++)
		if (!WARN_ON_ONCE(rbti_do_insert(t, nodes[i], keys[i],
						 &old_id) < 0))
			nodes[i] = NULL;
	ret = 0;
unlock:
	mutex_unlock(&t->lock);
	rbti_free_nodes(nodes, n);
	kvfree(sorted);
	kvfree(keys);
	return ret;
}

static int rbti_query(struct rbti_tree *t, char *buf,
		      struct rbti_node *(*query)(struct rbti_tree *t, s64 key),
		      struct rbti_result *res)
{
	struct rbti_node *n;
	s64 key;
	int ret;

	ret = rbti_parse_args(buf, &key, 1);
	if (ret)
		return ret;
	mutex_lock(&t->lock);
	n = query(t, key);
	if (n) {
		res->valid = true;
		res->id = n->id;
		res->key = n->key;
	}
	mutex_unlock(&t->lock);
	return n ? 0 : -ENOENT;
}

static int rbti_find(struct rbti_tree *t, char *buf)
{
	return rbti_query(t, buf, rbti_do_find, &t->found);
}

static int rbti_near(struct rbti_tree *t, char *buf)
{
	return rbti_query(t, buf, rbti_do_near, &t->near);
}

static int rbti_erase(struct rbti_tree *t, char *buf)
{
	struct rbti_node *n = NULL;
	s64 key;
	int ret;

	ret = rbti_parse_args(buf, &key, 1);
	if (ret)
		return ret;
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (!t->corrupt) {
		n = rbti_do_erase(t, key);
		ret = n ? 0 : -ENOENT;
	}
	mutex_unlock(&t->lock);
	kfree(n);
	return ret;
}

static int rbti_clear(struct rbti_tree *t, char *buf)
{
	if (!rbti_token(&buf) || rbti_token(&buf))
		return -EINVAL;
	mutex_lock(&t->lock);
	rbti_free_all(&t->root);
	t->leftmost = NULL;
	t->rightmost = NULL;
	t->count = 0;
	t->nodes = 0;
	t->corrupt = false;
	t->gen++;
	mutex_unlock(&t->lock);
	return 0;
}

/* --- Corruption: each breaks one invariant class --- */

static int rbti_break_color(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	n->rb.__rb_parent_color ^= RB_BLACK;
	return 0;
}

static int rbti_break_black(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	if (rb_is_black(&n->rb))
		return -EINVAL;
	rb_set_parent_color(&n->rb, rb_parent(&n->rb), RB_BLACK);
	return 0;
}

static int rbti_break_key(struct rbti_tree *t, struct rbti_node *n, s64 key)
{
	n->key = key;
	return 0;
}

/* The root's parent becomes a child of it, any other node's itself. */
static int rbti_break_parent(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	struct rb_node *rb = &n->rb, *wrong = rb;

	if (!rb_parent(rb))
		wrong = rb->rb_left ?: rb->rb_right;
	if (!wrong)
		return -EINVAL;
	rb_set_parent(rb, wrong);
	return 0;
}

/*
 * Point a cache at the root, or, if the root is what it caches, at the
 * root's only child: with two or more nodes one of them is wrong.
 */
static int rbti_break_cache(struct rb_node **cache, struct rb_node *root,
			    struct rb_node *child)
{
	if (!root || !(root->rb_left || root->rb_right))
		return -EINVAL;
	*cache = *cache == root ? child : root;
	return 0;
}

static int rbti_break_leftmost(struct rbti_tree *t, struct rbti_node *n,
			       s64 arg)
{
	struct rb_node *root = t->root.rb_node;

	return rbti_break_cache(&t->leftmost, root, root ? root->rb_right : NULL);
}

static int rbti_break_rightmost(struct rbti_tree *t, struct rbti_node *n,
				s64 arg)
{
	struct rb_node *root = t->root.rb_node;

	return rbti_break_cache(&t->rightmost, root, root ? root->rb_left : NULL);
}

static int rbti_break_count(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	t->count++;
	return 0;
}

static int rbti_break_aug(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	n->size++;
	return 0;
}

/**
 * struct rbti_corruption - a `corrupt` command
 * @name: the command
 * @nargs: how many keys follow it: none, the node's, or also a new key
 * @needs: tree flag without which it does not apply (0: any tree)
 * @apply: break the tree (the node with the first key, if @nargs > 0;
 *	the second key, if @nargs > 1), or -EINVAL if it does not apply
 */
struct rbti_corruption {
	const char *name;
	unsigned int nargs;
	unsigned int needs;
	int (*apply)(struct rbti_tree *t, struct rbti_node *n, s64 arg);
};

static const struct rbti_corruption rbti_corruptions[] = {
	{ "color",	1, 0,			rbti_break_color },
	{ "black",	1, 0,			rbti_break_black },
	{ "key",	2, 0,			rbti_break_key },
	{ "parent",	1, 0,			rbti_break_parent },
	{ "leftmost",	0, RBTI_LEFTMOST,	rbti_break_leftmost },
	{ "rightmost",	0, RBTI_RIGHTMOST,	rbti_break_rightmost },
	{ "count",	0, RBTI_COUNT,		rbti_break_count },
	{ "aug",	1, RBTI_AUGMENTED,	rbti_break_aug },
};

static int rbti_corrupt(struct rbti_tree *t, char *buf)
{
	const struct rbti_corruption *c = NULL;
	struct rbti_node *n = NULL;
	s64 args[2] = { 0, 0 };
	char *cmd;
	size_t i;
	int ret;

	if (!READ_ONCE(allow_corrupt))
		return -EPERM;
	cmd = rbti_token(&buf);
	for (i = 0; cmd && i < ARRAY_SIZE(rbti_corruptions); i++)
		if (!strcmp(cmd, rbti_corruptions[i].name))
			c = &rbti_corruptions[i];
	if (!c || rbti_parse_args(buf, args, c->nargs))
		return -EINVAL;
	if (c->needs && !(t->ops->flags & c->needs))
		return -EINVAL;

	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	if (c->nargs) {
		n = t->ops->find(t, args[0]);
		ret = -ENOENT;
		if (!n)
			goto unlock;
	}
	ret = c->apply(t, n, args[1]);
	if (!ret) {
		t->corrupt = true;
		t->gen++;
	}
unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/* --- Write-only and query files --- */

static ssize_t rbti_write(struct file *file, const char __user *ubuf,
			  size_t count, int (*cmd)(struct rbti_tree *t, char *buf))
{
	char *buf = rbti_copy_command(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = cmd(file->private_data, buf);
	kvfree(buf);
	return ret ?: count;
}

static ssize_t rbti_result_read(struct rbti_tree *t,
				const struct rbti_result *res,
				char __user *ubuf, size_t count, loff_t *ppos)
{
	char line[48];
	int len = 0;

	mutex_lock(&t->lock);
	if (res->valid)
		len = scnprintf(line, sizeof(line), "%llu %lld\n",
				res->id, res->key);
	mutex_unlock(&t->lock);
	if (!len)
		return -ENODATA;
	return simple_read_from_buffer(ubuf, count, ppos, line, len);
}

#define RBTI_WRITE_FOP(cmd)						\
static ssize_t rbti_##cmd##_write(struct file *file,			\
				  const char __user *ubuf,		\
				  size_t count, loff_t *ppos)		\
{									\
	return rbti_write(file, ubuf, count, rbti_##cmd);		\
}

#define RBTI_WRITE_FOPS(cmd)						\
RBTI_WRITE_FOP(cmd)							\
static const struct file_operations rbti_##cmd##_fops = {		\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = rbti_##cmd##_write,					\
	.llseek = noop_llseek,						\
}

#define RBTI_QUERY_FOPS(cmd)						\
RBTI_WRITE_FOP(cmd)							\
static const struct file_operations rbti_##cmd##_fops = {		\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.read = rbti_##cmd##_read,					\
	.write = rbti_##cmd##_write,					\
	.llseek = default_llseek,					\
}

static ssize_t rbti_find_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rbti_tree *t = file->private_data;

	return rbti_result_read(t, &t->found, ubuf, count, ppos);
}

static ssize_t rbti_near_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rbti_tree *t = file->private_data;

	return rbti_result_read(t, &t->near, ubuf, count, ppos);
}

RBTI_WRITE_FOPS(insert);
RBTI_WRITE_FOPS(erase);
RBTI_WRITE_FOPS(clear);
RBTI_WRITE_FOPS(corrupt);
RBTI_QUERY_FOPS(find);
RBTI_QUERY_FOPS(near);

/* --- Read-only reports --- */

static int rbti_stats_show(struct seq_file *m, void *unused)
{
	struct rbti_tree *t = m->private;
	struct rbti_walk *w;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mutex_lock(&t->lock);
	seq_printf(m, "count %lu\n", rbti_count(t));
	seq_printf(m, "height %u\n", rbti_height(&t->root, w));
	seq_printf(m, "black_height %u\n", rbti_black_height(&t->root));
	seq_printf(m, "inserts %llu\n", t->inserts);
	seq_printf(m, "erases %llu\n", t->erases);
	seq_printf(m, "finds %llu\n", t->finds);
	seq_printf(m, "nears %llu\n", t->nears);
	seq_printf(m, "max_nodes %lu\n", READ_ONCE(max_nodes));
	seq_printf(m, "corrupt %d\n", t->corrupt);
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

/* --- dump: one seq_file record per line --- */

/* What the record at rbti_dump.pos is. */
enum rbti_dump_part {
	RBTI_DUMP_HEADER,	/* line pos of the header */
	RBTI_DUMP_NODE,		/* rbti_dump.node */
	RBTI_DUMP_DEPTH,	/* "error depth" */
	RBTI_DUMP_END,		/* "end N" */
	RBTI_DUMP_DONE,		/* past the end */
};

#define RBTI_DUMP_HEADER_LINES	9

/**
 * struct rbti_dump - a dump in progress, kept between read() calls
 * @tree: the tree
 * @started: the walk has been set up
 * @gen: the tree's generation the walk belongs to
 * @pos: the record the walk is on
 * @part: what that record is
 * @nodes: node records before it
 * @node: the node, for %RBTI_DUMP_NODE
 * @walk: the preorder walk producing node records
 * @lookup: scratch walk to resolve pointers that may be wrong
 *
 * The tree is unlocked between read() calls. If its generation moved on,
 * @walk may hold freed nodes, so the walk restarts and skips to @pos.
 */
struct rbti_dump {
	struct rbti_tree *tree;
	bool started;
	u64 gen;
	loff_t pos;
	enum rbti_dump_part part;
	unsigned long nodes;
	struct rb_node *node;
	struct rbti_walk walk;
	struct rbti_walk lookup;
};

static void rbti_dump_advance(struct rbti_dump *d)
{
	d->pos++;
	switch (d->part) {
	case RBTI_DUMP_HEADER:
		if (d->pos < RBTI_DUMP_HEADER_LINES)
			return;
		break;
	case RBTI_DUMP_NODE:
		d->nodes++;
		break;
	case RBTI_DUMP_DEPTH:
		d->part = RBTI_DUMP_END;
		return;
	default:
		d->part = RBTI_DUMP_DONE;
		return;
	}
	d->node = rbti_walk_next(&d->walk);
	if (d->node)
		d->part = RBTI_DUMP_NODE;
	else
		d->part = d->walk.too_deep ? RBTI_DUMP_DEPTH : RBTI_DUMP_END;
}

static void rbti_dump_rewind(struct rbti_dump *d, loff_t pos)
{
	d->started = true;
	d->gen = d->tree->gen;
	d->pos = 0;
	d->part = RBTI_DUMP_HEADER;
	d->nodes = 0;
	rbti_walk_init(&d->walk, &d->tree->root);
	while (d->pos < pos && d->part != RBTI_DUMP_DONE)
		rbti_dump_advance(d);
}

static void *rbti_dump_start(struct seq_file *m, loff_t *pos)
{
	struct rbti_dump *d = m->private;

	mutex_lock(&d->tree->lock);
	if (!d->started || d->gen != d->tree->gen || d->pos != *pos)
		rbti_dump_rewind(d, *pos);
	return d->part == RBTI_DUMP_DONE ? NULL : d;
}

static void *rbti_dump_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct rbti_dump *d = v;

	rbti_dump_advance(d);
	*pos = d->pos;
	return d->part == RBTI_DUMP_DONE ? NULL : d;
}

static void rbti_dump_stop(struct seq_file *m, void *v)
{
	struct rbti_dump *d = m->private;

	mutex_unlock(&d->tree->lock);
}

static void rbti_dump_header(struct seq_file *m, struct rbti_dump *d)
{
	struct rbti_tree *t = d->tree;
	const unsigned int flags = t->ops->flags;

	switch (d->pos) {
	case 0:
		seq_printf(m, "tree %s\n", t->ops->name);
		return;
	case 1:
		seq_printf(m, "api %s\n", t->ops->api);
		return;
	case 2:
		seq_puts(m, "flags ");
		rbti_seq_flags(m, flags);
		break;
	case 3:
		seq_printf(m, "count %lu\n", rbti_count(t));
		return;
	case 4:
		seq_puts(m, "root");
		rbti_seq_id(m, t->root.rb_node);
		break;
	case 5:
		seq_puts(m, "leftmost");
		rbti_seq_ref(m, &t->root, &d->lookup,
			     flags & RBTI_LEFTMOST ? t->leftmost : NULL);
		break;
	case 6:
		seq_puts(m, "rightmost");
		rbti_seq_ref(m, &t->root, &d->lookup,
			     flags & RBTI_RIGHTMOST ? t->rightmost : NULL);
		break;
	case 7:
		seq_printf(m, "height %u\n", rbti_height(&t->root, &d->lookup));
		return;
	default:
		seq_printf(m, "aug %s\n", flags & RBTI_AUGMENTED ? "size" : "-");
		return;
	}
	seq_putc(m, '\n');
}

static void rbti_dump_node(struct seq_file *m, struct rbti_dump *d)
{
	struct rb_node *rb = d->node, *parent = rb_parent(rb);
	struct rbti_node *n = rbti_entry(rb);

	seq_printf(m, "node %llu %lld %c", n->id, n->key,
		   rb_is_red(rb) ? 'R' : 'B');
	if (parent == rbti_walk_parent(&d->walk))
		rbti_seq_id(m, parent);
	else
		rbti_seq_ref(m, &d->tree->root, &d->lookup, parent);
	rbti_seq_id(m, rb->rb_left);
	rbti_seq_id(m, rb->rb_right);
	if (d->tree->ops->flags & RBTI_AUGMENTED)
		seq_printf(m, " %lu\n", n->size);
	else
		seq_puts(m, " -\n");
}

static int rbti_dump_show(struct seq_file *m, void *v)
{
	struct rbti_dump *d = v;

	switch (d->part) {
	case RBTI_DUMP_HEADER:
		rbti_dump_header(m, d);
		break;
	case RBTI_DUMP_NODE:
		rbti_dump_node(m, d);
		break;
	case RBTI_DUMP_DEPTH:
		seq_puts(m, "error depth\n");
		break;
	default:
		seq_printf(m, "end %lu\n", d->nodes);
		break;
	}
	return 0;
}

static const struct seq_operations rbti_dump_sops = {
	.start = rbti_dump_start,
	.next = rbti_dump_next,
	.stop = rbti_dump_stop,
	.show = rbti_dump_show,
};

static int rbti_dump_open(struct inode *inode, struct file *file)
{
	struct rbti_dump *d;

	d = __seq_open_private(file, &rbti_dump_sops, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->tree = inode->i_private;
	return 0;
}

static const struct file_operations rbti_dump_fops = {
	.owner = THIS_MODULE,
	.open = rbti_dump_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/* --- ops: batches whose results belong to the open file --- */

/**
 * struct rbti_ops_file - an open `ops` file
 * @tree: the tree
 * @lock: protects @results and @len
 * @results: result lines of the last batch, NULL before the first
 * @len: their length
 */
struct rbti_ops_file {
	struct rbti_tree *tree;
	struct mutex lock;	/* protects results and len */
	char *results;
	size_t len;
};

struct rbti_op {
	char cmd;
	s64 key;
};

/* One "CMD KEY" per line, blank lines ignored; *opsp to be kvfree()d. */
static int rbti_parse_ops(char *s, struct rbti_op **opsp, size_t *np)
{
	size_t n = 0, max = 1;
	struct rbti_op *ops;
	char *line, *cmd;

	for (line = s; (line = strchr(line, '\n')); line++)
		max++;
	ops = kvmalloc_array(max, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while ((line = strsep(&s, "\n"))) {
		cmd = rbti_token(&line);
		if (!cmd)
			continue;
		if (strlen(cmd) != 1 || !strchr("ifen", cmd[0]) ||
		    rbti_parse_args(line, &ops[n].key, 1)) {
			kvfree(ops);
			return -EINVAL;
		}
		ops[n++].cmd = cmd[0];
	}
	if (!n) {
		kvfree(ops);
		return -EINVAL;
	}
	*opsp = ops;
	*np = n;
	return 0;
}

/* Run one operation, tree locked; returns the length of its result line. */
static int rbti_run_op(struct rbti_tree *t, const struct rbti_op *op,
		       struct rbti_node **node, char *res)
{
	struct rbti_node *n;
	u64 old_id;
	int ret;

	switch (op->cmd) {
	case 'i':
		ret = rbti_do_insert(t, *node, op->key, &old_id);
		if (ret < 0)
			return scnprintf(res, RBTI_RESULT_MAX, "EEXIST\n");
		n = *node;
		*node = NULL;
		if (ret)
			return scnprintf(res, RBTI_RESULT_MAX,
					 "replaced %llu %llu\n", n->id, old_id);
		return scnprintf(res, RBTI_RESULT_MAX, "ok %llu\n", n->id);
	case 'e':
		n = rbti_do_erase(t, op->key);
		if (!n)
			break;
		ret = scnprintf(res, RBTI_RESULT_MAX, "erased %llu\n", n->id);
		kfree(n);
		return ret;
	case 'f':
		n = rbti_do_find(t, op->key);
		if (n)
			return scnprintf(res, RBTI_RESULT_MAX, "found %llu %lld\n",
					 n->id, n->key);
		break;
	default:
		n = rbti_do_near(t, op->key);
		if (n)
			return scnprintf(res, RBTI_RESULT_MAX, "near %llu %lld\n",
					 n->id, n->key);
		break;
	}
	return scnprintf(res, RBTI_RESULT_MAX, "ENOENT\n");
}

/* Run a parsed batch, all or nothing; result lines go to @res. */
static int rbti_run_ops(struct rbti_tree *t, const struct rbti_op *ops,
			size_t n, char *res, size_t *lenp)
{
	struct rbti_node **nodes = NULL;
	size_t i, inserts = 0, len = 0;
	int ret;

	for (i = 0; i < n; i++)
		inserts += ops[i].cmd == 'i';

	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	ret = -ENOSPC;
	if (rbti_would_overflow(t, inserts))
		goto unlock;
	ret = -ENOMEM;
	if (inserts) {
		nodes = rbti_alloc_nodes(inserts);
		if (!nodes)
			goto unlock;
	}
	for (i = 0, inserts = 0; i < n; i++)
		len += rbti_run_op(t, &ops[i], ops[i].cmd == 'i' ?
				   &nodes[inserts++] : NULL, res + len);
	*lenp = len;
	ret = 0;
unlock:
	mutex_unlock(&t->lock);
	rbti_free_nodes(nodes, inserts);
	return ret;
}

static int rbti_ops_open(struct inode *inode, struct file *file)
{
	struct rbti_ops_file *of;

	of = kzalloc(sizeof(*of), GFP_KERNEL);
	if (!of)
		return -ENOMEM;
	of->tree = inode->i_private;
	mutex_init(&of->lock);
	file->private_data = of;
	return 0;
}

static int rbti_ops_release(struct inode *inode, struct file *file)
{
	struct rbti_ops_file *of = file->private_data;

	mutex_destroy(&of->lock);
	kvfree(of->results);
	kfree(of);
	return 0;
}

/*
 * Unlike the other files, a write here moves the file position back to 0,
 * so that write(); read() pairs on one descriptor read each batch's results
 * from their start.
 */
static ssize_t rbti_ops_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rbti_ops_file *of = file->private_data;
	struct rbti_op *ops;
	char *buf, *res;
	size_t n, len;
	int ret;

	buf = rbti_copy_command(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = rbti_parse_ops(buf, &ops, &n);
	kvfree(buf);
	if (ret)
		return ret;
	res = kvmalloc_array(n, RBTI_RESULT_MAX, GFP_KERNEL);
	ret = res ? rbti_run_ops(of->tree, ops, n, res, &len) : -ENOMEM;
	kvfree(ops);
	if (ret) {
		kvfree(res);
		return ret;
	}
	mutex_lock(&of->lock);
	swap(of->results, res);
	of->len = len;
	mutex_unlock(&of->lock);
	kvfree(res);
	*ppos = 0;
	return count;
}

static ssize_t rbti_ops_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct rbti_ops_file *of = file->private_data;
	ssize_t ret = -ENODATA;

	mutex_lock(&of->lock);
	if (of->results)
		ret = simple_read_from_buffer(ubuf, count, ppos, of->results,
					      of->len);
	mutex_unlock(&of->lock);
	return ret;
}

static const struct file_operations rbti_ops_fops = {
	.owner = THIS_MODULE,
	.open = rbti_ops_open,
	.read = rbti_ops_read,
	.write = rbti_ops_write,
	.llseek = default_llseek,
	.release = rbti_ops_release,
};

/* --- Module --- */

static const struct {
	const char *name;
	const struct file_operations *fops;
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
};

static int __init rbti_init(void)
{
	struct dentry *dir;
	size_t i, j;

	rbti_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(rbti_dir))
		return PTR_ERR(rbti_dir);
	debugfs_create_file("trees", 0600, rbti_dir, NULL, &rbti_trees_fops);

	for (i = 0; i < ARRAY_SIZE(rbti_trees); i++) {
		struct rbti_tree *t = &rbti_trees[i];

		t->root = RB_ROOT;
		t->ops = rbti_all_ops[i];
		t->next_id = 1;
		mutex_init(&t->lock);
		dir = debugfs_create_dir(t->ops->name, rbti_dir);
		for (j = 0; j < ARRAY_SIZE(rbti_files); j++)
			debugfs_create_file(rbti_files[j].name, 0600, dir, t,
					    rbti_files[j].fops);
	}
	return 0;
}

static void __exit rbti_exit(void)
{
	size_t i;

	/* Waits for every file operation in progress, then none can start. */
	debugfs_remove_recursive(rbti_dir);
	for (i = 0; i < ARRAY_SIZE(rbti_trees); i++) {
		rbti_free_all(&rbti_trees[i].root);
		mutex_destroy(&rbti_trees[i].lock);
	}
}

module_init(rbti_init);
module_exit(rbti_exit);

MODULE_DESCRIPTION("debugfs inspector for generic red-black tree APIs");
MODULE_LICENSE("GPL");
