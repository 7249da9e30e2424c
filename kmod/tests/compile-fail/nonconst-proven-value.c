// SPDX-License-Identifier: GPL-2.0
/*
 * An integer the optimiser proves equal to a constant is still not a
 * constant: a check made after optimisation lets this build at -O2.
 * expect: BUILD_BUG_ON_NON_CONST_failed
 */
#include <linux/module.h>
#include <linux/random.h>

#include "build_bug_const.h"

static int __init cf_init(void)
{
	unsigned int flags = get_random_u32();

	if (flags != 8)
		return 0;
	BUILD_BUG_ON_NON_CONST(flags);
	return 1;
}
module_init(cf_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
