# SPDX-License-Identifier: GPL-2.0
"""The documentation against the code: README.md and docs/*.md.

- README.md's table of make targets is `make help`'s output, and every
  `make TARGET` the documents name exists, and every target is named;
- every rbti subcommand and every option of it is named in the documents,
  and every option a document gives to an `rbti SUBCOMMAND` exists;
- every ```console block (commands after "$ ", their output below) runs
  on the host with that output and exit status 0: a command that fails
  shows its status itself (`$ CMD; echo "exit $?"`, "exit N" below);
- every relative link points at a file, and every generated page names
  the command, commit, date and machine it came from;
- qemu/results writes the page of make test's times;
- every fenced block whose info string names a file (```c kmod/x.c) is
  in that file verbatim (docs/your-own-tree.md quotes the module).

The README's console example and make run's demo output are checked in
the guest by docs/tests/readme-session.
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```$", re.S | re.M)
INLINE = re.compile(r"`([^`\n]+)`")
LIMIT = 120
GENERATED = REPO / "docs" / "generated"


def run(cmd: list[str] | str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                          timeout=LIMIT, **kw)


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def code_of(doc: str) -> list[str]:
    """Every fenced block, indented block line and inline code span."""
    blocks = [body for _, body in FENCE.findall(doc)]
    rest = FENCE.sub("", doc)
    indented = re.findall(r"^    (\S.*)$", rest, re.M)
    return blocks + indented + INLINE.findall(rest)


def all_code() -> list[str]:
    return [c for path in DOCS for c in code_of(text(path))]


@functools.lru_cache(maxsize=None)
def make_help() -> str:
    """make help as a user with the default cache sees it (RBTI_CACHE and
    XDG_CACHE_HOME move the cache, and the path make help prints)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RBTI_CACHE", "XDG_CACHE_HOME")}
    return run(["make", "--no-print-directory", "help"], env=env).stdout


def help_targets() -> list[str]:
    return re.findall(r"^make (\w+)", make_help(), re.M)


def test_readme_shows_make_help_as_it_prints():
    readme = text(REPO / "README.md")
    block = re.search(r"<!-- make help -->\n```[^\n]*\n(.*?)^```", readme, re.S | re.M)
    assert block, "README.md: no block after <!-- make help -->"
    shown = re.sub(r"\S*/\.cache/rbtree-inspector", "~/.cache/rbtree-inspector",
                   block.group(1))
    printed = re.sub(r"\S*/\.cache/rbtree-inspector", "~/.cache/rbtree-inspector",
                     make_help())
    assert shown == printed


def test_every_documented_make_target_exists_and_every_target_is_documented():
    phony = re.search(r"^\.PHONY:(.*)$", text(REPO / "Makefile"), re.M).group(1).split()
    named = {m for c in all_code() for m in re.findall(r"\bmake ([a-z][\w-]*)", c)}
    assert named - set(phony) == set(), "documented targets the Makefile lacks"
    assert set(help_targets()) - named == set(), "targets no document names"
    internal = {"help", "deps", "kernel", "module", "distclean"}
    assert set(phony) - set(help_targets()) - internal == set(), "targets make help lacks"


@functools.lru_cache(maxsize=None)
def rbti_help(*args: str) -> str:
    result = run([sys.executable, "-S", "tools/rbti", *args, "--help"])
    assert result.returncode == 0, result.stderr
    return result.stdout


def subcommands() -> list[str]:
    section = rbti_help().split("COMMAND", 1)[1]
    return re.findall(r"^    ([a-z]+)\b", section, re.M)


def options(sub: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rbti_help(sub))) - {"--help"}


def test_every_rbti_subcommand_and_option_is_documented():
    code = "\n".join(all_code())
    missing = []
    for sub in subcommands():
        if not re.search(rf"\brbti {sub}\b", code):
            missing.append(f"rbti {sub}")
        missing += [f"rbti {sub} {opt}" for opt in sorted(options(sub))
                    if not re.search(rf"(?<![\w-]){opt}(?![\w-])", code)]
    assert missing == []


def test_every_documented_rbti_option_exists():
    subs = {sub: options(sub) for sub in subcommands()}
    wrong = []
    for code in all_code():
        for line in code.splitlines():
            m = re.search(r"(?:^\s*|\$ |# |\| |tools/)rbti ([a-z]+)\b(.*)", line)
            if not m:
                continue
            sub, rest = m.groups()
            if sub not in subs:
                wrong.append(f"{line.strip()}: no subcommand {sub}")
                continue
            rest = re.split(r"[|;#]|\s--\s|\s&&\s", rest)[0]
            wrong += [f"{line.strip()}: rbti {sub} has no {opt}"
                      for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest)
                      if opt not in subs[sub] and opt != "--help"]
    assert wrong == []


def console_blocks() -> list[tuple[str, str, str]]:
    """(document, command, expected output) of every ```console block."""
    found = []
    for path in DOCS:
        for lang, body in FENCE.findall(text(path)):
            if lang.strip() != "console":
                continue
            for chunk in re.split(r"^(?=\$ )", body, flags=re.M):
                if chunk.startswith("$ "):
                    command, _, output = chunk[2:].partition("\n")
                    found.append((path.name, command, output))
    return found


@pytest.mark.parametrize("doc,command,expected", console_blocks())
def test_console_block_runs_on_the_host(doc, command, expected):
    result = run(["bash", "-c", command], env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8",
                                                "HOME": "/nonexistent", "NO_COLOR": "1"})
    assert result.stdout + result.stderr == expected, f"{doc}: $ {command}"
    # The status is part of what a block shows: one that fails says so
    # (CMD; echo "exit $?"), and then its "exit N" line is compared.
    assert result.returncode == 0, (
        f"{doc}: $ {command} exits {result.returncode}; show it with "
        '`; echo "exit $?"` and its "exit N" line')


def test_there_are_console_blocks():
    assert len(console_blocks()) >= 3


def test_relative_links_point_at_files():
    broken = []
    for path in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text(path)):
            if re.match(r"[a-z]+:", target):
                continue
            file = (path.parent / target).resolve()
            # A generated page appears when its command first runs.
            if not file.exists() and file.parent != GENERATED:
                broken.append(f"{path.relative_to(REPO)}: {target}")
    assert broken == []


@pytest.mark.parametrize("page", sorted((REPO / "docs" / "generated").glob("*.md")),
                         ids=lambda p: p.name)
def test_generated_pages_name_their_run(page):
    """A table of command, commit, date and machine (qemu/results,
    time-setup, bench), or qemu/provenance's line naming the same."""
    head = text(page)[:2000]
    if re.search(r"^Written by `[^`]+` on \d{4}-\d\d-\d\d \d\d:\d\d UTC, "
                 r"commit [0-9a-f]{7,}[^,]*, on \S.* \d+ CPUs", head, re.M):
        return
    assert "Generated by" in head
    for fact in ("command", "commit", "date", "machine"):
        assert re.search(rf"^\| {fact} \| \S", head, re.M), f"{page.name}: no {fact}"


def test_provenance_line_is_what_the_page_test_accepts(tmp_path):
    line = run(["qemu/provenance", "make", "mutants"]).stdout.strip()
    page = tmp_path / "p.md"
    page.write_text(f"# T\n\n{line}\n")
    test_generated_pages_name_their_run(page)
    page.write_text("# T\n\nWritten by someone, some day.\n")
    with pytest.raises(AssertionError):
        test_generated_pages_name_their_run(page)


def test_results_writes_the_page_of_times(tmp_path):
    results = tmp_path / "test"
    results.mkdir()
    (results / "expected").write_text("static host 900\nkunit guest 300\n")
    for name, log, secs in (("static", "ok 1 - a\nok 2 - b\nok 3 - c\n"
                                       "3 passed, 0 failed\n", 12),
                            ("kunit", "ok 1 - a\n1 passed, 0 failed\n", 30)):
        (results / f"{name}.log").write_text(log)
        (results / f"{name}.rc").write_text("0\n")
        (results / f"{name}.secs").write_text(f"{secs}\n")
    page = tmp_path / "times.md"
    assert run(["qemu/results", "times", str(results), "99", str(page)]).returncode == 0
    out = page.read_text()
    assert "| static | host | 3 | 0 | 0 | 12 |" in out
    assert "| kunit | guest | 1 | 0 | 0 | 30 |" in out
    for fact in ("command | `make test`", "commit | ", "date | 20", "machine | ",
                 "wall time | 99 s"):
        assert fact in out


def test_the_page_of_times_keeps_the_runs_and_their_medians(tmp_path):
    """Each run adds a row to the page's table of runs; cold and warm runs
    get a median each, a run beside the CPU hog is listed but not counted;
    the newest cold run's build times stay on the page after warm runs."""
    results = tmp_path / "test"
    results.mkdir()
    (results / "expected").write_text("static host 900\n")
    (results / "static.log").write_text("ok 1 - a\n1 passed, 0 failed\n")
    (results / "static.rc").write_text("0\n")
    (results / "static.secs").write_text("5\n")
    page = tmp_path / "times.md"
    setup = results / "setup.txt"
    for secs, built, hog in (("2000", "900 s", False), ("1000", "cached", False),
                             ("1400", "cached", False), ("1100", "cached", False),
                             ("9999", "cached", True)):
        setup.write_text(f"the 6.1 debug kernel|{built}\nthe module|3 s\n")
        if hog:
            (results / "hog").write_text("hog\n")
        assert run(["qemu/results", "times", str(results), secs,
                    str(page)]).returncode == 0
    out = page.read_text()
    assert "- cold: median 2000 s of 1 run, spread 2000-2000 s" in out
    assert "- warm: median 1100 s of 3 runs, spread 1000-1400 s" in out
    cold = out.split("The builds of the newest cold run", 1)[1]
    assert "| the 6.1 debug kernel | 900 s |" in cold.split("Runs of", 1)[0]
    assert out.count("| the 6.1 debug kernel | cached |") == 1
    rows = [ln for ln in out.splitlines() if re.match(r"\| \w+(-dirty)? \| 20[\d: -]+UTC \| (cold|warm)", ln)]
    assert [r.split(" | ")[2:4] for r in rows] == [
        ["warm, hog", "9999"], ["warm", "1100"], ["warm", "1400"], ["warm", "1000"],
        ["cold", "2000"]]


def test_no_history_in_the_documents():
    history = re.compile(r"earlier that day|this round|was reverted|previous revision|"
                         r"until 20\d\d-\d\d-\d\d|\bissues? #?\d+", re.I)
    pages = DOCS + sorted((REPO / "kmod").glob("**/*.md"))
    found = [f"{p.relative_to(REPO)}: {m.group(0)}" for p in pages
             for m in history.finditer(text(p))]
    assert found == []


def test_readme_is_a_front_door():
    assert len(text(REPO / "README.md").splitlines()) <= 250


def quoted_blocks() -> list[tuple[str, str, str]]:
    """(document, file, block) of every fenced block that names its file."""
    out = []
    for path in DOCS:
        for info, body in FENCE.findall(text(path)):
            words = info.split()
            if len(words) == 2 and "/" in words[1]:
                out.append((path.name, words[1], body))
    return out


@pytest.mark.parametrize("doc,source,block", quoted_blocks())
def test_quoted_block_is_in_its_file(doc, source, block):
    assert block in text(REPO / source), f"{doc}: block not in {source}"


def test_your_own_tree_quotes_the_interval_ops_table():
    blocks = [b for d, f, b in quoted_blocks()
              if d == "your-own-tree.md" and f == "kmod/tree_interval.c"]
    assert any("rbti_interval_ops = {" in b for b in blocks)
