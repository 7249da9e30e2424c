// SPDX-License-Identifier: GPL-2.0
/*
 * The C core's check of a tree read by cc_walk(), and
 * its interface.
 *
 * The classes and their order are tools/rbtilib/checker.py's (and so
 * kmod/DEBUGFS.md's "check classes"), on the tree as rbtilib/kernel/
 * stable.py writes it: the root not read (parent), the shape's faults
 * (cycle, shared; a link to no node: parent, unless the walk was cut
 * short), a walk cut short (height, the last node read), then the root
 * (root-color, parent), each node entered (parent, red-red,
 * black-height), in order (order) and left (augment, by the rule), the
 * cached leftmost, the height bound, and last stable.py's own: a linked
 * node that could not be read (parent) and a cache at no node
 * (leftmost). A node's id is its in-order position, then unread
 * addresses in the order they were met, as stable.number() gives them.
 */
#include <stdlib.h>
#include <string.h>

#include "rbti_cc_int.h"

struct cc_f2 {
	s128 acc;		/* the rule folded over the subtree's children */
	uint64_t size;		/* nodes in the subtree, so far */
	uint32_t idx, up;	/* the node, the node linking to it */
	uint32_t blacks;	/* black nodes from the root to it */
	uint8_t stage;		/* 0 enter, 1 in order, 2 leave */
	uint8_t has_acc;
};

static int cc_key_cmp(const struct rbti_cc *cc, uint64_t a, uint64_t b)
{
	const s128 *x = &cc->keys[a * RBTI_CC_KEYS];
	const s128 *y = &cc->keys[b * RBTI_CC_KEYS];
	uint32_t i;

	for (i = 0; i < cc->nkey; i++) {
		if (cc->key_bytes >> i & 1) {
			uint32_t xl = (uint32_t)x[i], yl = (uint32_t)y[i];
			uint64_t xo = (uint64_t)(x[i] >> 32);
			uint64_t yo = (uint64_t)(y[i] >> 32);
			int c = 0;

			if (xl && yl)
				c = memcmp(cc->arena + xo, cc->arena + yo,
					   xl < yl ? xl : yl);
			if (c)
				return c < 0 ? -1 : 1;
			if (xl != yl)
				return xl < yl ? -1 : 1;
		} else if (x[i] != y[i]) {
			return x[i] < y[i] ? -1 : 1;
		}
	}
	return 0;
}

static s128 cc_fold(uint32_t rule, s128 v, s128 acc, bool has)
{
	if (!has)
		return v;
	if (rule == RBTI_RULE_MAX)
		return v > acc ? v : acc;
	if (rule == RBTI_RULE_MIN)
		return v < acc ? v : acc;
	return v + acc;
}

/* Add a violation found by the check (never a link to no node). */
static int cc_add(struct rbti_cc *cc, uint32_t cls, int64_t who)
{
	struct cc_viol *v = cc_grow(cc->viol, &cc->viol_cap, cc->nviol + 1,
				    sizeof(*v));

	if (!v)
		return -3;
	cc->viol = v;
	v[cc->nviol++] = (struct cc_viol){ cls, 0, who };
	return 0;
}

/* The id of @addr in the dump, or -1 if it is no node or unread address. */
static int64_t cc_id_of(const struct rbti_cc *cc, uint64_t addr)
{
	uint64_t mask = cc->map_size - 1, i;

	if (!addr)
		return -1;
	for (i = cc_mix(addr) & mask; cc->map_gen[i] == cc->gen; i = (i + 1) & mask) {
		if (cc->map_key[i] != addr)
			continue;
		if (cc->map_val[i] & CC_UNREAD)
			return (int64_t)(cc->n + (cc->map_val[i] & ~CC_UNREAD));
		return cc->nodes[cc->map_val[i]].id;
	}
	return -1;
}

/*
 * The walk of a tree read: every class node by node, then the caches and
 * the height bound. *@height: the longest path.
 */
static int cc_check(struct rbti_cc *cc, const struct rbti_cc_spec *s,
		    uint64_t leftmost)
{
	struct cc_f2 *st = cc->frames;
	uint32_t sp = 0, nil_blacks = 0, id = 0, height = 0;
	uint32_t first = CC_NONE, prev = CC_NONE;
	bool have_nil = false, dup = s->flags & RBTI_CC_DUP;
	uint64_t count = 0;
	int r = 0;

	if (cc->n) {
		if (!(cc->nodes[0].pc & 1))
			r = cc_add(cc, RBTI_V_ROOT_COLOR, 0);
		if (!r && (cc->nodes[0].pc & ~3ull))
			r = cc_add(cc, RBTI_V_PARENT, 0);
		st[sp++] = (struct cc_f2){ .size = 1, .idx = 0, .up = CC_NONE };
	}
	while (sp && !r) {
		struct cc_f2 *f = &st[sp - 1];
		struct cc_node *nd = &cc->nodes[f->idx];

		if (f->stage == 0) {
			f->stage = 1;
			count++;
			if (nd->depth > height)
				height = nd->depth;
			f->blacks += nd->pc & 1;
			if (f->up != CC_NONE) {
				const struct cc_node *up = &cc->nodes[f->up];

				if ((nd->pc & ~3ull) != up->addr)
					r = cc_add(cc, RBTI_V_PARENT, f->idx);
				if (!r && !(nd->pc & 1) && !(up->pc & 1))
					r = cc_add(cc, RBTI_V_RED_RED, f->idx);
			}
			if (!r && (nd->kid[0] == CC_NONE || nd->kid[1] == CC_NONE)) {
				if (!have_nil) {
					have_nil = true;
					nil_blacks = f->blacks;
				} else if (f->blacks != nil_blacks) {
					r = cc_add(cc, RBTI_V_BLACK_HEIGHT, f->idx);
				}
			}
			if (nd->kid[0] != CC_NONE)
				st[sp++] = (struct cc_f2){ .size = 1,
					.idx = nd->kid[0], .up = f->idx,
					.blacks = f->blacks };
		} else if (f->stage == 1) {
			f->stage = 2;
			nd->id = id++;
			if (prev == CC_NONE) {
				first = f->idx;
			} else {
				int c = cc_key_cmp(cc, f->idx, prev);

				if (c < 0 || (c == 0 && !dup))
					r = cc_add(cc, RBTI_V_ORDER, f->idx);
			}
			prev = f->idx;
			if (nd->kid[1] != CC_NONE)
				st[sp++] = (struct cc_f2){ .size = 1,
					.idx = nd->kid[1], .up = f->idx,
					.blacks = f->blacks };
		} else {
			struct cc_f2 done = *f;
			s128 top = 0;

			sp--;
			if (s->rule == RBTI_RULE_SIZE) {
				if (cc->augs[done.idx] != (s128)done.size)
					r = cc_add(cc, RBTI_V_AUGMENT, done.idx);
			} else if (s->rule) {
				top = cc_fold(s->rule, cc->owns[done.idx],
					      done.acc, done.has_acc);
				if (cc->augs[done.idx] != top)
					r = cc_add(cc, RBTI_V_AUGMENT, done.idx);
			}
			if (sp) {
				f = &st[sp - 1];
				f->size += done.size;
				if (s->rule > RBTI_RULE_SIZE) {
					f->acc = cc_fold(s->rule, top, f->acc,
							 f->has_acc);
					f->has_acc = 1;
				}
			}
		}
	}
	if (!r && (s->flags & RBTI_CC_LEFTMOST) &&
	    cc_id_of(cc, leftmost) != (first == CC_NONE ? -1 :
				       (int64_t)cc->nodes[first].id))
		r = cc_add(cc, RBTI_V_LEFTMOST,
			   first == CC_NONE ? -1 : (int64_t)first);
	/* The module's bound: height <= 2 * floor(log2(n + 1)). */
	if (!r && count &&
	    height > 2u * (63 - (uint32_t)__builtin_clzll(count + 1)))
		r = cc_add(cc, RBTI_V_HEIGHT, 0);
	return r;
}

/* stable.extra_violations(): what the dump cannot carry. */
static int cc_extra(struct rbti_cc *cc, const struct rbti_cc_spec *s,
		    uint64_t leftmost)
{
	uint64_t k;
	int r = 0;

	for (k = 0; k < cc->nunread && !r; k++)
		if (cc->unread[k].why == RBTI_WHY_FAULT)
			r = cc_add(cc, RBTI_V_PARENT, -2 - (int64_t)k);
	if (!r && (s->flags & RBTI_CC_LEFTMOST) && leftmost &&
	    cc_id_of(cc, leftmost) < 0)
		r = cc_add(cc, RBTI_V_LEFTMOST, -1);
	return r;
}

static uint64_t cc_hash_step(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	h = (h << 31 | h >> 33) * 0xbf58476d1ce4e5b9ull;
	return h;
}

/* Of everything the pass decoded: two passes that agree have one hash. */
static uint64_t cc_hash(const struct rbti_cc *cc, const struct rbti_cc_result *res)
{
	uint64_t h = cc_hash_step(0, res->root), i, j, b;

	h = cc_hash_step(h, res->leftmost);
	h = cc_hash_step(h, cc->error);
	for (i = 0; i < cc->n; i++) {
		const struct cc_node *nd = &cc->nodes[i];
		const s128 *key = &cc->keys[i * RBTI_CC_KEYS];

		h = cc_hash_step(h, nd->addr);
		h = cc_hash_step(h, nd->pc);
		h = cc_hash_step(h, nd->left);
		h = cc_hash_step(h, nd->right);
		for (j = 0; j < cc->nkey; j++) {
			h = cc_hash_step(h, (uint64_t)key[j]);
			h = cc_hash_step(h, (uint64_t)(key[j] >> 64));
			if (!(cc->key_bytes >> j & 1))
				continue;
			for (b = 0; b < (uint32_t)key[j]; b++)
				h = cc_hash_step(h, cc->arena[(uint64_t)(key[j] >> 32) + b]);
		}
		h = cc_hash_step(h, (uint64_t)cc->augs[i]);
		h = cc_hash_step(h, (uint64_t)(cc->augs[i] >> 64));
		h = cc_hash_step(h, (uint64_t)cc->owns[i]);
		h = cc_hash_step(h, (uint64_t)(cc->owns[i] >> 64));
	}
	for (i = 0; i < cc->nunread; i++) {
		h = cc_hash_step(h, cc->unread[i].addr);
		h = cc_hash_step(h, cc->unread[i].why);
	}
	return h;
}

static int cc_u64(struct rbti_cc *cc, uint64_t addr, uint64_t *out)
{
	s128 v;
	int r = cc_int(cc, addr, 8, 0, &v);

	*out = (uint64_t)v;
	return r;
}

static int cc_state(struct rbti_cc_result *res, int r)
{
	static const int32_t states[] = { RBTI_CC_UNREADABLE, RBTI_CC_ABORT,
					  RBTI_CC_NOMEM, RBTI_CC_UNSUPPORTED };

	res->state = r <= -1 && r >= -4 ? states[-r - 1] : RBTI_CC_ABORT;
	return res->state;
}

/**
 * rbti_cc_pass() - read a tree once and check it
 * @cc: the census's context
 * @spec: the tree
 * @res: the verdict
 * @v: room for the first @vcap violations, in the checker's order
 * @vcap: its size
 *
 * Return: @res->state.
 */
int rbti_cc_pass(struct rbti_cc *cc, const struct rbti_cc_spec *spec,
		 struct rbti_cc_result *res, struct rbti_cc_violation *v,
		 uint32_t vcap)
{
	uint64_t root, leftmost = 0, base = 0, reads = cc->reads, i, out = 0;
	int r;

	memset(res, 0, sizeof(*res));
	cc_mem_begin(cc);
	if (!cc_prog_ok(spec, &cc->nkey, &cc->key_bytes)) {
		res->state = RBTI_CC_BADSPEC;
		return res->state;
	}
	if (cc_frames(cc, spec->max_depth, sizeof(struct cc_f2)))
		return cc_state(res, -3);
	r = (spec->flags & RBTI_CC_BASE) ? cc_u64(cc, spec->base_slot, &base) : 0;
	res->fault = spec->base_slot;
	if (!r) {
		r = cc_u64(cc, spec->root_slot, &root);
		res->fault = spec->root_slot;
	}
	if (!r && (spec->flags & RBTI_CC_LEFTMOST)) {
		r = cc_u64(cc, spec->leftmost_slot, &leftmost);
		res->fault = spec->leftmost_slot;
	}
	if (r) {
		res->reads = cc->reads - reads;
		return cc_state(res, r);
	}
	res->fault = 0;
	res->root = root;
	res->leftmost = leftmost;
	if (!root && !leftmost) {
		res->reads = cc->reads - reads;
		res->state = RBTI_CC_EMPTY;
		return res->state;
	}
	r = cc_walk(cc, spec, root, (s128)base);
	if (!r)
		r = cc_check(cc, spec, leftmost);
	if (!r)
		r = cc_extra(cc, spec, leftmost);
	if (r) {
		res->reads = cc->reads - reads;
		return cc_state(res, r == -1 ? -2 : r);
	}
	for (i = 0; i < cc->nviol; i++) {
		const struct cc_viol *cv = &cc->viol[i];
		int64_t id = cv->who;

		if (cv->missing && cc->error)
			continue;
		if (id >= 0)
			id = cc->nodes[id].id;
		else if (id <= -2)
			id = (int64_t)cc->n + (-2 - id);
		if (out < vcap && v)
			v[out] = (struct rbti_cc_violation){ cv->cls, 0, id };
		out++;
	}
	res->violations = out;
	res->nodes = cc->n;
	res->unread = cc->nunread;
	res->error = cc->error;
	for (i = 0; i < cc->n; i++)
		if (cc->nodes[i].depth > res->height)
			res->height = cc->nodes[i].depth;
	if (cc->error == RBTI_WHY_DEPTH)
		res->height = spec->max_depth + 1;
	res->hash = cc_hash(cc, res);
	/* (A batch on live memory reads its trees again at its end.) */
	r = cc->error == RBTI_WHY_SIZE || cc->batch ? 0 : cc_unchanged(cc);
	res->reads = cc->reads - reads;
	if (r < 0)
		return cc_state(res, -2);
	res->agreed = r;
	res->state = out ? RBTI_CC_VIOLATION : RBTI_CC_OK;
	return res->state;
}

uint32_t rbti_cc_abi(uint32_t sizes[6])
{
	sizes[0] = sizeof(struct rbti_cc_spec);
	sizes[1] = sizeof(struct rbti_cc_result);
	sizes[2] = sizeof(struct rbti_cc_violation);
	sizes[3] = sizeof(struct rbti_cc_node);
	sizes[4] = sizeof(struct rbti_cc_insn);
	sizes[5] = sizeof(struct rbti_cc_tree);
	return RBTI_CC_ABI;
}

struct rbti_cc *rbti_cc_new(rbti_cc_read_fn fn, void *arg, uint32_t flags,
			    uint32_t cache_pages)
{
	struct rbti_cc *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->fn = fn;
	cc->arg = arg;
	cc->flags = flags & (RBTI_CC_STATIC | RBTI_CC_DIRECT);
	cc->map_size = 1024;
	cc->map_key = malloc(cc->map_size * sizeof(*cc->map_key));
	cc->map_val = malloc(cc->map_size * sizeof(*cc->map_val));
	cc->map_gen = calloc(cc->map_size, sizeof(*cc->map_gen));
	cc->gen = 1;
	if (!fn || !cc->map_key || !cc->map_val || !cc->map_gen ||
	    cc_mem_init(cc, cache_pages)) {
		rbti_cc_free(cc);
		return NULL;
	}
	return cc;
}

void rbti_cc_free(struct rbti_cc *cc)
{
	if (!cc)
		return;
	cc_mem_free(cc);
	free(cc->nodes);
	free(cc->keys);
	free(cc->augs);
	free(cc->owns);
	free(cc->arena);
	free(cc->map_key);
	free(cc->map_val);
	free(cc->map_gen);
	free(cc->unread);
	free(cc->viol);
	free(cc->frames);
	free(cc->touch);
	free(cc);
}

/* The addresses of the nodes of the last pass, in the order read. */
uint64_t rbti_cc_addrs(const struct rbti_cc *cc, uint64_t *out, uint64_t cap)
{
	uint64_t i;

	for (i = 0; i < cc->n && i < cap; i++)
		out[i] = cc->nodes[i].addr;
	return cc->n;
}

static void cc_split(s128 v, uint64_t out[2])
{
	out[0] = (uint64_t)v;
	out[1] = (uint64_t)(v >> 64);
}

/* Node @i of the last pass (in the order read): 0, or -1 if none. */
int rbti_cc_node(const struct rbti_cc *cc, uint64_t i, struct rbti_cc_node *out)
{
	const struct cc_node *nd;
	uint32_t j;

	if (i >= cc->n)
		return -1;
	nd = &cc->nodes[i];
	memset(out, 0, sizeof(*out));
	out->addr = nd->addr;
	out->pc = nd->pc;
	out->left = nd->left;
	out->right = nd->right;
	out->depth = nd->depth;
	out->id = nd->id;
	for (j = 0; j < 2; j++)
		out->kid[j] = nd->kid[j] == CC_NONE ? -1 : (int64_t)nd->kid[j];
	for (j = 0; j < cc->nkey; j++) {
		s128 k = cc->keys[i * RBTI_CC_KEYS + j];

		if (cc->key_bytes >> j & 1)
			out->bytes[j] = (uint32_t)k;
		else
			cc_split(k, out->key[j]);
	}
	cc_split(cc->augs[i], out->aug);
	cc_split(cc->owns[i], out->own);
	return 0;
}

/*
 * The byte string of part @part of node @i's key: its length (at most
 * @cap bytes copied), or -1.
 */
int64_t rbti_cc_bytes(const struct rbti_cc *cc, uint64_t i, uint32_t part,
		      uint8_t *buf, uint32_t cap)
{
	s128 k;
	uint32_t len;

	if (i >= cc->n || part >= cc->nkey || !(cc->key_bytes >> part & 1))
		return -1;
	k = cc->keys[i * RBTI_CC_KEYS + part];
	len = (uint32_t)k;
	if (len)
		memcpy(buf, cc->arena + (uint64_t)(k >> 32), len < cap ? len : cap);
	return len;
}

/* Unread address @i of the last pass and why: 0, or -1 if none. */
int rbti_cc_unread(const struct rbti_cc *cc, uint64_t i, uint64_t *addr,
		   uint32_t *why)
{
	if (i >= cc->nunread)
		return -1;
	*addr = cc->unread[i].addr;
	*why = cc->unread[i].why;
	return 0;
}
