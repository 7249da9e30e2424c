/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the module supports (6.1, 6.12 and
 * 7.3), in one place: everything else builds unchanged on all of them, and
 * no other file tests a version.
 */
#ifndef _RBTI_COMPAT_H
#define _RBTI_COMPAT_H

#include <linux/version.h>

/*
 * EEVDF (6.6): the CFS runqueue's tasks_timeline is ordered by
 * sched_entity.deadline and augmented with sched_entity.min_vruntime, the
 * least vruntime in each subtree; before 6.6 it is ordered by vruntime.
 */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define RBTI_HAVE_EEVDF 1
#else
#define RBTI_HAVE_EEVDF 0
#endif

/*
 * The namespace of the module's exports (kmod/Kbuild gives this header
 * first to rbtree_overstreet.c, whose source stays the series' text): an
 * identifier that <linux/export.h> turns into a string up to 6.4, a string
 * literal from 6.5 on.
 */
#ifdef RBTI_EXPORT_NS
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
#define DEFAULT_SYMBOL_NAMESPACE "RBTREE_INSPECTOR"
#else
#define DEFAULT_SYMBOL_NAMESPACE RBTREE_INSPECTOR
#endif
#endif

/*
 * Importers write MODULE_IMPORT_NS(RBTREE_INSPECTOR) (kmod/Kbuild gives
 * this header first to rbtree_kunit_lib.c, whose source stays the series'
 * text), which takes the identifier up to 6.12 and a string literal from
 * 6.13 on: there, the identifier stands for that literal.
 */
#if KERNEL_VERSION(6, 13, 0) <= LINUX_VERSION_CODE
#define RBTREE_INSPECTOR "RBTREE_INSPECTOR"
#endif

/*
 * rb_add_augmented_cached() (6.6, with EEVDF): 6.1 gets the kernel's own
 * body, so that mainline_aug runs the same code on both.
 */
#if KERNEL_VERSION(6, 6, 0) > LINUX_VERSION_CODE
#include <linux/rbtree_augmented.h>

static __always_inline struct rb_node *
rb_add_augmented_cached(struct rb_node *node, struct rb_root_cached *tree,
			bool (*less)(struct rb_node *, const struct rb_node *),
			const struct rb_augment_callbacks *augment)
{
	struct rb_node **link = &tree->rb_root.rb_node;
	struct rb_node *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}

	rb_link_node(node, parent, link);
	augment->propagate(parent, NULL); /* suboptimal */
	rb_insert_augmented_cached(node, tree, leftmost, augment);

	return leftmost ? node : NULL;
}
#endif

/*
 * The interval tree's subtree search (6.15, "lib/interval_tree: skip the
 * check before go to the right subtree") descends right without testing
 * for a right child: it takes a subtree's augmented max (the greatest
 * LAST) as proof that one holds a match. A wrong max or LAST sends it
 * into a NULL child, so there the interval tree's queries follow the
 * augmented values as they follow links.
 */
#if KERNEL_VERSION(6, 15, 0) <= LINUX_VERSION_CODE
#define RBTI_INTERVAL_TRUSTS_MAX 1
#else
#define RBTI_INTERVAL_TRUSTS_MAX 0
#endif

/*
 * rb_find_add_rcu() and rb_find_rcu() (6.12, for uprobes): the
 * mainline_rcu tree exists only where they do.
 */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define RBTI_HAVE_FIND_RCU 1
#else
#define RBTI_HAVE_FIND_RCU 0
#endif

#endif /* _RBTI_COMPAT_H */
