// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups take what mainline's take: a const container or root, const
 * nodes in the comparison, a const hint; rb_insert() returns the node in
 * the way.  Dropping a const qualifier is an error here, so a lookup that
 * wanted a modifiable tree does not build.
 * expect: (builds)
 */
#pragma GCC diagnostic error "-Wdiscarded-qualifiers"
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

#include "cf_common.h"
#include "rbtree_overstreet.h"

RB_DEFINE_INTERFACE(cf, struct cf_cont, root, left, /* no rightmost */, count,
		    struct cf_obj, node, key,
		    RB_HAS_LEFTMOST | RB_HAS_COUNT | RB_UNIQUE_KEYS, cf_cmp, 0)

static int cf_node_cmp(const struct rb_node *l, const struct rb_node *r)
{
	return cf_cmp(&rb_entry(l, const struct cf_obj, node)->key,
		      &rb_entry(r, const struct cf_obj, node)->key);
}

/* The out-of-line versions, by type only (this module does not link them). */
static_assert(__same_type(&rb_insert,
			  struct rb_node *(*)(struct rb_root *,
					      struct rb_node *, rb_cmp_t *)));
static_assert(__same_type(&rb_search,
			  struct rb_node *(*)(const struct rb_root *,
					      const struct rb_node *,
					      rb_cmp_t *)));
static_assert(__same_type(&rb_find_first_greater,
			  struct rb_node *(*)(const struct rb_root *,
					      const struct rb_node *,
					      rb_cmp_t *)));

static unsigned long __maybe_unused
cf_lookups(const struct cf_cont *c, const struct cf_obj *near, const long *k)
{
	return (unsigned long)cf_find(c, k) + (unsigned long)cf_find_first(c, k) +
	       (unsigned long)cf_find_last(c, k) +
	       (unsigned long)cf_find_near(c, near, k) +
	       (unsigned long)cf_first(c) + (unsigned long)cf_last(c) +
	       cf_count(c);
}

static struct rb_node *__maybe_unused
cf_node_lookups(const struct rb_root *root, const struct cf_obj *search)
{
	struct rb_node *found = _rb_search(root, &search->node, cf_node_cmp);

	return found ?: _rb_find_first_greater(root, &search->node, cf_node_cmp);
}

static struct cf_obj *__maybe_unused
cf_node_insert(struct rb_root *root, struct cf_obj *o)
{
	return container_of_or_null(_rb_insert(root, &o->node, cf_node_cmp),
				    struct cf_obj, node);
}

#include "cf_use.h"
