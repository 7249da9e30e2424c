/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The census's C core: one read of a red-black tree out of foreign memory
 * (a core file, /proc/kcore) and every check of tools/rbtilib/checker.py
 * on it, for `rbti census` (rbtilib/kernel/ccore.py is its ctypes binding;
 * docs/kernel-trees.md, "The C core").
 *
 * Memory is read through a callback, a page at a time, into a page cache
 * the core owns: a read never trusts an address, a page that cannot be
 * read whole is read as the walk asks, so a fault is exactly where the
 * callback says. A pass is bounded by the spec's node count and depth,
 * walks without recursion, and never enters a node twice: any bytes,
 * garbage pointers and cycles included, give a verdict.
 *
 * The ABI is plain C structs of fixed-size fields: RBTI_CC_ABI changes
 * with any of them, and rbti_cc_abi() reports it with their sizes, which
 * the binding checks before its first call.
 */
#ifndef RBTI_CC_H
#define RBTI_CC_H

#include <stdint.h>

#define RBTI_CC_ABI 2

/*
 * Read @size bytes at @addr into @buf. Return 0 on success, -1 if the
 * memory cannot be read (nothing is assumed of @buf), anything else to
 * abort the pass (the binding's own error, which it raises again).
 */
typedef int (*rbti_cc_read_fn)(void *arg, uint64_t addr, uint32_t size,
			       uint8_t *buf);

/*
 * The values a spec reads from an entry (its key, its augmented value and
 * the value the augment rule folds) are small programs over a stack of
 * 128-bit integers, so that no value of 64-bit fields and their sums or
 * differences overflows: the same integers as Python's. Jumps do not
 * exist; a program is checked (length, stack depth, types) before a pass.
 */
enum rbti_cc_op {
	RBTI_OP_END,	/* the stack holds the result */
	RBTI_OP_FIELD,	/* push the entry's field at arg (size, sign) */
	RBTI_OP_LOAD,	/* pop p, push the field at p + arg (size, sign) */
	RBTI_OP_CONST,	/* push arg */
	RBTI_OP_BASE,	/* push the pass's base (a u64 read at base_slot) */
	RBTI_OP_ADD,	/* pop b, a; push a + b */
	RBTI_OP_SUB,	/* pop b, a; push a - b */
	RBTI_OP_SHR,	/* pop a; push a >> arg (floor, as Python's) */
	RBTI_OP_S64,	/* pop a; push a as a signed 64-bit integer */
	RBTI_OP_IFNEG,	/* pop e, t, c; push c < 0 ? t : e (both evaluated) */
	RBTI_OP_BYTES,	/* pop n, p; push the n bytes at p (a byte string) */
	RBTI_OP_NR,
};

struct rbti_cc_insn {
	uint8_t op;
	uint8_t size;		/* 1, 2, 4 or 8 (FIELD, LOAD) */
	uint8_t sign;		/* sign-extend the field */
	uint8_t pad[5];
	int64_t arg;
};

#define RBTI_CC_PROG 24		/* instructions in a program, END included */
#define RBTI_CC_STACK 8
#define RBTI_CC_KEYS 3		/* components of a key, compared in turn */
#define RBTI_CC_BYTES_MAX 4096	/* longest byte string (longer: UNSUPPORTED) */
#define RBTI_CC_DEPTH_MAX 1024	/* largest max_depth */

enum rbti_cc_flags {
	RBTI_CC_DUP = 1 << 0,		/* equal keys are legal */
	RBTI_CC_LEFTMOST = 1 << 1,	/* leftmost_slot is a cache to check */
	RBTI_CC_BASE = 1 << 2,		/* base_slot is read once a pass */
	RBTI_CC_AUG = 1 << 3,		/* the aug program is set */
	RBTI_CC_OWN = 1 << 4,		/* the own program is set */
};

enum rbti_cc_rule {
	RBTI_RULE_NONE,
	RBTI_RULE_SIZE,		/* aug: the number of nodes in the subtree */
	RBTI_RULE_MAX,		/* aug: the largest own value in the subtree */
	RBTI_RULE_MIN,
	RBTI_RULE_SUM,
};

/* One tree to read: tools/rbtilib/kernel/walk.py's TreeSpec, in C. */
struct rbti_cc_spec {
	uint64_t root_slot;	/* &root->rb_node */
	uint64_t leftmost_slot;	/* &rb_root_cached.rb_leftmost */
	uint64_t base_slot;	/* the u64 RBTI_OP_BASE pushes */
	int64_t node_off;	/* offsetof(entry, its rb_node) */
	int32_t parent_off;	/* offsets in struct rb_node */
	int32_t right_off;
	int32_t left_off;
	uint32_t flags;		/* enum rbti_cc_flags */
	uint32_t rule;		/* enum rbti_cc_rule */
	uint32_t max_nodes;	/* nodes read at most (error "size") */
	uint32_t max_depth;	/* levels walked at most (error "depth") */
	uint32_t pad;
	struct rbti_cc_insn key[RBTI_CC_PROG];
	struct rbti_cc_insn aug[RBTI_CC_PROG];
	struct rbti_cc_insn own[RBTI_CC_PROG];
};

enum rbti_cc_state {
	RBTI_CC_OK,
	RBTI_CC_VIOLATION,
	RBTI_CC_EMPTY,		/* NULL root and leftmost: one read */
	RBTI_CC_UNREADABLE,	/* a slot or the base: fault */
	RBTI_CC_ABORT,		/* the callback asked to stop */
	RBTI_CC_NOMEM,
	RBTI_CC_BADSPEC,
	RBTI_CC_UNSUPPORTED,	/* a byte string too long, an arena full */
};

/* Why an address linked from the tree has no node (walk.py's unread). */
enum rbti_cc_why { RBTI_WHY_FAULT = 1, RBTI_WHY_DEPTH, RBTI_WHY_SIZE };

/* The check classes, as checker.CLASSES names them (the order is the ABI). */
enum rbti_cc_class {
	RBTI_V_CYCLE, RBTI_V_SHARED, RBTI_V_UNREACHABLE, RBTI_V_ORDER,
	RBTI_V_DUP_ORDER, RBTI_V_ROOT_COLOR, RBTI_V_RED_RED,
	RBTI_V_BLACK_HEIGHT, RBTI_V_PARENT, RBTI_V_COUNT, RBTI_V_LEFTMOST,
	RBTI_V_RIGHTMOST, RBTI_V_AUGMENT, RBTI_V_HEIGHT, RBTI_V_LATCH,
};

struct rbti_cc_result {
	int32_t state;		/* enum rbti_cc_state */
	int32_t agreed;		/* memory read again holds what the pass read */
	uint32_t height;	/* max_depth + 1 if the walk went deeper */
	uint32_t error;		/* 0, RBTI_WHY_DEPTH or RBTI_WHY_SIZE */
	uint64_t nodes;		/* read */
	uint64_t unread;	/* linked, not read */
	uint64_t fault;		/* UNREADABLE: the address */
	uint64_t hash;		/* of everything the pass decoded */
	uint64_t violations;	/* found (the buffer holds the first ones) */
	uint64_t reads;		/* callback calls */
	uint64_t root;
	uint64_t leftmost;
};

/* A violation: its class and the node's id in the dump (-1: none). */
struct rbti_cc_violation {
	uint32_t cls;
	uint32_t pad;
	int64_t node;
};

/* A node read, for the dump of the tree (rbti_cc_node()). */
struct rbti_cc_node {
	uint64_t addr, pc, left, right;
	uint32_t depth;		/* the root is 1 */
	uint32_t id;		/* in-order position */
	int64_t kid[2];		/* first-reach children (node index) or -1 */
	uint64_t key[RBTI_CC_KEYS][2];	/* 128-bit: low, high word */
	uint64_t aug[2], own[2];
	uint32_t bytes[RBTI_CC_KEYS];	/* length of a byte-string part */
	uint32_t pad;
};

/*
 * One tree of a batch (rbti_cc_batch()): its slots (the spec's others are
 * the batch's), its verdict, and where its nodes' addresses went.
 */
struct rbti_cc_tree {
	uint64_t root_slot, leftmost_slot, base_slot;
	uint64_t addrs;		/* index in the batch's addresses, or ~0 */
	struct rbti_cc_result res;
};

#define RBTI_CC_STATIC 1	/* memory that cannot change (a core file) */
#define RBTI_CC_DIRECT 2	/* no pages: each read as asked, no read again */

struct rbti_cc;

uint32_t rbti_cc_abi(uint32_t sizes[6]);
struct rbti_cc *rbti_cc_new(rbti_cc_read_fn fn, void *arg, uint32_t flags,
			    uint32_t cache_pages);
void rbti_cc_free(struct rbti_cc *cc);
int rbti_cc_pass(struct rbti_cc *cc, const struct rbti_cc_spec *spec,
		 struct rbti_cc_result *res, struct rbti_cc_violation *v,
		 uint32_t vcap);
uint32_t rbti_cc_batch(struct rbti_cc *cc, struct rbti_cc_spec *spec,
		       struct rbti_cc_tree *trees, uint32_t n, uint64_t *addrs,
		       uint64_t cap);
uint64_t rbti_cc_addrs(const struct rbti_cc *cc, uint64_t *out,
		       uint64_t cap);
int rbti_cc_node(const struct rbti_cc *cc, uint64_t i,
		 struct rbti_cc_node *out);
int64_t rbti_cc_bytes(const struct rbti_cc *cc, uint64_t i, uint32_t part,
		      uint8_t *buf, uint32_t cap);
int rbti_cc_unread(const struct rbti_cc *cc, uint64_t i, uint64_t *addr,
		   uint32_t *why);

#endif /* RBTI_CC_H */
