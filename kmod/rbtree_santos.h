/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Type-safe generic red-black trees, after Daniel Santos's 2012 proposal
 * "Generic Red-Black Trees" (v2).
 *
 * RB_DEFINE_INTERFACE() describes a tree once: the container that holds the
 * root (and optionally cached leftmost, rightmost and node count), the
 * object type stored in it, its key and comparison function, and a set of
 * compile-time flags.  It expands to a static const descriptor and to short
 * typed functions, each a call to one of the __always_inline __rb_generic_*()
 * implementations of rbtree_generic_internal.h with that descriptor.
 * Because the descriptor is a constant the compiler folds its flags and
 * offsets and calls the comparison directly, as it does for rb_add() and
 * rb_find(), so every interface gets code specialised for its flags from
 * one copy of each walk.
 *
 * Differences from the v2 posting (May 2012), each deliberate:
 *
 * - A 12th argument, @count after @right: the name of an unsigned long
 *   node count, or blank.  The article's 11-argument calls need one more
 *   blank argument.
 * - Flags and members: giving a leftmost, rightmost or count member turns
 *   its flag on (the article's fair_tree names rb_leftmost with flags 0,
 *   and works); setting RB_HAS_LEFTMOST, RB_HAS_RIGHTMOST or RB_HAS_COUNT
 *   with the member blank is a build error.
 * - @compare is ``long (*)(const KEY *, const KEY *)``; v2's
 *   ``long (*)(const void *, const void *)`` is accepted too.  Anything
 *   else is a build error rather than a silent cast.
 * - insert_near and find_near, unfinished in v2, work: they climb from the
 *   hint only until the key's place is bracketed, then descend, and give
 *   the answer of a search from the root.  find_near is the first key
 *   strictly greater than the key (as rb_find_first_greater()), not the
 *   nearest key in either direction.  The hint must be a node linked in
 *   the tree; nothing checks it (a check would read a hint that may have
 *   been freed).
 * - RB_HAS_COUNT and RB_INSERT_REPLACES are new; augmented trees use the
 *   kernel's <linux/rbtree_augmented.h> callbacks.
 * - The root may be a struct rb_root_cached (as the article's own fair_tree,
 *   struct cfs_rq.tasks_timeline, is since 2017): its rb_leftmost is then
 *   the leftmost cache, kept by the kernel's rb_insert_color_cached() and
 *   rb_erase_cached() (their _augmented_ forms on an augmented tree).
 * - BUILD_BUG_ON_NON_CONST2() accepts address constants, and both it and
 *   BUILD_BUG_ON_NON_CONST() decide while parsing, not after optimisation
 *   (see build_bug_const.h); v2's was BUILD_BUG_ON_NON_CONST() for newer
 *   gcc.
 * - Lookups take a const container, as rb_find() takes a const root.
 *   Checks whose condition is an integer constant expression are
 *   static_assert()s at file scope, so they do not depend on optimisation
 *   or on a generated function being used.
 */
#ifndef _RBTREE_SANTOS_H
#define _RBTREE_SANTOS_H

#include <linux/compiler.h>
#include <linux/const.h>
#include <linux/rbtree.h>
#include <linux/stddef.h>

#include "build_bug_const.h"
#include "rbtree_generic_internal.h"

/*
 * Blank-argument detection, in the style of <linux/kconfig.h>: pasting a
 * blank member name onto __RB_GENERIC_BLANK_ yields the macro itself, which
 * expands to a placeholder and a comma and so shifts a 1 into second
 * place; any other name yields an unknown identifier and leaves the 0.
 */
#define __RB_GENERIC_BLANK_ __rb_generic_placeholder,
#define __rb_generic_is_blank(member)					\
	___rb_generic_is_blank(__RB_GENERIC_BLANK_ ## member)
#define ___rb_generic_is_blank(arg_or_junk)				\
	____rb_generic_is_blank(arg_or_junk 1, 0)
#define ____rb_generic_is_blank(...) __take_second_arg(__VA_ARGS__)

/* offsetof() of a member that may be blank (then 0, and never used). */
#define __rb_generic_offset(type, member)				\
	__PASTE(__rb_generic_offset_, __rb_generic_is_blank(member))(type, member)
#define __rb_generic_offset_0(type, member) offsetof(type, member)
#define __rb_generic_offset_1(...) 0	/* a blank member: no offset */

/* Whether a possibly blank member has type @mtype (blank: yes). */
#define __rb_generic_type_ok(type, member, mtype)			\
	__PASTE(__rb_generic_type_ok_,					\
		__rb_generic_is_blank(member))(type, member, mtype)
#define __rb_generic_type_ok_0(type, member, mtype)			\
	__same_type(((type *)0)->member, mtype)
#define __rb_generic_type_ok_1(...) 1	/* a blank member: no type */

/* The augment argument, which may be 0, as a pointer. */
#define __rb_generic_aug(augment)					\
	((const struct rb_augment_callbacks *)(augment))

/* Type of a pointer to the (const) key of an object. */
#define __rb_generic_kptr(obj_type, key) typeof(&((const obj_type *)0)->key)

/* Whether the container's root member is a struct rb_root_cached. */
#define __rb_generic_is_cached(cont_type, root)				\
	__same_type(((cont_type *)0)->root, struct rb_root_cached)

/*
 * The flags of an interface: @flags, plus the flag of each cache member
 * given (the 2012 article's fair_tree names rb_leftmost with flags 0), and
 * RB_CACHED_ROOT with RB_HAS_LEFTMOST for an rb_root_cached root.
 */
#define __rb_generic_flags(flags, cached, left, right, count)		\
	((flags) |							\
	 ((cached) ? RB_CACHED_ROOT | RB_HAS_LEFTMOST : 0) |		\
	 (__rb_generic_is_blank(left) ? 0 : RB_HAS_LEFTMOST) |		\
	 (__rb_generic_is_blank(right) ? 0 : RB_HAS_RIGHTMOST) |	\
	 (__rb_generic_is_blank(count) ? 0 : RB_HAS_COUNT))

/* The leftmost cache's offset: the cached root's own, or @left's. */
#define __rb_generic_left_offset(cont_type, root, left)			\
	(__rb_generic_is_cached(cont_type, root) ?			\
	 offsetof(cont_type, root) +					\
	 offsetof(struct rb_root_cached, rb_leftmost) :			\
	 __rb_generic_offset(cont_type, left))

/*
 * A check of @flags at file scope, with static_assert(), so that it does
 * not depend on the optimiser or on a generated function being used.  It
 * is made only when @flags is an integer constant expression; otherwise
 * BUILD_BUG_ON_NON_CONST() in the generated functions reports @flags.
 */
#define __rb_generic_assert_flags(flags, cond, msg)			\
	static_assert(__builtin_choose_expr(__is_constexpr(flags),	\
					    (cond), 1),			\
		      "RB_DEFINE_INTERFACE: " msg)

/* A cache member's flag set with the member blank. */
#define __rb_generic_assert_member(flags, flag, member, name)		\
	__rb_generic_assert_flags(flags, !((flags) & (flag)) ||		\
				  !__rb_generic_is_blank(member),	\
				  #flag " set but " name " member blank")

/**
 * RB_DEFINE_INTERFACE - define a typed red-black tree interface
 * @prefix: prefix of the generated names
 * @cont_type: type of the container, e.g. ``struct foo_set``
 * @root: name of the container's struct rb_root or struct rb_root_cached
 *	member; an rb_root_cached root is its own leftmost cache
 *	(RB_CACHED_ROOT)
 * @left: name of its struct rb_node * leftmost cache (RB_HAS_LEFTMOST), or
 *	blank (always blank with an rb_root_cached root)
 * @right: name of its struct rb_node * rightmost cache (RB_HAS_RIGHTMOST),
 *	or blank
 * @count: name of its unsigned long node count (RB_HAS_COUNT), or blank
 * @obj_type: type of the objects, e.g. ``struct foo``
 * @node: name of the object's struct rb_node member
 * @key: name of the object's key member, of type KEY
 * @flags: enum rb_generic_flags, a compile-time constant; the flag of each
 *	of @left, @right and @count that is given is implied
 * @compare: ``long compare(const KEY *a, const KEY *b)`` (or with ``const
 *	void *`` arguments), returning <0, 0 or >0 as @a sorts before, with
 *	or after @b; a constant (a function name)
 * @augment: ``const struct rb_augment_callbacks *`` from
 *	RB_DECLARE_CALLBACKS() for RB_IS_AUGMENTED, else 0
 *
 * No semicolon is needed after the macro.  The container must start out
 * zeroed (an empty root, NULL caches, a zero count).
 *
 * Build errors, each with its message (after "RB_DEFINE_INTERFACE: "),
 * at the macro (static_assert(), when @flags is an integer constant
 * expression):
 *
 * - an unknown flag: "unknown flag";
 * - "RB_INSERT_REPLACES needs RB_UNIQUE_KEYS";
 * - RB_HAS_LEFTMOST, RB_HAS_RIGHTMOST or RB_HAS_COUNT with its member
 *   blank: "RB_HAS_LEFTMOST set but leftmost member blank" and so on;
 * - RB_CACHED_ROOT with a root that is not a struct rb_root_cached:
 *   "RB_CACHED_ROOT needs an rb_root_cached root";
 * - a leftmost member beside an rb_root_cached root: "leftmost member given
 *   with an rb_root_cached root (its rb_leftmost is the cache)";
 * - a member of the wrong type: "root member is not a struct rb_root or
 *   struct rb_root_cached",
 *   "leftmost member is not a struct rb_node *" (likewise rightmost),
 *   "count member is not an unsigned long", "node member is not a struct
 *   rb_node";
 * - "compare is not long (*)(const KEY *, const KEY *)";
 * - "augment is not a const struct rb_augment_callbacks *";
 *
 * at the macro too, while parsing (build_bug_const.h), the error naming
 * the check:
 *
 * - @flags not an integer constant: "BUILD_BUG_ON_NON_CONST_failed";
 * - @compare or @augment not an address constant (or 0):
 *   "BUILD_BUG_ON_NON_CONST2_failed";
 *
 * and where a generated function is used (BUILD_BUG_ON(), which needs the
 * optimiser, as the kernel always builds):
 *
 * - "RB_IS_AUGMENTED needs an augment" (@augment 0 or NULL);
 * - "an augment needs RB_IS_AUGMENTED";
 * - prefix_count() on a tree without a count: "prefix_count() needs
 *   RB_HAS_COUNT".
 *
 * Generated functions (all static __always_inline; ``cont`` is @cont_type,
 * ``obj`` is @obj_type, ``KEY`` is the type of @key).  Every modifying
 * function keeps the leftmost, rightmost and count caches and the augmented
 * data up to date.  Objects passed to modifying functions belong to the
 * caller, who may free one once it is out of the tree.
 *
 * ``obj *prefix_insert(cont *c, obj *o)``:
 *	insert @o.  Returns NULL if @o was linked.  On a unique tree that
 *	already holds @o's key, returns the object holding it and leaves the
 *	tree unchanged, or, with RB_INSERT_REPLACES, puts @o in its place and
 *	returns the old object (now out of the tree).  Without
 *	RB_UNIQUE_KEYS, @o goes after the objects with an equal key.
 *
 * ``obj *prefix_insert_near(cont *c, obj *near, obj *o)``:
 *	as prefix_insert(), but the search climbs from @near (an object
 *	linked in this tree, or NULL for the root) to the lowest ancestor
 *	whose subtree brackets @o's key, then descends.  For a @near d
 *	objects from @o's place that is O(log d) levels in the mean over the
 *	tree's objects, but up to the tree's height for some pairs (two
 *	neighbours in order can sit on either side of the root).  The result
 *	and the place of @o are those of prefix_insert() for every @near.
 *	@near is not checked: a removed (maybe freed) object or one of
 *	another tree gives an undefined result.
 *
 * ``void prefix_remove(cont *c, obj *o)``:
 *	take @o, which must be in the tree, out of it.
 *
 * ``obj *prefix_find(const cont *c, const KEY *k)``:
 *	an object with key *@k, or NULL; the first in order among equal keys
 *	on a tree without RB_UNIQUE_KEYS.
 *
 * ``obj *prefix_find_first(const cont *c, const KEY *k)``,
 * ``obj *prefix_find_last(const cont *c, const KEY *k)``:
 *	the first (last) object in order with key *@k, or NULL.
 *
 * ``obj *prefix_find_next(const obj *o)``, ``obj *prefix_find_prev(const obj *o)``:
 *	the object after (before) @o in order if it has the same key as @o,
 *	else NULL; with prefix_find_first() this walks the objects of a key.
 *
 * ``obj *prefix_find_near(const cont *c, const obj *near, const KEY *k)``:
 *	the first object in order whose key is greater than *@k, or NULL,
 *	climbing from @near (an object linked in this tree, or NULL: from the
 *	root) as prefix_insert_near() does; the result is the same for every
 *	@near.  This is the v2 posting's find_near made precise: the first
 *	key strictly greater than *@k, as rb_find_first_greater(), not the
 *	nearest key in either direction.
 *
 * ``obj *prefix_first(const cont *c)``, ``obj *prefix_last(const cont *c)``:
 *	the first (last) object in order, or NULL if the tree is empty;
 *	O(1) with RB_HAS_LEFTMOST (RB_HAS_RIGHTMOST).
 *
 * ``obj *prefix_next(const obj *o)``, ``obj *prefix_prev(const obj *o)``:
 *	the object after (before) @o in order, or NULL.
 *
 * ``void prefix_walk(cont *c, void (*fn)(obj *o, void *arg), void *arg)``:
 *	call @fn on every object in order.  @fn may remove (and free) the
 *	object it is given, but no other.
 *
 * ``unsigned long prefix_count(const cont *c)``:
 *	the number of objects, O(1); only with RB_HAS_COUNT.
 */
#define RB_DEFINE_INTERFACE(prefix, cont_type, root, left, right, count,	\
			    obj_type, node, key, flags, compare, augment)	\
									\
__rb_generic_assert_flags(flags, !((flags) & ~RB_GENERIC_ALL_FLAGS),	\
			  "unknown flag");				\
__rb_generic_assert_flags(flags, !((flags) & RB_INSERT_REPLACES) ||	\
			  ((flags) & RB_UNIQUE_KEYS),			\
			  "RB_INSERT_REPLACES needs RB_UNIQUE_KEYS");	\
__rb_generic_assert_flags(flags, !((flags) & RB_HAS_LEFTMOST) ||	\
			  !__rb_generic_is_blank(left) ||		\
			  __rb_generic_is_cached(cont_type, root),	\
			  "RB_HAS_LEFTMOST set but leftmost member blank");	\
__rb_generic_assert_member(flags, RB_HAS_RIGHTMOST, right, "rightmost");	\
__rb_generic_assert_member(flags, RB_HAS_COUNT, count, "count");	\
__rb_generic_assert_flags(flags, !((flags) & RB_CACHED_ROOT) ||	\
			  __rb_generic_is_cached(cont_type, root),	\
			  "RB_CACHED_ROOT needs an rb_root_cached root");	\
static_assert(__same_type(((cont_type *)0)->root, struct rb_root) ||	\
	      __rb_generic_is_cached(cont_type, root),			\
	      "RB_DEFINE_INTERFACE: root member is not a struct rb_root"	\
	      " or struct rb_root_cached");				\
static_assert(!__rb_generic_is_cached(cont_type, root) ||		\
	      __rb_generic_is_blank(left),				\
	      "RB_DEFINE_INTERFACE: leftmost member given with an"	\
	      " rb_root_cached root (its rb_leftmost is the cache)");	\
static_assert(__rb_generic_type_ok(cont_type, left, struct rb_node *),	\
	      "RB_DEFINE_INTERFACE: leftmost member is not a struct rb_node *");\
static_assert(__rb_generic_type_ok(cont_type, right, struct rb_node *),	\
	      "RB_DEFINE_INTERFACE: rightmost member is not a struct rb_node *");\
static_assert(__rb_generic_type_ok(cont_type, count, unsigned long),	\
	      "RB_DEFINE_INTERFACE: count member is not an unsigned long");	\
static_assert(__same_type(((obj_type *)0)->node, struct rb_node),	\
	      "RB_DEFINE_INTERFACE: node member is not a struct rb_node");	\
static_assert(__same_type(&*(compare),					\
			  long (*)(__rb_generic_kptr(obj_type, key),	\
				   __rb_generic_kptr(obj_type, key))) ||	\
	      __same_type(&*(compare),					\
			  long (*)(const void *, const void *)),	\
	      "RB_DEFINE_INTERFACE: compare is not"			\
	      " long (*)(const KEY *, const KEY *)");			\
static_assert(__same_type(augment,					\
			  const struct rb_augment_callbacks *) ||	\
	      __same_type(augment, int) || __same_type(augment, void *),	\
	      "RB_DEFINE_INTERFACE: augment is not a"			\
	      " const struct rb_augment_callbacks *");			\
									\
static inline long prefix ## _rb_compare(const void *a, const void *b)	\
{									\
	__rb_generic_kptr(obj_type, key) ka = a;			\
	__rb_generic_kptr(obj_type, key) kb = b;			\
									\
	return (compare)(ka, kb);					\
}									\
									\
static const struct rb_generic_rel prefix ## _rb_rel __maybe_unused = {	\
	.root_offset	= offsetof(cont_type, root),			\
	.left_offset	= __rb_generic_left_offset(cont_type, root, left),	\
	.right_offset	= __rb_generic_offset(cont_type, right),	\
	.count_offset	= __rb_generic_offset(cont_type, count),	\
	.node_offset	= offsetof(obj_type, node),			\
	.key_offset	= offsetof(obj_type, key),			\
	/* non-constant arguments are left for the build checks below */	\
	.tree_flags	= __builtin_constant_p(flags) ?			\
			  __rb_generic_flags(flags,			\
					     __rb_generic_is_cached(cont_type, root),	\
					     left, right, count) : 0,	\
	.cmp		= prefix ## _rb_compare,			\
	.aug		= __builtin_constant_p(__rb_generic_aug(augment) ==	\
					       __rb_generic_aug(0)) ?	\
			  __rb_generic_aug(augment) : NULL,		\
};									\
									\
static __always_inline const struct rb_generic_rel *prefix ## _rb(void)	\
{									\
	BUILD_BUG_ON_NON_CONST(flags);					\
	BUILD_BUG_ON_NON_CONST2(compare);				\
	BUILD_BUG_ON_NON_CONST2(augment);				\
	BUILD_BUG_ON_MSG((prefix ## _rb_rel.tree_flags & RB_IS_AUGMENTED) &&	\
			 !prefix ## _rb_rel.aug,			\
			 "RB_DEFINE_INTERFACE: RB_IS_AUGMENTED needs an"	\
			 " augment");					\
	BUILD_BUG_ON_MSG(!(prefix ## _rb_rel.tree_flags & RB_IS_AUGMENTED) &&	\
			 prefix ## _rb_rel.aug,				\
			 "RB_DEFINE_INTERFACE: an augment needs"	\
			 " RB_IS_AUGMENTED");				\
	BUILD_BUG_ON(prefix ## _rb_rel.tree_flags !=			\
		     __rb_generic_flags(flags,				\
					__rb_generic_is_cached(cont_type, root),	\
					left, right, count));		\
	BUILD_BUG_ON(prefix ## _rb_rel.aug != __rb_generic_aug(augment));	\
	return &prefix ## _rb_rel;					\
}									\
									\
static __always_inline obj_type *					\
prefix ## _insert(cont_type *c, obj_type *o)				\
{									\
	return rb_entry_safe(__rb_generic_insert(prefix ## _rb(), c, NULL,	\
						&o->node),		\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *					\
prefix ## _insert_near(cont_type *c, obj_type *near, obj_type *o)	\
{									\
	return rb_entry_safe(__rb_generic_insert(prefix ## _rb(), c,	\
						near ? &near->node : NULL,	\
						&o->node),		\
			     obj_type, node);				\
}									\
									\
static __always_inline void prefix ## _remove(cont_type *c, obj_type *o)	\
{									\
	__rb_generic_remove(prefix ## _rb(), c, &o->node);		\
}									\
									\
static __always_inline obj_type *					\
prefix ## _find_first(const cont_type *c,				\
		       __rb_generic_kptr(obj_type, key) k)	\
{									\
	return rb_entry_safe(__rb_generic_find_end(prefix ## _rb(), c, k,	\
						  false),		\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *					\
prefix ## _find(const cont_type *c, __rb_generic_kptr(obj_type, key) k)	\
{									\
	return prefix ## _find_first(c, k);				\
}									\
									\
static __always_inline obj_type *					\
prefix ## _find_last(const cont_type *c,				\
		      __rb_generic_kptr(obj_type, key) k)	\
{									\
	return rb_entry_safe(__rb_generic_find_end(prefix ## _rb(), c, k,	\
						  true),		\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *prefix ## _find_next(const obj_type *o)	\
{									\
	return rb_entry_safe(__rb_generic_find_adjacent(prefix ## _rb(),	\
						       &o->node, true),	\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *prefix ## _find_prev(const obj_type *o)	\
{									\
	return rb_entry_safe(__rb_generic_find_adjacent(prefix ## _rb(),	\
						       &o->node, false),	\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *					\
prefix ## _find_near(const cont_type *c, const obj_type *near,	\
		     __rb_generic_kptr(obj_type, key) k)		\
{									\
	return rb_entry_safe(__rb_generic_find_near(prefix ## _rb(), c,	\
						   near ? &near->node	\
							: NULL, k),	\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *prefix ## _first(const cont_type *c)	\
{									\
	return rb_entry_safe(__rb_generic_end(prefix ## _rb(), c, false),	\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *prefix ## _last(const cont_type *c)	\
{									\
	return rb_entry_safe(__rb_generic_end(prefix ## _rb(), c, true),	\
			     obj_type, node);				\
}									\
									\
static __always_inline obj_type *prefix ## _next(const obj_type *o)	\
{									\
	return rb_entry_safe(rb_next(&o->node), obj_type, node);	\
}									\
									\
static __always_inline obj_type *prefix ## _prev(const obj_type *o)	\
{									\
	return rb_entry_safe(rb_prev(&o->node), obj_type, node);	\
}									\
									\
static __always_inline void						\
prefix ## _walk(cont_type *c, void (*fn)(obj_type *o, void *arg),	\
		void *arg)						\
{									\
	struct rb_node *cur, *next;					\
									\
	for (cur = __rb_generic_end(prefix ## _rb(), c, false); cur;	\
	     cur = next) {						\
		next = rb_next(cur);					\
		fn(rb_entry(cur, obj_type, node), arg);			\
	}								\
}									\
									\
static __always_inline unsigned long					\
prefix ## _count(const cont_type *c)					\
{									\
	BUILD_BUG_ON_MSG(!(prefix ## _rb()->tree_flags & RB_HAS_COUNT),	\
			 "RB_DEFINE_INTERFACE: " #prefix "_count() needs"	\
			 " RB_HAS_COUNT");				\
	return *(const unsigned long *)((const char *)c +		\
					prefix ## _rb()->count_offset);	\
}

#endif /* _RBTREE_SANTOS_H */
