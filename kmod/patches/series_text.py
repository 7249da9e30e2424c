"""The text of the generic-rbtree patch series, for kmod/patches/gen-series.

Commit messages, the cover letter, the documentation and the code of the
conversion: what has no counterpart in kmod/.  gen-series applies it.
"""

# The 2012 authors and their postings.  Kent Overstreet's address is the one
# 6.12's MAINTAINERS lists (BCACHEFS, CLOSURES); Daniel Santos's is that of
# his posting (no MAINTAINERS entry lists him).
OVERSTREET = "Kent Overstreet <kent.overstreet@linux.dev>"
OVERSTREET_LINK = ("https://lore.kernel.org/r/"
                   "1337979461-19654-1-git-send-email-koverstreet@google.com")
SANTOS = "Daniel Santos <danielfsantos@att.net>"
SANTOS_LINK = "https://lore.kernel.org/r/4FC7FD23.6080800@att.net"


GENERIC_MSG = """\
<linux/rbtree.h> has had generic insertion and search since 5.12: rb_add(),
rb_find(), rb_find_first() and rb_find_add() take the comparison as an
argument and, being __always_inline, compile to the open-coded loop.  What
they leave to each user is everything around the walk: the casts from
struct rb_node to the object (rb_entry()), keeping a leftmost pointer
(only rb_root_cached has one; a rightmost node or a node count is kept by
hand, as memcg v1's soft-limit tree keeps its rb_rightmost), and calling
the augment callbacks on every path that changes the tree.

Add Daniel Santos's RB_DEFINE_INTERFACE() for that layer.  One invocation
describes a tree: the container with its root (struct rb_root or
rb_root_cached) and optional leftmost, rightmost and count members, the
object type with its rb_node and key members, compile-time flags (unique
keys, replace on insert, augmented), a key comparison and the augment
callbacks.  It generates typed static __always_inline functions: insert,
remove, find, find_first, find_last, find_next, find_prev, insert_near,
find_near, first, last, next, prev, walk and count.  Each is a thin stub
calling one shared __always_inline implementation with a static const
descriptor, so the compiler folds the flags and offsets and calls the
comparison directly: nothing is indirect and nothing is exported, and
nothing is emitted until a generated function is used.

Misuse is a build error with its own message: static_assert() at the
macro for what is an integer constant expression (unknown flag,
RB_INSERT_REPLACES without RB_UNIQUE_KEYS, a cache flag with its member
blank, the type of every member, of the comparison and of the augment),
and BUILD_BUG_ON() where a generated function is used for the rest.
BUILD_BUG_ON_NON_CONST() and BUILD_BUG_ON_NON_CONST2() from the same
posting are kept in this header, their only user.

Differences from the v2 posting, listed in the header's opening comment:
a 12th argument (the count member); a cache member given implies its
flag; the comparison is long (*)(const KEY *, const KEY *), checked
rather than cast; insert_near and find_near, unfinished in v2, are
implemented and return what a search from the root returns, from any
hint in the tree;
RB_HAS_COUNT, RB_INSERT_REPLACES and augmented trees are new.  The names
of the internals are neutral (rb_generic_*, __rb_generic_*).

The header gets a MAINTAINERS entry of its own: no entry covers
<linux/rbtree.h>, and this one names who answers for the new code.

Based on a patch by Daniel Santos: the design, the macro and its
arguments are his; the implementation is new.
"""


# The MAINTAINERS entry patch 1 adds (with the submitter as M:) and the
# line patch 2 adds to it.  It sorts before REDPINE WIRELESS DRIVER, whose
# preceding entry ends differently in 6.1 and 6.12 (6.12 adds a T: line):
# gen-series writes the MAINTAINERS hunks with MAINTAINERS_CONTEXT lines of
# context, which both trees share, so that the series applies to both.
MAINTAINERS_ANCHOR = "REDPINE WIRELESS DRIVER\n"
MAINTAINERS_CONTEXT = 2
MAINTAINERS_ENTRY = """\
RED-BLACK TREE TYPED INTERFACE
M:	{ident}
L:	linux-kernel@vger.kernel.org
S:	Maintained
F:	include/linux/rbtree_generic.h

"""
MAINTAINERS_KUNIT = "F:\tlib/rbtree_kunit*\n"


KCONFIG_ENTRY = """\
config RBTREE_GENERIC_KUNIT_TEST
	tristate "KUnit tests for RB_DEFINE_INTERFACE()" if !KUNIT_ALL_TESTS
	depends on KUNIT
	default KUNIT_ALL_TESTS
	help
	  This builds the KUnit suites rbtree_generic_* for the trees of
	  RB_DEFINE_INTERFACE() from <linux/rbtree_generic.h>.  Every
	  operation is checked against a sorted-array model and the red-black
	  invariants, for every valid combination of the interface's flags.

	  For more information on KUnit and unit tests in general please refer
	  to the KUnit documentation in Documentation/dev-tools/kunit/.

	  If unsure, say N.

"""


KUNIT_MSG = """\
Add KUnit suites for RB_DEFINE_INTERFACE(), in one module
(CONFIG_RBTREE_GENERIC_KUNIT_TEST):

 - rbtree_generic_interface: one case per behaviour: the empty and
   one-node tree, blank members, unique keys rejecting or replacing,
   the order of equal keys, extreme keys, a walk that removes, a cache
   member implying its flag, erasing the root and both ends, augmented
   trees (subtree size and a max augment, as vmap_area's);
 - rbtree_generic_hints: find_near and insert_near from every node of a
   tree as the hint, against a search from the root;
 - rbtree_generic_flags: every valid flag combination instantiated and
   driven through the same pseudo-random sequence (KUNIT_CASE_PARAM).

After every operation the tree is compared with a model (a sorted array
of the objects) and its red-black invariants (colours, black height,
parent links, caches, count, augmented values) are checked by an
iterative, bounded walk.
"""


RST_ANCHOR = "\nSupport for Augmented rbtrees\n-----------------------------\n"


RST_SECTION = """
Typed trees: RB_DEFINE_INTERFACE()
----------------------------------

rb_add(), rb_find(), rb_find_first() and rb_find_add() in <linux/rbtree.h>
replace the search and insertion loops above with one call that takes the
comparison as an argument.  <linux/rbtree_generic.h> goes one step further
for a tree whose layout is fixed: RB_DEFINE_INTERFACE() describes the tree
once and generates typed functions for it, which take and return the
user's own structures and keep the tree's caches and augmented data up to
date::

  #include <linux/rbtree_generic.h>

  struct mytype {
	struct rb_node node;
	long key;
  };

  struct mytree {
	struct rb_root root;
	struct rb_node *first, *last;
	unsigned long count;
  };

  static long mytype_cmp(const long *a, const long *b)
  {
	return (*a > *b) - (*a < *b);
  }

  RB_DEFINE_INTERFACE(mytree, struct mytree, root, first, last, count,
		      struct mytype, node, key, RB_UNIQUE_KEYS,
		      mytype_cmp, 0)

This defines, among others::

  struct mytype *mytree_insert(struct mytree *t, struct mytype *data);
  void mytree_remove(struct mytree *t, struct mytype *data);
  struct mytype *mytree_find(struct mytree *t, const long *key);
  struct mytype *mytree_first(struct mytree *t);	/* O(1) */
  struct mytype *mytree_last(struct mytree *t);	/* O(1) */
  unsigned long mytree_count(struct mytree *t);	/* O(1) */

mytree_insert() returns NULL once the object is linked, or the object
already holding the key; with RB_INSERT_REPLACES it replaces that object
and returns it.  Without RB_UNIQUE_KEYS, equal keys are kept in insertion
order, and find_first(), find_last(), find_next() and find_prev() walk
the objects of one key.  A root of type struct rb_root_cached is its own
leftmost cache (RB_CACHED_ROOT).  RB_IS_AUGMENTED with the callbacks of
RB_DECLARE_CALLBACKS() keeps augmented data up to date on every insert,
replace and remove.

The functions are static __always_inline: the flags, the member offsets
and the comparison are compile-time constants, so each compiles to the
loop one would write by hand for that tree, with no indirect call.
Mistakes in the description (an unknown flag, a flag without its member,
a member or a comparison of the wrong type) are build errors with a
message naming them.

.. kernel-doc:: include/linux/rbtree_generic.h
   :identifiers: RB_DEFINE_INTERFACE rb_generic_flags

"""


DOC_MSG = """\
Describe RB_DEFINE_INTERFACE() next to the rbtree API it builds on: what
it adds over rb_add() and rb_find(), an example, the generated functions,
and the kernel-doc of the macro and its flags.
"""


ELV_OLD_ADD = """\
void elv_rb_add(struct rb_root *root, struct request *rq)
{
	struct rb_node **p = &root->rb_node;
	struct rb_node *parent = NULL;
	struct request *__rq;

	while (*p) {
		parent = *p;
		__rq = rb_entry(parent, struct request, rb_node);

		if (blk_rq_pos(rq) < blk_rq_pos(__rq))
			p = &(*p)->rb_left;
		else if (blk_rq_pos(rq) >= blk_rq_pos(__rq))
			p = &(*p)->rb_right;
	}

	rb_link_node(&rq->rb_node, parent, p);
	rb_insert_color(&rq->rb_node, root);
}
"""


ELV_NEW_ADD = """\
static bool elv_rb_less(struct rb_node *a, const struct rb_node *b)
{
	return blk_rq_pos(rb_entry(a, struct request, rb_node)) <
	       blk_rq_pos(rb_entry(b, struct request, rb_node));
}

static int elv_rb_cmp(const void *key, const struct rb_node *node)
{
	sector_t sector = *(const sector_t *)key;
	sector_t pos = blk_rq_pos(rb_entry(node, struct request, rb_node));

	if (sector < pos)
		return -1;
	if (sector > pos)
		return 1;
	return 0;
}

void elv_rb_add(struct rb_root *root, struct request *rq)
{
	rb_add(&rq->rb_node, root, elv_rb_less);
}
"""


ELV_OLD_FIND = """\
struct request *elv_rb_find(struct rb_root *root, sector_t sector)
{
	struct rb_node *n = root->rb_node;
	struct request *rq;

	while (n) {
		rq = rb_entry(n, struct request, rb_node);

		if (sector < blk_rq_pos(rq))
			n = n->rb_left;
		else if (sector > blk_rq_pos(rq))
			n = n->rb_right;
		else
			return rq;
	}

	return NULL;
}
"""


ELV_NEW_FIND = """\
struct request *elv_rb_find(struct rb_root *root, sector_t sector)
{
	return rb_entry_safe(rb_find(&sector, root, elv_rb_cmp),
			     struct request, rb_node);
}
"""


ELEVATOR_MSG = """\
elv_rb_add() and elv_rb_find() keep the requests of an I/O scheduler
(mq-deadline, bfq) sorted by start sector with open-coded descent loops.
Use rb_add() and rb_find() instead: the two loops and their cursor
variables go, replaced by a less() and a key comparison (ten lines
fewer), and the helpers, being __always_inline, compile to the same
walk.  Equal sectors still go after the requests present (rb_add()
descends right unless less()), and a search still returns any request
starting at the sector.

rb_find() takes the sector itself as the key; no struct request is built
on the stack for the comparison.

Kent Overstreet converted these two functions in his 2012 generic rbtree
series, with a node-to-node comparison and a struct request on the stack
as the search key; this does the same with the helpers mainline has now.
"""


# Where the cost paragraph goes: gen-series writes it from the generated
# measurement pages (series_figures.cost_paragraph()), not by hand.
COST_MARK = "@COST@"


COVER = f"""\
rbtree: typed generic trees (RB_DEFINE_INTERFACE)

Mainline has had generic rbtree insertion and search since 5.12 (rb_add(),
rb_find(), rb_find_first(), rb_find_add(); 6.12 adds rb_find_rcu(),
rb_find_add_rcu() and rb_add_augmented_cached()), which cover the first of
the two generic APIs posted in 2012: Kent Overstreet's rb_insert() and
rb_search() [1] are rb_find_add() and rb_find(), his rb_greater() is
rb_find_first() with a comparison that calls equal keys smaller, and
container_of_or_null() is rb_entry_safe(); this series does not carry
them.  What mainline lacks is the second, Daniel Santos's
RB_DEFINE_INTERFACE() [2]: one description of a tree generates typed
__always_inline functions that take and return the user's structures (no
rb_entry() at the call sites, a key comparison typed and checked at build
time), keep a rightmost pointer and a node count besides the leftmost one
(rb_root_cached keeps only the leftmost; others are maintained by hand),
apply augment callbacks on every insert, replace and remove, and search
from a hint (insert_near/find_near).  Patch 1 adds it as
<linux/rbtree_generic.h>, patch 2 its KUnit suites, patch 3 the
documentation.  Patch 4 stands alone: the elevator conversion Kent posted
in 2012, done with rb_add()/rb_find() and the sector as the key.

{COST_MARK}
Questions for reviewers:

 - Is a typed layer over rb_add()/rb_find() wanted at all, given that it
   is one more way to build a tree?  No in-tree user is converted yet;
   candidates are trees that keep a rightmost pointer or a count by
   hand, such as memcg v1's soft-limit tree.
 - RB_DEFINE_INTERFACE() takes 12 positional arguments (v2's 11 plus the
   count member); a designated-initialiser form would read better at the
   cost of the build-time checks on blank members.

Based on 6.12; the series also applies to and builds on 6.1.

[1] {OVERSTREET_LINK}
[2] {SANTOS_LINK}
"""


COVER_PLACEHOLDER = """
[NOT FOR SENDING AS IS: From: and Signed-off-by: are a placeholder.
Regenerate with qemu/patches --sign, which signs off as git config
user.name and user.email.  The Suggested-by: trailers credit the 2012
authors of the designs; they did not write or sign off this code.]
"""
