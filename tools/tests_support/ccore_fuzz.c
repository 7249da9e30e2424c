// SPDX-License-Identifier: GPL-2.0
/*
 * ccore_fuzz.c - the census's C core on random and corrupted memory, for
 * tools/tests/test_census_ccore.py (under ASan and UBSan, and under
 * valgrind): it must never crash, hang, read or write outside its
 * buffers, or leak, whatever the bytes.
 *
 *   ccore_fuzz ITERATIONS SEED
 *
 * Each iteration lays out a random tree (0 to 3000 nodes, entries of a
 * random size with the rb_node at a random offset, keys, names and
 * pointers among them) in a small address space with holes, breaks it
 * (random bytes, links to other nodes, to holes, misaligned), sometimes
 * fills it with noise alone, and reads it with a random spec: programs
 * of every op (some invalid), bounds, the cached leftmost, a base, on
 * memory that is static, live (and then changes between reads now and
 * then) or read directly. Prints one line of counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../rbtilib/kernel/ccore/rbti_cc.h"

#define BASE 0xffff888000000000ull
#define PAGES 256
#define PAGE 4096

static uint8_t mem[PAGES * PAGE];
static uint8_t hole[PAGES];
static uint64_t rng_state;
static int live_noise;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static int read_fn(void *arg, uint64_t addr, uint32_t size, uint8_t *buf)
{
	uint64_t off = addr - BASE, i;

	(void)arg;
	if (addr < BASE || off > sizeof(mem) || size > sizeof(mem) - off)
		return -1;
	for (i = off / PAGE; i <= (off + size - 1) / PAGE; i++)
		if (hole[i])
			return -1;
	memcpy(buf, mem + off, size);
	/* Live memory that changes under the reader, now and then. */
	if (live_noise && below(64) == 0)
		mem[below(sizeof(mem))] ^= (uint8_t)(1 + below(255));
	return 0;
}

static void put64(uint64_t addr, uint64_t v)
{
	uint64_t off = addr - BASE;

	if (addr >= BASE && off + 8 <= sizeof(mem))
		memcpy(mem + off, &v, 8);
}

static uint64_t any_addr(void)
{
	switch (below(6)) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return BASE + below(sizeof(mem)) + below(4);
	default:
		return BASE + (below(sizeof(mem)) & ~7ull);
	}
}

static void insn(struct rbti_cc_insn *in, int op, int size, int sign,
		 int64_t arg)
{
	in->op = (uint8_t)op;
	in->size = (uint8_t)size;
	in->sign = (uint8_t)sign;
	in->arg = arg;
}

/* A random program: a valid one of every op most of the time. */
static void program(struct rbti_cc_insn *p, int64_t span, int parts,
		    int strings)
{
	static const int sizes[] = { 1, 2, 4, 8 };
	int i = 0, k;

	memset(p, 0, RBTI_CC_PROG * sizeof(*p));
	if (below(20) == 0) {
		for (k = 0; k < RBTI_CC_PROG; k++)
			insn(&p[k], (int)below(RBTI_OP_NR + 2), (int)below(10),
			     (int)below(2), (int64_t)rnd());
		return;
	}
	for (k = 0; k < parts; k++) {
		int what = (int)below(6);

		switch (what == 3 && !strings ? 0 : what) {
		case 0:
			insn(&p[i++], RBTI_OP_FIELD, sizes[below(4)], (int)below(2),
			     (int64_t)below((uint64_t)span));
			break;
		case 1:
			insn(&p[i++], RBTI_OP_FIELD, 8, 0, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_LOAD, sizes[below(4)], (int)below(2),
			     (int64_t)below(64) - 32);
			break;
		case 2:
			insn(&p[i++], RBTI_OP_FIELD, 8, 0, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_BASE, 0, 0, 0);
			insn(&p[i++], RBTI_OP_SUB, 0, 0, 0);
			insn(&p[i++], RBTI_OP_S64, 0, 0, 0);
			break;
		case 3:
			insn(&p[i++], RBTI_OP_FIELD, 8, 0, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_FIELD, below(4) ? 1 : 2, 0,
			     (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_BYTES, 0, 0, 0);
			break;
		case 4:
			insn(&p[i++], RBTI_OP_FIELD, 4, 1, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_FIELD, 8, 1, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_CONST, 0, 0, (int64_t)rnd());
			insn(&p[i++], RBTI_OP_IFNEG, 0, 0, 0);
			break;
		default:
			insn(&p[i++], RBTI_OP_FIELD, 8, 0, (int64_t)below((uint64_t)span));
			insn(&p[i++], RBTI_OP_FIELD, 8, 0, (int64_t)below((uint64_t)span));
			insn(&p[i++], below(2) ? RBTI_OP_ADD : RBTI_OP_SUB, 0, 0, 0);
			insn(&p[i++], RBTI_OP_SHR, 0, 0, (int64_t)below(130));
			break;
		}
	}
	insn(&p[i], RBTI_OP_END, 0, 0, 0);
}

/*
 * A tree of @n entries of @span bytes, its rb_node at @node_off, keyed by
 * position (the entry's last word): split at the middle, the deepest level
 * red, so that it is a valid red-black tree until it is broken.
 */
static uint64_t lay_tree(uint32_t n, int64_t span, int64_t node_off)
{
	uint64_t stride = (uint64_t)span + below(4) * 8, root = 0, i;
	uint64_t *addr = calloc(n + 1, sizeof(*addr));
	uint64_t *stack = calloc(3 * n + 3, sizeof(*stack));
	uint32_t sp = 0, deepest = 0;

	for (i = n; i; i /= 2)
		deepest++;

	if (!addr || !stack)
		exit(2);
	for (i = 0; i < n; i++) {
		addr[i] = BASE + 64 + i * stride + (uint64_t)node_off;
		put64(addr[i] - (uint64_t)node_off + (uint64_t)span - 8, i);
	}
	/* Ranges [lo, hi) on a stack; a node's parent in the next word. */
	if (n) {
		stack[sp++] = 0;
		stack[sp++] = n;
		stack[sp++] = 1;
		root = addr[n / 2];
		put64(root, 1);
	}
	while (sp) {
		uint64_t depth = stack[--sp], hi = stack[--sp], lo = stack[--sp];
		uint64_t mid = (lo + hi) / 2;
		uint64_t l = lo < mid ? (lo + mid) / 2 : n;
		uint64_t r = mid + 1 < hi ? (mid + 1 + hi) / 2 : n;
		uint64_t black = depth + 1 < deepest || deepest == 1;

		put64(addr[mid] + 8, r < n ? addr[r] : 0);
		put64(addr[mid] + 16, l < n ? addr[l] : 0);
		if (l < n) {
			put64(addr[l], addr[mid] | black);
			stack[sp++] = lo;
			stack[sp++] = mid;
			stack[sp++] = depth + 1;
		}
		if (r < n) {
			put64(addr[r], addr[mid] | black);
			stack[sp++] = mid + 1;
			stack[sp++] = hi;
			stack[sp++] = depth + 1;
		}
	}
	free(addr);
	free(stack);
	return root;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000, it;
	uint64_t counts[8] = { 0 }, nodes = 0;
	struct rbti_cc_violation v[64];
	struct rbti_cc_result res;
	struct rbti_cc_node node;
	struct rbti_cc_tree trees[3];
	uint64_t addrs[256];
	uint32_t sizes[6];
	uint8_t bytes[64];

	rng_state = (argc > 2 ? strtoull(argv[2], NULL, 0) : 1) * 2654435761u | 1;
	if (rbti_cc_abi(sizes) != RBTI_CC_ABI)
		return 2;
	for (it = 0; it < iters; it++) {
		uint32_t flags = (uint32_t)below(3), n = (uint32_t)below(4) ?
			(uint32_t)below(below(8) ? 40 : 3000) : 0;
		struct rbti_cc *cc = rbti_cc_new(read_fn, NULL, flags,
						 (uint32_t)(8 + below(64)));
		struct rbti_cc_spec spec;
		int64_t span = 24 + (int64_t)below(16) * 8;
		int64_t node_off = (int64_t)below((uint64_t)(span - 24) / 8 + 1) * 8;
		uint64_t i, root, brk;
		int pass;

		if (!cc)
			return 2;
		memset(hole, 0, sizeof(hole));
		if (below(4) == 0) {
			for (i = 0; i < sizeof(mem); i++)
				mem[i] = (uint8_t)rnd();
		} else {
			memset(mem, 0, sizeof(mem));
		}
		root = below(5) ? lay_tree(n, span, node_off) : any_addr();
		for (brk = below(4) ? below(6) : below(200); brk; brk--) {
			if (below(2))
				mem[below(sizeof(mem))] = (uint8_t)rnd();
			else
				put64(BASE + (below(sizeof(mem)) & ~7ull),
				      any_addr());
		}
		for (i = below(3); i; i--)
			hole[below(PAGES)] = 1;
		memset(&spec, 0, sizeof(spec));
		spec.root_slot = BASE;
		put64(BASE, root);
		spec.leftmost_slot = below(2) ? BASE + 8 : any_addr();
		spec.base_slot = below(3) ? BASE + 16 : any_addr();
		spec.node_off = below(10) ? node_off : (int64_t)rnd();
		spec.right_off = 8;
		spec.left_off = 16;
		spec.flags = (uint32_t)below(64);
		spec.rule = (uint32_t)below(below(10) ? 5 : 9);
		if (below(8))
			spec.flags |= RBTI_CC_AUG | RBTI_CC_OWN;
		spec.max_nodes = (uint32_t)(below(4) ? 1u << 20 : below(3000));
		spec.max_depth = (uint32_t)(below(4) ? 128 : below(1200));
		program(spec.key, span, 1 + (int)below(RBTI_CC_KEYS), 1);
		if (below(2))	/* the position: in order */
			insn(&spec.key[0], RBTI_OP_FIELD, 8, 0, span - 8),
			insn(&spec.key[1], RBTI_OP_END, 0, 0, 0);
		program(spec.aug, span, 1, 0);
		program(spec.own, span, 1, 0);
		live_noise = !(flags & RBTI_CC_STATIC) && below(4) == 0;
		for (pass = 0; pass < 2; pass++) {
			int st = rbti_cc_pass(cc, &spec, &res, v,
					      (uint32_t)below(65));

			if (st < 0 || st > RBTI_CC_UNSUPPORTED)
				return 3;
			counts[st]++;
			nodes += res.nodes;
			/* Every node, byte string and unread address back out. */
			for (i = 0; i < res.nodes + 2; i++) {
				uint64_t a;
				uint32_t why, part;

				rbti_cc_node(cc, i, &node);
				for (part = 0; part < RBTI_CC_KEYS + 1; part++)
					rbti_cc_bytes(cc, i, part, bytes,
						      (uint32_t)below(sizeof(bytes)));
				rbti_cc_unread(cc, i, &a, &why);
			}
			rbti_cc_addrs(cc, (uint64_t *)bytes, sizeof(bytes) / 8);
		}
		/* A batch: this tree, one anywhere, none, into little room. */
		trees[0].root_slot = BASE;
		trees[1].root_slot = any_addr();
		trees[2].root_slot = BASE + 8;
		for (i = 0; i < 3; i++) {
			trees[i].leftmost_slot = spec.leftmost_slot;
			trees[i].base_slot = spec.base_slot;
		}
		if (rbti_cc_batch(cc, &spec, trees, (uint32_t)below(4),
				  below(2) ? addrs : NULL, below(sizeof(addrs) / 8)) > 3)
			return 3;
		rbti_cc_free(cc);
	}
	printf("%ld iterations: %llu ok, %llu violation, %llu empty, %llu unreadable, %llu badspec, %llu unsupported; %llu nodes\n",
	       iters, (unsigned long long)counts[RBTI_CC_OK],
	       (unsigned long long)counts[RBTI_CC_VIOLATION],
	       (unsigned long long)counts[RBTI_CC_EMPTY],
	       (unsigned long long)counts[RBTI_CC_UNREADABLE],
	       (unsigned long long)counts[RBTI_CC_BADSPEC],
	       (unsigned long long)counts[RBTI_CC_UNSUPPORTED],
	       (unsigned long long)nodes);
	return 0;
}
