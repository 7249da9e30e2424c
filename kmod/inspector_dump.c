// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the `dump` file (format in DEBUGFS.md).
 *
 * A tree's dump is built once per generation of the tree, under its lock,
 * into one text that every reader of that generation shares (struct
 * rbti_text, reference counted): a reader resumes by offset in O(1), and a
 * reader whose tree changed under it gets "error stale" instead of text
 * from two generations. Node links are written as ids only when they point
 * at one of the tree's own nodes (looked up by address, never by
 * dereferencing), so a corrupted tree is dumped as it is.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rbtree_augmented.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "inspector.h"

/* --- dump: the text of one generation, shared by its readers --- */

/*
 * A text lives as long as a descriptor reads it, and a dump of a big tree
 * takes tens of MiB: many descriptors kept open over many generations
 * would pin any amount of memory. All texts together, those being built
 * included, are bounded by max_dump_bytes (ENOBUFS past it).
 */
static unsigned long max_dump_bytes = SZ_256M;
module_param(max_dump_bytes, ulong, 0600);
MODULE_PARM_DESC(max_dump_bytes, "maximum bytes of dump text held by all open dump files together (default 256 MiB)");

static atomic_long_t rbti_dump_bytes = ATOMIC_LONG_INIT(0);

/* A text buffer of @size bytes within max_dump_bytes, or NULL with *@err. */
static char *rbti_text_alloc(size_t size, int *err)
{
	char *buf;

	if (size > INT_MAX ||
	    (unsigned long)atomic_long_add_return(size, &rbti_dump_bytes) >
	    READ_ONCE(max_dump_bytes)) {
		if (size <= INT_MAX)
			atomic_long_sub(size, &rbti_dump_bytes);
		*err = -ENOBUFS;
		return NULL;
	}
	buf = kvmalloc(size, GFP_KERNEL);
	if (!buf) {
		atomic_long_sub(size, &rbti_dump_bytes);
		*err = -ENOMEM;
	}
	return buf;
}

static void rbti_text_free(char *buf, size_t size)
{
	if (buf) {
		kvfree(buf);
		atomic_long_sub(size, &rbti_dump_bytes);
	}
}

/**
 * struct rbti_text - a tree's whole dump, built under its lock
 * @ref: one per reader; the tree's rbti_tree.dump pointer holds none
 * @tree: the tree
 * @gen: the tree's generation it shows
 * @err: -ENOMEM if the buffer could not grow, -ENOBUFS if it would pass
 *	max_dump_bytes
 * @len: bytes of text
 * @size: bytes allocated
 * @buf: the text
 */
struct rbti_text {
	struct kref ref;
	struct rbti_tree *tree;
	u64 gen;
	int err;
	size_t len, size;
	char *buf;
};

static bool rbti_text_grow(struct rbti_text *x)
{
	size_t size = x->size * 2;
	char *buf;

	buf = rbti_text_alloc(size, &x->err);
	if (!buf)
		return false;
	memcpy(buf, x->buf, x->len);
	rbti_text_free(x->buf, x->size);
	x->buf = buf;
	x->size = size;
	return true;
}

static __printf(2, 3) void rbti_text_printf(struct rbti_text *x,
					    const char *fmt, ...)
{
	va_list args;
	size_t len;

	while (!x->err) {
		va_start(args, fmt);
		len = vsnprintf(x->buf + x->len, x->size - x->len, fmt, args);
		va_end(args);
		if (len < x->size - x->len) {
			x->len += len;
			return;
		}
		rbti_text_grow(x);
	}
}

/* Called with the tree locked, by kref_put_mutex(). */
static void rbti_text_release(struct kref *ref)
{
	struct rbti_text *x = container_of(ref, struct rbti_text, ref);
	struct rbti_tree *t = x->tree;

	if (t->dump == x)
		t->dump = NULL;
	mutex_unlock(&t->lock);
	rbti_text_free(x->buf, x->size);
	kfree(x);
}

static void rbti_text_put(struct rbti_text *x)
{
	if (x)
		kref_put_mutex(&x->ref, rbti_text_release, &x->tree->lock);
}

/**
 * struct rbti_dumper - building one dump
 * @t: the tree, locked
 * @x: the text
 * @walk: the preorder walk that writes the node lines
 * @sorted: the tree's nodes sorted by address, to name pointers that may
 *	point anywhere; built the first time one is needed
 * @nsorted: entries in @sorted
 * @sort_err: @sorted could not be allocated
 * @copy: the latch copy whose links are being written (0 on other trees)
 */
struct rbti_dumper {
	struct rbti_tree *t;
	unsigned int copy;
	struct rbti_text *x;
	struct rbti_walk walk;
	struct rb_node **sorted;
	size_t nsorted;
	bool sort_err;
};

static int rbti_cmp_ptr(const void *a, const void *b)
{
	uintptr_t l = (uintptr_t)*(struct rb_node * const *)a;
	uintptr_t r = (uintptr_t)*(struct rb_node * const *)b;

	return (l > r) - (l < r);
}

/*
 * Whether @rb is one of the tree's nodes (its rb_node of the copy being
 * dumped), without dereferencing it.
 */
static bool rbti_is_node(struct rbti_dumper *d, struct rb_node *rb)
{
	struct rbti_node *n;
	size_t i = 0;

	/* Copy 1's rb_node of a node lies at a fixed offset from its rb. */
	if (d->copy)
		rb = (struct rb_node *)((uintptr_t)rb -
					offsetof(struct rbti_node, lt.node[1]) +
					offsetof(struct rbti_node, rb));

	if (!d->sorted && !d->sort_err) {
		d->sorted = kvmalloc_array(d->t->nodes, sizeof(*d->sorted),
					   GFP_KERNEL);
		if (!d->sorted) {
			d->sort_err = true;
			d->x->err = -ENOMEM;
			return false;
		}
		list_for_each_entry(n, &d->t->all, list)
			d->sorted[i++] = &n->rb;
		d->nsorted = i;
		sort(d->sorted, i, sizeof(*d->sorted), rbti_cmp_ptr, NULL);
	}
	return d->sorted &&
	       bsearch(&rb, d->sorted, d->nsorted, sizeof(*d->sorted),
		       rbti_cmp_ptr);
}

/* " ID", " -" for NULL or " ?" for a pointer at no node of the tree. */
static void rbti_text_ref(struct rbti_dumper *d, struct rb_node *rb,
			  struct rb_node *known)
{
	if (!rb)
		rbti_text_printf(d->x, " -");
	else if (rb == known || rbti_is_node(d, rb))
		rbti_text_printf(d->x, " %llu", rbti_copy_entry(rb, d->copy)->id);
	else
		rbti_text_printf(d->x, " ?");
}

/* The end of the path that follows @left (or right) links from the root. */
static struct rb_node *rbti_text_end(struct rbti_tree *t, bool left)
{
	struct rb_node *n = rbti_root(t, 0)->rb_node;
	unsigned int depth;

	for (depth = 1; n && depth < RBTI_MAX_DEPTH; depth++) {
		if (!(left ? n->rb_left : n->rb_right))
			break;
		n = left ? n->rb_left : n->rb_right;
	}
	return n;
}

static void rbti_text_flags(struct rbti_text *x, unsigned int flags)
{
	const char *sep = "";
	unsigned int i;

	if (!flags)
		rbti_text_printf(x, "-");
	for (i = 0; i < RBTI_NR_FLAGS; i++) {
		if (flags & BIT(i)) {
			rbti_text_printf(x, "%s%s", sep, rbti_flag_names[i]);
			sep = ",";
		}
	}
}

/* The dump's name of the augment rule: size, max, interval-last or -. */
static const char *rbti_aug_name(const struct rbti_tree_ops *ops)
{
	if (!(ops->flags & RBTI_AUGMENTED))
		return "-";
	if (ops->aug == RBTI_AUG_SIZE)
		return "size";
	return ops->flags & RBTI_INTERVAL ? "interval-last" : "max";
}

static void rbti_dump_header(struct rbti_dumper *d)
{
	struct rbti_tree *t = d->t;
	const unsigned int flags = t->ops->flags;
	struct rbti_text *x = d->x;

	rbti_text_printf(x, "tree %s\napi %s\nflags ", t->ops->name,
			 t->ops->api);
	rbti_text_flags(x, flags);
	rbti_text_printf(x, "\ncount %lu\nnodes %lu\nroot", rbti_count(t),
			 t->nodes);
	rbti_text_ref(d, rbti_root(t, 0)->rb_node, rbti_root(t, 0)->rb_node);
	rbti_text_printf(x, "\nleftmost");
	rbti_text_ref(d, flags & RBTI_LEFTMOST ? t->leftmost : NULL,
		      rbti_text_end(t, true));
	rbti_text_printf(x, "\nrightmost");
	rbti_text_ref(d, flags & RBTI_RIGHTMOST ? t->rightmost : NULL,
		      rbti_text_end(t, false));
	rbti_text_printf(x, "\nheight %u\naug %s\n", rbti_height(t, &d->walk),
			 rbti_aug_name(t->ops));
	if (flags & RBTI_VALUE)
		rbti_text_printf(x, "value %s\n", t->ops->value_name);
}

/*
 * "node ..." for a node the walk reached, "lost ..." for one it did not,
 * with the links of copy d->copy.
 */
static void rbti_dump_node(struct rbti_dumper *d, const char *what,
			   struct rbti_node *n, struct rb_node *walk_parent)
{
	const unsigned int flags = d->t->ops->flags;
	struct rb_node *rb = d->copy ? &n->lt.node[1] : &n->rb;
	bool lost = *what == 'l';

	d->t->dump_lines++;
	rbti_text_printf(d->x, "%s %llu %lld %c", what, n->id, n->key,
			 rb_is_red(rb) ? 'R' : 'B');
	rbti_text_ref(d, rb_parent(rb), walk_parent);
	/* A reached node's links are what the walk followed: nodes. */
	rbti_text_ref(d, rb->rb_left, lost ? NULL : rb->rb_left);
	rbti_text_ref(d, rb->rb_right, lost ? NULL : rb->rb_right);
	if (!(flags & RBTI_AUGMENTED) || d->copy)
		rbti_text_printf(d->x, " -");
	else if (d->t->ops->aug == RBTI_AUG_SIZE)
		rbti_text_printf(d->x, " %lu", n->size);
	else
		rbti_text_printf(d->x, " %lld", n->max);
	if (flags & RBTI_VALUE)
		rbti_text_printf(d->x, " %lld", n->value);
	rbti_text_printf(d->x, "\n");
}

/* A latch tree's copy 1: its root, height and node lines. */
static void rbti_dump_copy1(struct rbti_dumper *d)
{
	struct rbti_tree *t = d->t;
	struct rb_node *root = rbti_root(t, 1)->rb_node, *rb;
	unsigned int height = 0;
	unsigned long lines = 0;

	d->copy = 1;
	rbti_text_printf(d->x, "copy 1\nroot");
	rbti_text_ref(d, root, root);
	rbti_walk_init_copy(&d->walk, t, 1);
	while (rbti_walk_next(&d->walk))
		height = max(height, d->walk.depth);
	rbti_text_printf(d->x, "\nheight %u\n",
			 d->walk.too_deep ? RBTI_MAX_DEPTH + 1 : height);
	rbti_walk_init_copy(&d->walk, t, 1);
	while ((rb = rbti_walk_next(&d->walk)) && !d->x->err) {
		rbti_dump_node(d, "node", rbti_copy_entry(rb, 1),
			       rbti_walk_parent(&d->walk));
		lines++;
	}
	if (d->walk.too_deep)
		rbti_text_printf(d->x, "error depth\n");
	rbti_text_printf(d->x, "end %lu\n", lines);
	d->copy = 0;
}

/*
 * The dump of @t (locked) as it is now, with one reference; or
 * ERR_PTR(-ENOMEM) or ERR_PTR(-ENOBUFS) (past max_dump_bytes).
 */
static struct rbti_text *rbti_dump_build(struct rbti_tree *t)
{
	struct rbti_dumper *d;
	struct rbti_text *x;
	struct rb_node *rb;
	struct rbti_node *n;
	unsigned long i = 0, lines = 0;
	int err = -ENOMEM;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!d || !x)
		goto fail;
	/* About 50 bytes a node line; grown if that is not enough. */
	x->size = min_t(size_t, 512 + 64 * t->nodes, SZ_64M);
	x->buf = rbti_text_alloc(x->size, &err);
	if (!x->buf)
		goto fail;
	kref_init(&x->ref);
	x->tree = t;
	x->gen = t->gen;
	d->t = t;
	d->x = x;

	rbti_dump_header(d);
	rbti_walk_init(&d->walk, t);
	while ((rb = rbti_walk_next(&d->walk)) && !x->err) {
		rbti_dump_node(d, "node", rbti_entry(rb),
			       rbti_walk_parent(&d->walk));
		lines++;
	}
	if (d->walk.too_deep)
		rbti_text_printf(x, "error depth\n");
	list_for_each_entry(n, &t->all, list) {
		rbti_cond_resched(++i);
		if (!rbti_reached(&d->walk, &n->rb))
			rbti_dump_node(d, "lost", n, NULL);
	}
	if (t->ops->flags & RBTI_LATCH)
		rbti_dump_copy1(d);
	rbti_text_printf(x, "end %lu\n", lines);
	err = x->err;
	if (err)
		goto fail;
	kvfree(d->sorted);
	kfree(d);
	return x;
fail:
	if (d)
		kvfree(d->sorted);
	kfree(d);
	if (x)
		rbti_text_free(x->buf, x->size);
	kfree(x);
	return ERR_PTR(err);
}

/* A reference to the dump of @t's current generation, built if need be. */
static struct rbti_text *rbti_dump_get(struct rbti_tree *t)
{
	struct rbti_text *x;

	mutex_lock(&t->lock);
	x = t->dump;
	if (x && x->gen == t->gen) {
		kref_get(&x->ref);
	} else {
		x = rbti_dump_build(t);
		if (!IS_ERR(x))
			t->dump = x;
	}
	mutex_unlock(&t->lock);
	return x;
}

#define RBTI_STALE	"error stale\n"

/**
 * struct rbti_dump_file - an open `dump` file
 * @tree: the tree
 * @lock: protects the rest
 * @text: the dump this descriptor reads, NULL before its first read
 * @stale_at: file position where "error stale" begins, or -1
 * @stale_nl: "error stale" starts a line of its own after a partial one
 */
struct rbti_dump_file {
	struct rbti_tree *tree;
	struct mutex lock;	/* protects text and stale_at */
	struct rbti_text *text;
	loff_t stale_at;
	bool stale_nl;
};

static int rbti_dump_open(struct inode *inode, struct file *file)
{
	struct rbti_dump_file *df;

	df = kzalloc(sizeof(*df), GFP_KERNEL);
	if (!df)
		return -ENOMEM;
	df->tree = inode->i_private;
	df->stale_at = -1;
	mutex_init(&df->lock);
	file->private_data = df;
	return 0;
}

static int rbti_dump_release(struct inode *inode, struct file *file)
{
	struct rbti_dump_file *df = file->private_data;

	rbti_text_put(df->text);
	mutex_destroy(&df->lock);
	kfree(df);
	return 0;
}

static bool rbti_dump_changed(struct rbti_dump_file *df)
{
	struct rbti_tree *t = df->tree;
	bool changed;

	mutex_lock(&t->lock);
	changed = t->gen != df->text->gen;
	mutex_unlock(&t->lock);
	return changed;
}

/*
 * A read at position 0 (or the first) takes the dump of the tree as it is.
 * Later reads go on in that text while the tree is unchanged; once it has
 * changed, the rest is "error stale". Each read returns whole lines, as
 * many as fit.
 */
static ssize_t rbti_dump_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct rbti_dump_file *df = file->private_data;
	struct rbti_text *x;
	const char *stale;
	loff_t pos = *ppos;
	size_t n, i;
	ssize_t ret;

	mutex_lock(&df->lock);
	if (!df->text || !pos) {
		x = rbti_dump_get(df->tree);
		ret = PTR_ERR(x);
		if (IS_ERR(x))
			goto unlock;
		rbti_text_put(df->text);
		df->text = x;
		df->stale_at = -1;
	}
	x = df->text;
	if (df->stale_at < 0 && pos && pos < x->len && rbti_dump_changed(df)) {
		df->stale_at = pos;
		df->stale_nl = x->buf[pos - 1] != '\n';
	}
	if (df->stale_at >= 0 && pos >= df->stale_at) {
		stale = "\n" RBTI_STALE + !df->stale_nl;
		*ppos -= df->stale_at;
		ret = simple_read_from_buffer(ubuf, count, ppos, stale,
					      strlen(stale));
		*ppos += df->stale_at;
		goto unlock;
	}
	ret = 0;
	if (pos >= x->len)
		goto unlock;
	n = min_t(size_t, count, x->len - pos);
	if (n < x->len - pos) {
		/* The last newline within reach, if any: whole lines only. */
		for (i = n; i && x->buf[pos + i - 1] != '\n'; i--)
			;
		if (i)
			n = i;
	}
	ret = simple_read_from_buffer(ubuf, n, ppos, x->buf, pos + n);
unlock:
	mutex_unlock(&df->lock);
	return ret;
}

const struct file_operations rbti_dump_fops = {
	.owner = THIS_MODULE,
	.open = rbti_dump_open,
	.read = rbti_dump_read,
	.llseek = default_llseek,
	.release = rbti_dump_release,
};
