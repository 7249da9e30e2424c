/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: 6.1 moved container_of() to <linux/container_of.h>,
 * which the API headers include; tools/include still has it in
 * <linux/kernel.h>.
 */
#ifndef _BENCH_SHIM_LINUX_CONTAINER_OF_H
#define _BENCH_SHIM_LINUX_CONTAINER_OF_H

#include <linux/kernel.h>

#endif /* _BENCH_SHIM_LINUX_CONTAINER_OF_H */
