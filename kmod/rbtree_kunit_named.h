/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The named interfaces of the behaviour tests (rbtree_kunit_interface.c,
 * rbtree_kunit_hints.c), each with its rbt_iface (RBT_IFACE()): a set, a
 * bag (equal keys kept), a replacing set, and each of them with a size
 * and with a max augment; one with blank cache members, and the 2012
 * article's fair_tree (a leftmost member with flags 0).
 */
#ifndef _RBTREE_KUNIT_NAMED_H
#define _RBTREE_KUNIT_NAMED_H

#include "rbtree_kunit.h"

#define RBT_L	RB_HAS_LEFTMOST
#define RBT_R	RB_HAS_RIGHTMOST
#define RBT_C	RB_HAS_COUNT
#define RBT_U	RB_UNIQUE_KEYS
#define RBT_X	RB_INSERT_REPLACES
#define RBT_A	RB_IS_AUGMENTED

RBT_SIZE_CALLBACKS;
RBT_MAX_CALLBACKS;

RB_DEFINE_INTERFACE(rbt_plain, struct rbt_cont, root,
		    /* no leftmost */, /* no rightmost */, /* no count */,
		    struct rbt_obj, node, key, RB_UNIQUE_KEYS, rbt_cmp, 0)
RB_DEFINE_INTERFACE(rbt_fair, struct rbt_cont, root, left, /* no rightmost */,
		    /* no count */, struct rbt_obj, node, key, 0, rbt_cmp, 0)
RBT_IFACE(rbt_set, RBT_U | RBT_L | RBT_R | RBT_C, left, right, count, NONE);
RBT_IFACE(rbt_bag, RBT_L | RBT_R | RBT_C, left, right, count, NONE);
RBT_IFACE(rbt_repl, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C, left, right, count,
	  NONE);
RBT_IFACE(rbt_aug, RBT_U | RBT_C | RBT_A, /* - */, /* - */, count, SIZE);
RBT_IFACE(rbt_augbag, RBT_L | RBT_R | RBT_C | RBT_A, left, right, count, SIZE);
RBT_IFACE(rbt_augrepl, RBT_U | RBT_X | RBT_L | RBT_C | RBT_A, left, /* - */,
	  count, SIZE);
RBT_IFACE(rbt_max, RBT_U | RBT_C | RBT_A, /* - */, /* - */, count, MAX);
RBT_IFACE(rbt_maxbag, RBT_L | RBT_R | RBT_C | RBT_A, left, right, count, MAX);
RBT_IFACE(rbt_maxrepl, RBT_U | RBT_X | RBT_L | RBT_R | RBT_C | RBT_A, left,
	  right, count, MAX);

#endif /* _RBTREE_KUNIT_NAMED_H */
