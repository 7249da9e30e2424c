# SPDX-License-Identifier: GPL-2.0
"""Read any red-black tree out of kernel memory and write it as a dump.

``rbti kernel`` walks a tree in the running kernel (drgn over /proc/kcore)
or in a crash dump (``--core``), writes it in the ``dump`` format of
kmod/DEBUGFS.md and checks it with the one checker (``--check``).
``rbti verify`` compares each inspector tree's debugfs dump with the same
tree read from memory.

Modules, one job each: :mod:`.walk` (one read of a tree through a
:class:`~.walk.Memory`, and its node list), :mod:`.stable` (numbering,
the dump, and reads repeated until two agree), :mod:`.debuginfo` (drgn,
its memory and types, the debug info to load), :mod:`.vmcore` (a QEMU
dump made readable by drgn), :mod:`.presets` (the kernel trees rbti
knows) and :mod:`.commands` (``rbti kernel`` and ``rbti verify``).
:mod:`.walk` and :mod:`.stable` know nothing of drgn, so the host tests
drive them with a fake memory.
"""


class Fault(Exception):
    """An address that cannot be read."""

    def __init__(self, addr: int) -> None:
        super().__init__(f"cannot read address {addr:#x}")
        self.addr = addr


class Changed(Exception):
    """The tree kept changing while it was read."""


class KernelError(Exception):
    """Missing debug info, no /proc/kcore, a bad expression: exit 2."""

