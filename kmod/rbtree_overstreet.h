/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic red-black tree insert and search, after Kent Overstreet's 2012
 * proposal "rbtree: Add rb_insert(), rb_search(), etc.".
 *
 * The user supplies one comparison function on whole nodes, of type
 * rb_cmp_t.  Each operation comes twice, modelled after the spinlock code:
 * an __always_inline version with a leading underscore, in which a
 * comparison function known at the call site is called directly and
 * usually inlined, and an exported out-of-line version in
 * rbtree_overstreet.c, which calls it through the pointer.
 *
 * Searching needs a node to compare against, so the caller builds a dummy
 * object holding the key (often on the stack).  With the inline versions
 * the compiler usually keeps only the key of that object.
 *
 * As with <linux/rbtree.h>'s rb_find() and rb_find_add(), the comparison
 * takes const nodes, the lookups a const root, and an insert into a tree
 * of unique keys returns the node that is in the way (NULL once @new is
 * linked).
 *
 * Name collisions with 6.1: the kernel has no rb_insert(), rb_search() or
 * rb_find_first_greater(), but drivers/md/bcache/util.h defines
 * container_of_or_null() and RB_FIRST(), RB_LAST(), RB_NEXT(), RB_PREV()
 * (bcache carried this patch's helpers).  The definitions below mean the same thing and are
 * guarded with #ifndef, so a file that includes both headers gets one
 * definition of each and no redefinition warning if bcache's comes first.
 * If this header comes first, bcache's textually different definition of
 * container_of_or_null() is reported as a redefinition: include
 * drivers/md/bcache/util.h first in that case.  bcache's own RB_INSERT(),
 * RB_SEARCH() and RB_GREATER() are different names and do not clash.
 */
#ifndef _RBTREE_OVERSTREET_H
#define _RBTREE_OVERSTREET_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/rbtree.h>

/**
 * typedef rb_cmp_t - order of two nodes of a tree
 * @l: left-hand node
 * @r: right-hand node
 *
 * Return: a negative value if @l sorts before @r, zero if they are equal,
 * a positive value if @l sorts after @r (like @l - @r, but beware of
 * overflow: return the sign, not the difference).
 */
typedef int (rb_cmp_t)(const struct rb_node *l, const struct rb_node *r);

/**
 * _rb_insert() - insert a node into a tree of unique keys
 * @root: tree
 * @new: node to insert, not in any tree
 * @cmp: order of the tree
 *
 * Return: NULL if @new was inserted; else the node of the tree equal to
 * @new, and the tree is unchanged (as rb_find_add()).
 */
static __always_inline struct rb_node *
_rb_insert(struct rb_root *root, struct rb_node *new, rb_cmp_t cmp)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;
	int diff;

	while (*link) {
		parent = *link;
		diff = cmp(new, parent);
		if (!diff)
			return parent;
		link = diff < 0 ? &parent->rb_left : &parent->rb_right;
	}

	rb_link_node(new, parent, link);
	rb_insert_color(new, root);
	return NULL;
}

/**
 * _rb_insert_allow_dup() - insert a node, keeping equal nodes
 * @root: tree
 * @new: node to insert, not in any tree
 * @cmp: order of the tree
 *
 * A node equal to existing nodes goes after all of them in order, so equal
 * nodes stay in insertion order.
 */
static __always_inline void _rb_insert_allow_dup(struct rb_root *root,
						 struct rb_node *new,
						 rb_cmp_t cmp)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = cmp(new, parent) < 0 ? &parent->rb_left
					    : &parent->rb_right;
	}

	rb_link_node(new, parent, link);
	rb_insert_color(new, root);
}

/**
 * _rb_search() - find a node equal to a given one
 * @root: tree
 * @search: node holding the key to look for; need not be in the tree
 * @cmp: order of the tree
 *
 * Return: a node of the tree equal to @search (on a tree with equal nodes,
 * any one of them), or NULL if there is none.
 */
static __always_inline struct rb_node *
_rb_search(const struct rb_root *root, const struct rb_node *search,
	   rb_cmp_t cmp)
{
	struct rb_node *node = root->rb_node;
	int diff;

	while (node) {
		diff = cmp(search, node);
		if (!diff)
			return node;
		node = diff < 0 ? node->rb_left : node->rb_right;
	}

	return NULL;
}

/**
 * _rb_find_first_greater() - find the first node greater than a given one
 * @root: tree
 * @search: node holding the key; need not be in the tree
 * @cmp: order of the tree
 *
 * The upper bound of @search: where rb_find_first() finds the first node
 * equal to a key, this finds the first one after all the equal ones.
 *
 * Return: the first node in order that is strictly greater than @search,
 * or NULL if there is none.
 */
static __always_inline struct rb_node *
_rb_find_first_greater(const struct rb_root *root,
		       const struct rb_node *search, rb_cmp_t cmp)
{
	struct rb_node *node = root->rb_node, *greater = NULL;

	while (node) {
		if (cmp(search, node) < 0) {
			greater = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}

	return greater;
}

struct rb_node *rb_insert(struct rb_root *root, struct rb_node *new,
			  rb_cmp_t cmp);
void rb_insert_allow_dup(struct rb_root *root, struct rb_node *new,
			 rb_cmp_t cmp);
struct rb_node *rb_search(const struct rb_root *root,
			  const struct rb_node *search, rb_cmp_t cmp);
struct rb_node *rb_find_first_greater(const struct rb_root *root,
				      const struct rb_node *search,
				      rb_cmp_t cmp);

#ifndef container_of_or_null
/**
 * container_of_or_null - container_of() that passes NULL through
 * @ptr: pointer to the member, or NULL
 * @type: type of the container
 * @member: name of the member within @type
 *
 * @ptr is evaluated once.
 */
#define container_of_or_null(ptr, type, member)				\
({									\
	typeof(ptr) __ptr = (ptr);					\
	__ptr ? container_of(__ptr, type, member) : NULL;		\
})
#endif

#ifndef RB_FIRST
/**
 * RB_FIRST - first object of a tree in order
 * @root: the struct rb_root
 * @type: type of the objects
 * @member: name of the struct rb_node within @type
 *
 * Return: the first object, or NULL if the tree is empty.
 */
#define RB_FIRST(root, type, member)					\
	container_of_or_null(rb_first(root), type, member)
#endif

#ifndef RB_LAST
/**
 * RB_LAST - last object of a tree in order
 * @root: the struct rb_root
 * @type: type of the objects
 * @member: name of the struct rb_node within @type
 *
 * Return: the last object, or NULL if the tree is empty.
 */
#define RB_LAST(root, type, member)					\
	container_of_or_null(rb_last(root), type, member)
#endif

#ifndef RB_NEXT
/**
 * RB_NEXT - next object in order
 * @ptr: an object in a tree
 * @member: name of the struct rb_node within the object
 *
 * Return: the object after @ptr, or NULL if @ptr is the last one.
 */
#define RB_NEXT(ptr, member)						\
	container_of_or_null(rb_next(&(ptr)->member), typeof(*(ptr)), member)
#endif

#ifndef RB_PREV
/**
 * RB_PREV - previous object in order
 * @ptr: an object in a tree
 * @member: name of the struct rb_node within the object
 *
 * Return: the object before @ptr, or NULL if @ptr is the first one.
 */
#define RB_PREV(ptr, member)						\
	container_of_or_null(rb_prev(&(ptr)->member), typeof(*(ptr)), member)
#endif

#endif /* _RBTREE_OVERSTREET_H */
