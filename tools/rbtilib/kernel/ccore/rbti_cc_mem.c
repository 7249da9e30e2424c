// SPDX-License-Identifier: GPL-2.0
/*
 * The C core's reads of foreign memory, a page at a time.
 *
 * As rbtilib/kernel/walk.py's PageReads: a page is read whole through the
 * callback once and served from the cache after; a page that cannot be
 * read whole is not taken as unreadable, its reads go to the callback as
 * the walk asks them (a direct read), so a fault is exactly where the
 * memory has one. On live memory the cache lives for one pass and
 * remembers every byte it served: cc_unchanged() reads each page again
 * and compares those bytes, and each direct read, which is the second
 * read of a pair without a second walk. On memory that cannot change (a
 * core file, RBTI_CC_STATIC) pages stay cached from tree to tree (up to
 * the cache's size, then it starts again) and nothing is read twice.
 * Memory that is not read a page at a time (RBTI_CC_DIRECT: the tests'
 * fake memories, as walk.Memory.pass_reader() says) is read as asked and
 * never read again: two passes that agree are two walks.
 */
#include <stdlib.h>
#include <string.h>

#include "rbti_cc_int.h"

/* Room for @need items of @size in @p (capacity *@cap), or NULL. */
void *cc_grow(void *p, uint64_t *cap, uint64_t need, size_t size)
{
	uint64_t want = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (want < need) {
		if (want > (UINT64_MAX >> 2) / size)
			return NULL;
		want *= 2;
	}
	if (want > SIZE_MAX / size)
		return NULL;
	q = realloc(p, want * size);
	if (q)
		*cap = want;
	return q;
}

static uint64_t cc_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

int cc_mem_init(struct rbti_cc *cc, uint32_t cache_pages)
{
	uint32_t size = 16;

	if (cache_pages < 16)
		cache_pages = 16;
	if (cache_pages > (1u << 20))
		cache_pages = 1u << 20;
	cc->cap_pages = (cache_pages + CC_CHUNK - 1) / CC_CHUNK * CC_CHUNK;
	while (size < 2 * cc->cap_pages)
		size *= 2;
	cc->chunks = calloc(cc->cap_pages / CC_CHUNK, sizeof(*cc->chunks));
	cc->page_tab_size = size;
	cc->page_tab = calloc(size, sizeof(*cc->page_tab));
	cc->bad_size = 1024;
	cc->bad = calloc(cc->bad_size, sizeof(*cc->bad));
	return cc->page_tab && cc->bad && cc->chunks ? 0 : -1;
}

void cc_mem_free(struct rbti_cc *cc)
{
	uint32_t i;

	for (i = 0; cc->chunks && i < cc->cap_pages / CC_CHUNK; i++)
		free(cc->chunks[i]);
	free(cc->chunks);
	free(cc->page_tab);
	free(cc->bad);
	free(cc->direct);
	free(cc->direct_data);
}

static void cc_pages_clear(struct rbti_cc *cc)
{
	cc->npages = 0;
	memset(cc->page_tab, 0, cc->page_tab_size * sizeof(*cc->page_tab));
}

static void cc_bad_clear(struct rbti_cc *cc)
{
	cc->nbad = 0;
	memset(cc->bad, 0, cc->bad_size * sizeof(*cc->bad));
}

/*
 * A pass starts: live memory forgets everything the last one read (but
 * in a batch, whose trees are all read again at its end).
 */
void cc_mem_begin(struct rbti_cc *cc)
{
	if ((cc->flags & RBTI_CC_STATIC) || cc->batch)
		return;
	cc->lost = false;
	cc->ndirect = 0;
	cc->direct_len = 0;
	if (cc->npages)
		cc_pages_clear(cc);
	if (cc->nbad)
		cc_bad_clear(cc);
}

/* One call of the callback: 0, -1 (a fault) or -2 (abort). */
static int cc_call(struct rbti_cc *cc, uint64_t addr, uint32_t size,
		   uint8_t *buf)
{
	int r;

	cc->reads++;
	r = cc->fn(cc->arg, addr, size, buf);
	return r == 0 || r == -1 ? r : -2;
}

static bool cc_bad_has(const struct rbti_cc *cc, uint64_t page)
{
	uint64_t mask = cc->bad_size - 1, i = cc_hash64(page) & mask;

	for (; cc->bad[i]; i = (i + 1) & mask)
		if (cc->bad[i] == (page | 1))
			return true;
	return false;
}

static void cc_bad_add(struct rbti_cc *cc, uint64_t page)
{
	uint64_t mask = cc->bad_size - 1, i = cc_hash64(page) & mask;

	/* A full set starts again: a bad page is then read again, no more. */
	if (2 * (cc->nbad + 1) > cc->bad_size)
		cc_bad_clear(cc);
	while (cc->bad[i])
		i = (i + 1) & mask;
	cc->bad[i] = page | 1;
	cc->nbad++;
}

/* Slot @i of the cache (its chunk allocated now if need be), or NULL. */
static struct cc_page *cc_slot(struct rbti_cc *cc, uint32_t i)
{
	struct cc_page **chunk = &cc->chunks[i / CC_CHUNK];

	if (!*chunk)
		*chunk = malloc(CC_CHUNK * sizeof(**chunk));
	return *chunk ? &(*chunk)[i % CC_CHUNK] : NULL;
}

/*
 * The cached page @page, read now if need be; NULL if it cannot be read
 * whole (*@err: -2 if the callback aborted, -3 out of memory).
 */
static struct cc_page *cc_page(struct rbti_cc *cc, uint64_t page, int *err)
{
	uint32_t mask = cc->page_tab_size - 1;
	uint32_t i = (uint32_t)cc_hash64(page) & mask, slot;
	struct cc_page *p;
	int r;

	*err = 0;
	for (; (slot = cc->page_tab[i]); i = (i + 1) & mask)
		if (cc_slot(cc, slot - 1)->page == page)
			return cc_slot(cc, slot - 1);
	if (cc_bad_has(cc, page))
		return NULL;
	if (cc->npages == cc->cap_pages) {
		/* Live memory: a pass that drops pages is never agreed. */
		if (!(cc->flags & RBTI_CC_STATIC))
			cc->lost = true;
		cc_pages_clear(cc);
		i = (uint32_t)cc_hash64(page) & mask;
	}
	p = cc_slot(cc, cc->npages);
	if (!p) {
		*err = -3;
		return NULL;
	}
	r = cc_call(cc, page, CC_PAGE, p->data);
	if (r == -1) {
		cc_bad_add(cc, page);
		return NULL;
	}
	if (r) {
		*err = r;
		return NULL;
	}
	p->page = page;
	p->slot = cc->npages;
	p->stamp = 0;
	if (!(cc->flags & RBTI_CC_STATIC))
		memset(p->used, 0, sizeof(p->used));
	while (cc->page_tab[i])
		i = (i + 1) & mask;
	cc->page_tab[i] = ++cc->npages;
	return p;
}

/* A read of memory the page cache cannot serve, kept to read again. */
static int cc_direct(struct rbti_cc *cc, uint64_t addr, uint32_t size,
		     uint8_t *buf)
{
	int r = cc_call(cc, addr, size, buf);
	struct cc_direct *d;
	uint8_t *q;

	if (r == -2 || (cc->flags & RBTI_CC_STATIC) || cc->lost)
		return r;
	d = cc_grow(cc->direct, &cc->direct_alloc, cc->ndirect + 1, sizeof(*d));
	if (d)
		cc->direct = d;
	q = r ? NULL : cc_grow(cc->direct_data, &cc->direct_cap,
			       cc->direct_len + size, 1);
	if (q)
		cc->direct_data = q;
	/* Too many to keep: the pass is not agreed, its pair is two walks. */
	if (!d || (!r && !q) || cc->ndirect == CC_DIRECT_MAX ||
	    cc->direct_len + size > CC_DIRECT_BYTES) {
		cc->lost = true;
		return r;
	}
	d = &cc->direct[cc->ndirect++];
	d->addr = addr;
	d->size = size;
	d->ok = r == 0;
	d->off = cc->direct_len;
	if (r == 0) {
		memcpy(cc->direct_data + cc->direct_len, buf, size);
		cc->direct_len += size;
	}
	return r;
}

static void cc_mark(struct cc_page *p, uint32_t off, uint32_t size)
{
	uint32_t i;

	for (i = off; i < off + size; i++)
		p->used[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* A batch's tree uses page @p: its second read must find it the same. */
static void cc_touch(struct rbti_cc *cc, struct cc_page *p)
{
	uint32_t *t = cc_grow(cc->touch, &cc->touch_cap, cc->ntouch + 1,
			      sizeof(*t));

	if (!t) {
		cc->lost = true;
		return;
	}
	cc->touch = t;
	t[cc->ntouch++] = p->slot;
	p->stamp = cc->stamp;
}

/*
 * Read @size bytes at @addr (at most RBTI_CC_BYTES_MAX): 0, -1 if the
 * memory cannot be read, -2 if the callback aborted, -3 out of memory.
 */
int cc_read(struct rbti_cc *cc, uint64_t addr, uint32_t size, uint8_t *buf)
{
	uint64_t at = addr, end = addr + size;
	bool live = !(cc->flags & RBTI_CC_STATIC);
	int err;

	if (!size)
		return 0;
	if (size > RBTI_CC_BYTES_MAX || end < addr)
		return -1;
	if (cc->flags & RBTI_CC_DIRECT)
		return cc_call(cc, addr, size, buf);
	/* Page by page; any page not read whole: the read as asked. */
	while (at < end) {
		uint64_t page = at & ~(uint64_t)(CC_PAGE - 1);
		uint32_t off = (uint32_t)(at - page);
		uint32_t len = CC_PAGE - off;
		struct cc_page *p = cc_page(cc, page, &err);

		if (!p)
			return err ? err : cc_direct(cc, addr, size, buf);
		if (len > end - at)
			len = (uint32_t)(end - at);
		memcpy(buf + (at - addr), p->data + off, len);
		if (live)
			cc_mark(p, off, len);
		if (cc->batch && p->stamp != cc->stamp)
			cc_touch(cc, p);
		at += len;
	}
	return 0;
}

/*
 * Read again every page in the cache and every direct read: set
 * @pages[i] if a byte the passes used of cached page i reads otherwise
 * (or the page cannot be read now), @direct[i] if direct read i does.
 * 0, or -2 if the callback aborted.
 */
int cc_changed(struct rbti_cc *cc, uint8_t *pages, uint8_t *direct)
{
	uint8_t *again = cc->scratch;
	uint64_t i;
	uint32_t b;
	int r;

	for (i = 0; i < cc->npages; i++) {
		struct cc_page *p = cc_slot(cc, (uint32_t)i);

		r = cc_call(cc, p->page, CC_PAGE, again);
		if (r == -2)
			return -2;
		pages[i] = r != 0;
		if (r || !memcmp(again, p->data, CC_PAGE))
			continue;
		for (b = 0; b < CC_PAGE && !pages[i]; b++)
			if ((p->used[b / 8] >> (b % 8) & 1) &&
			    again[b] != p->data[b])
				pages[i] = 1;
	}
	for (i = 0; i < cc->ndirect; i++) {
		struct cc_direct *d = &cc->direct[i];

		r = cc_call(cc, d->addr, d->size, again);
		if (r == -2)
			return -2;
		direct[i] = (r ? d->ok : !d->ok) ||
			    (d->ok && memcmp(again, cc->direct_data + d->off,
					     d->size));
	}
	return 0;
}

/*
 * Whether memory still holds every byte the pass read: 1, 0, or -2 if
 * the callback aborted. Static memory always does; memory read directly
 * is never read again (0).
 */
int cc_unchanged(struct rbti_cc *cc)
{
	uint8_t *pages, *direct;
	uint64_t i;
	int r;

	if (cc->flags & RBTI_CC_DIRECT)
		return 0;
	if (cc->flags & RBTI_CC_STATIC)
		return 1;
	if (cc->lost)
		return 0;
	pages = malloc(cc->npages + 1);
	direct = malloc(cc->ndirect + 1);
	r = pages && direct ? cc_changed(cc, pages, direct) : 0;
	if (pages && direct && !r) {
		r = 1;
		for (i = 0; i < cc->npages && r; i++)
			r = !pages[i];
		for (i = 0; i < cc->ndirect && r; i++)
			r = !direct[i];
	}
	free(pages);
	free(direct);
	return r;
}
