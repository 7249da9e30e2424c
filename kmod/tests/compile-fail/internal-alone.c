// SPDX-License-Identifier: GPL-2.0
/*
 * The shared bodies' header on its own, without RB_DEFINE_INTERFACE()'s:
 * only rbtree_santos.h may include it.
 * expect: Do not include directly, include rbtree_santos.h
 */
#include <linux/module.h>

#include "rbtree_generic_internal.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("compile-fail case");
