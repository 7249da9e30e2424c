# SPDX-License-Identifier: GPL-2.0
"""KTAP test lines (Documentation/dev-tools/ktap.rst) and their tally.

Every test program of the project prints ``ok N name``, ``not ok N name``
or ``ok N name # SKIP reason`` per test, numbered from 1, ``#`` lines for
notes, and ends on ``N passed, N failed, N skipped``: qemu/results counts
the lines and holds the tally to them.
"""

import sys
from typing import Iterable


class Reporter:
    """Numbers and counts test results, skips included."""

    def __init__(self, out=None) -> None:
        self.out = out if out is not None else sys.stdout
        self.n = self.passed = self.failed = self.skipped = 0

    def test(self, name: str, good: bool,
             detail: Iterable[str] | str = "") -> bool:
        """One result; *detail* lines follow a failure as ``#   ...``."""
        self.n += 1
        if good:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok' if good else 'not ok'} {self.n} - {name}",
              file=self.out)
        if not good:
            if isinstance(detail, str):
                detail = detail.splitlines()
            for line in list(detail)[:40]:
                print(f"#   {line}", file=self.out)
        self.out.flush()
        return good

    def skip(self, name: str, reason: str) -> None:
        """A test not run, and why: counted as skipped."""
        self.n += 1
        self.skipped += 1
        print(f"ok {self.n} - {name} # SKIP {reason}", file=self.out,
              flush=True)

    def note(self, text: str) -> None:
        """A comment line (``# text``)."""
        print(f"# {text}", file=self.out, flush=True)

    def tally(self) -> str:
        """The closing line."""
        return (f"{self.passed} passed, {self.failed} failed, "
                f"{self.skipped} skipped")

    def summary(self) -> int:
        """Print the tally; return the exit status (1 on any failure)."""
        print(self.tally(), file=self.out, flush=True)
        return 1 if self.failed else 0
