/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C core's memory reads (rbti_cc_mem.c), its walk
 * (rbti_cc_tree.c) and its check (rbti_cc_check.c) share: the context of
 * a census.
 */
#ifndef RBTI_CC_INT_H
#define RBTI_CC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "rbti_cc.h"

typedef __int128 s128;

#define CC_PAGE 4096u
#if RBTI_CC_BYTES_MAX > CC_PAGE
#error "a byte string must fit in a page"
#endif
#define CC_NONE UINT32_MAX
#define CC_UNREAD 0x8000000000000000ull	/* a map value: unread entry k */
#define CC_DIRECT_MAX 65536u		/* reads of bad pages a pass keeps */
#define CC_DIRECT_BYTES (64u << 20)	/* and their bytes */
#define CC_ARENA_MAX (64u << 20)	/* bytes of byte-string keys a pass keeps */
#define CC_CHUNK 64u			/* cache pages allocated at once */

/* A page read whole, and (live memory) which of its bytes a pass used. */
struct cc_page {
	uint64_t page;
	uint32_t slot;		/* its index in the cache */
	uint32_t stamp;		/* the tree of a batch that last used it */
	uint8_t data[CC_PAGE];
	uint8_t used[CC_PAGE / 8];
};

/* A read of a page that could not be read whole, as the walk asked it. */
struct cc_direct {
	uint64_t addr;
	uint64_t off;		/* of its bytes in direct_data */
	uint32_t size;
	int32_t ok;
};

struct cc_node {
	uint64_t addr, pc, left, right;
	uint32_t depth;
	uint32_t id;		/* in-order position, set by the check */
	uint32_t kid[2];	/* first-reach children, or CC_NONE */
	uint8_t on_path;
};

struct cc_unread {
	uint64_t addr;
	uint32_t why;		/* enum rbti_cc_why */
};

/*
 * A violation as found: @who is a node index, -1 for none, or -2 - k for
 * unread entry k; @missing marks a link to no node, which a walk cut
 * short does not report.
 */
struct cc_viol {
	uint32_t cls;
	uint32_t missing;
	int64_t who;
};

struct rbti_cc {
	rbti_cc_read_fn fn;
	void *arg;
	uint32_t flags;
	bool lost;			/* pages dropped, or too many direct reads */
	bool batch;			/* a batch on live memory (rbti_cc_batch.c) */
	uint32_t stamp;			/* its tree, counted from 1 */
	uint32_t *touch;		/* the pages each of its trees used */
	uint64_t ntouch, touch_cap;
	uint64_t reads;
	/*
	 * The page cache: slots 0 .. npages (cc_slot()), found through
	 * page_tab (slot + 1), allocated in chunks, never moved or copied.
	 */
	struct cc_page **chunks;
	uint32_t npages, cap_pages;
	uint32_t *page_tab;
	uint32_t page_tab_size;
	uint64_t *bad;			/* pages that cannot be read whole, | 1 */
	uint32_t nbad, bad_size;
	struct cc_direct *direct;
	uint64_t ndirect, direct_alloc;
	uint8_t *direct_data;
	uint64_t direct_len, direct_cap;
	/* The tree of the last pass. */
	struct cc_node *nodes;
	uint64_t n, cap;
	s128 *keys;			/* RBTI_CC_KEYS a node */
	s128 *augs, *owns;
	uint32_t nkey, key_bytes;	/* bit i: part i is a byte string */
	uint8_t *arena;
	uint64_t arena_len, arena_cap;
	uint64_t *map_key, *map_val;	/* address -> node or CC_UNREAD | k */
	uint32_t *map_gen;		/* an entry is this pass's if gen's */
	uint64_t map_size, map_used;
	uint32_t gen;
	struct cc_unread *unread;
	uint64_t nunread, unread_cap;
	struct cc_viol *viol;
	uint64_t nviol, viol_cap;
	uint32_t error;
	void *frames;			/* the walks' stacks */
	uint32_t frames_cap;
	uint8_t scratch[CC_PAGE];	/* a page read again */
};

int cc_mem_init(struct rbti_cc *cc, uint32_t cache_pages);
void cc_mem_free(struct rbti_cc *cc);
void cc_mem_begin(struct rbti_cc *cc);
int cc_read(struct rbti_cc *cc, uint64_t addr, uint32_t size, uint8_t *buf);
int cc_unchanged(struct rbti_cc *cc);
int cc_changed(struct rbti_cc *cc, uint8_t *pages, uint8_t *direct);
void *cc_grow(void *p, uint64_t *cap, uint64_t need, size_t size);
uint64_t cc_mix(uint64_t x);
int cc_int(struct rbti_cc *cc, s128 addr, uint32_t size, int sign, s128 *out);
int cc_frames(struct rbti_cc *cc, uint32_t depth, size_t size);
int cc_prog_ok(const struct rbti_cc_spec *s, uint32_t *nkey, uint32_t *bytes);
int cc_walk(struct rbti_cc *cc, const struct rbti_cc_spec *s, uint64_t root,
	    s128 base);

#endif /* RBTI_CC_INT_H */
