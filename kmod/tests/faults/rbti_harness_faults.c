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

static int __init rbti_harness_faults_init(void)
{
	if (!strcmp(fault, "warn")) {
		WARN(1, "deliberate warning for the harness test\n");
	} else if (!strcmp(fault, "leak")) {
		/* The pointer is printed hashed and kept nowhere: a leak. */
		pr_info("leaking %p on purpose\n", kmalloc(128, GFP_KERNEL));
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
