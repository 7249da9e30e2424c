// SPDX-License-Identifier: GPL-2.0
/*
 * rbtree_inspector: the "interval" tree, made by INTERVAL_TREE_DEFINE()
 * as the mm's i_mmap tree, drm and the iommu make theirs: each node is the
 * closed interval [key, value], ordered by key (START), equal STARTs after
 * their equals, and augmented with rbti_node.max, the greatest LAST of its
 * subtree (the kernel's __subtree_last).
 *
 * The API has no "first START greater than K" query, so the tree has no
 * near; it has overlap queries instead (iter_first / iter_next). iter_next
 * climbs parent pointers with no bound of its own, so the tree's queries
 * follow them (rbti_tree_ops.follows): after a `corrupt parent` they are
 * refused. Every loop over iter_next is also bounded by the number of
 * nodes. Where iter_first's subtree search trusts the augmented max to
 * promise a right child (compat.h), a `corrupt aug` or `value` could send
 * it into a NULL one: rbti_queries_safe() refuses the queries of an
 * interval tree after those too.
 */
#include <linux/interval_tree_generic.h>

#include "inspector.h"

static inline s64 rbti_it_start(struct rbti_node *n)
{
	return n->key;
}

static inline s64 rbti_it_last(struct rbti_node *n)
{
	return n->value;
}

INTERVAL_TREE_DEFINE(struct rbti_node, rb, s64, max, rbti_it_start,
		     rbti_it_last, static, rbti_it);

static int interval_insert(struct rbti_tree *t, struct rbti_node *n,
			   struct rbti_node **replaced)
{
	*replaced = NULL;
	rbti_it_insert(n, &t->cached);
	return 0;
}

/*
 * The first node in order with START @start and, if @any is false, LAST
 * @last: every such node overlaps [@start, @start], and iter_next returns
 * the overlapping nodes in order.
 */
static struct rbti_node *interval_first(struct rbti_tree *t, s64 start,
					s64 last, bool any)
{
	struct rbti_node *n = rbti_it_iter_first(&t->cached, start, start);
	unsigned long steps;

	for (steps = 0; n && steps <= t->nodes; steps++) {
		if (n->key > start)
			return NULL;
		if (n->key == start && (any || n->value == last))
			return n;
		n = rbti_it_iter_next(n, start, start);
		rbti_cond_resched(steps + 1);
	}
	return NULL;
}

static struct rbti_node *interval_find(struct rbti_tree *t, s64 key)
{
	return interval_first(t, key, 0, true);
}

static struct rbti_node *interval_erase(struct rbti_tree *t, s64 start,
					s64 last)
{
	struct rbti_node *n = interval_first(t, start, last, false);

	if (n)
		rbti_it_remove(n, &t->cached);
	return n;
}

static struct rbti_node *interval_overlap(struct rbti_tree *t, s64 start,
					  s64 last, struct rbti_node *prev)
{
	if (!prev)
		return rbti_it_iter_first(&t->cached, start, last);
	return rbti_it_iter_next(prev, start, last);
}

const struct rbti_tree_ops rbti_interval_ops = {
	.name = "interval",
	.api = "interval",
	.flags = RBTI_DUP | RBTI_AUGMENTED | RBTI_VALUE | RBTI_INTERVAL,
	.aug = RBTI_AUG_MAX,
	.value_name = "last",
	/* iter_next climbs parent pointers: a broken one can loop it. */
	.follows = RBTI_LINK_PARENT,
	.insert = interval_insert,
	.find = interval_find,
	.erase_interval = interval_erase,
	.overlap = interval_overlap,
};
