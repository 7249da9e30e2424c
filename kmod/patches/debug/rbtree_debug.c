// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of CONFIG_DEBUG_RBTREE: the links around a node that is
 * linked into, erased from or replaced in a red-black tree.
 *
 * Each check looks at the node, its parent and its children only, so its
 * cost does not grow with the tree.  rb_debug_check_link() and
 * rb_debug_check_node() give the verdict without reporting it (the KUnit
 * suite tests them directly); the *_valid_or_report() functions, called
 * by lib/rbtree.c and the inline helpers of <linux/rbtree.h> and
 * <linux/rbtree_augmented.h>, report a fault through
 * CHECK_DATA_CORRUPTION() naming the operation and the nodes, as
 * lib/list_debug.c does for lists, and tell the caller to skip the write.
 */

#include <linux/bug.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/rbtree.h>

/**
 * rb_debug_check_link() - may @node be linked at @rb_link under @parent?
 * @node: the node being inserted
 * @parent: its parent-to-be, NULL for the root
 * @rb_link: the slot that will point to it
 *
 * Return: RB_FAULT_NONE, or what is wrong: the slot is taken, or it is
 * not one of @parent's child slots, or @node is @parent.
 */
enum rb_debug_fault rb_debug_check_link(const struct rb_node *node,
					const struct rb_node *parent,
					struct rb_node *const *rb_link)
{
	if (node == parent)
		return RB_FAULT_LINK_SELF;
	if (parent && rb_link != &parent->rb_left && rb_link != &parent->rb_right)
		return RB_FAULT_SLOT_NOT_CHILD;
	if (*rb_link)
		return RB_FAULT_SLOT_TAKEN;
	return RB_FAULT_NONE;
}
EXPORT_SYMBOL(rb_debug_check_link);

/**
 * rb_debug_check_node() - are the links around @node those of a tree?
 * @node: a node about to be erased or replaced
 * @root: the root of its tree
 *
 * Return: RB_FAULT_NONE, or what is wrong: @node is RB_EMPTY_NODE(), or
 * its parent does not point to it (without a parent: @root does not),
 * or its parent points to it from both sides, or a child of it has
 * another parent.
 */
enum rb_debug_fault rb_debug_check_node(const struct rb_node *node,
					const struct rb_root *root)
{
	const struct rb_node *parent = rb_parent(node);

	if (RB_EMPTY_NODE(node))
		return RB_FAULT_NOT_IN_TREE;
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
EXPORT_SYMBOL(rb_debug_check_node);

/**
 * rb_debug_fault_str() - what a fault means, for a report
 * @fault: a verdict of rb_debug_check_link() or rb_debug_check_node()
 *
 * Return: a sentence without a full stop; "unknown fault" for a value
 * out of range.
 */
const char *rb_debug_fault_str(enum rb_debug_fault fault)
{
	static const char *const what[] = {
		[RB_FAULT_NONE] = "no fault",
		[RB_FAULT_LINK_SELF] = "node would be its own parent",
		[RB_FAULT_SLOT_NOT_CHILD] = "slot is not a child link of parent",
		[RB_FAULT_SLOT_TAKEN] = "slot already holds a node",
		[RB_FAULT_NOT_IN_TREE] = "node is not in a tree (RB_EMPTY_NODE)",
		[RB_FAULT_NOT_CHILD] = "node is not a child of its parent",
		[RB_FAULT_SHARED] = "parent links to node from both sides",
		[RB_FAULT_LEFT_PARENT] = "node's left child has another parent",
		[RB_FAULT_RIGHT_PARENT] = "node's right child has another parent",
	};

	if ((unsigned int)fault >= ARRAY_SIZE(what) || !what[fault])
		return "unknown fault";
	return what[fault];
}
EXPORT_SYMBOL(rb_debug_fault_str);

/**
 * __rb_link_valid_or_report() - check an insertion, report a fault
 * @node: the node being inserted
 * @parent: its parent-to-be, NULL for the root
 * @rb_link: the slot that will point to it
 * @op: the operation, for the report
 *
 * On a fault @node is left out of the tree: no parent, no children, red,
 * so that rb_insert_color() and its variants only colour it black.
 *
 * Return: true if the link may be made.
 */
bool __rb_link_valid_or_report(struct rb_node *node, struct rb_node *parent,
			       struct rb_node **rb_link, const char *op)
{
	enum rb_debug_fault fault = rb_debug_check_link(node, parent, rb_link);

	if (CHECK_DATA_CORRUPTION(fault != RB_FAULT_NONE,
				  "%s corruption: %s (node=%px, parent=%px, slot=%px holds %px)\n",
				  op, rb_debug_fault_str(fault), node, parent,
				  rb_link, *rb_link)) {
		node->__rb_parent_color = 0;
		node->rb_left = NULL;
		node->rb_right = NULL;
		return false;
	}
	return true;
}
EXPORT_SYMBOL(__rb_link_valid_or_report);

/**
 * __rb_node_valid_or_report() - check an erase or replace, report a fault
 * @node: the node being erased or replaced
 * @root: the root of its tree
 * @op: the operation, for the report
 *
 * Return: true if the links around @node are those of a tree.
 */
bool __rb_node_valid_or_report(struct rb_node *node, struct rb_root *root,
			       const char *op)
{
	enum rb_debug_fault fault = rb_debug_check_node(node, root);

	return !CHECK_DATA_CORRUPTION(fault != RB_FAULT_NONE,
				      "%s corruption: %s (node=%px, parent=%px, left=%px, right=%px, root=%px)\n",
				      op, rb_debug_fault_str(fault), node,
				      rb_parent(node), node->rb_left,
				      node->rb_right, root->rb_node);
}
EXPORT_SYMBOL(__rb_node_valid_or_report);
