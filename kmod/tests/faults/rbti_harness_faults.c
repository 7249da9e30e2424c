// SPDX-License-Identifier: GPL-2.0
/*
 * rbti_harness_faults: misbehaves on purpose when loaded, so that
 * qemu/tests/harness-test can prove that run-in-guest fails a run on a real
 * kernel warning and on a real memory leak, not only on log lines it was
 * shown. Load it for nothing else.
 *
 *	insmod rbti_harness_faults.ko fault=warn	WARN() (panics with panic_on_warn)
 *	insmod rbti_harness_faults.ko fault=leak	lose a kmalloc()ed block
 *	insmod rbti_harness_faults.ko fault=spin	spin in the kernel for 10 minutes
 *	insmod rbti_harness_faults.ko fault=hang	sleep uninterruptibly for 10 minutes
 *	insmod rbti_harness_faults.ko fault=rcu	stay in an RCU read-side critical
 *						section for 10 minutes
 *	insmod rbti_harness_faults.ko fault=race	race plain accesses for 2 s (KCSAN)
 *
 * spin, hang and rcu stand for a module operation that never returns: the
 * debug guest's soft-lockup, hung-task and RCU stall detectors must end the
 * run long before they would, with a report. rcu keeps the soft-lockup
 * detector quiet (touch_softlockup_watchdog()) so that only the RCU stall
 * detector can see it. race is a data race for KCSAN to report (qemu/kcsan
 * proves with it that its kernel reports races in a module).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/nmi.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0400);
MODULE_PARM_DESC(fault, "what to do wrong: warn, leak, spin, hang, rcu or race");

#define RBTI_LEAKS	16
/* How long spin and hang last: "forever" to any test, yet bounded. */
#define RBTI_STUCK_SECS	600

/* How long race runs its two sides against each other. */
#define RBTI_RACE_SECS	2

/* Busy-loop without scheduling, as a runaway loop in a module would. */
static void rbti_spin(void)
{
	unsigned long end = jiffies + RBTI_STUCK_SECS * HZ;

	while (time_before(jiffies, end))
		cpu_relax();
}

static struct rcu_head rbti_rcu_head;

static void rbti_rcu_done(struct rcu_head *head)
{
}

/*
 * A reader that never leaves its RCU read-side critical section: the grace
 * period requested first cannot end. The soft-lockup detector is touched
 * on every turn, so the RCU stall warning is the only report there is.
 */
static void rbti_rcu_stall(void)
{
	unsigned long end = jiffies + RBTI_STUCK_SECS * HZ;

	call_rcu(&rbti_rcu_head, rbti_rcu_done);
	rcu_read_lock();
	while (time_before(jiffies, end)) {
		touch_softlockup_watchdog();
		cpu_relax();
	}
	rcu_read_unlock();
}

/* The shared word of race: written and read with plain accesses. */
static unsigned long rbti_racy;

static int rbti_race_writer(void *unused)
{
	while (!kthread_should_stop()) {
		rbti_racy++;
		cond_resched();
	}
	return 0;
}

/* A plain read against a plain write on another CPU: a data race. */
static int rbti_race(void)
{
	unsigned long end = jiffies + RBTI_RACE_SECS * HZ;
	unsigned long seen = 0;
	struct task_struct *writer;

	writer = kthread_run(rbti_race_writer, NULL, "rbti_race");
	if (IS_ERR(writer))
		return PTR_ERR(writer);
	while (time_before(jiffies, end)) {
		seen += rbti_racy;
		barrier();
		cond_resched();
	}
	kthread_stop(writer);
	pr_info("raced for %d s (sum %lu)\n", RBTI_RACE_SECS, seen);
	return 0;
}

static int __init rbti_harness_faults_init(void)
{
	int i;

	if (!strcmp(fault, "warn")) {
		WARN(1, "deliberate warning for the harness test\n");
	} else if (!strcmp(fault, "leak")) {
		/*
		 * Several blocks whose pointers are kept nowhere: a stale copy
		 * of one in a reused stack could hide it, not all of them.
		 */
		for (i = 0; i < RBTI_LEAKS; i++) {
			void *p = kmalloc(128, GFP_KERNEL);

			OPTIMIZER_HIDE_VAR(p);
		}
		pr_info("leaked %d blocks on purpose\n", RBTI_LEAKS);
	} else if (!strcmp(fault, "spin")) {
		pr_info("spinning for %d s on purpose\n", RBTI_STUCK_SECS);
		rbti_spin();
	} else if (!strcmp(fault, "hang")) {
		pr_info("blocking for %d s on purpose\n", RBTI_STUCK_SECS);
		schedule_timeout_uninterruptible(RBTI_STUCK_SECS * HZ);
	} else if (!strcmp(fault, "rcu")) {
		pr_info("stalling RCU for %d s on purpose\n", RBTI_STUCK_SECS);
		rbti_rcu_stall();
	} else if (!strcmp(fault, "race")) {
		return rbti_race();
	} else {
		return -EINVAL;
	}
	return 0;
}
module_init(rbti_harness_faults_init);

static void __exit rbti_harness_faults_exit(void)
{
	/* rcu's callback, should it ever be unloaded. */
	rcu_barrier();
}
module_exit(rbti_harness_faults_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deliberate kernel faults for the rbtree-inspector harness tests");
