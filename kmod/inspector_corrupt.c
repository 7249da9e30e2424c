// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the `corrupt` file. Each command breaks one invariant
 * class on purpose (DEBUGFS.md, "`corrupt` commands"), so that the
 * checkers can be shown to catch it; the tree is then read-only until
 * `clear`.
 */
#include <linux/module.h>
#include <linux/rbtree_augmented.h>
#include <linux/rcupdate.h>

#include "inspector_fe.h"

static bool allow_corrupt;
module_param(allow_corrupt, bool, 0600);
MODULE_PARM_DESC(allow_corrupt, "allow the corrupt files to break trees (default 0)");

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

/* An interval keeps its LAST: START may not pass it. */
static int rbti_break_key(struct rbti_tree *t, struct rbti_node *n, s64 key)
{
	if ((t->ops->flags & RBTI_INTERVAL) && key > n->value)
		return -EINVAL;
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
	struct rb_node *root = rbti_root(t, 0)->rb_node;

	return rbti_break_cache(&t->leftmost, root, root ? root->rb_right : NULL);
}

static int rbti_break_rightmost(struct rbti_tree *t, struct rbti_node *n,
				s64 arg)
{
	struct rb_node *root = rbti_root(t, 0)->rb_node;

	return rbti_break_cache(&t->rightmost, root, root ? root->rb_left : NULL);
}

static int rbti_break_count(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	t->count++;
	return 0;
}

static int rbti_break_aug(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	if (t->ops->aug == RBTI_AUG_SIZE)
		n->size++;
	else if (n->max < S64_MAX)
		n->max++;
	else
		return -EINVAL;
	return 0;
}

/* The node's value passes its augment, which stays as it was. */
static int rbti_break_value(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	if (t->ops->aug != RBTI_AUG_MAX || n->max == S64_MAX)
		return -EINVAL;
	n->value = n->max + 1;
	return 0;
}

/* The node leaves copy 1 of a latch tree, and stays in copy 0. */
static int rbti_break_latch(struct rbti_tree *t, struct rbti_node *n, s64 arg)
{
	t->ops->unlatch(t, n);
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
 * @breaks: the links it breaks (%RBTI_LINK_*): a query that follows one
 *	of them may not run afterwards (rbti_queries_safe())
 * @apply: break the tree (the node with the first key, if @nargs > 0;
 *	the second key, if @nargs > 1), or -EINVAL if it does not apply
 */
struct rbti_corruption {
	const char *name;
	unsigned int nargs;
	unsigned int needs;
	unsigned int breaks;
	int (*apply)(struct rbti_tree *t, struct rbti_node *n, s64 arg);
};

static const struct rbti_corruption rbti_corruptions[] = {
	{ "color",	1, 0,		0,	rbti_break_color },
	{ "black",	1, 0,		0,	rbti_break_black },
	{ "key",	2, 0,		0,	rbti_break_key },
	{ "parent",	1, 0,		RBTI_LINK_PARENT, rbti_break_parent },
	{ "leftmost",	0, RBTI_LEFTMOST, RBTI_LINK_CACHE, rbti_break_leftmost },
	{ "rightmost",	0, RBTI_RIGHTMOST, RBTI_LINK_CACHE, rbti_break_rightmost },
	{ "count",	0, RBTI_COUNT,	0,	rbti_break_count },
	{ "aug",	1, RBTI_AUGMENTED, RBTI_LINK_AUG, rbti_break_aug },
	{ "value",	1, RBTI_VALUE,	RBTI_LINK_AUG, rbti_break_value },
	{ "latch",	1, RBTI_LATCH,	0,	rbti_break_latch },
	{ "detach",	1, 0,		RBTI_LINK_CHILD, rbti_break_detach },
	{ "share",	1, 0,		RBTI_LINK_CHILD, rbti_break_share },
	{ "cycle",	1, 0,		RBTI_LINK_CHILD, rbti_break_cycle },
};

/*
 * Lockless finds of @t may be walking it: new ones take the lock (held)
 * instead, and a grace period waits out the others, so that none runs
 * while a link or a key changes under it.
 */
static void rbti_gate_close(struct rbti_tree *t)
{
	if (rbti_lockless(t->ops->flags)) {
		WRITE_ONCE(t->gate, true);
		synchronize_rcu();
	}
}

static void rbti_gate_open(struct rbti_tree *t)
{
	/* A lockless find that sees the gate open sees the change. */
	smp_store_release(&t->gate, false);
}

/*
 * `corrupt erase`: the write that CONFIG_DEBUG_RBTREE is there to catch.
 * rb_erase() of the node a link corruption broke, from the root (the copy,
 * on a latch tree) it was broken in: its checks must find the broken link
 * before rebalancing follows it, report it naming the node, and leave the
 * tree as it was. Without them the erase would follow the broken links,
 * so the command exists only on kernels with DEBUG_RBTREE. Once a
 * corruption; the node stays on the tree's list, which `clear` frees.
 */
static int rbti_corrupt_erase(struct rbti_tree *t, char *buf)
{
	struct rbti_node *n;
	int ret = -ENOENT;

	if (rbti_token(&buf))
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_DEBUG_RBTREE))
		return -EOPNOTSUPP;
	mutex_lock(&t->lock);
	n = t->broken_node;
	if (n) {
		rbti_gate_close(t);
		rb_erase(&n->rb, rbti_root(t, 0));
		t->broken_node = NULL;
		t->gen++;
		rbti_gate_open(t);
		ret = 0;
	}
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * `corrupt reinsert KEY`: a second insert of the node with KEY, the other
 * write CONFIG_DEBUG_RBTREE must refuse.  An open-coded descent by key,
 * an equal key to the right as rb_add() puts it, into the root (a latch
 * tree's copy 0), then rb_link_node() and rb_insert_color(): the descent
 * ends at the node's own empty right slot, or in its right subtree, so the
 * node is the parent-to-be or one of its ancestors.  DEBUG_RBTREE must
 * report it and write nothing; without it the link would corrupt the
 * tree, so the command exists only on kernels with DEBUG_RBTREE.  A key
 * present more than once is EINVAL: its node may be off the descent's
 * path.  Should the link be made after all, the tree is left corrupt and
 * not coloured.
 */
static int rbti_corrupt_reinsert(struct rbti_tree *t, char *buf)
{
	struct rb_node **link, *parent = NULL, *prev, *next;
	struct rb_root *root;
	struct rbti_node *n;
	s64 key;
	int ret;

	if (rbti_parse_args(buf, &key, 1))
		return -EINVAL;
	if (!IS_ENABLED(CONFIG_DEBUG_RBTREE))
		return -EOPNOTSUPP;
	mutex_lock(&t->lock);
	ret = -EUCLEAN;
	if (t->corrupt)
		goto unlock;
	n = t->ops->find(t, key);
	ret = -ENOENT;
	if (!n)
		goto unlock;
	prev = rb_prev(&n->rb);
	next = rb_next(&n->rb);
	ret = -EINVAL;
	if ((prev && rb_entry(prev, struct rbti_node, rb)->key == key) ||
	    (next && rb_entry(next, struct rbti_node, rb)->key == key))
		goto unlock;
	root = rbti_root(t, 0);
	rbti_gate_close(t);
	link = &root->rb_node;
	while (*link) {
		parent = *link;
		link = key < rb_entry(parent, struct rbti_node, rb)->key ?
		       &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&n->rb, parent, link);
	if (*link == &n->rb) {
		t->corrupt = true;
		/* Ordered after the link, for rbti_queries_safe(). */
		smp_store_release(&t->broken, RBTI_LINK_CHILD);
	} else {
		rb_insert_color(&n->rb, root);
	}
	t->gen++;
	rbti_gate_open(t);
	ret = 0;
unlock:
	mutex_unlock(&t->lock);
	return ret;
}

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
	if (cmd && !strcmp(cmd, "erase"))
		return rbti_corrupt_erase(t, buf);
	if (cmd && !strcmp(cmd, "reinsert"))
		return rbti_corrupt_reinsert(t, buf);
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
	rbti_gate_close(t);
	ret = c->apply(t, n, args[1]);
	if (!ret) {
		t->corrupt = true;
		/* Ordered after the change, for rbti_queries_safe(). */
		smp_store_release(&t->broken, c->breaks);
		if (c->breaks & (RBTI_LINK_CHILD | RBTI_LINK_PARENT))
			t->broken_node = n;
		t->gen++;
	}
	rbti_gate_open(t);
unlock:
	mutex_unlock(&t->lock);
	return ret;
}

RBTI_WRITE_FOPS(corrupt);
