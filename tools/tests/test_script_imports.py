# SPDX-License-Identifier: GPL-2.0
"""How a script finds the project's packages (docs/README.md, "Folders"):
beside itself, never by editing sys.path.

A script run by path has its own folder as sys.path[0]; a folder whose
scripts import a package kept elsewhere holds a relative symbolic link to
it (viz/rbtilib -> ../tools/rbtilib, ...), and pytest.ini's ``pythonpath``
does the same for the tests.  These tests fail if a sys.path edit comes
back, if a script imports a package its folder does not hold, and if the
scripts of each folder stop starting with no environment at all.
"""
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("rbtilib", "rbtiviz", "tests_support", "rbtibench", "hardening_lib")
"""The project's own packages, wherever they live."""
PYTEST_PATH = ("tools",)
"""pytest.ini's ``pythonpath``: where the tests find the packages."""
EDIT = re.compile(r"\bsys\s*\.\s*path\s*(?:\.\s*(?:insert|append|extend|remove|pop|clear)\s*\("
                  r"|\[[^\]]*\]\s*=(?!=)|\+=|=(?!=))|\bsite\s*\.\s*addsitedir\b")
"""A statement that changes sys.path (or adds a site directory)."""
ALLOWED = {
    "kmod/tests/kunit-ktap": "imports the kernel tree's own kunit_parser",
    "tools/tests/test_kmod_kunit_ktap.py": "puts sys.path back after kunit-ktap's edit",
}


def files() -> list[str]:
    """Tracked files, and new ones not ignored, that are there."""
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split("\0")
    return sorted({n for n in out if n and (REPO / n).is_file() and not (REPO / n).is_symlink()})


def text(name: str) -> str | None:
    try:
        return (REPO / name).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


def python_sources() -> dict[str, str]:
    """Name -> text of every Python file: a .py, or a python shebang."""
    out = {}
    for name in files():
        body = text(name)
        if body is not None and (name.endswith(".py") or
                                 re.match(r"#!\S*python3?\b|#!/usr/bin/env python3?\b", body)):
            out[name] = body
    return out


def test_the_edit_pattern_sees_each_form():
    for line in ("sys.path.insert(0, HERE)", "sys.path[:0] = [HERE]", "sys.path += [x]",
                 "sys.path.append('tools')", "sys.path = ['x']", "site.addsitedir(d)"):
        assert EDIT.search(line), line
    for line in ("path = list(sys.path)", "if d not in sys.path:", "sys.path[0] == x",
                 "# only the site module puts on sys.path."):
        assert not EDIT.search(line), line


def test_nothing_edits_sys_path():
    """In any file (Python, or Python in a shell script's here-document),
    but the kunit_parser case."""
    me = str(Path(__file__).resolve().relative_to(REPO))
    found = []
    for name in files():
        body = text(name)
        if name == me or body is None:
            continue
        for n, line in enumerate(body.splitlines(), 1):
            if EDIT.search(line) and name not in ALLOWED:
                found.append(f"{name}:{n}: {line.strip()}")
    assert found == [], "import the package from beside the script (docs/README.md, Folders):\n" \
        + "\n".join(found)


def base_of(name: str) -> Path:
    """sys.path[0] of the script that runs *name*: its folder, or for a
    module of a package the folder that holds the package."""
    folder = (REPO / name).parent
    while (folder / "__init__.py").is_file() and folder != REPO:
        folder = folder.parent
    return folder


def imported(body: str) -> set[str]:
    found = re.findall(r"^\s*(?:from|import)\s+(\w+)", body, re.M)
    return {m for m in found if m in PACKAGES}


def test_each_script_finds_its_packages_beside_it():
    """Every package a script imports is in its folder (a package, or a
    relative link to one that resolves); a test's is on pytest's path."""
    wrong, links = [], 0
    for name, body in python_sources().items():
        base = base_of(name)
        is_test = Path(name).name.startswith(("test_", "conftest"))
        for package in sorted(imported(body)):
            where = [base] + ([REPO / d for d in PYTEST_PATH] if is_test else [])
            if not any((d / package / "__init__.py").is_file() for d in where):
                wrong.append(f"{name}: no {package} in {base.relative_to(REPO)}/")
            entry = base / package
            if entry.is_symlink():
                links += 1
                if os.path.isabs(os.readlink(entry)):
                    wrong.append(f"{entry.relative_to(REPO)}: an absolute link")
    assert wrong == []
    assert links >= 5


def test_pytest_finds_the_packages_where_the_scripts_do():
    ini = (REPO / "pytest.ini").read_text(encoding="utf-8")
    assert re.search(r"^pythonpath = (.*)$", ini, re.M).group(1).split() == list(PYTEST_PATH)
    for package in ("rbtilib", "rbtiviz", "tests_support"):
        assert (REPO / "tools" / package / "__init__.py").is_file(), package


SCRIPTS = [("tools/rbti", "--version"), ("tools/guest-tests", "--help"),
           ("viz/render", "--version"), ("viz/walkthrough", "--help"),
           ("kmod/tests/hardening", "--help"), ("kmod/tests/mutants/fuzz-seed", "--help"),
           ("qemu/kcsan-guest", "--help"), ("qemu/bench-family", "--help")]
"""A script of each folder that imports packages from another."""


@pytest.mark.slow
@pytest.mark.parametrize("script,flag", SCRIPTS, ids=[s for s, _ in SCRIPTS])
def test_a_script_starts_by_path_with_no_environment(script, flag, tmp_path):
    """From another directory, with no PYTHONPATH nor anything else set
    (sudo and env -i clear it), as the guest's run.sh runs them."""
    out = subprocess.run([str(REPO / script), flag], cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
