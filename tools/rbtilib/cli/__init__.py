# SPDX-License-Identifier: GPL-2.0
"""rbti's command line (tools/rbti is a shim that calls :func:`main`).

One module per group of subcommands: :mod:`.tree_cmds` (trees, dump,
check), :mod:`.show_cmd`, :mod:`.fuzz_cmd` (fuzz, replay),
:mod:`.kernel_cmd` (kernel, verify), :mod:`.census_cmd`,
:mod:`.doctor_cmd`; what they share (exit codes, tree
selection, JSON, colour, the help formatter) is :mod:`.common`, the parser
and main() :mod:`.main`.  The JSON documents are described in
docs/json.md.
"""

from .common import (EXIT_CHANGED, EXIT_FAIL, EXIT_OK, EXIT_USAGE,
                     UsageError, environment_error, is_saved_dump,
                     read_saved_dump, tree_infos)
from .main import VERSION, build, main, parser

__all__ = ["EXIT_CHANGED", "EXIT_FAIL", "EXIT_OK", "EXIT_USAGE",
           "UsageError", "VERSION", "build", "environment_error",
           "is_saved_dump", "main", "parser", "read_saved_dump",
           "tree_infos"]
