# SPDX-License-Identifier: GPL-2.0
"""The fuzzer's comparison of the module's stats counters with its own
counts: exact, or at least its own for counters that other processes
share (qemu/kcsan-guest's readers)."""

from tests_support.shared import config
from tests_support.shared import fuzz_run as run
from tests_support.fake import FakeDebugfs


class WrongCounter(FakeDebugfs):
    def stats(self, name):
        out = super().stats(name)
        out["erases"] = max(0, out["erases"] - 1)
        return out


def test_stats_are_compared_with_the_model():
    _, failure = run(WrongCounter(), config(), ["santos"])
    assert failure is not None and failure.kind == "stats"
    assert failure.what == "erases"


class OtherReaders(FakeDebugfs):
    """Finds that other processes ran meanwhile (qemu/kcsan-guest's
    readers): stats shows more finds than the fuzz ran, or fewer when
    *lost*."""

    def __init__(self, lost: bool = False) -> None:
        super().__init__()
        self.extra = 0
        self.lost = lost

    def stats(self, name):
        out = super().stats(name)
        self.extra += 5
        out["finds"] += -self.extra if self.lost else self.extra
        return out


def test_shared_counters_want_at_least_the_runs_own():
    # Unshared, others' finds fail the exact comparison ...
    _, failure = run(OtherReaders(), config(), ["mainline"])
    assert failure is not None and failure.kind == "stats"
    assert failure.what == "finds"
    # ... shared, they pass, but a count below the run's own still fails.
    _, failure = run(OtherReaders(), config(shared=("finds", "nears")),
                     ["mainline"])
    assert failure is None, failure
    _, failure = run(OtherReaders(lost=True),
                     config(shared=("finds", "nears")), ["mainline"])
    assert failure is not None and failure.what == "finds"
    assert "expected at least" in failure.message


def test_fuzzer_keeps_its_runs_counts():
    f, failure = run(FakeDebugfs(), config(), ["mainline"])
    assert failure is None
    assert [r.info.name for r in f.runs] == ["mainline"]
    assert f.runs[0].counted["finds"] > 0


def test_stats_match_on_the_fake():
    drv = FakeDebugfs()
    drv.insert("santos", [1, 2, 3])
    assert drv.stats("santos")["inserts"] == 3
