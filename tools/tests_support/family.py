# SPDX-License-Identifier: GPL-2.0
"""Valid sample dumps of the rbtree family's trees, shared by
the parser's, the checkers', show's and viz's tests.

Each is small and hand-checked: ``MAX_DUMP`` a ``max``-augmented tree of
KEY VALUE pairs (mainline_aug), ``INTERVAL_DUMP`` an interval tree with
``interval-last`` (two equal STARTs, in insertion order), ``LATCH_DUMP``
a latch tree whose two copies differ in colour (both valid: the checker
asks each copy to be a red-black tree and both to hold the same nodes in
the same order).
"""

MAX_DUMP = """\
tree mainline_aug
api mainline
flags unique,leftmost,augmented,value
count 3
nodes 3
root 2
leftmost 1
rightmost -
height 2
aug max
value value
node 2 20 B - 1 3 70 5
node 1 10 R 2 - - 70 70
node 3 30 R 2 - - -4 -4
end 3
"""

INTERVAL_DUMP = """\
tree interval
api interval
flags dup,augmented,value,interval
count 4
nodes 4
root 2
leftmost -
rightmost -
height 3
aug interval-last
value last
node 2 20 B - 1 3 90 25
node 1 10 B 2 - - 12 12
node 3 30 B 2 - 4 90 35
node 4 30 R 3 - - 90 90
end 4
"""

LATCH_DUMP = """\
tree latch
api latch
flags unique,latch
count 3
nodes 3
root 2
leftmost -
rightmost -
height 2
aug -
node 2 20 B - 1 3 -
node 1 10 R 2 - - -
node 3 30 R 2 - - -
copy 1
root 2
height 2
node 2 20 B - 1 3 -
node 1 10 B 2 - - -
node 3 30 B 2 - - -
end 3
end 3
"""


def edited(text: str, *edits: tuple) -> str:
    """*text* with each ``(old, new)`` line edit applied (each *old* must
    occur exactly once)."""
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


BROKEN = {
    # name: (dump text, class, node blamed); one per new invariant.
    "max-aug": (edited(MAX_DUMP, ("node 3 30 R 2 - - -4 -4",
                                  "node 3 30 R 2 - - -3 -4")),
                "augment", 3),
    "max-value": (edited(MAX_DUMP, ("node 1 10 R 2 - - 70 70",
                                    "node 1 10 R 2 - - 70 71")),
                  "augment", 1),
    "max-root": (edited(MAX_DUMP, ("node 2 20 B - 1 3 70 5",
                                   "node 2 20 B - 1 3 71 5")),
                 "augment", 2),
    "interval-last": (edited(INTERVAL_DUMP, ("node 4 30 R 3 - - 90 90",
                                             "node 4 30 R 3 - - 90 91")),
                      "augment", 4),
    "interval-aug": (edited(INTERVAL_DUMP, ("node 3 30 B 2 - 4 90 35",
                                            "node 3 30 B 2 - 4 35 35")),
                     "augment", 3),
    "interval-dup-order": (edited(INTERVAL_DUMP,
                                  ("node 2 20 B - 1 3 90 25",
                                   "node 2 20 B - 1 4 90 25"),
                                  ("node 3 30 B 2 - 4 90 35",
                                   "node 4 30 B 2 - 3 90 35"),
                                  ("node 4 30 R 3 - - 90 90",
                                   "node 3 30 R 4 - - 90 90")),
                           "dup-order", 3),
    "latch": (edited(LATCH_DUMP, ("root 2\nheight 2\nnode 2 20 B - 1 3 -\n"
                                  "node 1 10 B 2 - - -\n"
                                  "node 3 30 B 2 - - -\nend 3",
                                  "root 2\nheight 2\nnode 2 20 B - - 3 -\n"
                                  "node 3 30 R 2 - - -\nend 2")),
              "latch", 1),
    "latch-copy-0-first": (edited(LATCH_DUMP, ("count 3\nnodes 3\nroot 2",
                                        "count 2\nnodes 3\nroot 2"),
                           ("node 2 20 B - 1 3 -\nnode 1 10 R 2 - - -\n"
                            "node 3 30 R 2 - - -\ncopy 1",
                            "node 2 20 B - 1 - -\nnode 1 10 R 2 - - -\n"
                            "lost 3 30 R 2 - - -\ncopy 1"),
                           ("end 3\nend 3", "end 3\nend 2")),
                    "unreachable", 3),
    "copy-root-color": (edited(LATCH_DUMP, ("node 2 20 B - 1 3 -\n"
                                            "node 1 10 B",
                                            "node 2 20 R - 1 3 -\n"
                                            "node 1 10 B")),
                        "root-color", 2),
    "copy-black-height": (edited(LATCH_DUMP, ("node 3 30 B 2 - - -",
                                              "node 3 30 R 2 - - -")),
                          "black-height", 3),
    "copy-parent": (edited(LATCH_DUMP, ("node 1 10 B 2 - - -",
                                        "node 1 10 B 3 - - -")),
                    "parent", 1),
    "copy-order": (edited(LATCH_DUMP, ("node 2 20 B - 1 3 -\n"
                                       "node 1 10 B 2 - - -\n"
                                       "node 3 30 B 2 - - -",
                                       "node 2 20 B - 3 1 -\n"
                                       "node 3 30 B 2 - - -\n"
                                       "node 1 10 B 2 - - -")),
                   "order", 2),
    "copy-cycle": (edited(LATCH_DUMP, ("node 3 30 B 2 - - -",
                                       "node 3 30 B 2 3 - -")),
                   "cycle", 3),
    "copy-shared": (edited(LATCH_DUMP, ("root 2\nheight 2\n"
                                        "node 2 20 B - 1 3 -\n"
                                        "node 1 10 B 2 - - -\n"
                                        "node 3 30 B 2 - - -\nend 3",
                                        "root 2\nheight 2\n"
                                        "node 2 20 B - 1 1 -\n"
                                        "node 1 10 B 2 - - -\nend 2")),
                    "shared", 2),
    "copy-height": (edited(LATCH_DUMP, ("root 2\nheight 2",
                                        "root 2\nheight 3")),
                    "height", 2),
}
"""Hand-made broken family dumps: class None means valid (a case the
checker must not reject)."""
