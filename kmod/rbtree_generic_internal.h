/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared bodies of RB_DEFINE_INTERFACE()'s typed red-black trees: the
 * flags, the descriptor (struct rb_generic_rel) and the __always_inline
 * __rb_generic_*() walks.  Each function RB_DEFINE_INTERFACE() generates is
 * a typed stub that calls one of them with its interface's static const
 * descriptor, which the compiler folds into the inlined body as rb_find()
 * folds its inlined callback.
 *
 * Only RB_DEFINE_INTERFACE()'s header includes this one.
 */
#ifndef _RBTREE_GENERIC_INTERNAL_H
#define _RBTREE_GENERIC_INTERNAL_H

#ifndef _RBTREE_SANTOS_H
#error "Do not include directly, include rbtree_santos.h"
#endif

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/rbtree.h>
#include <linux/rbtree_augmented.h>
#include <linux/stddef.h>
#include <linux/types.h>

/**
 * enum rb_generic_flags - properties of a tree defined by RB_DEFINE_INTERFACE()
 * @RB_HAS_LEFTMOST: the container caches the first node in order
 * @RB_HAS_RIGHTMOST: the container caches the last node in order
 * @RB_HAS_COUNT: the container counts the nodes
 * @RB_UNIQUE_KEYS: at most one object per key; without it equal keys are
 *	kept, a new one after those already present
 * @RB_INSERT_REPLACES: inserting a present key replaces that object (needs
 *	@RB_UNIQUE_KEYS)
 * @RB_IS_AUGMENTED: the tree keeps augmented data up to date through the
 *	interface's struct rb_augment_callbacks
 * @RB_CACHED_ROOT: the root is a struct rb_root_cached, whose rb_leftmost
 *	is the leftmost cache; implied by the root member's type, and implies
 *	@RB_HAS_LEFTMOST
 */
enum rb_generic_flags {
	RB_HAS_LEFTMOST		= 1,
	RB_HAS_RIGHTMOST	= 2,
	RB_HAS_COUNT		= 4,
	RB_UNIQUE_KEYS		= 8,
	RB_INSERT_REPLACES	= 16,
	RB_IS_AUGMENTED		= 32,
	RB_CACHED_ROOT		= 64,
};

#define RB_GENERIC_ALL_FLAGS						\
	(RB_HAS_LEFTMOST | RB_HAS_RIGHTMOST | RB_HAS_COUNT |		\
	 RB_UNIQUE_KEYS | RB_INSERT_REPLACES | RB_IS_AUGMENTED |	\
	 RB_CACHED_ROOT)

/**
 * struct rb_generic_rel - how a tree's container, objects and keys relate
 * @root_offset: offset of the struct rb_root (or rb_root_cached) in the
 *	container
 * @left_offset: offset of the leftmost cache (struct rb_node *) in the
 *	container, the root's rb_leftmost with RB_CACHED_ROOT; only meaningful
 *	with RB_HAS_LEFTMOST
 * @right_offset: same for the rightmost cache and RB_HAS_RIGHTMOST
 * @count_offset: same for the node count (unsigned long) and RB_HAS_COUNT
 * @node_offset: offset of the struct rb_node in the object
 * @key_offset: offset of the key in the object
 * @tree_flags: enum rb_generic_flags
 * @cmp: order of two keys, <0, 0 or >0
 * @aug: callbacks of an augmented tree, or NULL
 *
 * RB_DEFINE_INTERFACE() defines one of these as a static const object, so
 * that every field is a compile-time constant in the inlined code.
 */
struct rb_generic_rel {
	size_t root_offset;
	size_t left_offset;
	size_t right_offset;
	size_t count_offset;
	size_t node_offset;
	size_t key_offset;
	unsigned int tree_flags;
	long (*cmp)(const void *a, const void *b);
	const struct rb_augment_callbacks *aug;
};

/* Accessors: container and node to the members the descriptor names. */

static __always_inline struct rb_root *
__rb_generic_root(const struct rb_generic_rel *rel, void *cont)
{
	return (struct rb_root *)((char *)cont + rel->root_offset);
}

/* With RB_CACHED_ROOT: the root as the struct rb_root_cached it is. */
static __always_inline struct rb_root_cached *
__rb_generic_root_cached(const struct rb_generic_rel *rel, void *cont)
{
	return container_of(__rb_generic_root(rel, cont),
			    struct rb_root_cached, rb_root);
}

static __always_inline struct rb_node **
__rb_generic_leftmost(const struct rb_generic_rel *rel, void *cont)
{
	return (struct rb_node **)((char *)cont + rel->left_offset);
}

static __always_inline struct rb_node **
__rb_generic_rightmost(const struct rb_generic_rel *rel, void *cont)
{
	return (struct rb_node **)((char *)cont + rel->right_offset);
}

static __always_inline unsigned long *
__rb_generic_count(const struct rb_generic_rel *rel, void *cont)
{
	return (unsigned long *)((char *)cont + rel->count_offset);
}

/* For lookups: the root and the caches of a container left unchanged. */
static __always_inline const struct rb_root *
__rb_generic_croot(const struct rb_generic_rel *rel, const void *cont)
{
	return (const struct rb_root *)((const char *)cont + rel->root_offset);
}

static __always_inline struct rb_node *
__rb_generic_cache(const void *cont, size_t offset)
{
	return *(struct rb_node *const *)((const char *)cont + offset);
}

static __always_inline const void *
__rb_generic_key(const struct rb_generic_rel *rel, const struct rb_node *node)
{
	return (const char *)node - rel->node_offset + rel->key_offset;
}

/* Order of @key relative to the key of @node. */
static __always_inline long
__rb_generic_cmp(const struct rb_generic_rel *rel, const void *key,
		 const struct rb_node *node)
{
	return rel->cmp(key, __rb_generic_key(rel, node));
}

static __always_inline bool
__rb_generic_unique(const struct rb_generic_rel *rel)
{
	return rel->tree_flags & RB_UNIQUE_KEYS;
}

/*
 * Longest path from a node to the root that a red-black tree can have: its
 * height is at most 2 * log2(n + 1), and fewer than 2^BITS_PER_LONG nodes
 * fit in the address space.  A longer parent chain is not a tree.
 */
#define RB_GENERIC_MAX_DEPTH	(2 * 8 * sizeof(long))

/**
 * __rb_generic_climb() - where a search for a key enters, from a hint
 * @rel: the tree's descriptor
 * @root: the tree
 * @near: the hint, a node linked in @root's tree
 * @key: the key
 * @unique: a node equal to @key is the answer (a unique tree's insert);
 *	else equal keys sort before @key's place (an insert after its equals,
 *	or the search for the first key greater than @key)
 * @link: set to the child slot to descend from: one of @near's, one of an
 *	ancestor's, or the root's own
 * @parent: set to the node that holds *@link (NULL for the root's slot)
 * @upper: set to the nearest node known to sort after @key's place, or NULL
 *
 * @key's place is on one side of @near, say after it.  Then it is in
 * @near's right subtree unless it is after P, the first ancestor that has
 * @near's subtree on its left (the node that follows that subtree).  If it
 * is before P, the climb stops: the search goes on down @near's right
 * subtree, with P as the bound after it.  Else P replaces @near and the
 * climb goes on.  Ancestors on @near's own side are passed without a
 * comparison.  The climb so ends at the lowest ancestor whose subtree
 * brackets @key: for a hint d places from the answer that is O(log d)
 * levels up in the mean over the tree's nodes, and at worst the root (two
 * neighbours in order can sit on either side of it).  On a tree of 65535
 * keys the mean is 2.5 parent links read for d = 1 and about log2(d) + 2
 * for d up to 1024; beyond that the root bounds it (15.25 at d = 32768).
 *
 * The climb stops after RB_GENERIC_MAX_DEPTH steps (a parent chain longer
 * than any tree's) and starts the search from the root.  @near itself is
 * not checked: it must be a node of this tree (a removed or freed node, or
 * one of another tree, makes the result undefined).
 *
 * Return: the node equal to @key if @unique and one was met, else NULL.
 */
static __always_inline struct rb_node *
__rb_generic_climb(const struct rb_generic_rel *rel, struct rb_root *root,
		   struct rb_node *near, const void *key, bool unique,
		   struct rb_node ***link, struct rb_node **parent,
		   struct rb_node **upper)
{
	struct rb_node *node = near, *child, *up;
	unsigned int depth = 0;
	long diff;
	bool after;

	diff = __rb_generic_cmp(rel, key, near);
	if (unique && !diff)
		return near;
	after = unique ? diff > 0 : diff >= 0;
	for (child = near; (up = rb_parent(child)); child = up) {
		if (++depth > RB_GENERIC_MAX_DEPTH) {
			*link = &root->rb_node;
			*parent = NULL;
			*upper = NULL;
			return NULL;
		}
		/* @up is on @node's side of its subtree: no bound. */
		if (child == (after ? up->rb_right : up->rb_left))
			continue;
		diff = __rb_generic_cmp(rel, key, up);
		if (unique && !diff)
			return up;
		if (after ? diff < 0 : unique ? diff > 0 : diff >= 0)
			break;
		node = up;
	}
	*parent = node;
	*link = after ? &node->rb_right : &node->rb_left;
	*upper = after ? up : node;
	return NULL;
}

/*
 * @new takes @old's place: same links and colour, @old's augmented value
 * (recomputed, as @new's own data may differ), and @old's cache entries.
 */
static __always_inline void
__rb_generic_replace(const struct rb_generic_rel *rel, void *cont,
		     struct rb_node *old, struct rb_node *new)
{
	struct rb_root *root = __rb_generic_root(rel, cont);

	if (rel->tree_flags & RB_HAS_LEFTMOST &&
	    !(rel->tree_flags & RB_CACHED_ROOT) &&
	    *__rb_generic_leftmost(rel, cont) == old)
		*__rb_generic_leftmost(rel, cont) = new;
	if (rel->tree_flags & RB_HAS_RIGHTMOST &&
	    *__rb_generic_rightmost(rel, cont) == old)
		*__rb_generic_rightmost(rel, cont) = new;

	if (rel->tree_flags & RB_IS_AUGMENTED)
		rel->aug->copy(old, new);
	if (rel->tree_flags & RB_CACHED_ROOT)
		rb_replace_node_cached(old, new,
				       __rb_generic_root_cached(rel, cont));
	else
		rb_replace_node(old, new, root);
	if (rel->tree_flags & RB_IS_AUGMENTED)
		rel->aug->propagate(new, NULL);
	RB_CLEAR_NODE(old);
}

/**
 * __rb_generic_insert() - insert a node, optionally starting near another
 * @rel: the tree's descriptor
 * @cont: the container
 * @near: a node linked in the tree to start from (see
 *	__rb_generic_climb()), or NULL to start at the root
 * @new: the node to insert, in no tree
 *
 * On a unique tree a present key is not inserted again: its node is
 * returned and the tree is unchanged, or with RB_INSERT_REPLACES @new
 * replaces it.  Otherwise @new goes after the nodes with an equal key.
 * The result and @new's place do not depend on @near.
 *
 * Return: NULL if @new was linked, else the node with @new's key.
 */
static __always_inline struct rb_node *
__rb_generic_insert(const struct rb_generic_rel *rel, void *cont,
		    struct rb_node *near, struct rb_node *new)
{
	struct rb_root *root = __rb_generic_root(rel, cont);
	const void *key = __rb_generic_key(rel, new);
	struct rb_node **link = &root->rb_node, *parent = NULL;
	struct rb_node *equal = NULL, *upper;
	bool leftmost = false;
	long diff;

	if (near) {
		equal = __rb_generic_climb(rel, root, near, key,
					   __rb_generic_unique(rel), &link,
					   &parent, &upper);
		if (equal)
			goto found;
	}

	/*
	 * Two loops, not one that tests the flag: GCC folds the descriptor's
	 * flags only after it has shaped the loops, and a loop that still
	 * tests one gets a worse layout (an extra jump per level).
	 */
	if (__rb_generic_unique(rel)) {
		while (*link) {
			parent = *link;
			diff = __rb_generic_cmp(rel, key, parent);
			if (diff < 0) {
				link = &parent->rb_left;
			} else if (diff > 0) {
				link = &parent->rb_right;
			} else {
				equal = parent;
				goto found;
			}
		}
	} else {
		while (*link) {
			parent = *link;
			if (__rb_generic_cmp(rel, key, parent) < 0)
				link = &parent->rb_left;
			else
				link = &parent->rb_right;
		}
	}

	/*
	 * A new leaf is first in order iff the tree was empty or it hangs to
	 * the left of the old first node (which has no left child); likewise
	 * for the last.  Test before linking changes the caches' meaning.
	 */
	if (rel->tree_flags & RB_HAS_LEFTMOST)
		leftmost = !parent || (link == &parent->rb_left &&
				       parent == *__rb_generic_leftmost(rel, cont));
	/* A cached root's rb_leftmost is the kernel's to keep, below. */
	if (!(rel->tree_flags & RB_CACHED_ROOT) && leftmost)
		*__rb_generic_leftmost(rel, cont) = new;
	if (rel->tree_flags & RB_HAS_RIGHTMOST &&
	    (!parent || (link == &parent->rb_right &&
			 parent == *__rb_generic_rightmost(rel, cont))))
		*__rb_generic_rightmost(rel, cont) = new;
	if (rel->tree_flags & RB_HAS_COUNT)
		++*__rb_generic_count(rel, cont);

	rb_link_node(new, parent, link);
	if (rel->tree_flags & RB_IS_AUGMENTED) {
		/*
		 * Compute @new's own value first (propagation stops at
		 * @parent), then its ancestors', which may stop early once
		 * a value does not change.
		 */
		rel->aug->propagate(new, parent);
		if (parent)
			rel->aug->propagate(parent, NULL);
		if (rel->tree_flags & RB_CACHED_ROOT)
			rb_insert_augmented_cached(new,
						   __rb_generic_root_cached(rel, cont),
						   leftmost, rel->aug);
		else
			rb_insert_augmented(new, root, rel->aug);
	} else if (rel->tree_flags & RB_CACHED_ROOT) {
		rb_insert_color_cached(new, __rb_generic_root_cached(rel, cont),
				       leftmost);
	} else {
		rb_insert_color(new, root);
	}
	return NULL;

found:
	if (rel->tree_flags & RB_INSERT_REPLACES)
		__rb_generic_replace(rel, cont, equal, new);
	return equal;
}

/**
 * __rb_generic_remove() - take a node out of its tree
 * @rel: the tree's descriptor
 * @cont: the container
 * @node: a node of the tree
 *
 * Keeps the caches and augmented data up to date; @node is left cleared
 * (RB_EMPTY_NODE()).
 */
static __always_inline void
__rb_generic_remove(const struct rb_generic_rel *rel, void *cont,
		    struct rb_node *node)
{
	struct rb_root *root = __rb_generic_root(rel, cont);

	/* A cached root's rb_leftmost is the kernel's to keep, below. */
	if (rel->tree_flags & RB_HAS_LEFTMOST &&
	    !(rel->tree_flags & RB_CACHED_ROOT) &&
	    *__rb_generic_leftmost(rel, cont) == node)
		*__rb_generic_leftmost(rel, cont) = rb_next(node);
	if (rel->tree_flags & RB_HAS_RIGHTMOST &&
	    *__rb_generic_rightmost(rel, cont) == node)
		*__rb_generic_rightmost(rel, cont) = rb_prev(node);
	if (rel->tree_flags & RB_HAS_COUNT)
		--*__rb_generic_count(rel, cont);

	if (rel->tree_flags & RB_CACHED_ROOT) {
		if (rel->tree_flags & RB_IS_AUGMENTED)
			rb_erase_augmented_cached(node,
						  __rb_generic_root_cached(rel, cont),
						  rel->aug);
		else
			rb_erase_cached(node, __rb_generic_root_cached(rel, cont));
	} else if (rel->tree_flags & RB_IS_AUGMENTED) {
		rb_erase_augmented(node, root, rel->aug);
	} else {
		rb_erase(node, root);
	}
	RB_CLEAR_NODE(node);
}

/**
 * __rb_generic_find_end() - find the first or last node with a key
 * @rel: the tree's descriptor
 * @cont: the container
 * @key: key to look for
 * @last: find the last node in order rather than the first
 *
 * On a unique tree this is a plain search that stops at the first match.
 *
 * Return: the node, or NULL if no node has @key.
 */
static __always_inline struct rb_node *
__rb_generic_find_end(const struct rb_generic_rel *rel, const void *cont,
		      const void *key, bool last)
{
	struct rb_node *node = __rb_generic_croot(rel, cont)->rb_node;
	struct rb_node *match = NULL;
	long diff;

	while (node) {
		diff = __rb_generic_cmp(rel, key, node);
		if (!diff) {
			if (__rb_generic_unique(rel))
				return node;
			match = node;
		}
		if (diff < 0 || (!diff && !last))
			node = node->rb_left;
		else
			node = node->rb_right;
	}

	return match;
}

/**
 * __rb_generic_find_near() - find the first node after a key, from a hint
 * @rel: the tree's descriptor
 * @cont: the container
 * @near: a node linked in the tree to start from (see
 *	__rb_generic_climb()), or NULL to start at the root
 * @key: key to look past
 *
 * The result does not depend on @near; a hint close to the answer only
 * makes the search shorter.
 *
 * Return: the first node in order whose key is greater than @key, or NULL.
 */
static __always_inline struct rb_node *
__rb_generic_find_near(const struct rb_generic_rel *rel, const void *cont,
		       const struct rb_node *near, const void *key)
{
	/* The climb only reads; it shares its code with the insert's. */
	struct rb_root *root = (struct rb_root *)__rb_generic_croot(rel, cont);
	struct rb_node *node = root->rb_node, *greater = NULL;
	struct rb_node **link, *parent;

	if (near) {
		__rb_generic_climb(rel, root, (struct rb_node *)near, key,
				   false, &link, &parent, &greater);
		node = *link;
	}

	while (node) {
		if (__rb_generic_cmp(rel, key, node) < 0) {
			greater = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}

	return greater;
}

/* The neighbour of @node in order if it has the same key, else NULL. */
static __always_inline struct rb_node *
__rb_generic_find_adjacent(const struct rb_generic_rel *rel,
			   const struct rb_node *node, bool next)
{
	struct rb_node *other = next ? rb_next(node) : rb_prev(node);

	if (other && __rb_generic_cmp(rel, __rb_generic_key(rel, node), other))
		other = NULL;
	return other;
}

/* First (or last) node, from the cache when there is one. */
static __always_inline struct rb_node *
__rb_generic_end(const struct rb_generic_rel *rel, const void *cont,
		 bool last)
{
	if (!last && rel->tree_flags & RB_HAS_LEFTMOST)
		return __rb_generic_cache(cont, rel->left_offset);
	if (last && rel->tree_flags & RB_HAS_RIGHTMOST)
		return __rb_generic_cache(cont, rel->right_offset);
	return last ? rb_last(__rb_generic_croot(rel, cont))
		    : rb_first(__rb_generic_croot(rel, cont));
}

#endif /* _RBTREE_GENERIC_INTERNAL_H */
