# SPDX-License-Identifier: GPL-2.0
"""The repository's shell scripts: under ``set -o pipefail`` no pipe ends in
``grep -q``.  grep -q quits at its first match; a writer still writing then
dies of SIGPIPE and the pipe's status is the writer's 141, so a line that is
there reads as missing (or, under ``!``, a failure reads as success).
Read to the end instead (``grep PATTERN >/dev/null``)."""

import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUIET_GREP_AT_PIPE_END = re.compile(r"\|\s*grep\s+(?:-[A-Za-z]*q[A-Za-z]*|--quiet)\b")


def shell_scripts() -> list[str]:
    """The tracked files that are shell scripts (a .sh name or a sh/bash
    shebang)."""
    listed = subprocess.run(["git", "-C", REPO, "ls-files"], capture_output=True,
                            text=True, timeout=60, check=True).stdout.split()
    found = []
    for name in listed:
        path = os.path.join(REPO, name)
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            head = f.read(64)
        if name.endswith(".sh") or re.match(rb"#!\s*/\S*(?:env\s+)?(?:ba)?sh\b", head):
            found.append(name)
    return found


def under_pipefail(text: str) -> bool:
    """Whether a script runs with pipefail: it sets it, or sources
    qemu/lib.sh, which does."""
    return bool(re.search(r"^\s*set\s+-o\s+pipefail|^\s*\.\s+.*/lib\.sh\"?\s*$", text, re.M))


def offending_lines(text: str) -> list[int]:
    """The numbers of the lines, comments aside, that end a pipe in a
    quiet grep."""
    return [i for i, line in enumerate(text.split("\n"), 1)
            if not line.lstrip().startswith("#") and QUIET_GREP_AT_PIPE_END.search(line)]


def test_the_pattern_catches_what_it_must():
    assert offending_lines("if ! tr -d x <f | grep -qE \"$w\"; then\n") == [1]
    assert offending_lines("! cut -f3 rows | grep -qv '^0$'\n") == [1]
    assert offending_lines("x | grep --quiet y\n") == [1]
    assert offending_lines("x | grep -E y >/dev/null\n# a | grep -q b\n") == []
    assert offending_lines("grep -q y file\n") == []
    assert under_pipefail("set -eu\nset -o pipefail\n")
    assert under_pipefail('. "$(dirname "$0")/lib.sh"\n')
    assert not under_pipefail("set -eu\n")


def test_there_are_scripts_to_check():
    scripts = shell_scripts()
    assert "qemu/patches" in scripts and "qemu/lib.sh" in scripts
    assert sum(under_pipefail(open(os.path.join(REPO, s), encoding="utf-8").read())
               for s in scripts) >= 10


@pytest.mark.parametrize("script", shell_scripts())
def test_no_pipe_ends_in_grep_q_under_pipefail(script):
    with open(os.path.join(REPO, script), encoding="utf-8") as f:
        text = f.read()
    if not under_pipefail(text):
        return
    assert offending_lines(text) == [], f"{script}: a pipe ends in grep -q under pipefail"
