# SPDX-License-Identifier: GPL-2.0
"""Tests of the fuzzer against the in-memory fake driver."""

import json
import os

import pytest

from rbtilib import fuzz, fuzzconfig
from rbtilib.dump import inorder, parse_dump
from rbtilib.model import Model
from rbtilib.opstream import generate, resolve_seed
from rbtilib.shrink import read_repro, replay_ops
from tests_support.shared import INFO, config, off_by_one_near
from tests_support.shared import fuzz_run as run
from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, corrupt_tree



def test_clean_run_passes_on_every_tree():
    f, failure = run(FakeDebugfs(), config())
    assert failure is None
    assert f.stats.ops == 3000 * len(CONTRACT_TREES)
    # Full checks every 500 ops (batches of 256: at 512, 1024, ...) and at
    # the end; the module's check after every batch.
    assert f.stats.checks == 6 * len(CONTRACT_TREES)
    assert f.stats.module_checks == 12 * len(CONTRACT_TREES)
    assert "seed 7" in f.summary() and "ops/s" in f.summary()


def test_wrong_near_is_caught_shrunk_and_replayable(tmp_path):
    driver = FakeDebugfs(fault=off_by_one_near)
    f, failure = run(driver, config(), ["santos"], tmp_path=tmp_path)
    assert failure is not None and failure.kind == "mismatch"
    assert failure.what == "n"
    # Minimal: one insert, then a near below it.
    assert [c for c, _ in f.shrunk] == ["i", "n"]
    assert f.shrunk[1][1] < f.shrunk[0][1]
    data = json.loads(open(f.repro).read())
    assert data["seed"] == 7 and data["tree"] == "santos"
    assert data["ops"] == [list(op) for op in f.shrunk]
    repro = read_repro(f.repro)
    again = replay_ops(driver, INFO["santos"], repro["ops"])
    assert again is not None and again.what == "n"
    assert replay_ops(FakeDebugfs(), INFO["santos"], repro["ops"]) \
        is None


class OffByOneModel(Model):
    """A deliberately wrong model: near returns the first key >= K."""

    def near(self, key):
        return super().near(key - 1)


def test_wrong_model_is_caught():
    f, failure = run(FakeDebugfs(), config(), ["mainline"],
                     model=lambda info: OffByOneModel(info.flags))
    assert failure is not None and failure.what == "n"
    assert len(f.shrunk) == 2


def wrong_find_id(tree, op, key, line):
    if op == "f" and line.startswith("found "):
        return f"found 0 {key}"
    return line


def test_wrong_id_is_caught():
    _, failure = run(FakeDebugfs(fault=wrong_find_id), config(),
                     ["santos_dup"])
    assert failure is not None and failure.what == "f"
    assert "found 0" in failure.message


def replaced_as_ok(tree, op, key, line):
    return f"ok {line.split()[1]}" if line.startswith("replaced") else line


def test_replace_semantics_checked():
    _, failure = run(FakeDebugfs(fault=replaced_as_ok), config(),
                     ["santos_replace"])
    assert failure is not None and failure.what == "i"


class LastEqualEraser(FakeDebugfs):
    """Erases the last node among equals, like rb_search may."""

    def _do(self, rb, info, op, key, arg=None):
        if op != "e":
            return super()._do(rb, info, op, key, arg)
        node = rb.find_first(key)
        if node is None:
            return "ENOENT"
        nxt = rb.greater(key)
        last = None
        for cand in (n for n in rb.inorder() if n.key == key):
            last = cand
        rb.erase(last)
        assert nxt is None or nxt.key != key
        return f"erased {last.id}"


def test_erase_any_only_for_overstreet_dup():
    cfg = config(keys=(0, 5))
    _, failure = run(LastEqualEraser(), cfg, ["overstreet_dup"])
    assert failure is None
    _, failure = run(LastEqualEraser(), config(keys=(0, 5)), ["santos_dup"])
    assert failure is not None and failure.what in ("e", "contents")


class CorruptAfter(FakeDebugfs):
    """Its dump is corrupted (a red root) once the tree has 20 nodes."""

    def dump(self, name):
        tree = super().dump(name)
        if len(tree.nodes) >= 20:
            root = tree.nodes[tree.root]
            return corrupt_tree(tree, f"color {root.key}")
        return tree


def test_invariant_violation_is_caught():
    f, failure = run(CorruptAfter(), config(check_every=100, batch=5),
                     ["santos"])
    # The module's check (the fake runs the Python checker) after the
    # batch that reaches 20 nodes.
    assert failure is not None and failure.kind == "module"
    assert failure.what == "root-color"
    assert len(f.shrunk) == 20 and {c for c, _ in f.shrunk} == {"i"}
    assert failure.dump is not None


class ModuleCheckFails(FakeDebugfs):
    def check(self, name):
        from rbtilib.driver import CheckResult
        return CheckResult(False, "red-red", 3, "made up")


def test_module_check_is_consulted():
    _, failure = run(ModuleCheckFails(), config(), ["mainline"])
    assert failure is not None and failure.kind == "module"
    assert failure.what == "red-red"


class DropsKeySeven(FakeDebugfs):
    """Inserts 8 when asked for 7, and says ok."""

    def _do(self, rb, info, op, key, arg=None):
        return super()._do(rb, info, op, 8 if op == "i" and key == 7
                           else key, arg)


def test_contents_mismatch_is_caught():
    f, failure = run(DropsKeySeven(), config(mix=(1, 0, 0, 0), keys=(0, 9),
                                             check_every=50, ops=200),
                     ["overstreet_dup"])
    assert failure is not None and failure.kind == "contents"
    assert f.shrunk == [("i", 7)]


def test_enospc_is_a_failure_and_shrinks_to_one_batch():
    f, failure = run(FakeDebugfs(max_nodes=10), config(mix=(1, 0, 0, 0)),
                     ["santos_dup"])
    assert failure is not None and failure.kind == "errno"
    assert failure.what == "ENOSPC"
    assert len(f.shrunk) == 11 and {c for c, _ in f.shrunk} == {"i"}


def test_snapshots_every_without_writers_does_not_fail(tmp_path, capsys):
    f = fuzz.Fuzzer(FakeDebugfs(), [INFO["santos_aug"]],
                    config(snapshots_every=1000, out=str(tmp_path)))
    assert f.run() is None
    assert not list(tmp_path.iterdir())
    assert "no flipbook writer" in capsys.readouterr().err


VIZ = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir,
                                   os.pardir, "viz"))


@pytest.fixture
def viz(monkeypatch):
    """rbtiviz's writers, as tools/rbti hands them to the fuzzer."""
    monkeypatch.syspath_prepend(VIZ)
    # Imported, not importorskip: the project's own module failing to
    # import is a failure, not a skip (qemu/skip-reasons).
    import importlib
    writers = importlib.import_module("rbtiviz.writers")
    return writers.fuzz_writers()


def frames_of(tmp_path, tree):
    data = json.loads((tmp_path / tree / "frames.json").read_text())
    assert "deferred" in data and data["tree"] == tree
    return data["frames"]


def test_frames_every_k_ops_per_tree(tmp_path, viz):
    cfg = config(ops=230, snapshots_every=50, check_every=70)
    driver = FakeDebugfs()
    f, failure = run(driver, cfg, ["santos", "overstreet_dup"],
                     tmp_path=tmp_path, writers=viz)
    assert failure is None
    for tree in ("santos", "overstreet_dup"):
        frames = frames_of(tmp_path, tree)
        assert [(fr["first_op"], fr["last_op"]) for fr in frames] == \
            [(1, 50), (51, 100), (101, 150), (151, 200), (201, 230)]
        for fr in frames:
            dump = parse_dump((tmp_path / tree / fr["file"])
                              .with_suffix(".dump").read_text())
            again = FakeDebugfs()
            if replay_ops(again, INFO[tree],
                          f.history[:fr["last_op"]]) is not None:
                raise AssertionError("replay failed")
            assert [n.key for n in inorder(dump)] == \
                [n.key for n in inorder(again.dump(tree))]
            assert set(fr["highlight"]) <= set(dump.nodes)


def test_workers_draw_with_the_writers_they_were_handed(tmp_path, viz):
    """--jobs: each worker process writes its trees' flipbooks."""
    cfg = config(ops=100, snapshots_every=50, jobs=2)
    _, failure = run(FakeDebugfs(), cfg, ["santos", "mainline"],
                     tmp_path=tmp_path, writers=viz)
    assert failure is None
    for tree in ("santos", "mainline"):
        assert [fr["last_op"] for fr in frames_of(tmp_path, tree)] == \
            [50, 100]


def test_frame_captions_name_the_ops_and_results(tmp_path, viz):
    cfg = config(ops=120, snapshots_every=40, keys=(0, 9))
    f, failure = run(FakeDebugfs(), cfg, ["santos"], tmp_path=tmp_path,
                     writers=viz)
    assert failure is None
    frames = frames_of(tmp_path, "santos")
    assert len(frames) == 3
    inserted = set()
    for fr in frames:
        assert len(fr["ops"]) == 1
        parts = fr["ops"][0].split("; ")
        ops = f.history[fr["first_op"] - 1:fr["last_op"]]
        assert len(parts) == len(ops) == 40
        for part, (code, key) in zip(parts, ops):
            op, _, result = part.partition(" -> ")
            assert op == f"{code} {key}"
            want = {"i": ("ok ", "EEXIST"), "f": ("found ", "ENOENT"),
                    "e": ("erased ", "ENOENT"), "n": ("near ", "ENOENT")}
            assert result.startswith(want[code]), part
            if result.startswith("ok "):
                inserted.add(int(result.split()[1]))
        assert fr["highlight"] and set(fr["highlight"]) <= inserted


def test_frame_caption_elides_long_lists():
    ops = [("i", k, f"ok {k}") for k in range(100)]
    text = fuzz.frame_caption(ops)
    parts = text.split("; ")
    assert len(parts) == fuzz.CAPTION_OPS + 1
    assert parts[0] == "i 0 -> ok 0" and parts[-1] == "i 99 -> ok 99"
    assert f"... {100 - fuzz.CAPTION_OPS} more ops ..." in parts
    assert fuzz.frame_caption(ops[:3]) == \
        "i 0 -> ok 0; i 1 -> ok 1; i 2 -> ok 2"


def test_flipbook_is_closed_on_failure(tmp_path, viz):
    seen = []

    def late_fault(tree, op, key, line):
        seen.append(op)
        return off_by_one_near(tree, op, key, line) if len(seen) > 75 \
            else line

    f, failure = run(FakeDebugfs(fault=late_fault), config(snapshots_every=20),
                     ["santos"], tmp_path=tmp_path, writers=viz)
    assert failure is not None and failure.kind == "mismatch"
    # Frames up to the batch before the failing one (batches end at 20s).
    last = len(f.history) - 20
    assert last >= 60
    frames = frames_of(tmp_path, "santos")
    assert [fr["last_op"] for fr in frames] == list(range(20, last + 1, 20))


def test_failure_dump_round_trips(tmp_path):
    f, failure = run(CorruptAfter(), config(batch=10), ["santos"],
                     tmp_path=tmp_path)
    text = open(f.repro[:-5] + ".dump").read()
    assert parse_dump(text).nodes[parse_dump(text).root].color == "R"


def test_failure_snapshot_via_viz(tmp_path, viz):
    # dot (graphviz) is installed by qemu/install-deps: no skip without it.
    f, failure = run(CorruptAfter(), config(batch=10), ["santos"],
                     tmp_path=tmp_path, writers=viz)
    svg = f.repro[:-5] + ".svg"
    assert open(svg).read().lstrip().startswith(("<?xml", "<svg"))


# -- seeds, key generators, phases, single-op files, stats ---------------

def test_seed_is_random_by_default_printed_first_and_reusable(capsys):
    import io
    log = io.StringIO()
    cfg = fuzzconfig.Config(ops=300, progress=0)
    f = fuzz.Fuzzer(FakeDebugfs(), [INFO["santos"]], cfg, log=log)
    assert f.run() is None
    seed = cfg.seed
    assert isinstance(seed, int)
    assert log.getvalue().splitlines()[0] == \
        f"rbti fuzz: seed {seed} (rerun with --seed {seed})"
    again = fuzzconfig.Config(ops=300, seed=seed)
    assert list(generate(again)) == list(generate(
        fuzzconfig.Config(ops=300, seed=seed)))
    seeds = {resolve_seed(fuzzconfig.Config()) for _ in range(5)}
    assert len(seeds) > 1


def test_grow_phase_makes_a_large_tree():
    cfg = config(ops=6000, grow=5000, phases=True, key_mode="mixed",
                 batch=1024, single=64)
    f, failure = run(FakeDebugfs(), cfg, ["santos", "mainline"])
    assert failure is None
    assert f.stats.max_nodes >= 4990
    assert f.stats.single_ops > 0


def test_default_run_passes_on_every_tree():
    cfg = fuzzconfig.Config(ops=8000, seed=2, progress=0)
    f, failure = run(FakeDebugfs(), cfg)
    assert failure is None, failure
    assert f.stats.single_ops > 0 and f.stats.module_checks >= 7 * 31


def garbage_ids(tree, op, key, line):
    return line.replace("ok ", "ok x") if op == "i" else line


def test_unparseable_reply_is_a_failure_with_a_repro(tmp_path):
    f, failure = run(FakeDebugfs(fault=garbage_ids), config(), ["santos"],
                     tmp_path=tmp_path)
    assert failure is not None and failure.kind == "reply"
    assert "unparseable" in failure.message
    assert f.repro and len(f.shrunk) == 1 and f.shrunk[0][0] in ("i", "I")
    assert read_repro(f.repro)["ops"] == [tuple(op) for op in f.shrunk]


class NearFileOffByOne(FakeDebugfs):
    """Only the single-op ``near`` file is wrong."""

    def lookup(self, name, what, key):
        nid, found, *rest = super().lookup(name, what, key)
        return [nid, found + (what == "near"), *rest]


def test_single_op_files_are_fuzzed():
    cfg = config(single=8)
    f, failure = run(NearFileOffByOne(), cfg, ["santos"])
    assert failure is not None and failure.kind == "mismatch"
    assert failure.what == "N"
    assert [c for c, _ in f.shrunk] == ["i", "N"] or \
        [c for c, _ in f.shrunk] == ["I", "N"]
    _, ok = run(FakeDebugfs(), cfg, ["santos"])
    assert ok is None


def _leftmost(rb):
    first = rb.root
    while first and first.left:
        first = first.left
    return first


class StaleLeftmost(FakeDebugfs):
    """A simulated mutant: erasing the minimum leaves the cached leftmost
    pointing at the erased node until a new minimum is inserted."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.stale = {}

    def _do(self, rb, info, op, key, arg=None):
        name = info.name
        first = _leftmost(rb)
        line = super()._do(rb, info, op, key, arg)
        if op == "e" and first is not None and line == f"erased {first.id}":
            self.stale.setdefault(name, first.id)
        if op == "i" and line.startswith("ok ") and \
                _leftmost(rb).id == int(line.split()[1]):
            self.stale.pop(name, None)
        return line

    def dump(self, name):
        tree = super().dump(name)
        if name in self.stale and "leftmost" in tree.flags and tree.nodes:
            tree.leftmost = self.stale[name]
        return tree

    def clear(self, name):
        super().clear(name)
        self.stale.pop(name, None)


def _rightmost(rb):
    last = rb.root
    while last and last.right:
        last = last.right
    return last


class StaleRightmost(FakeDebugfs):
    """The mirror image: erasing the maximum leaves the cached rightmost
    stale until a new maximum is inserted (mutant stale-rightmost)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.stale = {}

    def _do(self, rb, info, op, key, arg=None):
        name = info.name
        last = _rightmost(rb)
        line = super()._do(rb, info, op, key, arg)
        if op == "e" and last is not None and line == f"erased {last.id}":
            self.stale.setdefault(name, last.id)
        if op == "i" and line.startswith("ok ") and \
                _rightmost(rb).id == int(line.split()[1]):
            self.stale.pop(name, None)
        return line

    def dump(self, name):
        tree = super().dump(name)
        if name in self.stale and "rightmost" in tree.flags and tree.nodes:
            tree.rightmost = self.stale[name]
        return tree

    def clear(self, name):
        super().clear(name)
        self.stale.pop(name, None)


@pytest.mark.slow
def test_stale_rightmost_mutant_caught_on_ten_seeds():
    """Seed 2 erased no maximum of a non-empty tree before POP_EVERY."""
    caught = 0
    for seed in range(1, 11):
        cfg = fuzzconfig.Config(ops=10000, seed=seed, progress=0,
                                shrink_tests=50)
        _, failure = run(StaleRightmost(), cfg, ["santos"])
        caught += failure is not None and failure.what in ("rightmost",
                                                           "dump")
    assert caught == 10


@pytest.mark.slow
def test_stale_leftmost_mutant_caught_on_ten_seeds():
    caught = 0
    for seed in range(1, 11):
        cfg = fuzzconfig.Config(ops=10000, seed=seed, progress=0,
                                shrink_tests=50)
        _, failure = run(StaleLeftmost(), cfg, ["santos"])
        caught += failure is not None and failure.what in ("leftmost",
                                                           "dump")
    assert caught == 10


def test_module_mutants_all_apply():
    """kmod/tests/mutants: every search text is found exactly once."""
    import subprocess
    import sys
    run_py = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                          "kmod", "tests", "mutants", "run")
    done = subprocess.run([sys.executable, run_py, "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("ok - ") >= 7


def test_a_wrong_hinted_near_is_caught_and_replays(tmp_path):
    """A "module" whose find_near from a hint returns the key itself when
    present (as a climb that takes an equal ancestor for the bound after
    the key would): only hinted ops show it, and the fuzzer catches it,
    on the Santos trees only, with a repro that keeps the hinted op."""
    def fault(tree, op, key, line):
        if op == "N" and key in present.get(tree, set()):
            return f"near 999999 {key}"
        return line

    present: dict = {}

    class Tracking(FakeDebugfs):
        """Knows the keys present before each op (one op a write)."""

        def ops(self, name, batch):
            out = []
            for line in batch.splitlines():
                present[name] = {n.key for n in self._trees[name]._preorder()}
                out.append(super().ops(name, line))
            return "".join(out)

    driver = Tracking(fault=fault)
    cfg = fuzzconfig.Config(ops=2000, seed=3, progress=0, shrink_tests=300)
    f, failure = run(driver, cfg, ["santos", "mainline"], tmp_path=tmp_path)
    assert failure is not None and failure.tree == "santos", failure
    assert failure.kind == "mismatch" and failure.what == "m"
    assert any(c == "m" for c, _ in f.shrunk)
    assert replay_ops(driver, INFO["santos"], f.shrunk) is not None
    # The same ops on mainline, where hinted ops go plain, pass.
    assert replay_ops(driver, INFO["mainline"], f.shrunk) is None


def test_jobs_run_every_tree_with_every_op_and_check():
    one, failure = run(FakeDebugfs(), config())
    assert failure is None
    many, failure = run(FakeDebugfs(), config(jobs=3))
    assert failure is None
    for name in ("ops", "checks", "module_checks", "single_ops",
                 "max_nodes"):
        assert getattr(many.stats, name) == getattr(one.stats, name), name
    assert "in 3 processes" in many.summary()
    # More jobs than trees: one tree a process.
    two, failure = run(FakeDebugfs(), config(jobs=99), ["santos", "mainline"])
    assert failure is None and two.stats.ops == 2 * 3000
    assert "in 2 processes" in two.summary()


def test_jobs_bring_back_a_workers_failure_and_repro(tmp_path):
    driver = FakeDebugfs(fault=off_by_one_near)
    names = ["mainline", "overstreet", "santos"]
    f, failure = run(driver, config(jobs=2), names, tmp_path=tmp_path)
    assert failure is not None and failure.kind == "mismatch"
    assert failure.what == "n" and failure.tree in names
    # Shrunk in the worker, and the repro replays here.
    assert [c for c, _ in f.shrunk] == ["i", "n"]
    repro = read_repro(f.repro)
    assert repro["tree"] == failure.tree
    assert replay_ops(driver, INFO[failure.tree], repro["ops"]) is not None


def test_a_worker_that_crashes_fails_the_run():
    class Broken(FakeDebugfs):
        def ops(self, tree, batch):
            if tree == "santos":
                raise ZeroDivisionError("worker bug")
            return super().ops(tree, batch)

    with pytest.raises(RuntimeError, match="(?s)santos failed.*ZeroDivisionError"):
        run(Broken(), config(jobs=2), ["mainline", "santos"])

    class Dies(FakeDebugfs):
        def ops(self, tree, batch):
            if tree == "santos":
                os._exit(3)
            return super().ops(tree, batch)

    with pytest.raises(RuntimeError, match="santos ended without a result"):
        run(Dies(), config(jobs=2), ["mainline", "santos"])


def test_resolve_jobs_zero_is_one_per_cpu():
    assert fuzz.resolve_jobs(3) == 3
    assert fuzz.resolve_jobs(0) == len(os.sched_getaffinity(0))
    with pytest.raises(ValueError):
        fuzz.resolve_jobs(-1)
