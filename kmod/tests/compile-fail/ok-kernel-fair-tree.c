// SPDX-License-Identifier: GPL-2.0
/*
 * The 2012 article's fair_tree over the kernel's own CFS runqueue: struct
 * cfs_rq.tasks_timeline, a struct rb_root_cached, holding struct
 * sched_entity by run_node. Built against the private kernel/sched/sched.h
 * of the kernel under test, so it follows that kernel's real types. Compile
 * only: nothing here runs, the scheduler is not touched.
 *
 * The article's form orders by vruntime (CFS until 6.6). On an EEVDF
 * kernel the same runqueue is ordered by deadline and augmented with each
 * subtree's least vruntime (kernel/sched/fair.c, min_vruntime_cb): that
 * form is defined too, with RB_IS_AUGMENTED.
 * expect: (builds)
 */
#include <linux/module.h>
/* What kernel/sched/ includes before sched.h, which needs them. */
#include <linux/mmu_context.h>
#include <linux/sched/cputime.h>
#include <../kernel/sched/sched.h>

#include "compat.h"
#include "rbtree_santos.h"

/* Scheduler clocks wrap: compare them by their signed difference. */
static inline long fair_cmp(const u64 *a, const u64 *b)
{
	s64 d = (s64)(*a - *b);

	return d < 0 ? -1 : d > 0;
}

RB_DEFINE_INTERFACE(fair_tree, struct cfs_rq, tasks_timeline,
		    /* rb_leftmost */, /* no rightmost */, /* no count */,
		    struct sched_entity, run_node, vruntime, 0, fair_cmp, 0)

struct sched_entity *cf_fair_use(struct cfs_rq *rq, struct sched_entity *se);
struct sched_entity *cf_fair_use(struct cfs_rq *rq, struct sched_entity *se)
{
	fair_tree_insert(rq, se);
	fair_tree_remove(rq, se);
	return fair_tree_first(rq);
}

#if RBTI_HAVE_EEVDF
static inline bool eevdf_min_vruntime(struct sched_entity *se, bool exit)
{
	struct rb_node *child[] = { se->run_node.rb_left, se->run_node.rb_right };
	u64 old = se->min_vruntime;
	int i;

	se->min_vruntime = se->vruntime;
	for (i = 0; i < ARRAY_SIZE(child); i++) {
		struct sched_entity *c;

		if (!child[i])
			continue;
		c = rb_entry(child[i], struct sched_entity, run_node);
		if ((s64)(se->min_vruntime - c->min_vruntime) > 0)
			se->min_vruntime = c->min_vruntime;
	}
	return exit && se->min_vruntime == old;
}

RB_DECLARE_CALLBACKS(static, eevdf_cb, struct sched_entity, run_node,
		     min_vruntime, eevdf_min_vruntime);

RB_DEFINE_INTERFACE(eevdf_tree, struct cfs_rq, tasks_timeline,
		    /* rb_leftmost */, /* no rightmost */, /* no count */,
		    struct sched_entity, run_node, deadline, RB_IS_AUGMENTED,
		    fair_cmp, &eevdf_cb)

struct sched_entity *cf_eevdf_use(struct cfs_rq *rq, struct sched_entity *se);
struct sched_entity *cf_eevdf_use(struct cfs_rq *rq, struct sched_entity *se)
{
	eevdf_tree_insert(rq, se);
	eevdf_tree_remove(rq, se);
	return eevdf_tree_first(rq);
}
#endif

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile test: fair_tree over struct cfs_rq");
