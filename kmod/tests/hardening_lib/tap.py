# SPDX-License-Identifier: GPL-2.0
"""Numbered ``ok N - desc`` / ``not ok N - desc`` lines and the summary."""

import sys
import time
import traceback
from typing import Callable, Iterable


class Reporter:
    """Counts results; :meth:`summary` prints ``N passed, N failed``."""

    def __init__(self, out=sys.stdout) -> None:
        self.out = out
        self.n = 0
        self.passed = 0
        self.failed = 0
        self.figures: dict[str, int] = {}
        self.start = time.monotonic()

    def ok(self, passed: bool, desc: str,
           diag: Iterable[str] | str = ()) -> bool:
        """Print one result; *diag* lines follow a failure as ``# ...``."""
        self.n += 1
        if passed:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok' if passed else 'not ok'} {self.n} - {desc}",
              file=self.out, flush=not passed)
        if not passed:
            if isinstance(diag, str):
                diag = [diag]
            for line in list(diag)[:40]:
                print(f"#   {line}", file=self.out)
            self.out.flush()
        return passed

    def expect(self, problems: list[str], desc: str) -> bool:
        """``ok`` if *problems* is empty, else ``not ok`` listing them."""
        return self.ok(not problems, desc, problems)

    def note(self, text: str) -> None:
        """A comment line (``# text``)."""
        print(f"# {text}", file=self.out, flush=True)

    def count(self, figure: str, n: int = 1) -> None:
        """Add *n* to a reported figure (inputs tried, ops run, ...)."""
        self.figures[figure] = self.figures.get(figure, 0) + n

    def section(self, name: str, fn: Callable[..., None], *args) -> None:
        """Run one area's tests; an exception is a failure, not a crash."""
        t0 = time.monotonic()
        self.note(f"== {name}")
        try:
            fn(self, *args)
        except Exception:       # report and go on with the next area
            self.ok(False, f"{name}: unexpected exception",
                    traceback.format_exc().splitlines())
        self.note(f"== {name}: {time.monotonic() - t0:.1f} s")

    def summary(self) -> int:
        """Print the figures and the final line; return the exit status."""
        for key, value in sorted(self.figures.items()):
            self.note(f"figure {key}: {value}")
        self.note(f"figure guest seconds: {time.monotonic() - self.start:.0f}")
        print(f"{self.passed} passed, {self.failed} failed", file=self.out,
              flush=True)
        return 1 if self.failed else 0
