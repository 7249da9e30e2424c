# SPDX-License-Identifier: GPL-2.0
"""viz/render's command line as rbti's: usage when there is nothing to
read, a missing --flipbook DIR named, violations named by their tree,
rbti's option names and forms, --version (and viz/walkthrough's)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests_support.dumps import DUMP_7, DUMP_RED_RED, RENDER_CLI
from tests_support.hostile import chain

WALKTHROUGH = RENDER_CLI.parent / "walkthrough"
RBTI = RENDER_CLI.parent.parent / "tools" / "rbti"


def render(*args, stdin: str | None = DUMP_7) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(RENDER_CLI), *map(str, args)], input=stdin,
                          capture_output=True, text=True, timeout=120,
                          check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_no_dump_and_stdin_a_terminal_is_usage_not_a_wait():
    """viz/render with no argument read the terminal until EOF: with
    stdin a terminal it needs a DUMP (or -), and says so."""
    import pty
    main, tty = pty.openpty()
    try:
        proc = subprocess.run([str(RENDER_CLI)], stdin=tty, capture_output=True,
                              text=True, timeout=60, check=False)
    finally:
        os.close(tty)
        os.close(main)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("usage: viz/render") and "give a DUMP" in proc.stderr
    # Not a terminal: a pipe is read, with or without '-'.
    for args in ([], ["-"]):
        assert render(*args).stdout.startswith('digraph "rbtree santos"')


def test_a_flipbook_dir_that_does_not_exist_is_named(tmp_path):
    missing = tmp_path / "no" / "such"
    proc = render("--flipbook", missing)
    assert (proc.returncode, proc.stderr) == \
        (2, f"viz/render: {missing}: No such file or directory\n")
    afile = tmp_path / "afile"
    afile.write_text("")
    proc = render("--flipbook", afile)
    assert (proc.returncode, proc.stderr) == (2, f"viz/render: {afile}: Not a directory\n")
    proc = render("--flipbook", tmp_path)
    assert proc.returncode == 2 and "no flipbook left to draw" in proc.stderr


def test_violations_are_named_by_their_tree(tmp_path):
    """As rbti check prints them: TREE: fail ..., TREE: … and N more."""
    proc = render("-", "--violation", stdin=DUMP_RED_RED)
    assert proc.returncode == 1
    assert proc.stderr.startswith("santos: fail red-red node #3 (key 30): ")
    rbti = subprocess.run([sys.executable, str(RBTI), "check", "-"], input=DUMP_RED_RED,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.stderr.splitlines() == rbti.stdout.splitlines()
    path = tmp_path / "chain.dump"
    path.write_text(chain(40))
    proc = render(path, "--violation", "-o", tmp_path / "c.svg")
    assert proc.stderr.splitlines()[-1] == \
        "chain: … and 30 more violations (--max-violations all prints them)"


@pytest.mark.parametrize("option", ["--max", "--max-violations"])
def test_max_violations_and_its_alias_max(option, tmp_path):
    path = tmp_path / "chain.dump"
    path.write_text(chain(40))
    proc = render(path, "--violation", option, "3", "-o", tmp_path / "c.svg")
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 4, proc.stderr
    assert lines[-1].startswith("chain: … and 37 more violations")


def test_max_depth_takes_all_auto_and_n_as_rbti_show_does():
    whole = render().stdout
    assert render("--max-depth", "all").stdout == whole
    assert render("--max-depth", "auto").stdout == whole
    assert "sub_" in render("--max-depth", "1").stdout


@pytest.mark.parametrize("args", [
    ["--max-depth", "0"], ["--max-depth", "-2"], ["--max-depth", "x"],
    ["--collapse", "0"], ["--collapse", "-1"], ["--max-violations", "0"],
    ["--max", "-3"]], ids=" ".join)
def test_negative_or_zero_counts_are_usage_errors(args):
    proc = render(*args)
    assert proc.returncode == 2 and f"argument {args[0]}" in proc.stderr, proc.stderr


def test_version_is_rbtis_style():
    rbti = subprocess.run([sys.executable, str(RBTI), "--version"], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    release = re.fullmatch(r"rbti (\S+) \(dump format (\d+), JSON schema \d+\)\n", rbti)
    assert release, rbti
    want = f"{release[1]} (dump format {release[2]})\n"
    proc = render("--version", stdin=None)
    assert (proc.returncode, proc.stdout) == (0, f"viz/render {want}")
    proc = subprocess.run([str(WALKTHROUGH), "--version"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert (proc.returncode, proc.stdout) == (0, f"viz/walkthrough {want}")
