# SPDX-License-Identifier: GPL-2.0
"""The reference parts of the documents against the code they describe,
so that neither can change without the other:

- every relative link of README.md, docs/, kmod/ and qemu/ pages points
  at a file, and every page of docs/generated/ that a document, the
  Makefile or `make help` names exists;
- a setting documented as "`VAR` (default X)" has that default in the
  code (`VAR=${VAR:-X}` in qemu/ and kmod/tests/, `VAR ?= X` in the
  Makefile);
- the option table of `rbti fuzz` (docs/checking-and-fuzzing.md) is its
  argparse options, with their defaults;
- a prose "`--opt` (default X)" or "`--opt A|B|C`" of an rbti option is
  its argparse default, or every form its help names;
- kmod/DEBUGFS.md's `api` values are the module's `.api` strings, and
  every flag of the dump format (rbtilib's FLAG_ORDER) is explained there;
- `run-in-guest`'s flavours, as docs/testing.md lists them, are those of
  its --help.
"""
from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest

from rbtilib import cli
from rbtilib.dumptypes import FLAG_ORDER

REPO = Path(__file__).resolve().parents[2]

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
         *sorted((REPO / "kmod").glob("*.md")),
         *sorted((REPO / "kmod" / "patches").glob("*.md")),
         *sorted((REPO / "qemu").glob("*.md"))]
GENERATED = REPO / "docs" / "generated"


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def make_help() -> str:
    return subprocess.run(["make", "--no-print-directory", "help"], cwd=REPO,
                          capture_output=True, text=True, timeout=60).stdout


def test_every_relative_link_points_at_a_file():
    """Generated pages too: a link to a page no command has written is
    as broken as any other."""
    broken = []
    for path in PAGES:
        body = re.sub(r"^```.*?^```$", "", text(path), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", body):
            if re.match(r"[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(REPO)}: {target}")
    assert broken == []


def test_every_generated_page_named_exists():
    """docs/generated/NAME.md (or generated/NAME.md) named anywhere in
    the documents, the Makefile or `make help` is there."""
    sources = {p.relative_to(REPO).as_posix(): text(p) for p in PAGES}
    sources["Makefile"] = text(REPO / "Makefile")
    sources["make help"] = make_help()
    missing = sorted({f"{where}: {name}" for where, body in sources.items()
                      for name in re.findall(r"generated/([\w.-]+\.md)", body)
                      # NAME, VERSION...: a pattern, not a page
                      if not re.search(r"[A-Z]{3,}", name)
                      and not (GENERATED / name).exists()})
    assert missing == []


def code_defaults() -> dict[str, set[str]]:
    """VAR -> the defaults the scripts give it."""
    found: dict[str, set[str]] = {}
    files = [p for d in ("qemu", "kmod/tests", ".ci") for p in (REPO / d).rglob("*")
             if p.is_file() and p.suffix in ("", ".sh")]
    for path in files:
        try:
            body = text(path)
        except (UnicodeDecodeError, OSError):
            continue
        for var, value in re.findall(r"\b([A-Z][A-Z0-9_]+)=\$\{\1:-([^}]*)\}", body):
            found.setdefault(var, set()).add(value)
    for var, value in re.findall(r"^([A-Z][A-Z0-9_]+) \?= ?(.*)$", text(REPO / "Makefile"), re.M):
        found.setdefault(var, set()).add(value.strip())
    return found


def test_documented_setting_defaults_are_the_code_s():
    code = code_defaults()
    wrong, checked = [], 0
    for path in PAGES:
        for var, value in re.findall(r"`([A-Z][A-Z0-9_]+)` \(default `?([^`),;]+)`?[),;]",
                                     text(path)):
            if var not in code:
                continue
            checked += 1
            if value.strip() not in code[var]:
                wrong.append(f"{path.relative_to(REPO)}: {var} default {value!r}, "
                             f"the code's {sorted(code[var])}")
    assert wrong == [] and checked >= 2


def subparsers() -> dict[str, argparse.ArgumentParser]:
    return cli.build()[1]


def options_of(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {opt: a for a in p._actions for opt in a.option_strings
            if opt.startswith("--") and opt != "--help"}


def shown_default(action: argparse.Action) -> str:
    """An argparse default as the option tables write it."""
    d = action.default
    if d is None or d is False or isinstance(action, argparse._StoreTrueAction):
        return ""
    if isinstance(d, float) and d.is_integer():
        d = int(d)
    return str(d)


def test_fuzz_option_table_is_its_argparse():
    doc = text(REPO / "docs" / "checking-and-fuzzing.md")
    rows = dict(re.findall(r"^\| `(--[a-z-]+)` \|([^|]*)\|", doc, re.M))
    opts = options_of(subparsers()["fuzz"])
    assert set(rows) == set(opts) - {"--all"}, "options the table lacks or has too many"
    wrong = []
    for opt, cell in rows.items():
        want, cell = shown_default(opts[opt]), cell.strip()
        # Words for what a default means: no seed is a random one, 0
        # snapshots are none.
        if cell in ("random", "off") and want in ("", "0"):
            continue
        # A default resolved after parsing: its help names it.
        if want == "" and f"(default {cell})" in (opts[opt].help or ""):
            continue
        if cell != want:
            wrong.append(f"{opt}: table {cell!r}, argparse {want!r}")
    assert wrong == []


def prose_claims() -> list[tuple[str, str, str, str]]:
    """(page, subcommand, option, claim) for every "`rbti SUB`" section's
    "`--opt X|Y|Z`" and "`--opt` (default X)": the subcommand is the last
    `rbti SUB` named before it in the page."""
    subs = subparsers()
    out = []
    for path in PAGES:
        body, current = text(path), None
        for m in re.finditer(r"`(?:tools/)?rbti ([a-z]+)\b|`(--[a-z-]+)( [^`]*)?`( \(default [^)]*\))?",
                             body):
            if m.group(1):
                current = m.group(1) if m.group(1) in subs else current
                continue
            if current and (m.group(3) and "|" in m.group(3) or m.group(4)):
                out.append((path.name, current, m.group(2),
                            (m.group(3) or "") + (m.group(4) or "")))
    return out


def test_prose_option_claims_match_argparse():
    subs = subparsers()
    wrong = []
    for page, sub, opt, claim in prose_claims():
        action = options_of(subs[sub]).get(opt)
        if action is None:
            continue
        m = re.search(r"\(default ([^)]*)\)", claim)
        if m and m.group(1).strip() != shown_default(action):
            wrong.append(f"{page}: rbti {sub} {opt}: default {m.group(1)}, "
                         f"argparse {shown_default(action)!r}")
        forms = claim.split("(")[0].strip()
        if "|" in forms:
            heads = {f.split(":")[0] for f in forms.split("|")}
            named = set(re.findall(r"\b([a-z]+)(?::EXPR)?\b", action.help or ""))
            if action.choices:
                named = set(map(str, action.choices))
            listed = {w for w in named if f"{w}:" in (action.help or "") or
                      w in map(str, action.choices or ())}
            if listed - heads:
                wrong.append(f"{page}: rbti {sub} {opt} {forms}: lacks "
                             f"{sorted(listed - heads)} (its help: {action.help})")
    assert wrong == []


def test_aug_rule_forms_are_all_documented():
    """The issue's case: `--aug-rule` said size|max:EXPR|sum:EXPR while
    the option takes min: too."""
    claims = [c for c in prose_claims() if c[2] == "--aug-rule"]
    assert claims and all("min:EXPR" in c[3] for c in claims), claims


def test_debugfs_api_values_are_the_module_s():
    doc = text(REPO / "kmod" / "DEBUGFS.md")
    m = re.search(r"^    api API +(.*?)\n    flags", doc, re.S | re.M)
    assert m, "DEBUGFS.md: no 'api API' line in the dump format"
    listed = set(re.findall(r"\b([a-z]+)\b", m.group(1).split(";")[0]))
    apis = {a for c in (REPO / "kmod").glob("tree_*.c")
            for a in re.findall(r'\.api = "([a-z]+)"', text(c))}
    assert apis and listed == apis


def test_every_dump_flag_is_explained():
    doc = text(REPO / "kmod" / "DEBUGFS.md")
    assert [f for f in FLAG_ORDER if f"`{f}`" not in doc] == []


def test_run_in_guest_flavours_are_listed():
    usage = subprocess.run([str(REPO / "qemu" / "run-in-guest"), "--help"],
                           capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"--flavour F +kernel flavour: (.*?)\n  --", usage, re.S)
    assert m
    flavours = {"debug", "fast", "kcsan", "stock"} & \
        set(re.findall(r"[a-z]+", m.group(1)))
    doc = text(REPO / "docs" / "testing.md")
    shown = re.findall(r"\[--flavour ([a-z|]+)\]", doc)
    assert shown and all(set(s.split("|")) == flavours for s in shown), shown


@pytest.mark.parametrize("args, rc", [(["--help"], 0), (["-h"], 0),
                                      (["--bogus"], 1)])
def test_bench_answers_help_without_running(args, rc):
    """qemu/bench --help prints its header and runs nothing (it once
    started a full benchmark); an unknown option is an error."""
    got = subprocess.run([str(REPO / "qemu" / "bench"), *args],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == rc
    assert (got.stdout.startswith("bench [--smoke]:") if rc == 0
            else "unknown option '--bogus'" in got.stderr)


@pytest.mark.parametrize("flavour", ["stock"])
def test_make_run_s_flavour_is_the_makefile_s(flavour):
    """What docs/testing.md says make run boots is the Makefile's FLAVOUR."""
    assert re.search(rf"^FLAVOUR \?= {flavour}$", text(REPO / "Makefile"), re.M)
    doc = text(REPO / "docs" / "testing.md")
    assert "`fast` is a kernel without the debug options,\nfor `make run`" not in doc
    assert re.search(rf"`make run`[^.]*default[^.]*`{flavour}`", doc, re.S)


def test_hex_is_documented_for_any_tree():
    """rbti dump/check/show --hex prints any tree in hexadecimal (its
    help), not only address dumps: the documents that describe it say so."""
    assert "hexadecimal" in options_of(subparsers()["show"])["--hex"].help
    said = []
    for path in PAGES:
        for sentence in re.split(r"(?<=\.)\s", text(path).replace("\n", " ")):
            if "`--hex` prints" in sentence:
                said.append((path.name, sentence))
    assert said and all("any tree" in s for _, s in said), said


def install_set(*sets: str) -> list[str]:
    return subprocess.run([str(REPO / "qemu" / "install-deps"), "--list", *sets],
                          capture_output=True, text=True, timeout=60,
                          check=True).stdout.split()


def test_make_run_installs_only_the_run_set():
    """make run (stock) installs qemu/install-deps' run set, which has
    no kernel source, browser, test or coverage package; README.md lists
    it as it is."""
    run = install_set("run")
    heavy = {"linux-source-6.1", "linux-source-6.12", "chromium", "nodejs",
             "lcov", "valgrind", "python3-drgn", "python3-pytest", "sparse"}
    assert run and not heavy & set(run)
    assert heavy <= set(install_set())
    dry = subprocess.run(["make", "-n", "run"], cwd=REPO, capture_output=True,
                         text=True, timeout=60).stdout
    assert re.search(r"^qemu/install-deps run +$", dry, re.M), dry
    fast = subprocess.run(["make", "-n", "run", "FLAVOUR=fast"], cwd=REPO,
                          capture_output=True, text=True, timeout=60).stdout
    assert re.search(r"^qemu/install-deps run kernel$", fast, re.M), fast
    readme = " ".join(text(REPO / "README.md").split())
    assert "make run installs only the packages it uses (`qemu/install-deps --list run`;" \
        in readme.replace("    make run ", "make run ")


INTERNAL_ERRNOS = {"EAGAIN"}
"""Errnos the module uses inside and never returns from a file: EAGAIN is
a lockless lookup giving up its retries, which the stress run counts
(kmod/inspector_stress.c)."""


def test_debugfs_errnos_are_the_module_s():
    """Every errno the module's code returns is in DEBUGFS.md, and every
    errno DEBUGFS.md names is one the code returns."""
    import errno as errno_mod
    names = set(errno_mod.errorcode.values())
    code = {e for c in [*(REPO / "kmod").glob("inspector*.c"), *(REPO / "kmod").glob("tree_*.c"),
                        REPO / "kmod" / "rbtree_overstreet.c"]
            for e in re.findall(r"-(E[A-Z0-9]+)\b", text(c)) if e in names}
    doc = {e for e in re.findall(r"\b(E[A-Z0-9]{2,})\b", text(REPO / "kmod" / "DEBUGFS.md"))
           if e in names}
    assert code and code - INTERNAL_ERRNOS - doc == set(), "returned, not documented"
    assert doc - code == set(), "documented, never returned"
