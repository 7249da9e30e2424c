// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line versions of the Overstreet generic rbtree operations: what
 * the proposal added to lib/rbtree.c.  Each is the __always_inline version
 * instantiated with an unknown comparison function, so the comparison is
 * an indirect call; callers in other files (and other modules, through the
 * exports) cannot see these bodies and so cannot specialise them.  See
 * rbtree_overstreet.h for the semantics.
 */
#include <linux/export.h>

#include "rbtree_overstreet.h"

/**
 * rb_insert() - insert a node into a tree of unique keys
 * @root: tree
 * @new: node to insert, not in any tree
 * @cmp: order of the tree
 *
 * Out-of-line _rb_insert().
 *
 * Return: NULL if @new was inserted; else the node of the tree equal to
 * @new, and the tree is unchanged.
 */
struct rb_node *rb_insert(struct rb_root *root, struct rb_node *new,
			  rb_cmp_t cmp)
{
	return _rb_insert(root, new, cmp);
}
EXPORT_SYMBOL_GPL(rb_insert);

/**
 * rb_insert_allow_dup() - insert a node, keeping equal nodes
 * @root: tree
 * @new: node to insert, not in any tree
 * @cmp: order of the tree
 *
 * Out-of-line _rb_insert_allow_dup(): @new goes after the nodes equal to it.
 */
void rb_insert_allow_dup(struct rb_root *root, struct rb_node *new,
			 rb_cmp_t cmp)
{
	_rb_insert_allow_dup(root, new, cmp);
}
EXPORT_SYMBOL_GPL(rb_insert_allow_dup);

/**
 * rb_search() - find a node equal to a given one
 * @root: tree
 * @search: node holding the key to look for; need not be in the tree
 * @cmp: order of the tree
 *
 * Out-of-line _rb_search().
 *
 * Return: a node equal to @search, or NULL if there is none.
 */
struct rb_node *rb_search(const struct rb_root *root,
			  const struct rb_node *search, rb_cmp_t cmp)
{
	return _rb_search(root, search, cmp);
}
EXPORT_SYMBOL_GPL(rb_search);

/**
 * rb_find_first_greater() - find the first node greater than a given one
 * @root: tree
 * @search: node holding the key; need not be in the tree
 * @cmp: order of the tree
 *
 * Out-of-line _rb_find_first_greater(): the upper bound of @search.
 *
 * Return: the first node strictly greater than @search, or NULL.
 */
struct rb_node *rb_find_first_greater(const struct rb_root *root,
				      const struct rb_node *search,
				      rb_cmp_t cmp)
{
	return _rb_find_first_greater(root, search, cmp);
}
EXPORT_SYMBOL_GPL(rb_find_first_greater);
