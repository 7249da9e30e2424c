/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rbtree_inspector: the types shared by the debugfs front end and the trees.
 *
 * Each tree is one struct rbti_tree driven through a struct rbti_tree_ops
 * that the code using one rbtree API fills in (tree_*.c); the front end
 * (inspector*.c) does parsing, locking, errnos, dump and check once, over
 * that table, the way the VFS drives filesystems through file_operations.
 */
#ifndef _RBTREE_INSPECTOR_H
#define _RBTREE_INSPECTOR_H

#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rbtree_latch.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/types.h>

/**
 * struct rbti_node - a node of any inspected tree
 * @rb: the tree linkage (of copy 0 on a latch tree)
 * @lt: a latch tree's two linkages; lt.node[0] is @rb
 * @key: the sort key (an interval's START)
 * @value: the second value of an %RBTI_VALUE tree (an interval's LAST)
 * @max: the max augment (%RBTI_AUG_MAX): the greatest @value in the
 *	subtree, the interval tree's __subtree_last
 * @id: unique for the module's lifetime, never reused
 * @size: augmented value (nodes in this subtree), maintained only by trees
 *	with %RBTI_AUGMENTED and the %RBTI_AUG_SIZE rule
 * @list: on rbti_tree.all from allocation until it is unlinked, whatever
 *	the tree links say, so that teardown never follows a link
 * @rcu: once off the list, a node of a tree that lockless readers may
 *	still be walking waits here for its grace period (rbti_node_retire())
 * @mark: the rbti_walk.mark of the last walk that reached it
 */
struct rbti_node {
	union {
		struct rb_node rb;
		struct latch_tree_node lt;
	};
	s64 key;
	s64 value;
	s64 max;
	u64 id;
	unsigned long size;
	union {
		struct list_head list;
		struct rcu_head rcu;
	};
	u64 mark;
};

/* Tree properties; names and order as in DEBUGFS.md's `trees` file. */
#define RBTI_UNIQUE	BIT(0)	/* an insert of a present key fails */
#define RBTI_DUP	BIT(1)	/* equal keys kept, a new one goes last */
#define RBTI_REPLACE	BIT(2)	/* an insert of a present key replaces it */
#define RBTI_LEFTMOST	BIT(3)	/* caches the first node */
#define RBTI_RIGHTMOST	BIT(4)	/* caches the last node */
#define RBTI_COUNT	BIT(5)	/* caches the number of nodes */
#define RBTI_AUGMENTED	BIT(6)	/* rbti_node.size is maintained */
#define RBTI_OUTOFLINE	BIT(7)	/* operations are out-of-line calls */
#define RBTI_VALUE	BIT(8)	/* nodes carry rbti_node.value */
#define RBTI_INTERVAL	BIT(9)	/* nodes are intervals [key, value] */
#define RBTI_LATCH	BIT(10)	/* two copies: rbti_tree.latch */
#define RBTI_LOCKLESS	BIT(11)	/* lookups run under a seqcount, lockless */
#define RBTI_NR_FLAGS	12

/*
 * Links: what a `corrupt` command breaks (inspector_corrupt.c), and what a
 * tree's queries follow besides child links (rbti_tree_ops.follows). A
 * query runs after a corruption only if it follows none of the links that
 * corruption broke; child links it always follows. A search that takes an
 * augmented value for proof that a child exists follows augmented values
 * (and the VALUEs they summarise) as it follows links.
 */
#define RBTI_LINK_CHILD		BIT(0)	/* child links: the tree's shape */
#define RBTI_LINK_PARENT	BIT(1)	/* parent pointers */
#define RBTI_LINK_CACHE		BIT(2)	/* leftmost and rightmost caches */
#define RBTI_LINK_AUG		BIT(3)	/* augmented values, VALUEs under them */

/**
 * rbti_lockless() - whether a tree's `find` runs without the tree's lock
 * @flags: the tree's %RBTI_* flags
 *
 * Return: true for %RBTI_LATCH and %RBTI_LOCKLESS trees, whose APIs have
 * lookups for readers under rcu_read_lock() only.
 */
static inline bool rbti_lockless(unsigned int flags)
{
	return flags & (RBTI_LATCH | RBTI_LOCKLESS);
}

static_assert(offsetof(struct rbti_node, rb) ==
	      offsetof(struct rbti_node, lt.node[0]));

/* The augment rule of an %RBTI_AUGMENTED tree, as the dump's `aug` names it. */
enum rbti_aug {
	RBTI_AUG_SIZE,	/* size: nodes in the subtree */
	RBTI_AUG_MAX,	/* max (interval-last): greatest value in the subtree */
};

struct rbti_tree;

/**
 * struct rbti_result - a query's answer, kept after the node is gone
 * @valid: a query succeeded
 * @id: the node's id
 * @key: the node's key
 * @value: the node's value, on an %RBTI_VALUE tree
 */
struct rbti_result {
	bool valid;
	u64 id;
	s64 key;
	s64 value;
};

/**
 * struct rbti_stress_ops - a private tree of one lockless API, for `stress`
 * @create: a new empty tree, or NULL (no memory)
 * @destroy: free the tree and every node in it; no thread uses it any more
 * @insert: add a node with @key (absent), under the tree's writer lock;
 *	0 or -ENOMEM
 * @erase: remove the node with @key (present), under the writer lock; it
 *	is freed after an RCU grace period
 * @lookup: a lockless lookup of @key under rcu_read_lock(): 1 if found
 *	(its key in *@found), 0 if not, -EAGAIN if it retried more than
 *	%RBTI_STRESS_MAX_RETRY times in a row; *@retries is how many times
 *	it retried (latch: how far the latch sequence moved meanwhile)
 */
struct rbti_stress_ops {
	void *(*create)(void);
	void (*destroy)(void *tree);
	int (*insert)(void *tree, s64 key);
	void (*erase)(void *tree, s64 key);
	int (*lookup)(void *tree, s64 key, s64 *found, unsigned long *retries);
};

#define RBTI_STRESS_MAX_RETRY	1000000

/**
 * rbti_cmp_keys() - three-way comparison of two keys, without overflow
 * @a: left key
 * @b: right key
 *
 * Return: <0, 0 or >0 as @a is less than, equal to or greater than @b.
 */
static inline int rbti_cmp_keys(s64 a, s64 b)
{
	return (a > b) - (a < b);
}

/**
 * struct rbti_tree_ops - one tree, as implemented with one rbtree API
 * @name: the tree's debugfs directory name
 * @api: "overstreet", "santos", "mainline", "interval" or "latch"
 * @flags: %RBTI_* properties; %RBTI_LEFTMOST, %RBTI_RIGHTMOST and
 *	%RBTI_COUNT say that the API keeps rbti_tree.leftmost, .rightmost and
 *	.count up to date
 * @aug: the augment rule, if @flags has %RBTI_AUGMENTED
 * @value_name: what rbti_node.value is called in the dump, if @flags has
 *	%RBTI_VALUE
 * @insert: link @n, whose key and id are set. Returns 0 if @n was
 *	inserted, or -EEXIST if the tree is unique and the key present (tree
 *	unchanged). On an %RBTI_REPLACE tree @n takes the place of the equal
 *	node, which is returned in *@replaced for the caller to free;
 *	*@replaced is NULL otherwise.
 * @follows: the links (%RBTI_LINK_*) that @find, @near and @overlap follow
 *	besides child links; after a corruption that breaks one of them they
 *	are refused (EUCLEAN), as they could loop or return garbage
 * @find: the first node in order whose key is @key, or NULL. It also runs
 *	on corrupted trees, unless @follows says otherwise.
 * @find_lockless: trees for which rbti_lockless() holds: @find as the
 *	API's readers run it, under rcu_read_lock() (the caller's) without
 *	the tree's lock, retrying while a writer ran; *@retries is how many
 *	times it retried. Bounded: it gives up (NULL) after
 *	%RBTI_STRESS_MAX_RETRY retries.
 * @near: the first node in order whose key is greater than @key, or NULL;
 *	child pointers only, as @find. NULL if the API has no such query.
 * @erase: unlink and return one node whose key is @key (the first in order
 *	among equal keys, or whichever the API's own search picks), or NULL.
 * @erase_interval: %RBTI_INTERVAL trees: as @erase, the first node in
 *	order whose key is @start and value @last
 * @insert_hint: as @insert, starting the search at @hint, a node linked in
 *	this tree; NULL if the API takes no hint
 * @near_hint: as @near, climbing from @hint, a node linked in this tree;
 *	NULL if the API takes no hint
 * @overlap: %RBTI_INTERVAL trees: the first node (@prev NULL) or the one
 *	after @prev that overlaps [@start, @last], in the API's order, or NULL
 * @unlatch: %RBTI_LATCH trees: unlink @n from copy 1 only (`corrupt latch`)
 * @stress: the lockless API's private trees for `stress`, or NULL
 *
 * All operations but @find_lockless are called with the tree's mutex held.
 * Every operation must use the API's own functions, since exercising them
 * is the point.
 */
struct rbti_tree_ops {
	const char *name;
	const char *api;
	unsigned int flags;
	enum rbti_aug aug;
	const char *value_name;
	unsigned int follows;
	int (*insert)(struct rbti_tree *t, struct rbti_node *n,
		      struct rbti_node **replaced);
	struct rbti_node *(*find)(struct rbti_tree *t, s64 key);
	struct rbti_node *(*find_lockless)(struct rbti_tree *t, s64 key,
					   unsigned long *retries);
	struct rbti_node *(*near)(struct rbti_tree *t, s64 key);
	struct rbti_node *(*erase)(struct rbti_tree *t, s64 key);
	struct rbti_node *(*erase_interval)(struct rbti_tree *t, s64 start,
					    s64 last);
	int (*insert_hint)(struct rbti_tree *t, struct rbti_node *n,
			   struct rbti_node *hint, struct rbti_node **replaced);
	struct rbti_node *(*near_hint)(struct rbti_tree *t, s64 key,
				       struct rbti_node *hint);
	struct rbti_node *(*overlap)(struct rbti_tree *t, s64 start, s64 last,
				     struct rbti_node *prev);
	void (*unlatch)(struct rbti_tree *t, struct rbti_node *n);
	const struct rbti_stress_ops *stress;
};

struct rbti_text;

/**
 * struct rbti_tree - one inspected tree and its debugfs state
 * @cached: @root and @leftmost as the struct rb_root_cached they are laid
 *	out as, for the APIs that keep the kernel's own leftmost cache
 * @root: the tree
 * @leftmost: first node, kept by the API if @ops has %RBTI_LEFTMOST
 * @rightmost: last node, kept by the API if @ops has %RBTI_RIGHTMOST
 * @count: number of nodes, kept by the API if @ops has %RBTI_COUNT
 * @latch: the two copies of an %RBTI_LATCH tree (@root is unused)
 * @seq: the write seqcount of an %RBTI_LOCKLESS tree, under @lock
 * @ops: the API binding
 * @lock: serialises everything below and every tree operation
 * @all: every node allocated for the tree, in allocation order
 * @nodes: the length of @all, which is also what max_nodes limits
 * @next_id: id for the next node inserted
 * @gen: bumped on every change, so that a dump can tell it went stale
 * @marks: the last rbti_walk.mark handed out
 * @corrupt: an invariant was broken on purpose: only read-only access
 * @broken: the links (%RBTI_LINK_*) a corruption broke: queries that
 *	follow one of them are refused; after a child link (shape) only
 *	dump, check, stats and clear run. Written under @lock, read by
 *	lockless finds with acquire semantics.
 * @gate: a `corrupt` of a lockless tree is waiting for the lockless
 *	finds in progress: new ones take @lock instead
 * @broken_node: the node whose links a `corrupt parent`, `detach`,
 *	`share` or `cycle` broke, until `corrupt erase` or `clear`: the
 *	one node `corrupt erase` may erase (NULL: none)
 * @inserts: nodes inserted (replacements included)
 * @erases: nodes erased
 * @qlock: protects @finds, @nears, @lockless_finds, @retries, @found and
 *	@near, which lockless finds update without @lock
 * @finds: find queries run
 * @nears: near queries run
 * @lockless_finds: finds run without @lock (rbti_tree_ops.find_lockless)
 * @retries: the retries of those finds, summed
 * @overlaps: overlap queries run
 * @stress_lock: held while a `stress` runs
 * @found: the result of the last successful find
 * @near: the result of the last successful near
 * @dump: the text of the dump of generation dump->gen, shared by readers
 * @dump_lines: node and lost lines written into dump texts, ever: what
 *	dumps cost, which `stats` shows so that a test can bound it
 *
 * The first four members are the container that Santos's
 * RB_DEFINE_INTERFACE() binds to; the other APIs use @root only.
 */
struct rbti_tree {
	/*
	 * The root and the leftmost cache, laid out as a struct rb_root_cached
	 * so that a tree whose API keeps the kernel's own cache (santos over
	 * an rb_root_cached root: rb_insert_color_cached(), rb_erase_cached())
	 * owns both, and the rest of the inspector reads them by name.
	 */
	union {
		struct rb_root_cached cached;
		struct {
			struct rb_root root;
			struct rb_node *leftmost;
		};
	};
	struct rb_node *rightmost;
	unsigned long count;
	struct latch_tree_root latch;

	const struct rbti_tree_ops *ops;
	struct mutex lock;	/* serialises all access to the tree */
	seqcount_mutex_t seq;
	struct list_head all;
	unsigned long nodes;
	u64 next_id;
	u64 gen;
	u64 marks;
	bool corrupt;
	unsigned int broken;
	bool gate;
	struct rbti_node *broken_node;
	u64 inserts, erases, overlaps;
	spinlock_t qlock;	/* protects the query counters and results */
	u64 finds, nears, lockless_finds, retries;
	struct mutex stress_lock;	/* one stress at a time */
	struct rbti_result found, near;
	struct rbti_text *dump;
	u64 dump_lines;
};

static_assert(offsetof(struct rbti_tree, root) ==
	      offsetof(struct rbti_tree, cached.rb_root));
static_assert(offsetof(struct rbti_tree, leftmost) ==
	      offsetof(struct rbti_tree, cached.rb_leftmost));

#define RBTI_MAX_DEPTH	128

/**
 * rbti_cond_resched() - let other tasks run every so many steps of a loop
 * @step: the loop's step count, from 1
 *
 * Every loop that may run over all nodes of a tree, or over all operations
 * of a 256 KiB write (up to 131072), calls this once a step. The tree lock
 * is a mutex, so the loop may sleep under it; without this a loop could
 * hold the CPU for seconds on a debug kernel (soft lockup).
 */
static inline void rbti_cond_resched(unsigned long step)
{
	if (!(step % 1024))
		cond_resched();
}

/* Where a walk is in its visit of the node on top of the stack. */
enum rbti_visit {
	RBTI_DONE,	/* no more nodes (or too deep: see rbti_walk.too_deep) */
	RBTI_PRE,	/* before its subtrees */
	RBTI_IN,	/* between them */
	RBTI_POST,	/* after them */
};

/**
 * struct rbti_frame - one node on the path of a &struct rbti_walk
 * @node: the node
 * @size: nodes in its subtree visited so far, itself included
 * @blacks: black nodes from the root down to it, itself included
 * @state: the next step of its visit
 */
struct rbti_frame {
	struct rb_node *node;
	unsigned long size;
	unsigned int blacks;
	unsigned int state;
};

/**
 * struct rbti_walk - a depth-first walk through child pointers only
 * @depth: number of nodes on @stack, i.e. the depth of the current node
 * @copy: the copy of a latch tree it walks (0 for any other tree)
 * @too_deep: the walk stopped at a node deeper than %RBTI_MAX_DEPTH
 * @mark: written to rbti_node.mark of every node the walk reaches
 * @reached: number of nodes reached
 * @bad_from: the node of the first link to an already reached node, or
 *	NULL; such a link is treated as NIL
 * @bad_to: the node that link points at
 * @bad_cycle: @bad_to was on the path to @bad_from (or is @bad_from)
 * @stack: the path from the root to the current node
 *
 * Parent pointers are never followed, and no node is entered twice, so a
 * walk ends on any tree whose child links point at its nodes: cycles and
 * shared children included. A walk runs to its end under the tree's lock
 * (the marks of two interleaved walks would mix).
 */
struct rbti_walk {
	unsigned int depth;
	unsigned int copy;
	bool too_deep;
	u64 mark;
	unsigned long reached;
	struct rb_node *bad_from, *bad_to;
	bool bad_cycle;
	struct rbti_frame stack[RBTI_MAX_DEPTH];
};

void rbti_walk_init(struct rbti_walk *w, struct rbti_tree *t);
void rbti_walk_init_copy(struct rbti_walk *w, struct rbti_tree *t,
			 unsigned int copy);
enum rbti_visit rbti_walk_step(struct rbti_walk *w);
struct rb_node *rbti_walk_next(struct rbti_walk *w);

/**
 * rbti_walk_node() - the node whose visit rbti_walk_step() just reported
 * @w: the walk, not done
 *
 * Return: the node on top of the walk's stack.
 */
static inline struct rb_node *rbti_walk_node(const struct rbti_walk *w)
{
	return w->stack[w->depth - 1].node;
}

/**
 * rbti_walk_parent() - the node that links to rbti_walk_node()
 * @w: the walk, not done
 *
 * Return: the node below the top of the walk's stack, NULL for the root.
 */
static inline struct rb_node *rbti_walk_parent(const struct rbti_walk *w)
{
	return w->depth > 1 ? w->stack[w->depth - 2].node : NULL;
}

/**
 * struct rbti_failure - the first invariant violation a check found
 * @class: the class name from DEBUGFS.md
 * @node: the node it is about, or NULL
 * @msg: what is wrong
 */
struct rbti_failure {
	const char *class;
	struct rb_node *node;
	char msg[96];
};

bool rbti_check(struct rbti_tree *t, struct rbti_walk *w,
		struct rbti_failure *fail);
unsigned int rbti_height(struct rbti_tree *t, struct rbti_walk *w);
unsigned int rbti_black_height(const struct rb_root *root);

/**
 * rbti_copy_entry() - the rbti_node of copy @copy's rb_node
 * @rb: an rb_node of copy @copy (copy 0: rbti_node.rb), not NULL
 * @copy: 0, or 1 for a latch tree's second copy
 *
 * Return: the node containing @rb.
 */
static inline struct rbti_node *rbti_copy_entry(const struct rb_node *rb,
						unsigned int copy)
{
	if (copy)
		return container_of((struct rb_node *)rb, struct rbti_node,
				    lt.node[1]);
	return container_of((struct rb_node *)rb, struct rbti_node, rb);
}

/**
 * rbti_reached() - whether the walk @w has reached node @rb
 * @w: the walk
 * @rb: a node of its tree
 *
 * Return: true if @w reached @rb.
 */
static inline bool rbti_reached(const struct rbti_walk *w,
				const struct rb_node *rb)
{
	return rbti_copy_entry(rb, w->copy)->mark == w->mark;
}

/**
 * rbti_entry() - the rbti_node of an rb_node, NULL-safe
 * @rb: the rb_node, or NULL
 *
 * Return: the node containing @rb, or NULL if @rb is NULL.
 */
static inline struct rbti_node *rbti_entry(struct rb_node *rb)
{
	return rb ? rb_entry(rb, struct rbti_node, rb) : NULL;
}

extern const struct rbti_tree_ops rbti_overstreet_ops;
extern const struct rbti_tree_ops rbti_overstreet_dup_ops;
extern const struct rbti_tree_ops rbti_santos_ops;
extern const struct rbti_tree_ops rbti_santos_dup_ops;
extern const struct rbti_tree_ops rbti_santos_aug_ops;
extern const struct rbti_tree_ops rbti_santos_replace_ops;
extern const struct rbti_tree_ops rbti_mainline_ops;
extern const struct rbti_tree_ops rbti_mainline_cached_ops;
extern const struct rbti_tree_ops rbti_mainline_aug_ops;
extern const struct rbti_tree_ops rbti_interval_ops;
extern const struct rbti_tree_ops rbti_latch_ops;
extern const struct rbti_tree_ops rbti_mainline_rcu_ops;

/**
 * rbti_root() - the root of a tree, or of one copy of a latch tree
 * @t: the tree
 * @copy: 0, or 1 for a latch tree's second copy
 *
 * Return: rbti_tree.root, or the latch tree's root of copy @copy.
 */
static inline struct rb_root *rbti_root(struct rbti_tree *t, unsigned int copy)
{
	return t->ops->flags & RBTI_LATCH ? &t->latch.tree[copy] : &t->root;
}

/**
 * rbti_count() - the count a tree reports
 * @t: the tree, locked
 *
 * Return: the API's cached count if the tree has %RBTI_COUNT, else the
 * number of nodes allocated for it.
 */
static inline unsigned long rbti_count(const struct rbti_tree *t)
{
	return t->ops->flags & RBTI_COUNT ? t->count : t->nodes;
}

/* The names of the RBTI_* flags by bit, as DEBUGFS.md spells them. */
extern const char *const rbti_flag_names[RBTI_NR_FLAGS];

/* The `dump` file of a tree (inspector_dump.c); i_private is the tree. */
extern const struct file_operations rbti_dump_fops;

#endif /* _RBTREE_INSPECTOR_H */
