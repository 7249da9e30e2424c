# SPDX-License-Identifier: GPL-2.0
"""A fake of the part of drgn that ``debuginfo.open_program`` uses."""

from rbtilib.kernel import drgnload


class FakeModule:
    """drgn 0.0.31's main module: the kernel, with its debug file."""

    def __init__(self, path):
        self.debug_file_path = path


class FakeDrgn:
    """drgn as *version* has it (no ``__version__`` if None, as some
    builds): ``load_debug_info`` records its paths and raises *missing*
    (if any); from 0.0.31 the program has a main module whose debug file
    is *kernel_file*."""

    _with_libkdumpfile = True

    class MissingDebugInfoError(Exception):
        pass

    def __init__(self, version: str | None = None, missing: str = "",
                 kernel_file: str | None = None) -> None:
        if version is not None:
            self.__version__ = version
        self.loads = []
        drgn = self

        class Program:
            def set_core_dump(self, path):
                pass

            def load_debug_info(self, paths, default=False):
                drgn.loads.append((list(paths), default))
                if missing:
                    raise drgn.MissingDebugInfoError(missing)
        if drgnload.version(self) >= drgnload.MODULE_API:
            Program.main_module = lambda self: FakeModule(kernel_file)
        self.Program = Program
