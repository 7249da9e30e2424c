// SPDX-License-Identifier: GPL-2.0
/*
 * rbti_harness_faults: misbehaves on purpose when loaded, so that
 * qemu/tests/harness-test can prove that run-in-guest fails a run on a real
 * kernel warning and on a real memory leak, not only on log lines it was
 * shown. Load it for nothing else.
 *
 *	insmod rbti_harness_faults.ko fault=warn	WARN() (panics with panic_on_warn)
 *	insmod rbti_harness_faults.ko fault=leak	lose a kmalloc()ed block
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0400);
MODULE_PARM_DESC(fault, "what to do wrong: warn or leak");

#define RBTI_LEAKS	16

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
