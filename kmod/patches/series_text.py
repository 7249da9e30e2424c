# SPDX-License-Identifier: GPL-2.0
"""The text of the generic-rbtree patch series, for kmod/patches/gen-series.

Commit messages, the cover letter, the documentation and the code of the
conversion: what has no counterpart in kmod/.  gen-series applies it.
"""

FAMILY_KCONFIG = """\
config RBTREE_KUNIT_TEST
	tristate "KUnit tests for red-black trees" if !KUNIT_ALL_TESTS
	depends on KUNIT
	default KUNIT_ALL_TESTS
	help
	  This builds the KUnit suite rbtree for the red-black tree library:
	  <linux/rbtree.h>, <linux/rbtree_augmented.h>, interval trees and
	  latch trees.

	  For more information on KUnit and unit tests in general please refer
	  to the KUnit documentation in Documentation/dev-tools/kunit/.

	  If unsure, say N.

"""


FAMILY_MSG = """\
lib/rbtree_test.c and lib/interval_tree_test.c are modules run by
loading them and reading the kernel log.  lib/rbtree_test.c times its
loops and checks the tree after every step (order, colours, black height,
and, with RB_DECLARE_CALLBACKS_MAX(), every augmented value);
lib/interval_tree_test.c only times its queries and checks nothing.
Neither covers rb_add_cached()/rb_erase_cached(),
rb_add_augmented_cached(), the latch tree or the RCU helpers, and
neither runs under KUnit.  Add a KUnit suite for the library, one
behaviour a case as lib/list-test.c:

 - the empty tree and RB_EMPTY_NODE(); rb_add() and rb_erase() with the
   checks of lib/rbtree_test.c after every operation (order, no red node
   with a red parent, equal black height, parent links); in-order and
   reverse walks, the postorder iterators; rb_find(), rb_find_first() and
   rb_for_each() over equal keys; rb_find_add() refusing a duplicate;
   rb_replace_node() and rb_replace_node_rcu();
 - rb_add_cached() and rb_erase_cached(): the leftmost returned exactly
   when it changes, rb_first_cached() equal to rb_first();
 - RB_DECLARE_CALLBACKS_MAX() with rb_insert_augmented() and
   rb_erase_augmented(), and rb_add_augmented_cached() with
   rb_erase_augmented_cached(): every subtree's max after every step;
 - an interval tree (INTERVAL_TREE_DEFINE()): the queries of
   lib/interval_tree_test.c, each returning exactly the intervals a scan
   finds, node by node, and each node's subtree_last, after every
   removal;
 - a latch tree: latch_tree_find() of every key in copy 0 and, with the
   sequence moved on as a writer moves it, in copy 1; an erased key is
   gone from both;
 - rb_find_add_rcu() and rb_find_rcu().

The timing loops stay in lib/rbtree_test.c and lib/interval_tree_test.c.
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
nothing is emitted until a generated function is used.  The macro, its
checks and the stubs are in <linux/rbtree_generic.h>; the flags, the
descriptor and the implementations in <linux/rbtree_generic_internal.h>,
which only <linux/rbtree_generic.h> includes.

Misuse is a build error with its own message: static_assert() at the
macro for what is an integer constant expression (unknown flag,
RB_INSERT_REPLACES without RB_UNIQUE_KEYS, a cache flag with its member
blank, the type of every member, of the comparison and of the augment),
and BUILD_BUG_ON() where a generated function is used for the rest.
BUILD_BUG_ON_NON_CONST() and BUILD_BUG_ON_NON_CONST2() from the same
posting are kept in <linux/rbtree_generic.h>, their only user.

Differences from the v2 posting, listed in <linux/rbtree_generic.h>'s
opening comment: a 12th argument (the count member); a cache member given
implies its flag; the comparison is long (*)(const KEY *, const KEY *),
checked rather than cast; insert_near and find_near, unfinished in v2,
are implemented and return what a search from the root returns, from
any hint in the tree; RB_HAS_COUNT and RB_INSERT_REPLACES are new; v2's
augment argument ("augmented not yet tested" in its notes) takes the
callbacks of RB_DECLARE_CALLBACKS() and is applied on every insert,
replace and remove, and tested.  The names of the internals are neutral
(rb_generic_*, __rb_generic_*).

The headers get a MAINTAINERS entry of their own: no entry covers
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
F:	include/linux/rbtree_generic_internal.h

"""
MAINTAINERS_KUNIT = "F:\tlib/rbtree_generic_kunit*\n"


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
   member implying its flag, a struct rb_root_cached root keeping its
   rb_leftmost, erasing the root and both ends, augmented
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
   :identifiers: RB_DEFINE_INTERFACE

.. kernel-doc:: include/linux/rbtree_generic_internal.h
   :identifiers: rb_generic_flags

"""


DOC_MSG = """\
Describe RB_DEFINE_INTERFACE() next to the rbtree API it builds on: what
it adds over rb_add() and rb_find(), an example, the generated functions,
and the kernel-doc of the macro and its flags.
"""


# Where the cost paragraph goes: gen-series writes it from the generated
# measurement pages (series_figures.cost_paragraph()), not by hand.
COST_MARK = "@COST@"


COVER = f"""\
rbtree: KUnit tests, CONFIG_DEBUG_RBTREE and typed generic trees

Red-black trees have nothing like CONFIG_DEBUG_LIST: lib/rbtree.c trusts
every pointer, and a node linked into a taken slot, inserted twice,
erased when it was never inserted or overwritten by a stray write shows
up much later as a hang or an oops elsewhere.  The library's own tests
are modules that print to the kernel log: lib/rbtree_test.c times its
loops and checks the tree after every step, augmented values included
(RB_DECLARE_CALLBACKS_MAX()); lib/interval_tree_test.c only times.
Neither covers the cached insert and erase, rb_add_augmented_cached(),
the latch tree or the RCU helpers.

Patch 1 adds a KUnit suite for the library: lib/rbtree_test.c's checks
after every operation, lib/interval_tree_test.c's queries checked node
by node against a scan, and cases for rb_add_cached() /
rb_erase_cached(), RB_DECLARE_CALLBACKS_MAX(), rb_add_augmented_cached()
(6.6), the latch tree (both copies searched), and rb_find_rcu() /
rb_find_add_rcu() (6.12).

Patch 2 adds CONFIG_DEBUG_RBTREE: checks of the links around the node on
every insert (rb_link_node(), rb_link_node_rcu()), erase and replace:
inline compares, the insert's walk to the root out of line, and the
report out of line and __cold, one CHECK_DATA_CORRUPTION() per
condition as lib/list_debug.c has; a refused operation writes nothing.
Its own KUnit suite tests each verdict.  Its cost, in instructions per
insert, erase and replace, is in its commit message
(kmod/patches/debug-cost of rbtree-inspector).

syzkaller's report parser (pkg/report/linux.go) titles a WARNING by the
function it fired in ("WARNING in FUNC"), and has a rule of its own for
lib/list_debug.c, whose BUG it titles "BUG: corrupted list in CALLER"
after the first frame of the call trace.  Without such a rule every
DEBUG_RBTREE report would be "WARNING in __rb_node_valid_or_report" (or
__rb_link_valid_or_report): one title for every tree and every caller.
The rule patch 2 needs there, in the "WARNING:" and "kernel BUG"
sections beside list_debug.c's, names the tree's user instead, the first
frame outside the rbtree code:

  {{
          title: compile("WARNING: .*lib/rbtree_debug\\\\.c.*"),
          fmt:   "WARNING: corrupted rbtree in %[1]v",
          stack: warningStackFmt(rbtreeFrames...),
  }},
  {{
          title: compile("kernel BUG at lib/rbtree_debug.c"),
          fmt:   "BUG: corrupted rbtree in %[1]v",
          stack: &stackFmt{{
                  parts: []*regexp.Regexp{{compile("Call Trace:"), parseStackTrace}},
                  skip:  rbtreeFrames,
          }},
  }},

  var rbtreeFrames = []string{{"__rb_", "rb_debug", "rb_erase",
          "rb_replace_node", "rb_insert_color", "rb_insert_augmented"}}

Each condition has its own CHECK_DATA_CORRUPTION(), so its own line of
lib/rbtree_debug.c in the report, and its message starts with the
operation and the condition, addresses last ("rb_erase corruption:
node's left child has another parent (node=...)"); rb_erase_augmented()
and the cached forms name themselves.

Changes since v1, the RFC this replaces (the same five patches):

 - patch 2: a refusal writes nothing: v1 zeroed the node's links, which
   for a node already in the tree (the "own parent" fault of a second
   rb_add()) cut off its left subtree while its parent still pointed at
   it, with plain stores under lockless readers.  rb_insert_color() and
   the cached inserts now leave the node of a refused link alone, and
   rb_add_cached() / rb_add_augmented_cached() return NULL for it;
 - patch 2: a second insert of a node that has a right child passed
   every check; both kinds are now found, by a walk from the new parent
   to the root that reads no field of the node (mainline does not
   require a new node to be cleared, so its fields prove nothing);
 - patch 2: rb_erase() of a cleared node without children is again the
   silent no-op it is in mainline (v1 warned, and panicked under
   panic_on_warn);
 - patch 2: the compares are inline and the report is out of line and
   __cold, as <linux/list.h> since 6.6; v1 called an exported
   four-argument function from every inlined rb_link_node() for all of
   its checks.  The one check that is not a few compares, the insert's
   walk to the root, is a two-argument call (__rb_node_on_path());
 - patch 2: one CHECK_DATA_CORRUPTION() per condition, not one with a
   computed verdict; erases are reported under their own names
   (v1 reported every augmented erase as "rb_erase"); the verdict
   functions are EXPORT_SYMBOL_IF_KUNIT(), not EXPORT_SYMBOL();
 - patch 2: Kconfig help and kernel-doc say what is checked and what is
   not;
 - patch 1: the latch case searches copy 1 too (v1 only ever read copy
   0: the sequence is even without a writer), the interval case compares
   the nodes returned, not their number, and the message no longer
   claims that nothing tests the augmented helpers or that
   lib/interval_tree_test.c checks anything;
 - patch 3: augmented trees are not new in RB_DEFINE_INTERFACE(): the
   2012 posting had the argument; its message says what changed.

Patches 3-5 are an RFC and independent of 1-2: Daniel Santos's
RB_DEFINE_INTERFACE() [1], posted in 2012 beside Kent Overstreet's
rb_insert()/rb_search() [2].  Kent's API is mainline's now:
rb_insert() and rb_search() are rb_find_add() and rb_find() (5.12),
container_of_or_null() is rb_entry_safe(); his rb_greater(), the first
node whose key is greater than the search key (an upper bound), has no
mainline helper: rb_find_first() returns the first node that compares
equal.  Mainline has since added rb_add_augmented_cached() (6.6) and
rb_find_rcu() / rb_find_add_rcu() (6.12).  What it lacks is the layer
of [1]: one description of a tree generates typed __always_inline
functions that take and return the user's structures (no rb_entry() at
the call sites, a key comparison typed and checked at build time), keep
a rightmost pointer and a node count besides the leftmost one, apply
augment callbacks on every insert, replace and remove, and search from
a hint (insert_near/find_near).  Patch 3 adds it as
<linux/rbtree_generic.h>, patch 4 its KUnit suites, patch 5 the
documentation.

{COST_MARK}
Questions for reviewers:

 - Patches 1-2 stand alone.  DEBUG_RBTREE skips a refused write and
   writes nothing, as DEBUG_LIST does; after a refused rb_link_node()
   the node stays as the caller left it, out of the tree (or where it
   already was).  Is the walk to the root on every insert, the one check
   whose cost grows with the tree, acceptable for a debug option, or
   should the second-insert check be left out?
 - Is a typed layer over rb_add()/rb_find() wanted at all, given that it
   is one more way to build a tree?  No in-tree user is converted yet;
   candidates are trees that keep a rightmost pointer or a count by
   hand, such as memcg v1's soft-limit tree.
 - RB_DEFINE_INTERFACE() takes 12 positional arguments (v2's 11 plus the
   count member); a designated-initialiser form would read better at the
   cost of the build-time checks on blank members.

Cc: the union of scripts/get_maintainer.pl --nogit --nogit-fallback on
each patch, and on patches 1-2 the authors that the copyright lines of
lib/rbtree.c, <linux/rbtree.h>, <linux/rbtree_augmented.h>,
<linux/rbtree_latch.h> and <linux/interval_tree_generic.h> name and
MAINTAINERS lists, at the address it lists.  MAINTAINERS has no entry for
lib/rbtree.c and the tree this was made on has no git history, so
get_maintainer.pl alone reaches only the catch-all entries; its git
options on a kernel git tree would find more before sending.  Patches 1,
2 and 4 also Cc kunit-dev (their KUnit suites), and patch 2
linux-hardening (CHECK_DATA_CORRUPTION(), as DEBUG_LIST) and syzkaller
(the report rule above).

Based on 6.12.

[1] {SANTOS_LINK}
[2] {OVERSTREET_LINK}
"""


COVER_PLACEHOLDER = """
[NOT FOR SENDING AS IS: From: and Signed-off-by: are a placeholder.
Regenerate with qemu/patches --sign, which signs off as git config
user.name and user.email.  The Suggested-by: trailers credit the 2012
authors of the designs; they did not write or sign off this code.]
"""
