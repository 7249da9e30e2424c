# SPDX-License-Identifier: GPL-2.0
"""The issue's rough edges not held by a test elsewhere: a real dump cut
at every byte says it is truncated, ``rbti census --core`` names the file
given (not a temporary copy), and ``rbti kernel``/``verify --help`` list
their exit statuses as ``census --help`` does.  The other items have
their tests beside the code (see the issue's table in the report)."""

import argparse
import os
import pathlib
import subprocess
import sys
import types

import pytest

from rbtilib import cli
from rbtilib.dump import DumpError, parse_dump
from rbtilib.kernel import census_cmd, debuginfo

TOP = pathlib.Path(__file__).resolve().parents[2]
REAL_DUMP = (TOP / "docs" / "free-vmap-area.dump").read_text()
"""A kernel tree's dump as rbti kernel wrote it (value, hex, aug)."""


def test_a_real_dump_cut_anywhere_mid_line_says_truncated():
    """Every cut of a real dump that leaves its last line without a
    newline (mid-word, mid-number, between fields) says "truncated"; a
    cut at a newline says the 'end' line is missing."""
    assert REAL_DUMP.endswith("end 2\n")
    for at in range(1, len(REAL_DUMP) - 1):
        with pytest.raises(DumpError) as e:
            parse_dump(REAL_DUMP[:at])
        message = str(e.value)
        if REAL_DUMP[at - 1] == "\n":
            assert message.endswith("missing 'end' line (truncated?)"), at
        else:
            assert "truncated" in message and "unknown record" not in \
                message, (at, message)
            assert e.value.lineno == REAL_DUMP[:at].count("\n") + 1, at


@pytest.mark.parametrize("cut,words", [
    ("node 1 18446683600570142720 B - 0 - 1844",
     "is 8 of the node line's 9 fields"),
    ("node 0 1 R 1", "is 5 of the node line's 9 fields"),
    ("no", "'no' is the start of a record"),
])
def test_a_real_dump_cut_mid_record_names_the_line_and_what_is_left(cut,
                                                                    words):
    head = REAL_DUMP[:REAL_DUMP.index(cut) + len(cut)]
    with pytest.raises(DumpError) as e:
        parse_dump(head)
    assert str(e.value).startswith(
        f"dump line {head.count(chr(10)) + 1}: truncated: the dump ends "
        "mid-line (no newline): ")
    assert str(e.value).endswith(words)


@pytest.mark.parametrize("line", ["nod 0 1 R 1 - - 5 5", "nod", "x"])
def test_a_whole_line_of_no_record_stays_unknown_record(line):
    """With its newline the line is complete: not a cut, a bad line."""
    at = REAL_DUMP.index("node 0")
    with pytest.raises(DumpError) as e:
        parse_dump(REAL_DUMP[:at] + line + "\n" + REAL_DUMP[at:])
    assert str(e.value) == \
        f"dump line 13: unknown record {line.split()[0]!r}"


@pytest.mark.slow
@pytest.mark.parametrize("command", [["tools/rbti", "check"],
                                     ["tools/rbti", "show"],
                                     ["viz/render"]], ids=" ".join)
def test_the_commands_say_a_cut_dump_is_truncated(command, tmp_path):
    cut = tmp_path / "cut.dump"
    cut.write_text(REAL_DUMP[:REAL_DUMP.index("node 0 1 R") + 3])
    proc = subprocess.run([sys.executable, str(TOP / command[0]),
                           *command[1:], str(cut)], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 1, proc.stderr
    said = proc.stderr + proc.stdout
    assert f"{cut}: fail dump: dump line 13: truncated: the dump ends " \
        "mid-line (no newline): 'nod' is the start of a record" in said, said
    assert "unknown record" not in said


@pytest.mark.parametrize("what", ["README.md", "/bin/ls"])
@pytest.mark.parametrize("command", ["census", "kernel"])
def test_a_core_that_is_not_one_is_named_as_given(what, command, tmp_path,
                                                 monkeypatch, capsys):
    """--core README.md named no file; --core /bin/ls (an ELF file, no
    kernel's dump) named the temporary copy rbti reads, and deleted: the
    message names the path given, and no copy is left in $TMPDIR."""
    import tempfile
    from rbtilib.kernel import commands
    if what == "README.md":
        core = TOP / "README.md"
        want = "not a core dump drgn reads (ELF, or kdump-compressed"
    else:
        core = pathlib.Path(what)
        if not core.is_file():
            pytest.skip(f"no {core}")
        want = "no VMCOREINFO note in its memory"
    monkeypatch.setattr(debuginfo, "_drgn", lambda: types.SimpleNamespace(
        Program=object, MissingDebugInfoError=Exception))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    args = argparse.Namespace(core=str(core), kcore="/proc/kcore",
                              vmlinux=None, debug_info=None, command=command,
                              json=False, out=None)
    run = census_cmd.run if command == "census" else commands.run
    assert run(args) == 2
    err = capsys.readouterr().err
    assert err == f"rbti {command}: {core}: {want}" + err.split(want, 1)[1]
    assert err.count("\n") == 1 and os.listdir(tmp) == []


@pytest.mark.parametrize("command", ["kernel", "verify", "census"])
def test_the_kernel_commands_help_lists_their_exit_statuses(command, capsys):
    """census --help gave 0/1/2/3; kernel and verify, which exit 3 too,
    said so only in rbti --help's one-line summary."""
    with pytest.raises(SystemExit) as e:
        cli.main([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    statuses = out.split("\nexit status:\n", 1)[1].split("\n\n", 1)[0]
    codes = [line.split()[0] for line in statuses.splitlines()
             if not line.startswith("    ")]
    assert codes == ["0", "1", "2", "3"], statuses
    assert "incomplete" in statuses and '"complete": false' in \
        " ".join(statuses.split())
