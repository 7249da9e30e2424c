# SPDX-License-Identifier: GPL-2.0
"""Reference model of one inspector tree: a sorted multiset with node ids.

The model follows kmod/DEBUGFS.md: ``unique`` trees reject a present key
(EEXIST), ``replace`` trees swap in the new node, ``dup`` trees put a new
equal key after the existing ones.  Node ids are chosen by the module, so
the model learns them from the results (:meth:`Model.insert` takes the id)
and predicts them for every later query.

The one thing the model cannot know is which equal node Overstreet's
``rb_search`` erases on a ``dup`` tree; :attr:`Model.erase_any` is then
set and :meth:`Model.erase` accepts any node with the key.

On the rbtree family's ``value`` trees every node also has a VALUE
(``values``), the LAST of an interval [KEY, VALUE] on ``interval`` trees:
:meth:`Model.overlap` answers an overlap query in the interval tree's
order (iter_first/iter_next: in order of START, equal STARTs in insertion
order, which is the model's order), and :meth:`Model.top` is the augment
of a ``max`` or ``interval-last`` root.
"""

from bisect import bisect_left, bisect_right, insort


class Model:
    """Sorted multiset of ``(key, node id)``; equal keys in insertion order.

    ``keys`` is the sorted list of distinct keys, ``ids[key]`` the ids of
    the nodes with that key, in order.
    """

    def __init__(self, flags: frozenset, api: str = "") -> None:
        self.dup = "dup" in flags
        self.replace = "replace" in flags
        self.erase_any = self.dup and api == "overstreet"
        self.keys: list = []
        self.ids: dict = {}
        self.values: dict = {}
        """id -> VALUE, on a ``value`` tree."""
        self.count = 0
        self.spans: dict | None = {} if "interval" in flags else None
        """On an interval tree: bit length of LAST - START -> sorted
        ``(START, seq, id)``, so that an overlap query looks only at the
        STARTs that can reach it (output-sensitive, not O(n))."""
        self.seq = 0

    def insert(self, key: int) -> str:
        """Return what an insert of *key* does: 'ok', 'EEXIST' or 'replaced'.

        For 'ok' and 'replaced' the caller then calls :meth:`add` or
        :meth:`swap` with the id the module chose.
        """
        if key not in self.ids or self.dup:
            return "ok"
        return "replaced" if self.replace else "EEXIST"

    def add(self, key: int, nid: int, value: int | None = None) -> None:
        """Record a new node *nid* with *key* (after its equals) and, on a
        value tree, its *value*."""
        if value is not None:
            self.values[nid] = value
            if self.spans is not None:
                self.seq += 1
                insort(self.spans.setdefault(
                    (value - key).bit_length(), []), (key, self.seq, nid))
        ids = self.ids.get(key)
        if ids is None:
            insort(self.keys, key)
            self.ids[key] = [nid]
        else:
            ids.append(nid)
        self.count += 1

    def swap(self, key: int, nid: int) -> int:
        """Replace the node with *key* by *nid*; return the old id."""
        ids = self.ids[key]
        old, ids[0] = ids[0], nid
        return old

    def find(self, key: int) -> int | None:
        """Id of the first node in order with *key*, or None."""
        ids = self.ids.get(key)
        return ids[0] if ids else None

    def near(self, key: int) -> tuple | None:
        """``(id, key)`` of the first node in order with a key > *key*."""
        pos = bisect_right(self.keys, key)
        if pos == len(self.keys):
            return None
        found = self.keys[pos]
        return self.ids[found][0], found

    def find_exact(self, key: int, value: int) -> int | None:
        """Id of the first node in order with *key* and VALUE *value*
        (an interval tree's erase of [START, LAST]), or None."""
        values = self.values
        return next((nid for nid in self.ids.get(key, ())
                     if values.get(nid) == value), None)

    def overlap(self, start: int, last: int) -> list:
        """Ids of the intervals [KEY, VALUE] that meet [*start*, *last*],
        in the interval tree's order: by START, equal STARTs in insertion
        order."""
        values = self.values
        found = []
        for bits, span in self.spans.items():
            # Every interval here is shorter than 2^bits: only a START
            # above start - 2^bits can reach start.
            lo = bisect_left(span, (start - (1 << bits),))
            hi = bisect_right(span, (last, self.seq + 1))
            found += [item for item in span[lo:hi]
                      if values[item[2]] >= start]
        found.sort()
        return [item[2] for item in found]

    def top(self) -> int | None:
        """The largest VALUE (a max-augmented root's aug), None if empty."""
        return max(self.values.values(), default=None)

    def erase(self, key: int, nid: int | None = None,
              value: int | None = None) -> int | None:
        """Erase one node with *key*; return its id, None if there is none.

        The first in order is erased (with VALUE *value* if given),
        unless :attr:`erase_any` is set and *nid* (the id the module
        reports) is one of the key's nodes.
        """
        ids = self.ids.get(key)
        if not ids:
            return None
        pos = 0
        if value is not None:
            found = self.find_exact(key, value)
            if found is None:
                return None
            pos = ids.index(found)
        elif self.erase_any and nid is not None and nid in ids:
            pos = ids.index(nid)
        gone = ids.pop(pos)
        value = self.values.pop(gone, None)
        if self.spans is not None and value is not None:
            span = self.spans[(value - key).bit_length()]
            at = bisect_left(span, (key,))
            while span[at][2] != gone:
                at += 1
            del span[at]
        if not ids:
            del self.ids[key]
            self.keys.pop(bisect_right(self.keys, key) - 1)
        self.count -= 1
        return gone

    def items(self) -> list:
        """All ``(key, id)`` pairs in order."""
        return [(key, nid) for key in self.keys for nid in self.ids[key]]

    def __len__(self) -> int:
        return self.count
