# SPDX-License-Identifier: GPL-2.0
"""CONFIG_DEBUG_RBTREE: the kernel edits and the commit message.

lib/rbtree_debug.c is kmod/patches/debug/rbtree_debug.c as is; what it
needs in the existing files (the declarations and the hooks in
<linux/rbtree.h>, <linux/rbtree_augmented.h> and lib/rbtree.c, the Kconfig
entry, the Makefile lines) are the edits below, each an anchor that must
occur once and its replacement.  gen-series applies them to the kernel
tree; kmod/patches/debug-cost applies the same edits to the userspace copy
of the rbtree code (tools/lib/rbtree.c) to count what the checks cost.
"""
from __future__ import annotations

from pathlib import Path

SOURCE = Path(__file__).resolve().parent / "debug" / "rbtree_debug.c"

CLEAR_NODE = ("#define RB_CLEAR_NODE(node)  \\\n"
              "\t((node)->__rb_parent_color = (unsigned long)(node))\n")

DECLARATIONS = """
#ifdef CONFIG_DEBUG_RBTREE
/**
 * enum rb_debug_fault - what a CONFIG_DEBUG_RBTREE check found
 * @RB_FAULT_NONE: nothing; the operation may go ahead
 * @RB_FAULT_LINK_SELF: rb_link_node(): the node is its own parent
 * @RB_FAULT_SLOT_NOT_CHILD: rb_link_node(): the slot is not a child link
 *	of the parent
 * @RB_FAULT_SLOT_TAKEN: rb_link_node(): the slot already holds a node
 * @RB_FAULT_NOT_IN_TREE: the node is RB_EMPTY_NODE()
 * @RB_FAULT_NOT_CHILD: the node's parent does not link to it (or, for a
 *	node without a parent, the root does not)
 * @RB_FAULT_SHARED: the node's parent links to it from both sides
 * @RB_FAULT_LEFT_PARENT: the node's left child has another parent
 * @RB_FAULT_RIGHT_PARENT: the node's right child has another parent
 */
enum rb_debug_fault {
	RB_FAULT_NONE,
	RB_FAULT_LINK_SELF,
	RB_FAULT_SLOT_NOT_CHILD,
	RB_FAULT_SLOT_TAKEN,
	RB_FAULT_NOT_IN_TREE,
	RB_FAULT_NOT_CHILD,
	RB_FAULT_SHARED,
	RB_FAULT_LEFT_PARENT,
	RB_FAULT_RIGHT_PARENT,
};

enum rb_debug_fault rb_debug_check_link(const struct rb_node *node,
					const struct rb_node *parent,
					struct rb_node *const *rb_link);
enum rb_debug_fault rb_debug_check_node(const struct rb_node *node,
					const struct rb_root *root);
const char *rb_debug_fault_str(enum rb_debug_fault fault);
bool __rb_link_valid_or_report(struct rb_node *node, struct rb_node *parent,
			       struct rb_node **rb_link, const char *op);
bool __rb_node_valid_or_report(struct rb_node *node, struct rb_root *root,
			       const char *op);

/* A node that a refused rb_link_node() left out of @root. */
static inline bool __rb_link_refused(const struct rb_node *node,
				     const struct rb_root *root)
{
	return !rb_parent(node) && root->rb_node != node;
}
#else
static inline bool __rb_link_valid_or_report(struct rb_node *node,
					     struct rb_node *parent,
					     struct rb_node **rb_link,
					     const char *op)
{
	return true;
}

static inline bool __rb_node_valid_or_report(struct rb_node *node,
					     struct rb_root *root,
					     const char *op)
{
	return true;
}

static inline bool __rb_link_refused(const struct rb_node *node,
				     const struct rb_root *root)
{
	return false;
}
#endif
"""


def link_edit(name: str, indent: str) -> tuple[str, str]:
    """rb_link_node() or rb_link_node_rcu(): check before the first write."""
    old = (f"static inline void {name}(struct rb_node *node, struct rb_node *parent,\n"
           f"{indent}struct rb_node **rb_link)\n"
           "{\n"
           "\tnode->__rb_parent_color = (unsigned long)parent;\n")
    new = (f"static inline void {name}(struct rb_node *node, struct rb_node *parent,\n"
           f"{indent}struct rb_node **rb_link)\n"
           "{\n"
           f"\tif (!__rb_link_valid_or_report(node, parent, rb_link, \"{name}\"))\n"
           "\t\treturn;\n"
           "\tnode->__rb_parent_color = (unsigned long)parent;\n")
    return old, new


def replace_edit(name: str, indent: str) -> tuple[str, str]:
    """rb_replace_node() or rb_replace_node_rcu(): check the victim first."""
    head = (f"void {name}(struct rb_node *victim, struct rb_node *new,\n"
            f"{indent}struct rb_root *root)\n"
            "{\n"
            "\tstruct rb_node *parent = rb_parent(victim);\n"
            "\n")
    return head, (head + f"\tif (!__rb_node_valid_or_report(victim, root, \"{name}\"))\n"
                  "\t\treturn;\n\n")


ERASE_OLD = "\tunsigned long pc;\n\n\tif (!tmp) {\n"
ERASE_NEW = ("\tunsigned long pc;\n\n"
             "\tif (!__rb_node_valid_or_report(node, root, \"rb_erase\"))\n"
             "\t\treturn NULL;\n\n"
             "\tif (!tmp) {\n")



def cache_check(node: str, op: str, ret: str) -> str:
    """The check a cached form makes before it touches the cache, the
    operation's name on a line of its own, under the first argument."""
    call = "\tif (!__rb_node_valid_or_report("
    col = 8 + len(call) - 1
    return (f"{call}{node}, &root->rb_root,\n"
            f"{chr(9) * (col // 8)}{' ' * (col % 8)}\"{op}\"))\n"
            f"\t\treturn{ret};\n\n")


def cached_insert_edit(flag: str) -> tuple[str, str]:
    """rb_insert_color_cached(), rb_insert_augmented_cached(): a node a
    refused rb_link_node() left out of the tree does not become the
    leftmost."""
    return (f"\tif ({flag})\n\t\troot->rb_leftmost = node;\n",
            f"\tif ({flag} && !__rb_link_refused(node, &root->rb_root))\n"
            "\t\troot->rb_leftmost = node;\n")


def cached_edit(update: str, call: str, node: str, op: str, ret: str = "") -> tuple[str, str]:
    """A cached erase or replace: the cache update (UPDATE, before CALL)
    would follow the node's links (rb_next()) or point the cache at a node
    that the refused CALL leaves out of the tree, so the node is checked
    first."""
    return update + call, cache_check(node, op, ret) + update + call


ERASE_CACHED = ("\tif (root->rb_leftmost == node)\n"
                "\t\tleftmost = root->rb_leftmost = rb_next(node);\n\n",
                "\trb_erase(node, &root->rb_root);\n")
ERASE_AUGMENTED_CACHED = ("\tif (root->rb_leftmost == node)\n"
                          "\t\troot->rb_leftmost = rb_next(node);\n",
                          "\trb_erase_augmented(node, &root->rb_root, augment);\n")
REPLACE_CACHED = ("\tif (root->rb_leftmost == victim)\n"
                  "\t\troot->rb_leftmost = new;\n",
                  "\trb_replace_node(victim, new, &root->rb_root);\n")

# (path, anchor, replacement).  The erase hook sits in
# __rb_erase_augmented(), which rb_erase(), rb_erase_cached(),
# rb_erase_augmented() and rb_erase_augmented_cached() all reach; the
# cached forms check the node once more before they touch the cache, so
# that a refused erase or replace leaves the cache as it was and rb_next()
# does not follow the broken links.  The check passes twice on a valid
# node and reports once on a broken one.
EDITS: list[tuple[str, str, str]] = [
    ("include/linux/rbtree.h", CLEAR_NODE, CLEAR_NODE + DECLARATIONS),
    ("include/linux/rbtree.h", *link_edit("rb_link_node", "\t\t\t\t")),
    ("include/linux/rbtree.h", *link_edit("rb_link_node_rcu", "\t\t\t\t    ")),
    ("include/linux/rbtree.h", *cached_insert_edit("leftmost")),
    ("include/linux/rbtree.h", *cached_edit(*ERASE_CACHED, "node", "rb_erase_cached", " NULL")),
    ("include/linux/rbtree.h", *cached_edit(*REPLACE_CACHED, "victim", "rb_replace_node_cached")),
    ("include/linux/rbtree_augmented.h", ERASE_OLD, ERASE_NEW),
    ("include/linux/rbtree_augmented.h", *cached_insert_edit("newleft")),
    ("include/linux/rbtree_augmented.h",
     *cached_edit(*ERASE_AUGMENTED_CACHED, "node", "rb_erase_augmented_cached")),
    ("lib/rbtree.c", *replace_edit("rb_replace_node", "\t\t     ")),
    ("lib/rbtree.c", *replace_edit("rb_replace_node_rcu", "\t\t\t ")),
]

# The userspace copy (tools/include/linux/rbtree.h) has the rb_erase_cached()
# that returns nothing: the same check, in its text.  kmod/patches/debug-cost
# applies these after EDITS.
TOOLS_EDITS: list[tuple[str, str, str]] = [
    ("include/linux/rbtree.h",
     *cached_edit("\tif (root->rb_leftmost == node)\n"
                  "\t\troot->rb_leftmost = rb_next(node);\n",
                  "\trb_erase(node, &root->rb_root);\n", "node", "rb_erase_cached")),
]

KCONFIG_ANCHOR = "config DEBUG_PLIST\n"
KCONFIG_ENTRY = """\
config DEBUG_RBTREE
	bool "Debug red-black tree manipulation"
	depends on DEBUG_KERNEL
	help
	  Enable this to check the links around every node that is linked
	  into, erased from or replaced in a red-black tree (rb_link_node(),
	  rb_erase() and rb_replace_node() and their cached, augmented and
	  RCU forms): the slot a new node goes into is empty and belongs to
	  its parent; the node being erased or replaced is in a tree, its
	  parent's child and its children's parent.  A fault is reported
	  through CHECK_DATA_CORRUPTION(), naming the operation and the
	  nodes, and the write is skipped (BUG_ON_DATA_CORRUPTION stops
	  instead).

	  The checks are local: a few loads per insert and erase, whatever
	  the size of the tree.

	  If unsure, say N.

"""

MAKEFILE_EDITS = [
    ("KCOV_INSTRUMENT_list_debug.o := n\n",
     "KCOV_INSTRUMENT_list_debug.o := n\nKCOV_INSTRUMENT_rbtree_debug.o := n\n"),
    ("obj-$(CONFIG_RBTREE_TEST) += rbtree_test.o\n",
     "obj-$(CONFIG_DEBUG_RBTREE) += rbtree_debug.o\nobj-$(CONFIG_RBTREE_TEST) += rbtree_test.o\n"),
]

# Where the cost paragraph goes in the message: series_figures writes it
# from docs/generated/debug-rbtree-cost.md.
DEBUG_COST_MARK = "@DEBUG_COST@"

DEBUG_MSG = f"""\
lib/rbtree.c trusts every pointer it is given.  Linking a node into a
slot that is taken, erasing a node twice or one that was never inserted,
or a stray write over a node's links corrupt the tree silently, and the
damage shows later as a hang or an oops far from its cause.
CONFIG_DEBUG_LIST catches the same class of bugs in lists where they
happen; add the same for red-black trees.

With CONFIG_DEBUG_RBTREE=y:

 - rb_link_node() and rb_link_node_rcu() (so rb_add(), rb_add_cached(),
   rb_find_add(), rb_find_add_rcu(), rb_add_augmented_cached() and every
   open-coded insertion) check that the slot is empty, that it is one of
   the parent's two child links and that the node is not its own parent;
 - __rb_erase_augmented() (rb_erase(), rb_erase_cached(),
   rb_erase_augmented(), rb_erase_augmented_cached()) and
   rb_replace_node() / rb_replace_node_rcu() (and so
   rb_replace_node_cached()) check that the node is not RB_EMPTY_NODE(),
   that its parent (or, for the root, the root pointer) links to it, and
   from one side only, and that its children's parent is the node;
 - rb_erase_cached(), rb_erase_augmented_cached() and
   rb_replace_node_cached() make the same check before they touch the
   leftmost cache, whose update would otherwise follow the broken links
   (rb_next()) or outlive the refused write (a valid node is so checked
   twice, once here and once in the write); rb_insert_color_cached() and
   rb_insert_augmented_cached() do not make a node that a refused
   rb_link_node() left out of the tree the leftmost.

A fault is reported through CHECK_DATA_CORRUPTION() with the operation,
what is wrong and the nodes (%px, as lib/list_debug.c), and the write is
skipped: an erase or replace leaves the tree and its cache as they are, a
refused link leaves the node out of the tree with no parent and no
children, which rb_insert_color() only colours.  A caller's own updates
around the write are its own: an open-coded augmented insert has already
raised its ancestors' values on the way down.  BUG_ON_DATA_CORRUPTION
turns the report into a stop.  The verdicts come from
rb_debug_check_link() and rb_debug_check_node(), which report nothing, so
that KUnit can test every kind of fault without a warning.

The checks read the node, its parent and its children: their cost does
not grow with the tree.
{DEBUG_COST_MARK}
"""

DEBUG_KUNIT_KCONFIG = """\
config RBTREE_DEBUG_KUNIT_TEST
	tristate "KUnit tests for CONFIG_DEBUG_RBTREE" if !KUNIT_ALL_TESTS
	depends on KUNIT && DEBUG_RBTREE
	default KUNIT_ALL_TESTS
	help
	  This builds the KUnit suite rbtree_debug: the verdicts of the
	  CONFIG_DEBUG_RBTREE checks on a valid tree and on each kind of
	  broken link, without a report.

	  If unsure, say N.

"""
