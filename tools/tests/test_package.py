# SPDX-License-Identifier: GPL-2.0
"""Rules of how rbtilib and rbtiviz are built: one record system, no test
helper shipped in rbtilib, tests that do not import each other, a
one-way dependency (rbtiviz uses rbtilib, never the other way round), no
import cycle between modules and no source file over 600 lines."""

import os
import re

import pytest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(TOOLS, "rbtilib")
REPO = os.path.dirname(TOOLS)
VIZ = os.path.join(REPO, "viz")
PACKAGES = {"rbtilib": HERE, "rbtiviz": os.path.join(VIZ, "rbtiviz")}


def python_files(root: str, tests: bool):
    """(path, text) of the .py files under *root*: the test modules if
    *tests*, else the others."""
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".py") and \
                    name.startswith("test_") == tests:
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    yield path, f.read()


def imports(text: str) -> list:
    """The modules a source imports (absolute names; relative ones as
    written, with their dots)."""
    found = re.findall(r"^\s*from\s+(\S+)\s+import|^\s*import\s+(\S+)",
                       text, re.M)
    return [a or b for a, b in found]


def offenders(tests: bool, bad) -> list:
    out = []
    for root in PACKAGES.values():
        for path, text in python_files(root, tests):
            out += [f"{os.path.relpath(path, REPO)}: {m}"
                    for m in imports(text) if bad(m)]
    return out


def test_record_is_the_one_record_system():
    """Records are rbtilib.record's: dataclasses costs rbti's start-up
    its import and builds a frozen instance about twice as slowly
    (figures: record.py's docstring)."""
    assert offenders(False, lambda m: m == "dataclasses") == []


def test_no_test_helper_ships_in_rbtilib():
    """The guest runs rbtilib: the test helpers live in tests_support,
    which no shipped module imports."""
    assert not os.path.exists(os.path.join(HERE, "testing.py"))
    assert offenders(False, lambda m: m.split(".")[0] == "tests_support") \
        == []


def test_test_modules_do_not_import_each_other():
    assert offenders(True, lambda m: m.split(".")[-1].startswith("test_")) \
        == []


def test_rbtilib_never_imports_rbtiviz():
    """rbtiviz depends on rbtilib, not the other way round: the command
    line hands the fuzzer what it needs of rbtiviz."""
    found = []
    for path, text in python_files(HERE, False):
        found += [f"{os.path.relpath(path, REPO)}: {m}"
                  for m in imports(text) if m.split(".")[0] == "rbtiviz"]
    assert found == []


def test_every_relative_import_names_a_module_that_exists():
    """Imports inside functions run only when called (``rbti verify``'s
    only in the guest): each ``from .MODULE import`` must name a module."""
    import ast
    import importlib.util
    missing = []
    for path, text in python_files(HERE, False):
        rel = os.path.relpath(os.path.dirname(path), HERE)
        package = "rbtilib" if rel == "." else \
            "rbtilib." + rel.replace(os.sep, ".")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level and \
                    node.module:
                name = "." * node.level + node.module
                try:
                    found = importlib.util.find_spec(name, package)
                except ModuleNotFoundError:
                    found = None
                if found is None:
                    missing.append(f"{os.path.relpath(path, REPO)}: {name}")
    assert missing == []


def module_imports(package: str, root: str) -> dict:
    """{module: [(module, names)] it imports from}, the modules of
    *package* (under *root*) by their dotted names."""
    import ast
    graph = {}
    for path, text in python_files(root, False):
        rel = os.path.relpath(path, root)[:-len(".py")].split(os.sep)
        inside = [package] + rel
        if rel[-1] == "__init__":
            inside = inside[:-1]
        here = inside if rel[-1] == "__init__" else inside[:-1]
        found = []
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found += [(a.name, ()) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = here[:len(here) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                found.append((base, [a.name for a in node.names]))
        graph[".".join(inside)] = found
    return graph


def test_no_import_cycle():
    """Modules import one another one way only: a type two of them need
    lives in a module of its own (rbtilib.fuzzconfig, rbtiviz.titles).
    ``from PACKAGE import MODULE`` is an edge to the module alone."""
    found = {}
    for package, root in {**PACKAGES, "tests_support": os.path.join(
            TOOLS, "tests_support")}.items():
        found.update(module_imports(package, root))
    graph = {}
    for name, imported in found.items():
        edges = set()
        for base, names in imported:
            subs = {f"{base}.{n}" for n in names} & found.keys()
            edges |= subs or ({base} & found.keys())
        graph[name] = edges - {name}
    cycles = []
    for start in sorted(graph):
        # Depth-first from each module back to itself: small graphs.
        stack = [(start, [start])]
        seen = set()
        while stack:
            name, path = stack.pop()
            for nxt in sorted(graph[name]):
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in seen and nxt > start:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    assert cycles == []


@pytest.mark.parametrize("root", ["tools", "viz"])
def test_no_source_file_over_600_lines(root):
    """Non-test sources of tools/ and viz/: Python modules, scripts, the
    viewer's page and its script."""
    long = []
    for dirpath, dirs, files in os.walk(os.path.join(REPO, root)):
        dirs[:] = [d for d in dirs if d not in ("out", "__pycache__")]
        for name in files:
            path = os.path.join(dirpath, name)
            if name.startswith("test_") or name.endswith(
                    (".pyc", ".png", ".svg", ".json", ".dump", ".md")):
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    lines = sum(1 for _ in f)
            except (UnicodeDecodeError, OSError):
                continue
            if lines > 600:
                long.append(f"{os.path.relpath(path, REPO)}: {lines}")
    assert long == []
