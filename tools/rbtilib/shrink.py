# SPDX-License-Identifier: GPL-2.0
"""Delta debugging: shrink a failing input to a 1-minimal one."""

from typing import Callable, Sequence


def ddmin(items: Sequence, fails: Callable[[list], bool],
          max_tests: int | None = None) -> list:
    """Return a 1-minimal sublist of *items* for which *fails* is true.

    Zeller's ddmin: try each of n chunks and each complement, refine n.
    *fails(items)* must be true on entry.  The order of items is kept.
    With *max_tests*, stop after that many calls and return the smallest
    failing list found so far.
    """
    current = list(items)
    n = 2
    tests = 0
    while len(current) >= 2:
        size = len(current)
        bounds = [size * i // n for i in range(n + 1)]
        chunks = [current[bounds[i]:bounds[i + 1]] for i in range(n)]
        reduced = False
        for i, chunk in enumerate(chunks):
            if max_tests is not None and tests >= max_tests:
                return current
            tests += 1
            if chunk and fails(chunk):
                current, n, reduced = chunk, 2, True
                break
        if not reduced and n > 2:
            for i in range(n):
                if max_tests is not None and tests >= max_tests:
                    return current
                complement = [x for j, c in enumerate(chunks) if j != i
                              for x in c]
                tests += 1
                if fails(complement):
                    current, n, reduced = complement, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= size:
                break
            n = min(size, 2 * n)
    if len(current) == 1 and (max_tests is None or tests < max_tests):
        if fails([]):
            return []
    return current
