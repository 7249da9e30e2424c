// SPDX-License-Identifier: GPL-2.0
/*
 * A pointer the optimiser proves non-NULL is still not a constant: a check
 * made after optimisation (BUILD_BUG_ON_MSG(!__builtin_constant_p(!p)))
 * lets this build with gcc 12 -O2.
 * expect: BUILD_BUG_ON_NON_CONST2_failed
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "build_bug_const.h"

static int __init cf_init(void)
{
	void *p = kmalloc(8, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	BUILD_BUG_ON_NON_CONST2(p);
	kfree(p);
	return 0;
}
module_init(cf_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
