// SPDX-License-Identifier: GPL-2.0
/*
 * An rb_root_cached root with every flag a plain root allows: the root's
 * rb_leftmost is the leftmost cache (RB_CACHED_ROOT and RB_HAS_LEFTMOST
 * implied), kept by rb_insert_augmented_cached()/rb_erase_augmented_cached().
 * expect: (builds)
 */
#include "cf_common.h"

#define CF_CACHED
RB_DEFINE_INTERFACE(cf, struct cf_ccont, root, /* rb_leftmost */,
		    /* no rightmost */, count, struct cf_obj, node, key,
		    RB_HAS_LEFTMOST | RB_UNIQUE_KEYS | RB_INSERT_REPLACES |
		    RB_IS_AUGMENTED, cf_cmp, &cf_size_cb)

#include "cf_use.h"
