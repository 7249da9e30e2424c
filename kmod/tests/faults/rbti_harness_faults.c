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
 *
 * spin and hang stand for a module operation that never returns: the debug
 * guest's soft-lockup and hung-task detectors must end the run long before
 * they would, with a report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0400);
MODULE_PARM_DESC(fault, "what to do wrong: warn, leak, spin or hang");

#define RBTI_LEAKS	16
/* How long spin and hang last: "forever" to any test, yet bounded. */
#define RBTI_STUCK_SECS	600

/* Busy-loop without scheduling, as a runaway loop in a module would. */
static void rbti_spin(void)
{
	unsigned long end = jiffies + RBTI_STUCK_SECS * HZ;

	while (time_before(jiffies, end))
		cpu_relax();
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
	} else {
		return -EINVAL;
	}
	return 0;
}
module_init(rbti_harness_faults_init);

static void __exit rbti_harness_faults_exit(void)
{
}
module_exit(rbti_harness_faults_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deliberate kernel faults for the rbtree-inspector harness tests");
