# SPDX-License-Identifier: GPL-2.0
"""kmod/tests/mutants: every mutant still applies (its search text occurs
exactly once in its file), so a mutant whose text rots fails make test
rather than `make mutants` much later."""

import os
import re
import subprocess
import sys

import pytest

from tests_support.trees import load_script

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                   os.pardir, "kmod", "tests", "mutants", "run")


def load():
    """kmod/tests/mutants/run as a module (it has no .py name)."""
    return load_script(RUN, "mutants_run")


def test_every_mutant_applies():
    proc = subprocess.run([sys.executable, RUN, "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok - ") >= 10


def test_a_rotten_search_text_fails(tmp_path):
    run = load()
    mutant = run.Mutant("m", "f.c", "", "a < b", "a <= b")
    (tmp_path / "f.c").write_text("x = a > b;\n")
    with pytest.raises(SystemExit, match="found 0 times"):
        run.apply(mutant, str(tmp_path))
    (tmp_path / "f.c").write_text("a < b; a < b;\n")
    with pytest.raises(SystemExit, match="found 2 times"):
        run.apply(mutant, str(tmp_path))
    (tmp_path / "f.c").write_text("if (a < b)\n")
    run.apply(mutant, str(tmp_path))
    assert (tmp_path / "f.c").read_text() == "if (a <= b)\n"


def test_malformed_records_are_rejected():
    run = load()
    with pytest.raises(ValueError, match="needs file"):
        run.parse("=== a\nwhy: x\n-old\n+new\n")
    with pytest.raises(ValueError, match="equals search"):
        run.parse("=== a\nfile: f\n-same\n+same\n")
    with pytest.raises(ValueError, match="twice"):
        run.parse("=== a\nfile: f\n-x\n+y\n=== a\nfile: f\n-x\n+z\n")
    assert [m.name for m in run.parse(open(os.path.join(
        os.path.dirname(RUN), "mutants.txt")).read())]


def test_guest_markers_are_parsed():
    run = load()
    verdict = run.Verdict()
    died = run.parse_guest("begin fuzz 1\nend fuzz 1 exit 1 klog 0\n"
                           "begin fuzz 2\nend fuzz 2 exit 0 klog 2\n"
                           "begin fuzz 3\nend fuzz 3 exit 0 klog 0\n"
                           "begin suite kunit\n", verdict)
    assert verdict.runs == {"fuzz 1": "K", "fuzz 2": "R", "fuzz 3": "-"}
    assert died == "suite kunit"


def load_fuzz_seed():
    import importlib.machinery
    import importlib.util
    path = os.path.join(os.path.dirname(RUN), "fuzz-seed")
    loader = importlib.machinery.SourceFileLoader("fuzz_seed", path)
    spec = importlib.util.spec_from_loader("fuzz_seed", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_fuzz_seed_verdicts_on_the_fake(tmp_path, capsys):
    """The guest's per-seed fuzz: 0 on a sound fake, 1 on one with a stale
    cache, without shrinking (no repro written)."""
    import argparse
    from tests_support.fake import FakeDebugfs
    seed = load_fuzz_seed()
    args = argparse.Namespace(ops=1500, limit=60, out=str(tmp_path),
                              hint=None)
    assert seed.one(FakeDebugfs(), 1, args) == 0

    class Stale(FakeDebugfs):
        def stats(self, name):
            out = super().stats(name)
            if "count" in out and out["count"] > 3:
                out["count"] += 1
            return out
    assert seed.one(Stale(), 1, args) == 1
    assert "FAIL" in capsys.readouterr().out
    assert not any(f.endswith(".json") for _, _, fs in os.walk(tmp_path)
                   for f in fs)


def test_fuzz_seed_reload_failure_is_reported(monkeypatch):
    """A seed ends with the mutants' reload script (a leaked node shows at
    unload); its failure is named, never ignored."""
    import subprocess
    seed = load_fuzz_seed()
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(os.path.basename(cmd[0]))
        return subprocess.CompletedProcess(cmd, 1, "",
                                           "rmmod: Module is in use\n")
    monkeypatch.setattr(seed.subprocess, "run", fake_run)
    assert seed.reload() == "reload: exit 1: rmmod: Module is in use"
    assert calls == ["reload"]

    def ok_run(cmd, **kwargs):
        return subprocess.CompletedProcess(cmd, 0, "", "")
    monkeypatch.setattr(seed.subprocess, "run", ok_run)
    assert seed.reload() is None


def test_reload_script_unloads_then_loads(tmp_path):
    """kmod/tests/mutants/reload: rmmod, then insmod of $RBTI_KMOD's
    module only if rmmod worked; a failure is its exit status."""
    import subprocess
    script = os.path.join(os.path.dirname(RUN), "reload")
    log = tmp_path / "log"
    for tool, rc in (("rmmod", 1), ("insmod", 0)):
        (tmp_path / tool).write_text(
            f'#!/bin/sh\necho "{tool} $*" >>"{log}"\nexit {rc}\n')
        (tmp_path / tool).chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "RBTI_KMOD": "/k"}
    assert subprocess.run([script], env=env).returncode == 1
    assert log.read_text() == "rmmod rbtree_inspector\n"
    (tmp_path / "rmmod").write_text(
        f'#!/bin/sh\necho "rmmod $*" >>"{log}"\n')
    log.write_text("")
    assert subprocess.run([script], env=env).returncode == 0
    assert log.read_text() == ("rmmod rbtree_inspector\n"
                               "insmod /k/rbtree_inspector.ko\n")


def test_an_unended_run_is_a_kill_only_if_the_kernel_died(tmp_path):
    """A run without its end marker: the guest died (a kill), ran out of
    time (a time-out) or the harness broke (fuzz-seed crashed: an error),
    never a kill by default."""
    run = load()
    clean = tmp_path / "clean.log"
    clean.write_text("[    1.0] Run /init as init process\n")
    died = tmp_path / "died.log"
    died.write_text("[    9.0] Kernel panic - not syncing: Fatal exception\n")
    assert not run.kernel_died(0, str(clean))
    assert run.kernel_died(0, str(died))
    assert run.kernel_died(125, str(clean))
    assert run.unended(0, False) == "E"
    assert run.unended(124, False) == "T"
    assert run.unended(0, True) == "D"


def test_time_outs_and_harness_errors_are_no_kills():
    run = load()
    seeds, suites = [1, 2], ["kunit"]
    mutant = run.Mutant("m", "f.c", "", "a", "b")
    timed = run.Verdict(runs={"fuzz 1": "T", "fuzz 2": "-", "suite kunit": "-"})
    assert run.outcome(timed, seeds, suites) == "time-out"
    assert "| 0/2 (T) | survived | time-out |" in run.row(mutant, timed, seeds,
                                                          suites)
    broken = run.Verdict(runs={"fuzz 1": "E", "fuzz 2": "T"})
    assert run.outcome(broken, seeds, suites) == "harness error"
    killed = run.Verdict(runs={"fuzz 1": "T", "fuzz 2": "D"})
    assert run.outcome(killed, seeds, suites) == "killed"
    assert run.outcome(run.Verdict(build_failed=True), seeds,
                       suites) == "build failed"
    assert run.outcome(run.Verdict(boot_failed=True), seeds,
                       suites) == "boot failed"


def test_the_table_names_its_run(tmp_path, monkeypatch):
    monkeypatch.delenv("RBTI_KERNEL", raising=False)
    run = load()
    args = run.argparse.Namespace(names=["a", "b"], ops=100, table=None)
    head = run.table_head(args, [1, 2, 3])
    assert "`make mutants MUTANTS='a b'`" in head and "commit " in head
    assert "UTC" in head and "CPUs" in head
    assert "debug kernel" in head and "MUTANT_ARGS" not in head
    args.options = ["--seeds", "3"]
    monkeypatch.setenv("RBTI_KERNEL", "6.12")
    head = run.table_head(args, [1, 2, 3])
    assert ("`make mutants KERNEL=6.12 MUTANTS='a b' MUTANT_ARGS='--seeds 3'`"
            in head and "the 6.12 debug kernel" in head)
    path = tmp_path / "docs" / "m.md"
    run.write_table(str(path), head, ["| h |", "| --- |", "| r |"], 1, 18)
    text = path.read_text()
    assert text.startswith("# Mutants\n") and "1 of 18 mutants" in text
    assert text.rstrip().endswith("| r |")


def test_gate_mode_runs_the_gates_guest_suites_cheapest_first(monkeypatch):
    """--gate takes the main guest's suites of qemu/suites, kunit first,
    with their own limits, and names the killing suite in the table."""
    monkeypatch.delenv("RBTI_KERNEL", raising=False)
    run = load()
    gate = run.gate_suites()
    assert list(gate)[:3] == ["kunit", "debugfs-shell", "ifuzz"]
    assert {"tools", "hardening", "census"} <= set(gate)
    assert not any("@" in s for s in gate)
    assert all(limit > 0 for limit in gate.values())
    mutant = run.Mutant("m", "f.c", "", "a", "b")
    suites = [f"gate:{s}" for s in gate]
    v = run.Verdict(runs={"suite gate:kunit": "-",
                          "suite gate:debugfs-shell": "K"})
    line = run.row(mutant, v, [], suites)
    assert line.startswith("| m | f.c | 6.1 | debugfs-shell | survived | "
                           "**killed** |")
    assert "| not run |" in line and run.outcome(v, [], suites) == "killed"


def test_gate_mode_stops_at_the_first_kill_inside_the_guest():
    """The guest starts with run-in-guest's environment only: --gate's
    RBTI_FIRST_KILL must travel in the guest's command, or every suite
    runs on every mutant."""
    run = load()
    args = run.argparse.Namespace(gate=True, ops=10, fuzz_limit=300, hint=None)
    cmd = run.guest_command("/r", "/r/k.log", 99, args, [], ["gate:kunit"])
    tail = cmd[cmd.index("--") + 1:]
    assert tail[:3] == ["env", "RBTI_FIRST_KILL=1", "kmod/tests/mutants/guest"]
    assert tail[3:] == ["10", "none", "gate:kunit", "300"]
    args.gate = False
    cmd = run.guest_command("/r", "/r/k.log", 99, args, ["1"], [])
    assert "RBTI_FIRST_KILL=0" in cmd and cmd[-3:] == ["1", "", "300"]


def test_gate_mode_keeps_results_by_content(tmp_path, monkeypatch):
    """A result is kept under the content key of the mutant and the tree:
    a rerun with nothing changed reuses it; a changed file runs again."""
    run = load()
    repo = tmp_path / "repo"
    for top in ("kmod", "tools", "qemu"):
        (repo / top).mkdir(parents=True)
        (repo / top / "f").write_text(top)
    monkeypatch.setattr(run, "REPO", str(repo))
    mutant = run.Mutant("m", "kmod/f", "", "kmod", "k")
    calls = []

    def fake(m, args, seeds, suites):
        calls.append(m.name)
        return run.Verdict(runs={"suite gate:kunit": "K"}, boots=1,
                           seconds=3.0)

    monkeypatch.setattr(run, "run_one", fake)
    args = run.argparse.Namespace(gate=True)
    first = run.cached_run(mutant, args, [], ["gate:kunit"])
    again = run.cached_run(mutant, args, [], ["gate:kunit"])
    assert calls == ["m"] and again.runs == first.runs
    assert any("kept result" in n for n in again.notes)
    (repo / "tools" / "f").write_text("changed")
    run.cached_run(mutant, args, [], ["gate:kunit"])
    assert calls == ["m", "m"]


def test_a_mutant_of_code_built_on_a_later_kernel_runs_there(monkeypatch):
    """A mutant of code that only builds from some kernel on (compat.h)
    would survive unbuilt on the default kernel: its kernel: line runs it
    on that kernel's debug build, and the table's kernel column says so."""
    run = load()
    monkeypatch.delenv("RBTI_KERNEL", raising=False)
    m = run.parse("=== a\nfile: f\nkernel: 6.12\n-x\n+y\n")[0]
    assert m.kernel == "6.12" and run.kernel_of(m) == "6.12"
    plain = run.parse("=== b\nfile: f\n-x\n+y\n")[0]
    assert plain.kernel is None and run.kernel_of(plain) == "6.1"
    monkeypatch.setenv("RBTI_KERNEL", "7.3")
    assert run.kernel_of(plain) == "7.3" and run.kernel_of(m) == "6.12"
    with pytest.raises(ValueError):
        run.parse("=== c\nfile: f\nkernel: new\n-x\n+y\n")
    v = run.Verdict(runs={"suite gate:kunit": "K"})
    assert run.row(m, v, [], ["gate:kunit"]).startswith(
        "| a | f | 6.12 | kunit | **killed** |")
    # The lockless tree is built only where rb_find_add_rcu() exists (6.12
    # on): its mutant runs on the gate's debug kernel that has it, the
    # first of qemu/lib.sh's RBTI_OTHER_KERNELS (make test boots it).
    mutants = {x.name: x for x in run.parse(open(os.path.join(
        os.path.dirname(RUN), "mutants.txt")).read())}
    with open(os.path.join(os.path.dirname(RUN), "..", "..", "..", "qemu",
                           "lib.sh")) as f:
        other = re.search(r'^RBTI_OTHER_KERNELS="(\S+)', f.read(), re.M)
    assert mutants["rcu-no-write-seqcount"].kernel == other.group(1) == "7.3"


def test_a_run_of_kept_results_only_cleans_up_without_a_touched_list(
        tmp_path, monkeypatch):
    """When every mutant's result is a kept one, no mutant was built and
    out/mutants/touched was never written: the clean-up must not fail
    (it did, after writing the table, with exit status 2)."""
    run = load()
    monkeypatch.setattr(run, "REPO", str(tmp_path))
    cleaned = []
    monkeypatch.setattr(run, "clean_module_dir",
                        lambda root, kernel: cleaned.append(kernel))
    monkeypatch.delenv("RBTI_KERNEL", raising=False)
    mutants = [run.Mutant("a", "f", "", "x", "y"),
               run.Mutant("b", "f", "", "x", "y", "6.12")]
    run.clean_copy(mutants)
    assert cleaned == ["6.1", "6.12"]
    touched = tmp_path / "out" / "mutants" / "touched"
    touched.parent.mkdir(parents=True)
    touched.write_text("kmod/f\n")
    run.clean_copy(mutants)
    assert not touched.exists()


def test_update_replaces_only_the_rerun_rows(tmp_path):
    """--update: the rerun mutants' rows change, every other row stays as
    its run wrote it, and the page names the rerun under its provenance;
    a mutant the page lacks is an error, not a silent append."""
    run = load()
    page = tmp_path / "mutants-gate.md"
    page.write_text(
        "# Mutants\n\nWritten by make mutants on DAY, commit A. 2 of 2.\n\n"
        "| mutant | file | kernel | killed by | verdict |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| one | a.c | 6.1 | kunit | killed |\n"
        "| two | b.c | 6.12 | debugfs-shell | killed |\n")
    run.update_table(str(page), "Written on DAY2, commit B.",
                     ["| two | b.c | 7.3 | debugfs-shell | killed |"])
    text = page.read_text()
    assert "| one | a.c | 6.1 | kunit | killed |" in text
    assert "| two | b.c | 7.3 | debugfs-shell | killed |" in text
    assert "6.12" not in text
    lines = text.splitlines()
    assert lines[2].startswith("Written by make mutants on DAY")
    assert lines[4] == "Rows of two rerun: Written on DAY2, commit B."
    with pytest.raises(SystemExit):
        run.update_table(str(page), "x", ["| three | c.c | 6.1 | - | killed |"])
