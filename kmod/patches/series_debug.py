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
/*
 * No valid tree is this deep: a red-black tree of n nodes is at most
 * 2 * log2(n + 1) high.
 */
#define RB_DEBUG_MAX_DEPTH	(2 * BITS_PER_LONG)

/**
 * enum rb_debug_fault - what a CONFIG_DEBUG_RBTREE check found
 * @RB_FAULT_NONE: nothing; the operation may go ahead
 * @RB_FAULT_LINK_SELF: rb_link_node(): the node is its parent-to-be, so
 *	already in the tree (a second insert of a node without a right child)
 * @RB_FAULT_SLOT_NOT_CHILD: rb_link_node(): the slot is not a child link
 *	of the parent
 * @RB_FAULT_SLOT_TAKEN: rb_link_node(): the slot already holds a node
 * @RB_FAULT_LINK_ANCESTOR: rb_link_node(): the node is an ancestor of its
 *	parent-to-be, so already in the tree (a second insert of a node
 *	with a right child)
 * @RB_FAULT_TOO_DEEP: rb_link_node(): the parent's ancestors do not end
 *	at a root within RB_DEBUG_MAX_DEPTH (a parent link in a cycle)
 * @RB_FAULT_CLEARED: erase or replace: the node is RB_EMPTY_NODE() and
 *	has no children; its erase is a no-op in mainline and not reported
 * @RB_FAULT_CLEARED_CHILDREN: the node is RB_EMPTY_NODE() but has children
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
	RB_FAULT_LINK_ANCESTOR,
	RB_FAULT_TOO_DEEP,
	RB_FAULT_CLEARED,
	RB_FAULT_CLEARED_CHILDREN,
	RB_FAULT_NOT_CHILD,
	RB_FAULT_SHARED,
	RB_FAULT_LEFT_PARENT,
	RB_FAULT_RIGHT_PARENT,
};

#if IS_ENABLED(CONFIG_KUNIT)
enum rb_debug_fault rb_debug_check_link(const struct rb_node *node,
					const struct rb_node *parent,
					struct rb_node *const *rb_link);
enum rb_debug_fault rb_debug_check_node(const struct rb_node *node,
					const struct rb_root *root);
#endif
bool __rb_node_on_path(const struct rb_node *node,
		       const struct rb_node *parent);
bool __cold __rb_link_valid_or_report(struct rb_node *node,
				      struct rb_node *parent,
				      struct rb_node **rb_link, const char *op);
bool __cold __rb_node_valid_or_report(struct rb_node *node,
				      struct rb_root *root, const char *op,
				      bool erase);

/**
 * __rb_link_valid() - may @node be linked at @rb_link under @parent?
 * @node: the node being inserted; none of its fields is read
 * @parent: its parent-to-be, NULL for the root
 * @rb_link: the slot that will point to it
 * @op: the operation, for a report
 *
 * The slot must be empty and one of @parent's child links (compared
 * inline), and @node must not be @parent or one of its ancestors.
 * Mainline requires nothing of a node before rb_link_node() (it may be
 * uninitialised, or erased and not cleared), so that rule is read from
 * the tree, not from the node: a node already in the tree is where a
 * second descent for it ends, at its own empty right slot or in its right
 * subtree, so it is @parent or above it.  The walk from @parent to the
 * root, __rb_node_on_path(), is out of line: it is the one check whose
 * cost grows with the tree, as its depth.  A node linked in another tree,
 * or in this one away from the path, is not found.
 *
 * Return: true if the link may be made; otherwise it is reported (out of
 * line, __cold) and nothing must be written.
 */
static __always_inline bool __rb_link_valid(struct rb_node *node,
					    struct rb_node *parent,
					    struct rb_node **rb_link,
					    const char *op)
{
	if (likely(!*rb_link &&
		   (!parent || ((rb_link == &parent->rb_left ||
				 rb_link == &parent->rb_right) &&
				!__rb_node_on_path(node, parent)))))
		return true;
	return __rb_link_valid_or_report(node, parent, rb_link, op);
}

/*
 * The links around @node are those of a tree: it is not RB_EMPTY_NODE(),
 * its parent (or @root) links to it from one side, its children link back.
 * What rb_erase() reads anyway.
 */
static __always_inline bool __rb_node_links_valid(const struct rb_node *node,
						  const struct rb_root *root)
{
	const struct rb_node *parent = rb_parent(node);

	return !RB_EMPTY_NODE(node) &&
	       (parent ? (parent->rb_left == node) != (parent->rb_right == node)
		       : root->rb_node == node) &&
	       (!node->rb_left || rb_parent(node->rb_left) == node) &&
	       (!node->rb_right || rb_parent(node->rb_right) == node);
}

/**
 * __rb_erase_valid() - may @node be erased from @root?
 * @node: the node being erased
 * @root: the root of its tree
 * @op: the operation, for a report
 *
 * Return: true if the erase may go ahead.  Otherwise nothing must be
 * written; the fault is reported, but for a node that is RB_EMPTY_NODE()
 * and has no children, whose erase is mainline's quiet no-op.
 */
static __always_inline bool __rb_erase_valid(struct rb_node *node,
					     struct rb_root *root,
					     const char *op)
{
	if (likely(__rb_node_links_valid(node, root)))
		return true;
	return __rb_node_valid_or_report(node, root, op, true);
}

/**
 * __rb_replace_valid() - may @victim be replaced in @root?
 * @victim: the node being replaced
 * @root: the root of its tree
 * @op: the operation, for a report
 *
 * Return: true if the replace may go ahead; otherwise it is reported and
 * nothing must be written.
 */
static __always_inline bool __rb_replace_valid(struct rb_node *victim,
					       struct rb_root *root,
					       const char *op)
{
	if (likely(__rb_node_links_valid(victim, root)))
		return true;
	return __rb_node_valid_or_report(victim, root, op, false);
}

/*
 * Is @node where rb_link_node() leaves a node it linked: a red leaf that
 * its parent (without one: @root) links to?  Not if its link was refused;
 * rb_insert_color() and the cached inserts then leave it alone.  The
 * parent is read only for a red leaf, as rb_insert_color() would read it.
 */
static __always_inline bool __rb_linked(const struct rb_node *node,
					const struct rb_root *root)
{
	const struct rb_node *parent = rb_parent(node);

	if (node->rb_left || node->rb_right || (node->__rb_parent_color & 1))
		return false;
	return parent ? parent->rb_left == node || parent->rb_right == node
		      : root->rb_node == node;
}
#else
static __always_inline bool __rb_link_valid(struct rb_node *node,
					    struct rb_node *parent,
					    struct rb_node **rb_link,
					    const char *op)
{
	return true;
}

static __always_inline bool __rb_erase_valid(struct rb_node *node,
					     struct rb_root *root,
					     const char *op)
{
	return true;
}

static __always_inline bool __rb_replace_valid(struct rb_node *victim,
					       struct rb_root *root,
					       const char *op)
{
	return true;
}

static __always_inline bool __rb_linked(const struct rb_node *node,
					const struct rb_root *root)
{
	return true;
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
           f"\tif (!__rb_link_valid(node, parent, rb_link, \"{name}\"))\n"
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
    return head, (head + f"\tif (!__rb_replace_valid(victim, root, \"{name}\"))\n"
                  "\t\treturn;\n\n")


# rb_erase() (lib/rbtree.c) and rb_erase_augmented(): the check before
# __rb_erase_augmented(), each under its own name.
ERASE = ("\tstruct rb_node *rebalance;\n"
         "\trebalance = __rb_erase_augmented(node, root, &dummy_callbacks);\n",
         "\tstruct rb_node *rebalance;\n\n"
         "\tif (!__rb_erase_valid(node, root, \"rb_erase\"))\n"
         "\t\treturn;\n"
         "\trebalance = __rb_erase_augmented(node, root, &dummy_callbacks);\n")
ERASE_AUGMENTED = ("\tstruct rb_node *rebalance = __rb_erase_augmented(node, root, augment);\n",
                   "\tstruct rb_node *rebalance;\n\n"
                   "\tif (!__rb_erase_valid(node, root, \"rb_erase_augmented\"))\n"
                   "\t\treturn;\n"
                   "\trebalance = __rb_erase_augmented(node, root, augment);\n")
# __rb_insert(), under rb_insert_color() and rb_insert_augmented(): a node
# whose link was refused is not coloured (nor rotated).
INSERT = ("\tstruct rb_node *parent = rb_red_parent(node), *gparent, *tmp;\n\n",
          "\tstruct rb_node *parent = rb_red_parent(node), *gparent, *tmp;\n\n"
          "\tif (!__rb_linked(node, root))\n\t\treturn;\n\n")


def cache_check(node: str, op: str, ret: str) -> str:
    """The check a cached form makes before it touches the cache, the
    operation's name on a line of its own, under the first argument."""
    kind = "replace" if "replace" in op else "erase"
    call = f"\tif (!__rb_{kind}_valid("
    col = 8 + len(call) - 1
    return (f"{call}{node}, &root->rb_root,\n"
            f"{chr(9) * (col // 8)}{' ' * (col % 8)}\"{op}\"))\n"
            f"\t\treturn{ret};\n\n")


def cached_insert_edit(flag: str) -> tuple[str, str]:
    """rb_insert_color_cached(), rb_insert_augmented_cached(): a node a
    refused rb_link_node() left out of the tree does not become the
    leftmost."""
    return (f"\tif ({flag})\n\t\troot->rb_leftmost = node;\n",
            f"\tif ({flag} && __rb_linked(node, &root->rb_root))\n"
            "\t\troot->rb_leftmost = node;\n")


def cached_add_edit(after: str) -> tuple[str, str]:
    """rb_add_cached(), rb_add_augmented_cached(): after a refused link,
    return NULL (the node is not the new leftmost) and touch nothing."""
    link = "\trb_link_node(node, parent, link);\n"
    return (link + after,
            link + "\tif (!__rb_linked(node, &tree->rb_root))\n\t\treturn NULL;\n" + after)


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

# rb_add_augmented_cached() (6.6): a backport to a tree without it leaves
# this edit out (gen-series --backport).
ADD_AUGMENTED_CACHED = cached_add_edit("\taugment->propagate(parent, NULL); /* suboptimal */\n")

# (path, anchor, replacement).  Every erase is checked under its own name:
# rb_erase() in lib/rbtree.c, rb_erase_augmented() inline; the cached
# forms check the node once more before they touch the cache, so that a
# refused erase or replace leaves the cache as it was and rb_next() does
# not follow the broken links.  The check passes twice on a valid node and
# reports once on a broken one.
EDITS: list[tuple[str, str, str]] = [
    ("include/linux/rbtree.h", CLEAR_NODE, CLEAR_NODE + DECLARATIONS),
    ("include/linux/rbtree.h", *link_edit("rb_link_node", "\t\t\t\t")),
    ("include/linux/rbtree.h", *link_edit("rb_link_node_rcu", "\t\t\t\t    ")),
    ("include/linux/rbtree.h", *cached_insert_edit("leftmost")),
    ("include/linux/rbtree.h", *cached_edit(*ERASE_CACHED, "node", "rb_erase_cached", " NULL")),
    ("include/linux/rbtree.h", *cached_edit(*REPLACE_CACHED, "victim", "rb_replace_node_cached")),
    ("include/linux/rbtree.h",
     *cached_add_edit("\trb_insert_color_cached(node, tree, leftmost);\n")),
    ("include/linux/rbtree_augmented.h", *ERASE_AUGMENTED),
    ("include/linux/rbtree_augmented.h", *cached_insert_edit("newleft")),
    ("include/linux/rbtree_augmented.h", *ADD_AUGMENTED_CACHED),
    ("include/linux/rbtree_augmented.h",
     *cached_edit(*ERASE_AUGMENTED_CACHED, "node", "rb_erase_augmented_cached")),
    ("lib/rbtree.c", *INSERT),
    ("lib/rbtree.c", *ERASE),
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
    # Its rb_add_cached() returns nothing.
    ("include/linux/rbtree.h",
     "\t\treturn NULL;\n\trb_insert_color_cached(node, tree, leftmost);\n}\n",
     "\t\treturn;\n\trb_insert_color_cached(node, tree, leftmost);\n}\n"),
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
	  RCU forms), as DEBUG_LIST does for lists.

	  Checked: the slot a new node goes into is empty and one of its
	  parent's child links, and the node is not already in the tree
	  above that slot (a second insert of the same node); the node being
	  erased or replaced is its parent's child (or the root), from one
	  side, and its children's parent.  Not checked: a node linked in
	  another tree, or elsewhere in this one; the order of the keys; the
	  colours; anything beyond the node's parent and children.

	  A fault is reported through CHECK_DATA_CORRUPTION(), one report
	  per condition naming the operation, and the write is skipped: no
	  node is written (BUG_ON_DATA_CORRUPTION stops instead).  An
	  rb_erase() of a node that RB_CLEAR_NODE() cleared and that has no
	  children stays the silent no-op it is without this option.

	  Erase and replace cost a few inline compares; an insert below a
	  parent also calls a function that walks from the parent up to the
	  root, a cost that grows with the depth of the tree.

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
slot that is taken, inserting a node that is already in the tree,
erasing a node that was never inserted, or a stray write over a node's
links corrupt the tree silently, and the damage shows later as a hang or
an oops far from its cause.  CONFIG_DEBUG_LIST catches the same class of
bugs in lists where they happen; add the same for red-black trees.

With CONFIG_DEBUG_RBTREE=y:

 - rb_link_node() and rb_link_node_rcu() (so rb_add(), rb_add_cached(),
   rb_find_add(), rb_find_add_rcu(), rb_add_augmented_cached() and every
   open-coded insertion) check that the slot is empty and one of the
   parent's two child links, and that the node is not the parent or one
   of its ancestors.  That last check finds a second insert of a node
   already in the tree: its descent ends at the node's own empty right
   slot, or, when the node has a right child, in its right subtree.
   Mainline asks nothing of a node before rb_link_node() (it may be
   uninitialised, or erased and not cleared), so the check reads no
   field of the node, only the parent links from the parent up, which
   the descent has just read: no false positive for a node that is not
   in the tree, at a cost that grows with the depth.  A node linked in
   another tree is not found;
 - rb_erase(), rb_erase_augmented() and their cached forms, and
   rb_replace_node(), rb_replace_node_rcu() and rb_replace_node_cached(),
   check that the node is not RB_EMPTY_NODE(), that its parent (or, for
   the root, the root pointer) links to it, and from one side only, and
   that its children's parent is the node: what the erase reads anyway.
   The cached forms check before they touch the leftmost cache;
 - rb_insert_color(), rb_insert_augmented() and their cached forms leave
   alone a node that is not where rb_link_node() puts one (a red leaf
   that its parent, or the root, links to): the node of a refused link.
   rb_add_cached() and rb_add_augmented_cached() then return NULL and
   keep the cache.

The compares are inline, as <linux/list.h> has them since 6.6; the walk
from the parent to the root is a function of lib/rbtree_debug.c,
__rb_node_on_path(), called by every insertion below a parent; and only
a failed check calls out of line into a __cold function that reports
each condition with its own CHECK_DATA_CORRUPTION(), as lib/list_debug.c
does, the message naming the operation and the condition, and the nodes
by %px.  The
operation is then skipped and nothing is written: not the node, which
may be in a tree, nor any node of the tree, nor the cache.  What a
caller did before the call is its own: an open-coded augmented insert
(the interval tree's) has raised its ancestors' values on the way down.
BUG_ON_DATA_CORRUPTION turns the report into a stop.

One case is not reported: rb_erase() of a node that is RB_EMPTY_NODE()
and has no children is a no-op in mainline, which callers may rely on
(a node RB_CLEAR_NODE() took out, erased again); it stays a silent
no-op.  An RB_EMPTY_NODE() that still has children is reported: the
erase would write through them.

rb_debug_check_link() and rb_debug_check_node() give the verdict without
a report, for the KUnit suite rbtree_debug (EXPORT_SYMBOL_IF_KUNIT()).

{DEBUG_COST_MARK}
"""

DEBUG_KUNIT_KCONFIG = """\
config RBTREE_DEBUG_KUNIT_TEST
	tristate "KUnit tests for CONFIG_DEBUG_RBTREE" if !KUNIT_ALL_TESTS
	depends on KUNIT && DEBUG_RBTREE
	default KUNIT_ALL_TESTS
	help
	  This builds the KUnit suite rbtree_debug: the verdicts of the
	  CONFIG_DEBUG_RBTREE checks on a valid tree, on each kind of broken
	  link and on a second insert of a node, without a report.

	  If unsure, say N.

"""
