// SPDX-License-Identifier: GPL-2.0
/*
 * The reports of CONFIG_DEBUG_RBTREE: the links around a node that is
 * linked into, erased from or replaced in a red-black tree.
 *
 * The compares are inline in <linux/rbtree.h>; only when one fails does
 * its caller come here, to a report out of line and __cold, as
 * <linux/list.h> does for lists.  The one check that is not a few
 * compares, an insertion's walk from the new parent up to the root, is
 * here too, out of line: __rb_node_on_path().  Each condition has its own
 * CHECK_DATA_CORRUPTION(), at its own line, its message naming the
 * operation and the condition, so that each is reported on its own.
 * After a report the caller skips the write: no node is written, neither
 * the one passed in (which may be in a tree) nor any node of the tree.
 *
 * rb_debug_check_link() and rb_debug_check_node() give the verdict
 * without a report, for the KUnit suite.
 */

#include <kunit/visibility.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/rbtree.h>

/**
 * rb_debug_check_link() - may @node be linked at @rb_link under @parent?
 * @node: the node being inserted; none of its fields is read
 * @parent: its parent-to-be, NULL for the root
 * @rb_link: the slot that will point to it
 *
 * A node that is already in @parent's tree, above the slot, is @parent
 * or one of its ancestors: what the descent of a second rb_add() of the
 * node ends in, below the node itself (at its empty right slot when it
 * has no right child, in its right subtree when it has one).  A node that
 * was never inserted, or was erased, is no ancestor of a node in a tree,
 * whatever its fields hold, so the walk has no false positive.
 *
 * Return: RB_FAULT_NONE or the first fault found.
 */
VISIBLE_IF_KUNIT enum rb_debug_fault
rb_debug_check_link(const struct rb_node *node, const struct rb_node *parent,
		    struct rb_node *const *rb_link)
{
	const struct rb_node *p = parent;
	unsigned int depth = 0;

	if (node == parent)
		return RB_FAULT_LINK_SELF;
	if (parent && rb_link != &parent->rb_left && rb_link != &parent->rb_right)
		return RB_FAULT_SLOT_NOT_CHILD;
	if (*rb_link)
		return RB_FAULT_SLOT_TAKEN;
	for (; p; p = rb_parent(p)) {
		if (p == node)
			return RB_FAULT_LINK_ANCESTOR;
		if (++depth > RB_DEBUG_MAX_DEPTH)
			return RB_FAULT_TOO_DEEP;
	}
	return RB_FAULT_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(rb_debug_check_link);

/**
 * rb_debug_check_node() - are the links around @node those of a tree?
 * @node: a node about to be erased or replaced
 * @root: the root of its tree
 *
 * Reads @node, its parent and its children: what the erase reads.
 *
 * Return: RB_FAULT_NONE or the first fault found.  RB_FAULT_CLEARED is a
 * node that is RB_EMPTY_NODE() and has no children, whose rb_erase() is a
 * no-op in mainline.
 */
VISIBLE_IF_KUNIT enum rb_debug_fault
rb_debug_check_node(const struct rb_node *node, const struct rb_root *root)
{
	const struct rb_node *parent = rb_parent(node);

	if (RB_EMPTY_NODE(node))
		return node->rb_left || node->rb_right ? RB_FAULT_CLEARED_CHILDREN
						       : RB_FAULT_CLEARED;
	if (parent ? parent->rb_left != node && parent->rb_right != node
		   : root->rb_node != node)
		return RB_FAULT_NOT_CHILD;
	if (parent && parent->rb_left == parent->rb_right)
		return RB_FAULT_SHARED;
	if (node->rb_left && rb_parent(node->rb_left) != node)
		return RB_FAULT_LEFT_PARENT;
	if (node->rb_right && rb_parent(node->rb_right) != node)
		return RB_FAULT_RIGHT_PARENT;
	return RB_FAULT_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(rb_debug_check_node);

/**
 * __rb_node_on_path() - is @node on the path from @parent to the root?
 * @node: the node being inserted; none of its fields is read
 * @parent: its parent-to-be
 *
 * Called by __rb_link_valid() for every insertion below a parent, once
 * its compares passed: it walks the parent links from @parent up, which
 * the descent has just read.
 *
 * Return: true if @node is @parent or one of its ancestors (it is already
 * in the tree), or if @parent's ancestors do not end at a root within
 * RB_DEBUG_MAX_DEPTH; the caller then reports.
 */
bool __rb_node_on_path(const struct rb_node *node, const struct rb_node *parent)
{
	unsigned int depth = 0;

	for (; parent; parent = rb_parent(parent))
		if (parent == node || ++depth > RB_DEBUG_MAX_DEPTH)
			return true;
	return false;
}
EXPORT_SYMBOL(__rb_node_on_path);

/**
 * __rb_link_valid_or_report() - report what is wrong with a link
 * @node: the node being inserted
 * @parent: its parent-to-be, NULL for the root
 * @rb_link: the slot that would point to it
 * @op: the operation, for the report
 *
 * Called by __rb_link_valid() when a check fails; writes nothing.
 *
 * Return: true if, after all, nothing is wrong.
 */
__cold bool __rb_link_valid_or_report(struct rb_node *node, struct rb_node *parent,
				      struct rb_node **rb_link, const char *op)
{
	enum rb_debug_fault fault = rb_debug_check_link(node, parent, rb_link);

	if (CHECK_DATA_CORRUPTION(fault == RB_FAULT_LINK_SELF,
				  "%s corruption: node is the parent it is linked under, already in the tree (node=%px, slot=%px)\n",
				  op, node, rb_link) ||
	    CHECK_DATA_CORRUPTION(fault == RB_FAULT_SLOT_NOT_CHILD,
				  "%s corruption: slot is not a child link of parent (node=%px, parent=%px, slot=%px)\n",
				  op, node, parent, rb_link) ||
	    CHECK_DATA_CORRUPTION(fault == RB_FAULT_SLOT_TAKEN,
				  "%s corruption: slot already holds a node (node=%px, parent=%px, slot=%px holds %px)\n",
				  op, node, parent, rb_link, *rb_link) ||
	    CHECK_DATA_CORRUPTION(fault == RB_FAULT_LINK_ANCESTOR,
				  "%s corruption: node is an ancestor of parent, already in the tree (node=%px, parent=%px)\n",
				  op, node, parent) ||
	    CHECK_DATA_CORRUPTION(fault == RB_FAULT_TOO_DEEP,
				  "%s corruption: parent's ancestors do not end at a root (node=%px, parent=%px)\n",
				  op, node, parent))
		return false;
	return fault == RB_FAULT_NONE;
}
EXPORT_SYMBOL(__rb_link_valid_or_report);

/* One CHECK_DATA_CORRUPTION() per condition; false if one reported. */
static bool rb_debug_report_node(enum rb_debug_fault fault, struct rb_node *node,
				 struct rb_root *root, const char *op)
{
	struct rb_node *parent = rb_parent(node);

	return !(CHECK_DATA_CORRUPTION(fault == RB_FAULT_CLEARED,
				       "%s corruption: node is RB_EMPTY_NODE() (node=%px)\n",
				       op, node) ||
		 CHECK_DATA_CORRUPTION(fault == RB_FAULT_CLEARED_CHILDREN,
				       "%s corruption: node is RB_EMPTY_NODE() but has children (node=%px, left=%px, right=%px)\n",
				       op, node, node->rb_left, node->rb_right) ||
		 CHECK_DATA_CORRUPTION(fault == RB_FAULT_NOT_CHILD,
				       "%s corruption: node is not a child of its parent (node=%px, parent=%px, root=%px)\n",
				       op, node, parent, root->rb_node) ||
		 CHECK_DATA_CORRUPTION(fault == RB_FAULT_SHARED,
				       "%s corruption: parent links to node from both sides (node=%px, parent=%px)\n",
				       op, node, parent) ||
		 CHECK_DATA_CORRUPTION(fault == RB_FAULT_LEFT_PARENT,
				       "%s corruption: node's left child has another parent (node=%px, left=%px, its parent=%px)\n",
				       op, node, node->rb_left, rb_parent(node->rb_left)) ||
		 CHECK_DATA_CORRUPTION(fault == RB_FAULT_RIGHT_PARENT,
				       "%s corruption: node's right child has another parent (node=%px, right=%px, its parent=%px)\n",
				       op, node, node->rb_right, rb_parent(node->rb_right)));
}

/**
 * __rb_node_valid_or_report() - report what is wrong around a node
 * @node: the node being erased or replaced
 * @root: the root of its tree
 * @op: the operation, for the report
 * @erase: @op is an erase
 *
 * Called by __rb_erase_valid() and __rb_replace_valid() when their
 * compares fail; writes nothing.  An erase of a node that is
 * RB_EMPTY_NODE() and has no children is not reported: it is a no-op in
 * mainline, and callers may rely on it.  Replacing such a node writes
 * through its links in mainline, and is reported.
 *
 * Return: true if, after all, the operation may go ahead.
 */
__cold bool __rb_node_valid_or_report(struct rb_node *node, struct rb_root *root,
				      const char *op, bool erase)
{
	enum rb_debug_fault fault = rb_debug_check_node(node, root);

	if (erase && fault == RB_FAULT_CLEARED)
		return false;
	return rb_debug_report_node(fault, node, root, op) && fault == RB_FAULT_NONE;
}
EXPORT_SYMBOL(__rb_node_valid_or_report);
