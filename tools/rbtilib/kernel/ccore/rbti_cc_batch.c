// SPDX-License-Identifier: GPL-2.0
/*
 * The C core's batches: the trees of one kind read one after the other in
 * one call from Python (rbti_cc_batch()), for the census, whose trees are
 * mostly small and many (a call per tree costs more than its walk).
 *
 * On live memory the second read of each tree's pair is the batch's: its
 * trees are read into one page cache, each noting the pages it used, and
 * at the end every page and direct read is read once again. A tree is
 * agreed if none of the bytes read from its pages (by any tree of the
 * batch: a byte another tree read that changed counts against it too) and
 * none of its direct reads changed: the same guarantee as its own pair
 * (its walk is a function of those bytes), with a page that several trees
 * share (slab pages of siblings) read twice, not twice a tree. A batch
 * that outgrows the cache, or keeps too many direct reads, agrees on no
 * tree: each is then read on its own.
 */
#include <stdlib.h>
#include <string.h>

#include "rbti_cc_int.h"

/* Where each tree's used pages and direct reads are: [from, to). */
struct cc_span {
	uint64_t touch0, touch1, direct0, direct1;
};

/* Whether the tree of @span read only bytes that read the same again. */
static bool cc_same(const struct rbti_cc *cc, const struct cc_span *span,
		    const uint8_t *pages, const uint8_t *direct)
{
	uint64_t i;

	for (i = span->touch0; i < span->touch1; i++)
		if (pages[cc->touch[i]])
			return false;
	for (i = span->direct0; i < span->direct1; i++)
		if (direct[i])
			return false;
	return true;
}

/* The second read of a live batch: each tree's res.agreed. */
static int cc_batch_again(struct rbti_cc *cc, struct rbti_cc_tree *trees,
			  uint32_t n, const struct cc_span *spans)
{
	uint8_t *pages = malloc(cc->npages + 1);
	uint8_t *direct = malloc(cc->ndirect + 1);
	int r = -3;
	uint32_t i;

	if (pages && direct && !cc->lost)
		r = cc_changed(cc, pages, direct);
	for (i = 0; i < n; i++) {
		struct rbti_cc_result *res = &trees[i].res;

		res->agreed = !r && res->error != RBTI_WHY_SIZE &&
			      (res->state == RBTI_CC_OK ||
			       res->state == RBTI_CC_VIOLATION) &&
			      cc_same(cc, &spans[i], pages, direct);
	}
	free(pages);
	free(direct);
	return r == -2 ? -2 : 0;
}

/**
 * rbti_cc_batch() - read and check trees of one kind, one pass each
 * @cc: the census's context
 * @spec: the kind's spec (its slots are each tree's, then left as found)
 * @trees: the trees: their slots in, their verdicts out
 * @n: how many
 * @addrs: where the addresses of each tree's nodes go, one tree after
 *	the other (NULL: nowhere); a tree they do not fit gets ~0
 * @cap: room in @addrs
 *
 * Return: the trees read: @n, or fewer if the callback aborted (the
 * last one read has state RBTI_CC_ABORT).
 */
uint32_t rbti_cc_batch(struct rbti_cc *cc, struct rbti_cc_spec *spec,
		       struct rbti_cc_tree *trees, uint32_t n, uint64_t *addrs,
		       uint64_t cap)
{
	bool live = !(cc->flags & (RBTI_CC_STATIC | RBTI_CC_DIRECT));
	struct cc_span *spans = live ? malloc((n + 1) * sizeof(*spans)) : NULL;
	uint64_t used = 0;
	uint32_t i;

	if (live && spans) {
		cc_mem_begin(cc);
		cc->ntouch = 0;
		cc->batch = true;
	}
	for (i = 0; i < n; i++) {
		struct rbti_cc_tree *t = &trees[i];

		spec->root_slot = t->root_slot;
		spec->leftmost_slot = t->leftmost_slot;
		spec->base_slot = t->base_slot;
		t->addrs = ~0ull;
		cc->stamp = i + 1;
		if (cc->batch)
			spans[i] = (struct cc_span){ cc->ntouch, 0,
						     cc->ndirect, 0 };
		if (rbti_cc_pass(cc, spec, &t->res, NULL, 0) == RBTI_CC_ABORT) {
			cc->batch = false;
			free(spans);
			return i + 1;
		}
		if (cc->batch) {
			spans[i].touch1 = cc->ntouch;
			spans[i].direct1 = cc->ndirect;
		}
		if (addrs && t->res.state == RBTI_CC_OK && cc->n <= cap - used) {
			t->addrs = used;
			used += rbti_cc_addrs(cc, addrs + used, cap - used);
		}
	}
	if (cc->batch) {
		cc->batch = false;
		if (cc_batch_again(cc, trees, n, spans) == -2) {
			trees[n - 1].res.state = RBTI_CC_ABORT;
			free(spans);
			return n;
		}
	}
	free(spans);
	return n;
}
