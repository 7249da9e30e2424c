# SPDX-License-Identifier: GPL-2.0
"""A fuzz run's parameters: :class:`Config`, which the op stream
(:mod:`~rbtilib.opstream`), the fuzzer (:mod:`~rbtilib.fuzz`) and the
shrinker's repro files (:mod:`~rbtilib.shrink`) read."""

from .record import record

BATCH_OPS = 256
"""Ops per ``ops`` write (the module's check runs after each); the batch
is split further if it would pass 256 KiB."""


@record
class Config:
    """A fuzz run's parameters (see ``rbti fuzz --help``).

    *seed* None picks a random seed
    (:func:`~rbtilib.opstream.resolve_seed`).  *key_mode* ``dense`` with
    *phases* False is the plain uniform mix.
    """

    ops: int = 10000
    seed: int | None = None
    check_every: int = 1000
    keys: tuple[int, int] = (0, 255)
    mix: tuple[int, int, int, int] = (4, 3, 3, 2)
    out: str | None = None
    snapshots_every: int = 0
    batch: int = BATCH_OPS
    progress: float = 10.0
    shrink_tests: int = 3000
    key_mode: str = "mixed"
    phases: bool = True
    single: int = 128
    grow: int = 0
    module_check: bool = True
    hint: int = 4
    jobs: int = 1
    shared: tuple[str, ...] = ()
    """Counters that other processes bump as well during the run
    (:attr:`rbtilib.treerun.TreeRun.shared`)."""
