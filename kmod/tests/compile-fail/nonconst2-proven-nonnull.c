// SPDX-License-Identifier: GPL-2.0
/*
 * A pointer the optimiser proves non-NULL is still not a constant: a check
 * made after optimisation (BUILD_BUG_ON_MSG(!__builtin_constant_p(!p)))
 * lets this build with gcc 12 -O2.
 * expect: BUILD_BUG_ON_NON_CONST2_failed
 */
#include <linux/module.h>

#include "build_bug_const.h"

void *cf_get(void);

int cf_use(void);
int cf_use(void)
{
	void *p = cf_get();

	if (!p)
		return 0;
	BUILD_BUG_ON_NON_CONST2(p);
	return 1;
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
