# SPDX-License-Identifier: GPL-2.0
"""The man pages and bash completions tools/gen-cli-docs makes from the
argparse definitions: the committed files are current, every subcommand
and option of --help is in the man page, the pages render, the
completions complete in bash; pyproject.toml installs every package,
data file and command there is."""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests_support.trees import load_script

REPO = Path(__file__).resolve().parents[2]
GEN = load_script(str(REPO / "tools" / "gen-cli-docs"), "gen_cli_docs")
# gen-cli-docs put viz/ on the path: rbtiviz imports from here on.
from rbtilib.cli.main import build  # noqa: E402
from rbtilib.cli.manpage import escape, subparsers  # noqa: E402
from rbtiviz import commands, render_cli  # noqa: E402


def test_committed_pages_and_completions_are_current():
    assert GEN.stale() == [], "run tools/gen-cli-docs and commit its output"


def test_the_check_mode_names_a_stale_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(GEN, "REPO", str(tmp_path))
    assert GEN.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "docs/man/rbti.1 is stale" in err and "tools/completion/rbti-render" in err
    assert GEN.main([]) == 0 and GEN.main(["--check"]) == 0
    assert GEN.main(["--bogus"]) == 2


def plain(roff: str) -> str:
    """A man page's text without its font changes and escapes."""
    text = re.sub(r"\\f[BIRP]", "", roff)
    return text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")


def help_options(p: argparse.ArgumentParser) -> set:
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", p.format_help()))


def sections(page: str) -> dict:
    """``.SS "TITLE"`` -> its text, of a man page."""
    parts = re.split(r'^\.SS "([^"]+)"\n', page, flags=re.M)
    return {parts[i].replace("\\-", "-"): parts[i + 1] for i in range(1, len(parts), 2)}


def test_every_subcommand_and_option_of_help_is_in_the_man_page(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    page = (REPO / "docs" / "man" / "rbti.1").read_text(encoding="utf-8")
    top, subs = build()
    assert help_options(top) <= set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", plain(page)))
    by_command = sections(page)
    assert sorted(by_command) == sorted(f"rbti {name}" for name in subs)
    for name, p in subs.items():
        text = plain(by_command[f"rbti {name}"])
        missing = {o for o in help_options(p) - {"-h", "--help"}
                   if not re.search(rf"(?<![\w-]){o}(?![\w-])", text)}
        assert missing == set(), f"rbti {name}"
    render = (REPO / "docs" / "man" / "rbti-render.1").read_text(encoding="utf-8")
    assert help_options(render_cli.parser("rbti-render")) <= set(
        re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", plain(render)))


@pytest.mark.parametrize("page", ["rbti.1", "rbti-render.1"])
def test_man_page_renders_without_warnings(page):
    if not shutil.which("man") or not shutil.which("groff"):
        pytest.skip("no man or groff (apt-get install man-db groff-base)")
    path = REPO / "docs" / "man" / page
    lint = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert (lint.returncode, lint.stderr) == (0, "")
    shown = subprocess.run(["man", "-l", str(path)], capture_output=True, text=True,
                           timeout=60, env={**os.environ, "MANWIDTH": "80", "MANPAGER": "cat",
                                            "PAGER": "cat"})
    assert shown.returncode == 0, shown.stderr
    assert "SYNOPSIS" in shown.stdout and "OPTIONS" in shown.stdout
    if page == "rbti.1":
        assert "rbti doctor [-h]" in shown.stdout and "RBTI_KMOD" in shown.stdout


def test_escape_keeps_roff_out_of_the_text():
    assert escape(".TH x") == "\\&.TH x"
    assert escape("'quote") == "\\&'quote"
    assert escape("a\\b --c") == "a\\eb \\-\\-c"
    assert escape("… and") == "\\[u2026] and"


def complete(script: str, *words: str) -> list:
    """COMPREPLY of bash completing the last of *words* (the command
    line so far) with the completion *script* sourced."""
    fn = "_rbti" if words[0] in ("rbti", "tools/rbti") else "_rbti_render"
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    body = (f"source {REPO / 'tools' / 'completion' / script}\n"
            f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
            f"{fn}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", body], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    return out.stdout.split()


def test_bash_completes_subcommands_options_and_values():
    assert complete("rbti", "rbti", "ch") == ["check"]
    assert complete("rbti", "rbti", "d") == ["dump", "doctor"]
    assert complete("rbti", "rbti", "--root", "/tmp", "do") == ["doctor"]
    assert complete("rbti", "rbti", "census", "--j") == ["--json"]
    assert complete("rbti", "rbti", "doctor", "--") == [
        "--help", "--vmlinux", "--kcore", "--json"]
    assert complete("rbti", "rbti", "kernel", "--preset", "f") == ["free_vmap_area"]
    assert complete("rbti", "rbti", "show", "--color", "a") == ["auto", "always"]
    assert complete("rbti", "tools/rbti", "check", "docs/examples/santos.d") == [
        "docs/examples/santos.dump"]
    assert complete("rbti-render", "rbti-render", "--layout", "d") == ["dot", "direct"]
    assert complete("rbti-render", "viz/render", "--max-depth", "") == ["all", "auto"]


def test_completion_is_registered_for_the_commands():
    for script, names in (("rbti", ["rbti"]), ("rbti-render", ["rbti-render", "viz/render"])):
        out = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c",
             f"source tools/completion/{script}; complete -p {' '.join(names)}"],
            cwd=REPO, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert len(out.stdout.splitlines()) == len(names)


def test_pyproject_installs_every_package_data_file_and_command():
    import tomllib
    conf = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    tool = conf["tool"]["setuptools"]
    packages = []
    for top, where in tool["package-dir"].items():
        for dirpath, dirs, files in os.walk(REPO / where):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = Path(dirpath).relative_to(REPO / where)
                packages.append(".".join([top, *rel.parts]))
    assert sorted(tool["packages"]) == sorted(packages)
    # What a package reads at run time: every file in it that is not Python.
    for top, where in tool["package-dir"].items():
        data = sorted(str(p.relative_to(REPO / where)) for p in (REPO / where).rglob("*")
                      if p.is_file() and p.suffix not in (".py", ".pyc"))
        assert sorted(tool.get("package-data", {}).get(top, [])) == data
    files = sorted(f for group in tool["data-files"].values() for f in group)
    assert files == sorted(GEN.outputs())
    assert conf["project"]["optional-dependencies"]["drgn"] == ["drgn"]
    for name, target in conf["project"]["scripts"].items():
        module, func = target.split(":")
        assert module == "rbtiviz.commands" and callable(getattr(commands, func)), name


@pytest.mark.parametrize("func,prog,argv0", [
    ("rbti", "rbti", "rbti"), ("render", "rbti-render", "rbti-render"),
    ("walkthrough", "rbti-walkthrough", "rbti-walkthrough")])
def test_entry_points_say_their_installed_name(func, prog, argv0, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [argv0, "--version"])
    try:
        status = getattr(commands, func)()
    except SystemExit as done:      # argparse's version action
        status = done.code
    assert status == 0
    assert re.fullmatch(rf"{prog} \d+\.\d+ \(dump format \d+.*\)\n", capsys.readouterr().out)


def test_installed_rbti_hands_the_fuzzer_rbtivizs_writers():
    """As tools/rbti does: rbtilib never imports rbtiviz."""
    writers = commands._fuzz_writers()
    assert callable(writers.snapshot) and callable(writers.flipbook)


def test_installed_render_and_walkthrough_name_themselves(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["rbti-render", "--help"])
    with pytest.raises(SystemExit):
        commands.render()
    out = capsys.readouterr().out
    assert out.startswith("usage: rbti-render") and "viz/render" not in out
    monkeypatch.setattr(sys, "argv", ["rbti-walkthrough", "--help"])
    assert commands.walkthrough() == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: rbti-walkthrough") and "rbti-render --flipbook" in out
    assert "viz/" not in out


def test_every_subcommand_is_completed():
    text = (REPO / "tools" / "completion" / "rbti").read_text(encoding="utf-8")
    for name in subparsers(build()[0]):
        assert re.search(rf"^    {name}\)$", text, re.M), name


def test_completions_are_shellcheck_clean():
    if not shutil.which("shellcheck"):
        pytest.skip("no shellcheck (apt-get install shellcheck)")
    out = subprocess.run(["shellcheck", "tools/completion/rbti", "tools/completion/rbti-render"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout
