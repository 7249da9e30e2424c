/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the generic tree header reports a bad hint with
 * pr_warn_once(), which tools/include does not have.
 */
#ifndef _BENCH_SHIM_LINUX_PRINTK_H
#define _BENCH_SHIM_LINUX_PRINTK_H

#include <stdbool.h>
#include <stdio.h>

#define pr_warn_once(fmt, ...)						\
({									\
	static bool __warned;						\
									\
	if (!__warned) {						\
		__warned = true;					\
		fprintf(stderr, fmt, ##__VA_ARGS__);			\
	}								\
})

#endif /* _BENCH_SHIM_LINUX_PRINTK_H */
