// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the kernel's red-black tree library: <linux/rbtree.h>,
 * <linux/rbtree_augmented.h>, <linux/interval_tree_generic.h> and
 * <linux/rbtree_latch.h>.  One behaviour a case, after lib/list-test.c.
 * After every operation the tree is checked as lib/rbtree_test.c checks
 * its own (order, colours, black height, parent links, augmented values);
 * interval queries are compared, node by node, with a scan of every
 * interval, and a latch tree is searched in both copies.  The timing
 * loops stay in lib/rbtree_test.c and lib/interval_tree_test.c.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/interval_tree_generic.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/rbtree_augmented.h>
#include <linux/rbtree_latch.h>

#include "compat.h"

#define RBK_N 64
#define RBK_SEED 3141592653ULL

struct rbk_node {
	struct rb_node rb;
	u32 key;
	u32 val;
	u32 max;	/* the largest val in the subtree (augmented) */
	u32 start, last, subtree_last;	/* an interval and its augment */
	struct latch_tree_node lt;
};

#define RBK_VAL(n) ((n)->val)
RB_DECLARE_CALLBACKS_MAX(static, rbk_max_cb, struct rbk_node, rb, u32, max, RBK_VAL)

#define RBK_START(n) ((n)->start)
#define RBK_LAST(n) ((n)->last)
INTERVAL_TREE_DEFINE(struct rbk_node, rb, u32, subtree_last, RBK_START, RBK_LAST,
		     static, rbk_itv)

static struct rbk_node *rbk_of(const struct rb_node *rb)
{
	return rb_entry(rb, struct rbk_node, rb);
}

/* N nodes with pseudo-random keys in 0..RBK_N * 4 (some equal) and vals. */
static struct rbk_node *rbk_nodes(struct kunit *test, unsigned int n)
{
	struct rbk_node *nodes = kunit_kcalloc(test, n, sizeof(*nodes), GFP_KERNEL);
	struct rnd_state rnd;
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nodes);
	prandom_seed_state(&rnd, RBK_SEED);
	for (i = 0; i < n; i++) {
		nodes[i].key = prandom_u32_state(&rnd) % (RBK_N * 4);
		nodes[i].val = prandom_u32_state(&rnd) % 1000;
		nodes[i].start = prandom_u32_state(&rnd) % 1000;
		nodes[i].last = nodes[i].start + prandom_u32_state(&rnd) % 100;
		RB_CLEAR_NODE(&nodes[i].rb);
	}
	return nodes;
}

static bool rbk_less(struct rb_node *a, const struct rb_node *b)
{
	return rbk_of(a)->key < rbk_of(b)->key;
}

static int rbk_cmp(const void *key, const struct rb_node *b)
{
	u32 k = *(const u32 *)key;

	return k < rbk_of(b)->key ? -1 : k > rbk_of(b)->key;
}

static int rbk_node_cmp(struct rb_node *a, const struct rb_node *b)
{
	return rbk_cmp(&rbk_of(a)->key, b);
}

/* Black nodes from @rb up to the root, @rb included. */
static unsigned int rbk_black_path(const struct rb_node *rb)
{
	unsigned int count = 0;

	for (; rb; rb = rb_parent(rb))
		count += rb_is_black(rb);
	return count;
}

/* What rbk_check() counts: every field must stay 0 but nodes. */
struct rbk_faults {
	unsigned int nodes, order, red_red, black_height, links, augment;
};

/* lib/rbtree_test.c's check() and check_augmented(), as counts. */
static struct rbk_faults rbk_walk(const struct rb_root *root, bool augmented)
{
	struct rbk_faults f = {};
	const struct rb_node *rb;
	unsigned int blacks = 0;
	u32 prev = 0;

	if (root->rb_node && (rb_parent(root->rb_node) || rb_is_red(root->rb_node)))
		f.links++;
	for (rb = rb_first(root); rb; rb = rb_next(rb)) {
		const struct rbk_node *n = rbk_of(rb);

		if (f.nodes && n->key < prev)
			f.order++;
		if (rb_is_red(rb) && rb_parent(rb) && rb_is_red(rb_parent(rb)))
			f.red_red++;
		if (!rb->rb_left || !rb->rb_right) {
			if (!blacks)
				blacks = rbk_black_path(rb);
			else if (rbk_black_path(rb) != blacks)
				f.black_height++;
		}
		if ((rb->rb_left && rb_parent(rb->rb_left) != rb) ||
		    (rb->rb_right && rb_parent(rb->rb_right) != rb))
			f.links++;
		/* compute_max(, true): true when max is already right. */
		if (augmented && !rbk_max_cb_compute_max((struct rbk_node *)n, true))
			f.augment++;
		prev = n->key;
		if (++f.nodes > RBK_N * 2)
			break;	/* a cycle: stop, the count is wrong anyway */
	}
	return f;
}

static void rbk_check(struct kunit *test, const struct rb_root *root,
		      unsigned int nodes, bool augmented)
{
	struct rbk_faults f = rbk_walk(root, augmented);

	KUNIT_EXPECT_EQ(test, f.nodes, nodes);
	KUNIT_EXPECT_EQ(test, f.order, 0);
	KUNIT_EXPECT_EQ(test, f.red_red, 0);
	KUNIT_EXPECT_EQ(test, f.black_height, 0);
	KUNIT_EXPECT_EQ(test, f.links, 0);
	KUNIT_EXPECT_EQ(test, f.augment, 0);
}

/* A tree of @n nodes inserted with rb_add(). */
static struct rbk_node *rbk_tree(struct kunit *test, struct rb_root *root, unsigned int n)
{
	struct rbk_node *nodes = rbk_nodes(test, n);
	unsigned int i;

	*root = RB_ROOT;
	for (i = 0; i < n; i++)
		rb_add(&nodes[i].rb, root, rbk_less);
	return nodes;
}

static void rbk_test_empty(struct kunit *test)
{
	struct rb_root root = RB_ROOT;
	struct rb_node node;

	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&root));
	KUNIT_EXPECT_PTR_EQ(test, rb_first(&root), NULL);
	KUNIT_EXPECT_PTR_EQ(test, rb_last(&root), NULL);
	KUNIT_EXPECT_PTR_EQ(test, rb_first_postorder(&root), NULL);
	RB_CLEAR_NODE(&node);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_NODE(&node));
	KUNIT_EXPECT_PTR_EQ(test, rb_next(&node), NULL);
	KUNIT_EXPECT_PTR_EQ(test, rb_prev(&node), NULL);
}

static void rbk_test_insert(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root root = RB_ROOT;
	unsigned int i;

	for (i = 0; i < RBK_N; i++) {
		rb_add(&nodes[i].rb, &root, rbk_less);
		rbk_check(test, &root, i + 1, false);
	}
	KUNIT_EXPECT_FALSE(test, RB_EMPTY_ROOT(&root));
}

static void rbk_test_erase(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	unsigned int i;

	/* 7 and RBK_N are coprime: every node once, in a scattered order. */
	for (i = 0; i < RBK_N; i++) {
		rb_erase(&nodes[(i * 7) % RBK_N].rb, &root);
		rbk_check(test, &root, RBK_N - 1 - i, false);
	}
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&root));
}

static void rbk_test_walk(struct kunit *test)
{
	struct rb_root root;
	struct rb_node *rb;
	unsigned int forward = 0, backward = 0;

	rbk_tree(test, &root, RBK_N);
	for (rb = rb_first(&root); rb; rb = rb_next(rb))
		forward++;
	for (rb = rb_last(&root); rb; rb = rb_prev(rb)) {
		if (rb_prev(rb))
			KUNIT_EXPECT_LE(test, rbk_of(rb_prev(rb))->key, rbk_of(rb)->key);
		backward++;
	}
	KUNIT_EXPECT_EQ(test, forward, RBK_N);
	KUNIT_EXPECT_EQ(test, backward, RBK_N);
}

static void rbk_test_postorder(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N), *pos, *n;
	struct rb_node *rb;
	unsigned int visited = 0, early = 0, i;

	for (i = 0; i < RBK_N; i++)
		nodes[i].val = 0;
	/* Each node after its children: mark it, check the children are. */
	for (rb = rb_first_postorder(&root); rb; rb = rb_next_postorder(rb)) {
		if ((rb->rb_left && !rbk_of(rb->rb_left)->val) ||
		    (rb->rb_right && !rbk_of(rb->rb_right)->val))
			early++;
		rbk_of(rb)->val = 1;
		visited++;
	}
	KUNIT_EXPECT_EQ(test, visited, RBK_N);
	KUNIT_EXPECT_EQ(test, early, 0);
	visited = 0;
	rbtree_postorder_for_each_entry_safe(pos, n, &root, rb)
		visited++;
	KUNIT_EXPECT_EQ(test, visited, RBK_N);
}

static void rbk_test_find(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rb_node *rb;
	unsigned int i, j, equal, matched;
	u32 absent = RBK_N * 4;

	for (i = 0; i < RBK_N; i++) {
		rb = rb_find(&nodes[i].key, &root, rbk_cmp);
		KUNIT_ASSERT_NOT_NULL(test, rb);
		KUNIT_EXPECT_EQ(test, rbk_of(rb)->key, nodes[i].key);
		/* rb_find_first(): the first inserted of equal keys. */
		for (j = 0; nodes[j].key != nodes[i].key; j++)
			;
		KUNIT_EXPECT_PTR_EQ(test, rb_find_first(&nodes[i].key, &root, rbk_cmp),
				    &nodes[j].rb);
		for (equal = 0, j = 0; j < RBK_N; j++)
			equal += nodes[j].key == nodes[i].key;
		matched = 0;
		rb_for_each(rb, &nodes[i].key, &root, rbk_cmp)
			matched++;
		KUNIT_EXPECT_EQ(test, matched, equal);
	}
	KUNIT_EXPECT_PTR_EQ(test, rb_find(&absent, &root, rbk_cmp), NULL);
	KUNIT_EXPECT_PTR_EQ(test, rb_find_first(&absent, &root, rbk_cmp), NULL);
}

/* rb_find_add(): the unique insert; an equal key is returned, not added. */
static void rbk_test_find_add(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root root = RB_ROOT;
	unsigned int i, j, added = 0;
	struct rb_node *found;

	for (i = 0; i < RBK_N; i++) {
		found = rb_find_add(&nodes[i].rb, &root, rbk_node_cmp);
		for (j = 0; nodes[j].key != nodes[i].key; j++)
			;
		KUNIT_EXPECT_PTR_EQ(test, found, j == i ? NULL : &nodes[j].rb);
		added += !found;
		rbk_check(test, &root, added, false);
	}
	KUNIT_EXPECT_LT(test, added, RBK_N);	/* the keys repeat */
}

/* How many times an in-order walk of @root meets @node. */
static unsigned int rbk_reachable(const struct rb_root *root, const struct rb_node *node)
{
	const struct rb_node *rb;
	unsigned int met = 0;

	for (rb = rb_first(root); rb; rb = rb_next(rb))
		met += rb == node;
	return met;
}

/* rb_replace_node() and rb_replace_node_rcu(): same place, old one gone. */
static void rbk_test_replace(struct kunit *test)
{
	struct rb_root root;
	struct rbk_node *nodes = rbk_tree(test, &root, RBK_N);
	struct rbk_node *new = rbk_nodes(test, 1), *old = &nodes[RBK_N / 2];

	new->key = old->key;
	rb_replace_node(&old->rb, &new->rb, &root);
	rbk_check(test, &root, RBK_N, false);
	KUNIT_EXPECT_EQ(test, rbk_reachable(&root, &old->rb), 0);
	KUNIT_EXPECT_EQ(test, rbk_reachable(&root, &new->rb), 1);
	old = &nodes[RBK_N / 4];
	new = rbk_nodes(test, 1);
	new->key = old->key;
	rb_replace_node_rcu(&old->rb, &new->rb, &root);
	rbk_check(test, &root, RBK_N, false);
	KUNIT_EXPECT_EQ(test, rbk_reachable(&root, &old->rb), 0);
	KUNIT_EXPECT_EQ(test, rbk_reachable(&root, &new->rb), 1);
}

static void rbk_test_cached(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct rb_node *leftmost, *next;
	unsigned int i;
	u32 min = U32_MAX;

	for (i = 0; i < RBK_N; i++) {
		leftmost = rb_add_cached(&nodes[i].rb, &root, rbk_less);
		/* Equal keys go right: only a smaller key is a new leftmost. */
		KUNIT_EXPECT_PTR_EQ(test, leftmost, nodes[i].key < min ? &nodes[i].rb : NULL);
		min = min_t(u32, min, nodes[i].key);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), rb_first(&root.rb_root));
	}
	rbk_check(test, &root.rb_root, RBK_N, false);
	for (i = 0; i < RBK_N; i++) {
		struct rb_node *victim = &nodes[(i * 7) % RBK_N].rb;
		bool was_first = victim == rb_first_cached(&root);

		next = rb_next(victim);
		leftmost = rb_erase_cached(victim, &root);
		KUNIT_EXPECT_PTR_EQ(test, leftmost, was_first ? next : NULL);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), rb_first(&root.rb_root));
		rbk_check(test, &root.rb_root, RBK_N - 1 - i, false);
	}
}

/* RB_DECLARE_CALLBACKS_MAX: insert and erase keep every subtree's max. */
static void rbk_test_augmented_max(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root root = RB_ROOT;
	unsigned int i;

	for (i = 0; i < RBK_N; i++) {
		struct rb_node **link = &root.rb_node, *parent = NULL;
		struct rbk_node *n = &nodes[i];

		n->max = n->val;
		while (*link) {
			parent = *link;
			if (rbk_of(parent)->max < n->val)
				rbk_of(parent)->max = n->val;
			link = n->key < rbk_of(parent)->key ? &parent->rb_left : &parent->rb_right;
		}
		rb_link_node(&n->rb, parent, link);
		rb_insert_augmented(&n->rb, &root, &rbk_max_cb);
		rbk_check(test, &root, i + 1, true);
	}
	for (i = 0; i < RBK_N; i++) {
		rb_erase_augmented(&nodes[(i * 7) % RBK_N].rb, &root, &rbk_max_cb);
		rbk_check(test, &root, RBK_N - 1 - i, true);
	}
}

/* rb_add_augmented_cached() (6.6): leftmost and max, as for EEVDF. */
static void rbk_test_add_augmented_cached(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root_cached root = RB_ROOT_CACHED;
	struct rb_node *leftmost;
	unsigned int i;
	u32 min = U32_MAX;

	for (i = 0; i < RBK_N; i++) {
		nodes[i].max = nodes[i].val;
		leftmost = rb_add_augmented_cached(&nodes[i].rb, &root, rbk_less, &rbk_max_cb);
		KUNIT_EXPECT_PTR_EQ(test, leftmost, nodes[i].key < min ? &nodes[i].rb : NULL);
		min = min_t(u32, min, nodes[i].key);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), rb_first(&root.rb_root));
		rbk_check(test, &root.rb_root, i + 1, true);
	}
	for (i = 0; i < RBK_N; i++) {
		rb_erase_augmented_cached(&nodes[(i * 7) % RBK_N].rb, &root, &rbk_max_cb);
		KUNIT_EXPECT_PTR_EQ(test, rb_first_cached(&root), rb_first(&root.rb_root));
		rbk_check(test, &root.rb_root, RBK_N - 1 - i, true);
	}
}

/* The intervals of @nodes[0..n) that overlap [start, last], by scanning. */
static unsigned int rbk_overlaps(const struct rbk_node *nodes, unsigned int n,
				 u32 start, u32 last)
{
	unsigned int i, count = 0;

	for (i = 0; i < n; i++)
		count += nodes[i].start <= last && start <= nodes[i].last;
	return count;
}

/*
 * Does [start, last] return exactly the intervals of @nodes[from..RBK_N)
 * that overlap it, each once?
 */
static bool rbk_itv_query_ok(struct rb_root_cached *root, struct rbk_node *nodes,
			     unsigned int from, u32 start, u32 last)
{
	DECLARE_BITMAP(seen, RBK_N);
	struct rbk_node *n;
	unsigned int count = 0;

	bitmap_zero(seen, RBK_N);
	for (n = rbk_itv_iter_first(root, start, last); n;
	     n = rbk_itv_iter_next(n, start, last)) {
		if (n < nodes + from || n >= nodes + RBK_N ||
		    test_and_set_bit(n - nodes, seen) ||
		    n->start > last || start > n->last)
			return false;
		count++;
	}
	return count == rbk_overlaps(nodes + from, RBK_N - from, start, last);
}

/* lib/interval_tree_test.c's queries, each checked against a scan. */
static void rbk_test_interval(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root_cached root = RB_ROOT_CACHED;
	unsigned int i, q, wrong = 0, stale = 0;
	struct rb_node *rb;

	for (i = 0; i < RBK_N; i++)
		rbk_itv_insert(&nodes[i], &root);
	for (i = 0; i <= RBK_N; i++) {
		for (q = 0; q < 1100; q += 37)
			wrong += !rbk_itv_query_ok(&root, nodes, i, q, q + q % 50);
		for (rb = rb_first(&root.rb_root); rb; rb = rb_next(rb)) {
			struct rbk_node *n = rbk_of(rb), *l, *r;
			u32 max = n->last;

			l = rb->rb_left ? rbk_of(rb->rb_left) : NULL;
			r = rb->rb_right ? rbk_of(rb->rb_right) : NULL;
			if (l && l->subtree_last > max)
				max = l->subtree_last;
			if (r && r->subtree_last > max)
				max = r->subtree_last;
			stale += n->subtree_last != max;
		}
		if (i < RBK_N)
			rbk_itv_remove(&nodes[i], &root);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_EQ(test, stale, 0);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&root.rb_root));
}

static struct rbk_node *rbk_of_latch(struct latch_tree_node *lt)
{
	return container_of(lt, struct rbk_node, lt);
}

static bool rbk_latch_less(struct latch_tree_node *a, struct latch_tree_node *b)
{
	return rbk_of_latch(a)->key < rbk_of_latch(b)->key;
}

static int rbk_latch_comp(void *key, struct latch_tree_node *b)
{
	return rbk_cmp(key, &rbk_of_latch(b)->rb);
}

static const struct latch_tree_ops rbk_latch_ops = {
	.less = rbk_latch_less,
	.comp = rbk_latch_comp,
};

/*
 * Keys latch_tree_find() gets wrong in each copy: latch_tree_find() reads
 * copy (sequence & 1), and the sequence is even without a writer, so the
 * test moves it on as a writer does to search copy 1, then back to even.
 * Every key is found but those of the erased nodes (@erased: the even
 * ones, or none).
 */
static unsigned int rbk_latch_wrong(struct kunit *test, struct latch_tree_root *root,
				    struct rbk_node *nodes, bool erased)
{
	struct latch_tree_node *found;
	unsigned int copy, i, wrong = 0;

	for (copy = 0; copy < 2; copy++) {
		KUNIT_EXPECT_EQ(test, raw_read_seqcount_latch(&root->seq) & 1, copy);
		rcu_read_lock();
		for (i = 0; i < RBK_N; i++) {
			found = latch_tree_find(&nodes[i].key, root, &rbk_latch_ops);
			wrong += found != (erased && !(i % 2) ? NULL : &nodes[i].lt);
		}
		rcu_read_unlock();
		raw_write_seqcount_latch(&root->seq);
	}
	return wrong;
}

/* Both copies of a latch tree find every key; an erased key is gone. */
static void rbk_test_latch(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct latch_tree_root *root = kunit_kzalloc(test, sizeof(*root), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	seqcount_latch_init(&root->seq);
	for (i = 0; i < RBK_N; i++) {
		nodes[i].key = i * 2;	/* unique keys: a latch tree wants them */
		latch_tree_insert(&nodes[i].lt, root, &rbk_latch_ops);
	}
	KUNIT_EXPECT_EQ(test, rbk_latch_wrong(test, root, nodes, false), 0);
	for (i = 0; i < RBK_N; i += 2)
		latch_tree_erase(&nodes[i].lt, root, &rbk_latch_ops);
	KUNIT_EXPECT_EQ(test, rbk_latch_wrong(test, root, nodes, true), 0);
}

#if RBTI_HAVE_FIND_RCU
/* rb_find_add_rcu() and rb_find_rcu() (6.12): the unique insert, found. */
static void rbk_test_find_rcu(struct kunit *test)
{
	struct rbk_node *nodes = rbk_nodes(test, RBK_N);
	struct rb_root root = RB_ROOT;
	unsigned int i, j, added = 0;
	struct rb_node *found;

	for (i = 0; i < RBK_N; i++) {
		found = rb_find_add_rcu(&nodes[i].rb, &root, rbk_node_cmp);
		for (j = 0; nodes[j].key != nodes[i].key; j++)
			;
		KUNIT_EXPECT_PTR_EQ(test, found, j == i ? NULL : &nodes[j].rb);
		added += !found;
	}
	rbk_check(test, &root, added, false);
	rcu_read_lock();
	for (i = 0; i < RBK_N; i++) {
		found = rb_find_rcu(&nodes[i].key, &root, rbk_cmp);
		KUNIT_EXPECT_PTR_NE(test, found, NULL);
		if (found)
			KUNIT_EXPECT_EQ(test, rbk_of(found)->key, nodes[i].key);
	}
	rcu_read_unlock();
}
#endif

static struct kunit_case rbk_cases[] = {
	KUNIT_CASE(rbk_test_empty),
	KUNIT_CASE(rbk_test_insert),
	KUNIT_CASE(rbk_test_erase),
	KUNIT_CASE(rbk_test_walk),
	KUNIT_CASE(rbk_test_postorder),
	KUNIT_CASE(rbk_test_find),
	KUNIT_CASE(rbk_test_find_add),
	KUNIT_CASE(rbk_test_replace),
	KUNIT_CASE(rbk_test_cached),
	KUNIT_CASE(rbk_test_augmented_max),
	KUNIT_CASE(rbk_test_add_augmented_cached),
	KUNIT_CASE(rbk_test_interval),
	KUNIT_CASE(rbk_test_latch),
#if RBTI_HAVE_FIND_RCU
	KUNIT_CASE(rbk_test_find_rcu),
#endif
	{}
};

static struct kunit_suite rbk_suite = {
	.name = "rbtree",
	.test_cases = rbk_cases,
};

kunit_test_suites(&rbk_suite);

MODULE_DESCRIPTION("KUnit tests for the red-black tree library");
MODULE_LICENSE("GPL");
