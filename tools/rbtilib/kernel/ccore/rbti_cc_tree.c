// SPDX-License-Identifier: GPL-2.0
/*
 * One read of a tree and its decode: the C core's walk.
 *
 * The walk is rbtilib/kernel/walk.py's and the shape walk of
 * rbtilib/shape.py in one: preorder through child pointers only, left
 * before right, a node read when a link first reaches it. A link to a
 * node already reached is not followed (a cycle if the node is on the
 * current path, else a shared node), a link to an address that cannot be
 * read, is misaligned, or lies past the depth or node bound is a link to
 * no node (an "unread" address), and past either bound nothing more is
 * read. The stack is the path, at most max_depth frames: no recursion.
 *
 * Why this is not the module's walk (kmod/inspector_walk.c): that one
 * dereferences struct rb_node pointers, marks the nodes it reaches in the
 * nodes themselves (rbti_node.mark) and stops at the first violation;
 * here the nodes are addresses in another machine's memory, each read
 * through a callback that may fault, the nodes reached are kept in a hash
 * map, and the check reports every violation, in the Python checker's
 * order, so that the two can be compared node for node. The walk's state
 * machine (enter, left, in order, right, leave) is the part both could
 * share, given accessors for a child link and for "reached".
 */
#include <stdlib.h>
#include <string.h>

#include "rbti_cc_int.h"

struct cc_f1 {
	uint32_t idx;
	uint32_t side;		/* next link to follow: 0 left, 1 right, 2 done */
};

/* --- the map of addresses reached ------------------------------------- */

uint64_t cc_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	return x;
}

static bool cc_map_get(const struct rbti_cc *cc, uint64_t addr, uint64_t *val)
{
	uint64_t mask = cc->map_size - 1, i = cc_mix(addr) & mask;

	for (; cc->map_gen[i] == cc->gen; i = (i + 1) & mask)
		if (cc->map_key[i] == addr) {
			*val = cc->map_val[i];
			return true;
		}
	return false;
}

static void cc_map_set(struct rbti_cc *cc, uint64_t addr, uint64_t val)
{
	uint64_t mask = cc->map_size - 1, i = cc_mix(addr) & mask;

	while (cc->map_gen[i] == cc->gen)
		i = (i + 1) & mask;
	cc->map_gen[i] = cc->gen;
	cc->map_key[i] = addr;
	cc->map_val[i] = val;
	cc->map_used++;
}

static int cc_map_alloc(struct rbti_cc *cc, uint64_t size)
{
	uint64_t *key = malloc(size * sizeof(*key));
	uint64_t *val = malloc(size * sizeof(*val));
	uint32_t *gen = calloc(size, sizeof(*gen));

	if (!key || !val || !gen) {
		free(key);
		free(val);
		free(gen);
		return -3;
	}
	free(cc->map_key);
	free(cc->map_val);
	free(cc->map_gen);
	cc->map_key = key;
	cc->map_val = val;
	cc->map_gen = gen;
	cc->map_size = size;
	cc->map_used = 0;
	cc->gen = 1;
	return 0;
}

static int cc_map_put(struct rbti_cc *cc, uint64_t addr, uint64_t val)
{
	if (2 * (cc->map_used + 1) > cc->map_size) {
		uint64_t *key = cc->map_key, *vals = cc->map_val;
		uint64_t size = cc->map_size, i;
		uint32_t *gen = cc->map_gen, cur = cc->gen;

		if (size > (1ull << 40))
			return -3;
		cc->map_key = NULL;
		cc->map_val = NULL;
		cc->map_gen = NULL;
		if (cc_map_alloc(cc, 2 * size)) {
			cc->map_key = key;
			cc->map_val = vals;
			cc->map_gen = gen;
			return -3;
		}
		for (i = 0; i < size; i++)
			if (gen[i] == cur)
				cc_map_set(cc, key[i], vals[i]);
		free(key);
		free(vals);
		free(gen);
	}
	cc_map_set(cc, addr, val);
	return 0;
}

/* A new pass: no address reached (a large map of an earlier tree shrinks). */
static int cc_map_clear(struct rbti_cc *cc)
{
	if (cc->map_size > 4096 && cc->map_used < cc->map_size / 16)
		return cc_map_alloc(cc, 1024);
	cc->map_used = 0;
	if (++cc->gen == 0) {
		memset(cc->map_gen, 0, cc->map_size * sizeof(*cc->map_gen));
		cc->gen = 1;
	}
	return 0;
}

/* --- violations and unread addresses ------------------------------------ */

static int cc_viol(struct rbti_cc *cc, uint32_t cls, int64_t who,
		   uint32_t missing)
{
	struct cc_viol *v = cc_grow(cc->viol, &cc->viol_cap, cc->nviol + 1,
				    sizeof(*v));

	if (!v)
		return -3;
	cc->viol = v;
	v[cc->nviol++] = (struct cc_viol){ cls, missing, who };
	return 0;
}

static int cc_unread(struct rbti_cc *cc, uint64_t addr, uint32_t why)
{
	struct cc_unread *u = cc_grow(cc->unread, &cc->unread_cap,
				      cc->nunread + 1, sizeof(*u));

	if (!u)
		return -3;
	cc->unread = u;
	u[cc->nunread] = (struct cc_unread){ addr, why };
	return cc_map_put(cc, addr, CC_UNREAD | cc->nunread++);
}

/* --- the programs ---------------------------------------------------------- */

/*
 * The number of values @prog leaves (bit i of *@bytes: value i is a byte
 * string), or -1 if it is no program the interpreter takes.
 */
static int cc_prog_check(const struct rbti_cc_insn *prog, uint32_t *bytes)
{
	/* Values each op takes; they must all be integers. */
	static const uint8_t pops[RBTI_OP_NR] = {
		[RBTI_OP_LOAD] = 1, [RBTI_OP_ADD] = 2, [RBTI_OP_SUB] = 2,
		[RBTI_OP_SHR] = 1, [RBTI_OP_S64] = 1, [RBTI_OP_IFNEG] = 3,
		[RBTI_OP_BYTES] = 2,
	};
	uint32_t types = 0, i;
	int sp = 0;

	for (i = 0; i < RBTI_CC_PROG; i++) {
		const struct rbti_cc_insn *in = &prog[i];
		int take;

		if (in->op >= RBTI_OP_NR)
			return -1;
		if (in->op == RBTI_OP_END) {
			*bytes = types;
			return sp;
		}
		take = pops[in->op];
		if (sp < take || (types >> (sp - take)) & ((1u << take) - 1))
			return -1;
		if ((in->op == RBTI_OP_FIELD || in->op == RBTI_OP_LOAD) &&
		    in->size != 1 && in->size != 2 && in->size != 4 &&
		    in->size != 8)
			return -1;
		if (in->op == RBTI_OP_SHR && (in->arg < 0 || in->arg > 127))
			return -1;
		sp -= take;
		types &= (1u << sp) - 1;
		if (in->op == RBTI_OP_BYTES)
			types |= 1u << sp;
		if (++sp > RBTI_CC_STACK)
			return -1;
	}
	return -1;
}

/* The little-endian integer of @size bytes at @addr: 0, -1 (a fault), ... */
int cc_int(struct rbti_cc *cc, s128 addr, uint32_t size, int sign, s128 *out)
{
	uint8_t buf[8];
	uint64_t v = 0;
	uint32_t i;
	int r;

	if (addr < 0 || addr > (s128)UINT64_MAX || size > sizeof(buf))
		return -1;
	r = cc_read(cc, (uint64_t)addr, size, buf);
	if (r)
		return r;
	for (i = 0; i < size; i++)
		v |= (uint64_t)buf[i] << (8 * i);
	if (sign && size < 8 && (v >> (8 * size - 1) & 1))
		v |= ~0ull << (8 * size);
	*out = sign ? (s128)(int64_t)v : (s128)v;
	return 0;
}

/* The @len bytes at @ptr, into the arena: (offset << 32 | len) in *@out. */
static int cc_bytes(struct rbti_cc *cc, s128 ptr, s128 len, s128 *out)
{
	uint8_t *a;
	int r;

	if (len == 0) {
		*out = 0;
		return 0;
	}
	if (len < 0 || ptr < 0 || ptr > (s128)UINT64_MAX)
		return -1;
	if (len > RBTI_CC_BYTES_MAX ||
	    cc->arena_len + (uint64_t)len > CC_ARENA_MAX)
		return -4;
	a = cc_grow(cc->arena, &cc->arena_cap, cc->arena_len + (uint64_t)len, 1);
	if (!a)
		return -3;
	cc->arena = a;
	r = cc_read(cc, (uint64_t)ptr, (uint32_t)len, a + cc->arena_len);
	if (r)
		return r;
	*out = (s128)cc->arena_len << 32 | (uint32_t)len;
	cc->arena_len += (uint64_t)len;
	return 0;
}

/*
 * Run a checked program over the entry at @entry: 0, -1 (a fault), -2
 * (abort), -3 (no memory), -4 (unsupported).
 */
static int cc_run(struct rbti_cc *cc, const struct rbti_cc_insn *prog,
		  s128 entry, s128 base, s128 *out)
{
	s128 st[RBTI_CC_STACK + 1];
	uint32_t sp = 0, i;
	int r = 0;

	for (i = 0; i < RBTI_CC_PROG && !r; i++) {
		const struct rbti_cc_insn *in = &prog[i];

		switch (in->op) {
		case RBTI_OP_END:
			memcpy(out, st, sp * sizeof(*st));
			return 0;
		case RBTI_OP_FIELD:
			r = cc_int(cc, entry + in->arg, in->size, in->sign,
				   &st[sp++]);
			break;
		case RBTI_OP_LOAD:
			r = cc_int(cc, st[sp - 1] + in->arg, in->size, in->sign,
				   &st[sp - 1]);
			break;
		case RBTI_OP_CONST:
			st[sp++] = in->arg;
			break;
		case RBTI_OP_BASE:
			st[sp++] = base;
			break;
		case RBTI_OP_ADD:
			sp--;
			st[sp - 1] += st[sp];
			break;
		case RBTI_OP_SUB:
			sp--;
			st[sp - 1] -= st[sp];
			break;
		case RBTI_OP_SHR:
			st[sp - 1] >>= in->arg;
			break;
		case RBTI_OP_S64:
			st[sp - 1] = (int64_t)(uint64_t)st[sp - 1];
			break;
		case RBTI_OP_IFNEG:
			sp -= 2;
			st[sp - 1] = st[sp - 1] < 0 ? st[sp] : st[sp + 1];
			break;
		case RBTI_OP_BYTES:
			sp--;
			r = cc_bytes(cc, st[sp - 1], st[sp], &st[sp - 1]);
			break;
		}
	}
	return r ? r : -4;
}

/* --- one node -------------------------------------------------------------- */

static int cc_word(struct rbti_cc *cc, uint64_t addr, int32_t off,
		   uint64_t *out)
{
	s128 v;
	int r = cc_int(cc, (s128)addr + off, 8, 0, &v);

	*out = (uint64_t)v;
	return r;
}

static int cc_room(struct rbti_cc *cc)
{
	uint64_t cap = cc->cap, n = cc->n + 1;
	struct cc_node *nodes;
	s128 *p;

	if (n <= cc->cap)
		return 0;
	nodes = cc_grow(cc->nodes, &cap, n, sizeof(*nodes));
	if (!nodes)
		return -3;
	cc->nodes = nodes;
	p = realloc(cc->keys, cap * RBTI_CC_KEYS * sizeof(*p));
	if (!p)
		return -3;
	cc->keys = p;
	p = realloc(cc->augs, cap * sizeof(*p));
	if (!p)
		return -3;
	cc->augs = p;
	p = realloc(cc->owns, cap * sizeof(*p));
	if (!p)
		return -3;
	cc->owns = p;
	cc->cap = cap;
	return 0;
}

/* Read the node at @addr and its entry's values: 0, or as cc_run(). */
static int cc_node(struct rbti_cc *cc, const struct rbti_cc_spec *s,
		   uint64_t addr, uint32_t depth, s128 base)
{
	uint64_t i = cc->n, arena = cc->arena_len;
	s128 entry = (s128)addr - s->node_off;
	struct cc_node *nd;
	int r = cc_room(cc);

	if (r)
		return r;
	nd = &cc->nodes[i];
	r = cc_word(cc, addr, s->parent_off, &nd->pc);
	if (!r)
		r = cc_word(cc, addr, s->right_off, &nd->right);
	if (!r)
		r = cc_word(cc, addr, s->left_off, &nd->left);
	if (!r)
		r = cc_run(cc, s->key, entry, base, &cc->keys[i * RBTI_CC_KEYS]);
	cc->augs[i] = 0;
	cc->owns[i] = 0;
	if (!r && (s->flags & RBTI_CC_AUG))
		r = cc_run(cc, s->aug, entry, base, &cc->augs[i]);
	if (!r && (s->flags & RBTI_CC_OWN))
		r = cc_run(cc, s->own, entry, base, &cc->owns[i]);
	if (r) {
		cc->arena_len = arena;
		return r;
	}
	nd->addr = addr;
	nd->depth = depth;
	nd->id = 0;
	nd->kid[0] = CC_NONE;
	nd->kid[1] = CC_NONE;
	nd->on_path = 0;
	r = cc_map_put(cc, addr, i);
	if (!r)
		cc->n++;
	return r;
}

/*
 * The link from node @from (-1: the root slot) on @side to @addr, at
 * @depth: a tree edge to a node read now (*@pushed), or a fault of the
 * shape (a cycle, a shared node, a link to no node). 0 or an error.
 */
static int cc_link(struct rbti_cc *cc, const struct rbti_cc_spec *s,
		   s128 base, int64_t from, uint32_t side, uint64_t addr,
		   uint32_t depth, bool *pushed)
{
	uint32_t missing = from >= 0;
	uint64_t val;
	int r;

	*pushed = false;
	if (!addr)
		return 0;
	if (cc_map_get(cc, addr, &val)) {
		if (val & CC_UNREAD)
			return cc_viol(cc, RBTI_V_PARENT, from, missing);
		return cc_viol(cc, cc->nodes[val].on_path ? RBTI_V_CYCLE :
			       RBTI_V_SHARED, from, 0);
	}
	if (!cc->error && (depth > s->max_depth || cc->n >= s->max_nodes))
		cc->error = depth > s->max_depth ? RBTI_WHY_DEPTH :
						   RBTI_WHY_SIZE;
	if (cc->error) {
		r = cc_unread(cc, addr, cc->error);
		return r ? r : cc_viol(cc, RBTI_V_PARENT, from, missing);
	}
	r = addr & 3 ? -1 : cc_node(cc, s, addr, depth, base);
	if (r == -1) {
		r = cc_unread(cc, addr, RBTI_WHY_FAULT);
		return r ? r : cc_viol(cc, RBTI_V_PARENT, from, missing);
	}
	if (r)
		return r;
	if (from >= 0)
		cc->nodes[from].kid[side] = (uint32_t)(cc->n - 1);
	*pushed = true;
	return 0;
}

/* Frames for a walk @depth deep, of @size bytes each. */
int cc_frames(struct rbti_cc *cc, uint32_t depth, size_t size)
{
	void *f;

	if (depth + 2 <= cc->frames_cap)
		return 0;
	f = realloc(cc->frames, (size_t)(depth + 2) * size);
	if (!f)
		return -3;
	cc->frames = f;
	cc->frames_cap = depth + 2;
	return 0;
}

/*
 * Read the tree from @root: every node reached, every unread address,
 * the shape's faults in the order the walk meets them.
 */
int cc_walk(struct rbti_cc *cc, const struct rbti_cc_spec *s, uint64_t root,
	    s128 base)
{
	struct cc_f1 *st;
	uint32_t sp = 0;
	bool pushed;
	int r;

	cc->n = 0;
	cc->nunread = 0;
	cc->nviol = 0;
	cc->arena_len = 0;
	cc->error = 0;
	r = cc_map_clear(cc);
	if (!r)
		r = cc_link(cc, s, base, -1, 0, root, 1, &pushed);
	if (r)
		return r;
	st = cc->frames;
	if (pushed) {
		st[sp++] = (struct cc_f1){ 0, 0 };
		cc->nodes[0].on_path = 1;
	}
	while (sp) {
		struct cc_f1 *f = &st[sp - 1];
		uint32_t idx = f->idx, side = f->side;
		uint64_t child;

		if (side == 2) {
			cc->nodes[idx].on_path = 0;
			sp--;
			continue;
		}
		f->side++;
		child = side ? cc->nodes[idx].right : cc->nodes[idx].left;
		r = cc_link(cc, s, base, idx, side, child,
			    cc->nodes[idx].depth + 1, &pushed);
		if (r)
			return r;
		if (pushed) {
			st[sp++] = (struct cc_f1){ (uint32_t)(cc->n - 1), 0 };
			cc->nodes[cc->n - 1].on_path = 1;
		}
	}
	if (cc->error)
		return cc_viol(cc, RBTI_V_HEIGHT,
			       cc->n ? (int64_t)cc->n - 1 : -1, 0);
	return 0;
}

/* Whether @s is a spec the core reads: its programs, rule and bounds. */
int cc_prog_ok(const struct rbti_cc_spec *s, uint32_t *nkey, uint32_t *bytes)
{
	uint32_t b;
	int n = cc_prog_check(s->key, bytes);

	if (n < 1 || n > RBTI_CC_KEYS)
		return 0;
	*nkey = (uint32_t)n;
	if ((s->flags & RBTI_CC_AUG) && (cc_prog_check(s->aug, &b) != 1 || b))
		return 0;
	if ((s->flags & RBTI_CC_OWN) && (cc_prog_check(s->own, &b) != 1 || b))
		return 0;
	if (s->rule > RBTI_RULE_SUM || (s->rule && !(s->flags & RBTI_CC_AUG)) ||
	    (s->rule > RBTI_RULE_SIZE && !(s->flags & RBTI_CC_OWN)))
		return 0;
	return s->max_depth >= 1 && s->max_depth <= RBTI_CC_DEPTH_MAX;
}
