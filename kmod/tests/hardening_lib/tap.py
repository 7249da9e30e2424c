# SPDX-License-Identifier: GPL-2.0
"""The hardening suite's reporter: rbtilib's KTAP lines and tally, with
the figures it reports and its areas run one by one."""

import time
import traceback
from typing import Callable, Iterable

from rbtilib.ktap import Reporter as KtapReporter


class Reporter(KtapReporter):
    """KTAP results, figures (inputs tried, ops run, ...) and sections."""

    def __init__(self, out=None) -> None:
        super().__init__(out)
        self.figures: dict[str, int] = {}
        self.start = time.monotonic()

    def ok(self, passed: bool, desc: str,
           diag: Iterable[str] | str = ()) -> bool:
        """One result; *diag* lines follow a failure as ``# ...``."""
        return self.test(desc, passed, diag)

    def expect(self, problems: list[str], desc: str) -> bool:
        """``ok`` if *problems* is empty, else ``not ok`` listing them."""
        return self.ok(not problems, desc, problems)

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
        """Print the figures and the tally; return the exit status."""
        for key, value in sorted(self.figures.items()):
            self.note(f"figure {key}: {value}")
        self.note(f"figure guest seconds: {time.monotonic() - self.start:.0f}")
        return super().summary()
