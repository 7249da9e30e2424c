// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: live red-black trees built with the 2012 generic rbtree
 * proposals (and with 6.1's own helpers), exposed through debugfs for
 * fuzzing, invariant checking and pictures. The interface is specified in
 * DEBUGFS.md; this file is its front end, written once over the trees'
 * struct rbti_tree_ops: parsing, the write commands, corruption, find/near,
 * ops and the small reports. The dump file is in inspector_dump.c, the
 * walks and the invariant check in inspector_walk.c.
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
#include <linux/sched.h>
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

static unsigned long max_total_nodes = 2097152;
module_param(max_total_nodes, ulong, 0600);
MODULE_PARM_DESC(max_total_nodes, "maximum number of nodes in all trees together (default 2097152)");

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

const char *const rbti_flag_names[RBTI_NR_FLAGS] = {
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

/* --- Parsing --- */

/* Keys are separated by ASCII space, tab and newline only. */
static bool rbti_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Cut the next separated token out of *s; NULL if none left. */
static char *rbti_token(char **s)
{
	char *tok = *s, *end;

	while (rbti_is_sep(*tok))
		tok++;
	if (!*tok)
		return NULL;
	for (end = tok; *end && !rbti_is_sep(*end); end++)
		;
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

/* At least @min and at most @max keys, their number in *@n. */
static int rbti_parse_some(char *s, s64 *keys, unsigned int min,
			   unsigned int max, unsigned int *n)
{
	char *tok;

	for (*n = 0; (tok = rbti_token(&s)); (*n)++)
		if (*n == max || rbti_parse_key(tok, &keys[*n]))
			return -EINVAL;
	return *n < min ? -EINVAL : 0;
}

/* Exactly @n keys and nothing else. */
static int rbti_parse_args(char *s, s64 *keys, unsigned int n)
{
	unsigned int got;

	return rbti_parse_some(s, keys, n, n, &got);
}

/**
 * struct rbti_op - one operation of an `ops` batch or an `insert` write
 * @cmd: 'i', 'f', 'e' or 'n'
 * @hinted: @hint names the node to start from (Santos trees)
 * @key: the key
 * @hint: the key of the hint node
 */
struct rbti_op {
	char cmd;
	bool hinted;
	s64 key;
	s64 hint;
};

/* An `insert` token: KEY, or KEY@HINTKEY where @hints. */
static int rbti_parse_insert(char *tok, struct rbti_op *op, bool hints)
{
	char *at = strchr(tok, '@');

	op->cmd = 'i';
	op->hinted = at;
	if (at) {
		if (!hints)
			return -EINVAL;
		*at = '\0';
		if (rbti_parse_key(at + 1, &op->hint))
			return -EINVAL;
	}
	return rbti_parse_key(tok, &op->key);
}

/* `insert`: any number of keys, at least one; *opsp to be kvfree()d. */
static int rbti_parse_keys(char *s, bool hints, struct rbti_op **opsp,
			   size_t *np)
{
	/* Each key takes a character and all but the last a separator. */
	size_t n = 0, max = strlen(s) / 2 + 1;
	struct rbti_op *ops;
	char *tok;

	ops = kvmalloc_array(max, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while ((tok = rbti_token(&s))) {
		if (rbti_parse_insert(tok, &ops[n++], hints)) {
			kvfree(ops);
			return -EINVAL;
		}
	}
	if (!n) {
		kvfree(ops);
		return -EINVAL;
	}
	*opsp = ops;
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

/* --- Nodes: allocated unlocked, counted per tree and module-wide --- */

/* Nodes on every tree's list, plus those reserved for a running write. */
static atomic_long_t rbti_total_nodes = ATOMIC_LONG_INIT(0);

/*
 * Nodes come from their own cache, created with SLAB_NOLEAKTRACE, a flag
 * meant for kmemleak's own caches, and used here on purpose: kmemleak saves
 * a stack trace on every allocation and free, and on the debug kernel that
 * was most of what an operation costs. Measured per operation in `ops`
 * batches of 1,024 on trees of up to 8,192 nodes (mainline tree,
 * tools/measure-ops, debug guest, KASAN outline): insert 134 us, erase
 * 126 us, find 26 us with kmemleak tracking the nodes; 52-66, 44-55 and
 * 15-27 us without. The guest suites run millions of operations.
 *
 * What is given up: kmemleak cannot report a lost node while the module is
 * loaded. It is reported at unload instead: every node is on its tree's
 * list and counted, rmmod frees them all through the lists, and
 * kmem_cache_destroy() names the cache if one was lost (the mutant
 * leak-erased-node of kmod/tests/mutants shows it). Without kmemleak the
 * flag does nothing; KASAN still checks every node access.
 */
static struct kmem_cache *rbti_node_cache;

/* Free a node that is on no list and in no tree; NULL is ignored. */
static void rbti_node_free(struct rbti_node *n)
{
	if (n)
		kmem_cache_free(rbti_node_cache, n);
}

static void rbti_free_nodes(struct rbti_node **nodes, size_t n)
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
static struct rbti_node **rbti_alloc_nodes(size_t n)
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
static int rbti_reserve(const struct rbti_tree *t, size_t new)
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

static void rbti_unreserve(size_t unused)
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
static void rbti_free_all(struct rbti_tree *t)
{
	struct rbti_node *n, *tmp;
	unsigned long i = 0;

	list_for_each_entry_safe(n, tmp, &t->all, list) {
		rbti_node_free(n);
		rbti_cond_resched(++i);
	}
	INIT_LIST_HEAD(&t->all);
	atomic_long_sub(t->nodes, &rbti_total_nodes);
	t->nodes = 0;
	t->root = RB_ROOT;
	t->leftmost = NULL;
	t->rightmost = NULL;
	t->count = 0;
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
static int rbti_do_insert(struct rbti_tree *t, struct rbti_node *n,
			  const struct rbti_op *op, u64 *old_id)
{
	struct rbti_node *old, *hint = rbti_hint(t, op);
	int ret;

	n->key = op->key;
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
	rbti_node_free(old);
	return 1;
}

/* Erase one node with @key; returns it for the caller to free, or NULL. */
static struct rbti_node *rbti_do_erase(struct rbti_tree *t, s64 key)
{
	struct rbti_node *n = t->ops->erase(t, key);

	if (n) {
		rbti_unlist(t, n);
		t->erases++;
		t->gen++;
	}
	return n;
}

static struct rbti_node *rbti_do_find(struct rbti_tree *t,
				      const struct rbti_op *op)
{
	t->finds++;
	return t->ops->find(t, op->key);
}

static struct rbti_node *rbti_do_near(struct rbti_tree *t,
				      const struct rbti_op *op)
{
	struct rbti_node *hint = rbti_hint(t, op);

	t->nears++;
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

	ret = rbti_parse_keys(buf, t->ops->insert_hint, &ops, &n);
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
	rbti_node_free(n);
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
	t->shape = false;
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

/* The link from the node's parent to it, or NULL for the root. */
static struct rb_node **rbti_parent_link(struct rbti_node *n)
{
	struct rb_node *parent = rb_parent(&n->rb);

	if (!parent)
		return NULL;
	return parent->rb_left == &n->rb ? &parent->rb_left : &parent->rb_right;
}

/* Cut the node's subtree off: its nodes stay allocated, unreachable. */
static int rbti_break_detach(struct rbti_tree *t, struct rbti_node *n,
			     s64 arg)
{
	struct rb_node **link = rbti_parent_link(n);

	if (!link)
		return -EINVAL;
	*link = NULL;
	return 0;
}

/* The node's parent links to it twice; its other subtree is lost. */
static int rbti_break_share(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	struct rb_node *parent = rb_parent(&n->rb);

	if (!parent)
		return -EINVAL;
	parent->rb_left = &n->rb;
	parent->rb_right = &n->rb;
	return 0;
}

/* The node's left link points up at its parent, or at itself (root). */
static int rbti_break_cycle(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	n->rb.rb_left = rb_parent(&n->rb) ?: &n->rb;
	return 0;
}

/**
 * struct rbti_corruption - a `corrupt` command
 * @name: the command
 * @nargs: how many keys follow it: none, the node's, or also a new key
 * @needs: tree flag without which it does not apply (0: any tree)
 * @shape: it breaks a child link: no search may run afterwards
 * @apply: break the tree (the node with the first key, if @nargs > 0;
 *	the second key, if @nargs > 1), or -EINVAL if it does not apply
 */
struct rbti_corruption {
	const char *name;
	unsigned int nargs;
	unsigned int needs;
	bool shape;
	int (*apply)(struct rbti_tree *t, struct rbti_node *n, s64 arg);
};

static const struct rbti_corruption rbti_corruptions[] = {
	{ "color",	1, 0,		false,	rbti_break_color },
	{ "black",	1, 0,		false,	rbti_break_black },
	{ "key",	2, 0,		false,	rbti_break_key },
	{ "parent",	1, 0,		false,	rbti_break_parent },
	{ "leftmost",	0, RBTI_LEFTMOST, false, rbti_break_leftmost },
	{ "rightmost",	0, RBTI_RIGHTMOST, false, rbti_break_rightmost },
	{ "count",	0, RBTI_COUNT,	false,	rbti_break_count },
	{ "aug",	1, RBTI_AUGMENTED, false, rbti_break_aug },
	{ "detach",	1, 0,		true,	rbti_break_detach },
	{ "share",	1, 0,		true,	rbti_break_share },
	{ "cycle",	1, 0,		true,	rbti_break_cycle },
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
		t->shape = c->shape;
		t->gen++;
	}
unlock:
	mutex_unlock(&t->lock);
	return ret;
}

/* --- Write-only files --- */

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

#define RBTI_WRITE_FOPS(cmd)						\
static ssize_t rbti_##cmd##_write(struct file *file,			\
				  const char __user *ubuf,		\
				  size_t count, loff_t *ppos)		\
{									\
	return rbti_write(file, ubuf, count, rbti_##cmd);		\
}									\
									\
static const struct file_operations rbti_##cmd##_fops = {		\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = rbti_##cmd##_write,					\
	.llseek = noop_llseek,						\
}

RBTI_WRITE_FOPS(insert);
RBTI_WRITE_FOPS(erase);
RBTI_WRITE_FOPS(clear);
RBTI_WRITE_FOPS(corrupt);

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

static int rbti_result_line(char *line, const struct rbti_result *res)
{
	if (!res->valid)
		return 0;
	return scnprintf(line, RBTI_RESULT_MAX, "%llu %lld\n", res->id,
			 res->key);
}

/*
 * `find KEY` or `near KEY [HINTKEY]`. Returns the line length, or an
 * errno: EINVAL, EUCLEAN (after shape corruption; a hinted near on any
 * corrupt tree, as the hint's climb follows parent pointers), ENOENT.
 */
static int rbti_query(struct rbti_tree *t, char *buf, bool near, char *line)
{
	struct rbti_result *last = near ? &t->near : &t->found;
	struct rbti_op op = { .cmd = near ? 'n' : 'f' };
	struct rbti_node *n;
	unsigned int nargs;
	s64 args[2] = { 0, 0 };
	int ret;

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
	ret = rbti_result_line(line, last);
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
		qf->len = rbti_result_line(qf->line,
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

static const struct file_operations rbti_find_fops = {
	.owner = THIS_MODULE,
	.open = rbti_find_open,
	.read = rbti_query_read,
	.write = rbti_query_write,
	.llseek = default_llseek,
	.release = rbti_query_release,
};

static const struct file_operations rbti_near_fops = {
	.owner = THIS_MODULE,
	.open = rbti_near_open,
	.read = rbti_query_read,
	.write = rbti_query_write,
	.llseek = default_llseek,
	.release = rbti_query_release,
};

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
	struct rbti_walk *w;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mutex_lock(&t->lock);
	seq_printf(m, "count %lu\n", rbti_count(t));
	seq_printf(m, "height %u\n", rbti_height(t, w));
	seq_printf(m, "black_height %u\n", rbti_black_height(&t->root));
	seq_printf(m, "inserts %llu\n", t->inserts);
	seq_printf(m, "erases %llu\n", t->erases);
	seq_printf(m, "finds %llu\n", t->finds);
	seq_printf(m, "nears %llu\n", t->nears);
	seq_printf(m, "max_nodes %lu\n", READ_ONCE(max_nodes));
	seq_printf(m, "corrupt %d\n", t->corrupt);
	seq_printf(m, "dump_lines %llu\n", t->dump_lines);
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

/*
 * One "CMD KEY" (or "I KEY HINTKEY", "N KEY HINTKEY" where @hints) per
 * line, blank lines ignored; *opsp to be kvfree()d.
 */
static int rbti_parse_ops(char *s, bool hints, struct rbti_op **opsp,
			  size_t *np)
{
	size_t n = 0, max = 1;
	struct rbti_op *ops;
	char *line, *cmd;
	s64 args[2] = { 0, 0 };

	for (line = s; (line = strchr(line, '\n')); line++)
		max++;
	ops = kvmalloc_array(max, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	while ((line = strsep(&s, "\n"))) {
		cmd = rbti_token(&line);
		if (!cmd)
			continue;
		ops[n].hinted = cmd[0] == 'I' || cmd[0] == 'N';
		if (strlen(cmd) != 1 || !strchr(hints ? "ifenIN" : "ifen", cmd[0]) ||
		    rbti_parse_args(line, args, ops[n].hinted ? 2 : 1)) {
			kvfree(ops);
			return -EINVAL;
		}
		ops[n].cmd = tolower(cmd[0]);
		ops[n].key = args[0];
		ops[n++].hint = args[1];
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
		       struct rbti_node **node, char *res, size_t *added)
{
	struct rbti_node *n;
	u64 old_id;
	int ret;

	switch (op->cmd) {
	case 'i':
		ret = rbti_do_insert(t, *node, op, &old_id);
		if (ret < 0)
			return scnprintf(res, RBTI_RESULT_MAX, "EEXIST\n");
		n = *node;
		*node = NULL;
		if (ret)
			return scnprintf(res, RBTI_RESULT_MAX,
					 "replaced %llu %llu\n", n->id, old_id);
		(*added)++;
		return scnprintf(res, RBTI_RESULT_MAX, "ok %llu\n", n->id);
	case 'e':
		n = rbti_do_erase(t, op->key);
		if (!n)
			break;
		ret = scnprintf(res, RBTI_RESULT_MAX, "erased %llu\n", n->id);
		rbti_node_free(n);
		return ret;
	case 'f':
		n = rbti_do_find(t, op);
		if (n)
			return scnprintf(res, RBTI_RESULT_MAX, "found %llu %lld\n",
					 n->id, n->key);
		break;
	default:
		n = rbti_do_near(t, op);
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
	size_t i, inserts = 0, added = 0, len = 0;
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
		len += rbti_run_op(t, &ops[i], ops[i].cmd == 'i' ?
				   &nodes[inserts++] : NULL, res + len, &added);
		rbti_cond_resched(i + 1);
	}
	rbti_unreserve(inserts - added);
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
 * As on `find` and `near`, a write here moves the file position back to 0,
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
	ret = rbti_parse_ops(buf, of->tree->ops->insert_hint, &ops, &n);
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
	*ppos = 0;
	mutex_unlock(&of->lock);
	kvfree(res);
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

	rbti_node_cache = kmem_cache_create("rbti_node", sizeof(struct rbti_node),
					    0, SLAB_NOLEAKTRACE, NULL);
	if (!rbti_node_cache)
		return -ENOMEM;
	rbti_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(rbti_dir)) {
		kmem_cache_destroy(rbti_node_cache);
		return PTR_ERR(rbti_dir);
	}
	debugfs_create_file("trees", 0600, rbti_dir, NULL, &rbti_trees_fops);

	for (i = 0; i < ARRAY_SIZE(rbti_trees); i++) {
		struct rbti_tree *t = &rbti_trees[i];

		t->root = RB_ROOT;
		INIT_LIST_HEAD(&t->all);
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
		rbti_free_all(&rbti_trees[i]);
		mutex_destroy(&rbti_trees[i].lock);
	}
	/* WARNs, naming the cache, if a node was never freed. */
	kmem_cache_destroy(rbti_node_cache);
}

module_init(rbti_init);
module_exit(rbti_exit);

MODULE_DESCRIPTION("debugfs inspector for generic red-black tree APIs");
MODULE_LICENSE("GPL");
