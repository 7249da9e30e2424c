/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels the module supports (6.1 and 6.12), in
 * one place: everything else builds unchanged on both, and no other file
 * tests a version.
 */
#ifndef _RBTI_COMPAT_H
#define _RBTI_COMPAT_H

#include <linux/version.h>

/*
 * EEVDF (6.6): the CFS runqueue's tasks_timeline is ordered by
 * sched_entity.deadline and augmented with sched_entity.min_vruntime, the
 * least vruntime in each subtree; before, it was ordered by vruntime.
 */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define RBTI_HAVE_EEVDF 1
#else
#define RBTI_HAVE_EEVDF 0
#endif

#endif /* _RBTI_COMPAT_H */
