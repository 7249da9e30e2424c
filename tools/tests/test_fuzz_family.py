# SPDX-License-Identifier: GPL-2.0
"""The fuzzer on the rbtree family's trees, against the fake
module: clean runs in every key mode with the checking schedule, and a
fault of each new kind caught, shrunk and replayed."""

import errno

import pytest

from rbtilib import fuzz
from rbtilib.model import Model
from rbtilib.opstream import last_of, op_text, query_last, value_of
from rbtilib.shrink import read_repro, replay_ops
from tests_support.shared import config
from tests_support.fake import FakeDebugfs
from tests_support.trees import FAMILY_TREES

FAMILY = {info.name: info for info in FAMILY_TREES}


def run(driver, cfg, names=None, tmp_path=None):
    infos = [FAMILY[n] for n in names] if names else FAMILY_TREES
    if tmp_path is not None:
        cfg.out = str(tmp_path)
    f = fuzz.Fuzzer(driver, infos, cfg, log=None)
    return f, f.run()


@pytest.mark.parametrize("mode", ["dense", "full", "cluster", "mixed"])
def test_clean_family_run(mode):
    cfg = config(ops=3000, key_mode=mode, phases=True, single=16)
    driver = FakeDebugfs(FAMILY_TREES)
    f, failure = run(driver, cfg)
    assert failure is None, failure
    assert f.stats.ops == 3000 * len(FAMILY_TREES)
    assert f.stats.checks >= 2 * len(FAMILY_TREES)
    assert f.stats.single_ops > 0
    counters = driver.counters["interval"]
    assert counters["overlaps"] > 0 and counters["nears"] == 0
    assert driver.counters["latch"]["nears"] == 0


def test_dialects():
    assert op_text("i", 5, "value") == f"i 5 {value_of(5)}\n"
    assert op_text("h", 5, "value") == f"i 5 {value_of(5)}\n"
    assert op_text("i", 5, "interval") == f"i 5 {last_of(5)}\n"
    assert op_text("e", 5, "interval") == f"e 5 {last_of(5)}\n"
    assert op_text("n", 5, "interval") == f"o 5 {query_last(5)}\n"
    assert op_text("m", 5, "latch") == "f 5\n"
    assert op_text("n", 5, "value") == "n 5\n"
    assert all(last_of(k) >= k and query_last(k) >= k
               for k in (-(1 << 63), -1, 0, 7, (1 << 63) - 1))


def reverse_overlaps(tree, op, key, line):
    """Overlap results in the reverse order (the same set)."""
    words = line.split()
    if op == "o" and len(words) > 3:
        return " ".join(words[:2] + words[:1:-1])
    return line


def drop_overlap(tree, op, key, line):
    """One overlapping interval left out."""
    words = line.split()
    if op == "o" and len(words) > 3:
        return " ".join(["overlap", str(len(words) - 3)] + words[3:])
    return line


def wrong_value(tree, op, key, line):
    """A find's VALUE off by one."""
    if op == "f" and line.startswith("found "):
        nid, found, value = line.split()[1:]
        return f"found {nid} {found} {int(value) + 1}"
    return line


@pytest.mark.parametrize("fault, tree, what", [
    (reverse_overlaps, "interval", "overlap-order"),
    (drop_overlap, "interval", "n"),
    (wrong_value, "mainline_aug", "f"),
    (wrong_value, "interval", "f"),
])
def test_family_faults_caught_shrunk_replayed(tmp_path, fault, tree, what):
    driver = FakeDebugfs(FAMILY_TREES, fault=fault)
    f, failure = run(driver, config(), [tree], tmp_path=tmp_path)
    assert failure is not None and failure.what == what, failure
    assert f.repro and len(f.shrunk) <= 4
    ops = read_repro(f.repro)["ops"]
    again = replay_ops(driver, FAMILY[tree], ops)
    assert again is not None and again.what == what
    assert replay_ops(FakeDebugfs(FAMILY_TREES), FAMILY[tree], ops) is None


class StaleAug(FakeDebugfs):
    """The root's aug one short: the model's maximum catches it even
    where the checker is not asked (a fault in the dump's text)."""

    def dump(self, name):
        from rbtilib import record
        tree = super().dump(name)
        if tree.root is not None and tree.aug == "max":
            root = tree.nodes[tree.root]
            tree.nodes[tree.root] = record.replace(root, aug=root.aug - 1)
        return tree


def test_stale_augment_is_a_check_failure():
    _, failure = run(StaleAug(FAMILY_TREES), config(), ["mainline_aug"])
    assert failure is not None and failure.kind in ("check", "module")
    assert failure.what == "augment"


class LatchCopyLost(FakeDebugfs):
    """Copy 1 of the latch tree misses a node once it has five."""

    def dump(self, name):
        from tests_support.trees import corrupt_tree
        tree = super().dump(name)
        if tree.copy1 is not None and tree.count >= 5:
            first = next(iter(tree.nodes.values()))
            tree = corrupt_tree(tree, f"latch {first.key}")
        return tree


def test_latch_copy_difference_is_caught():
    _, failure = run(LatchCopyLost(FAMILY_TREES), config(), ["latch"])
    assert failure is not None and failure.what == "latch"


class ModelWithoutOverlapOrder(Model):
    """A wrong model: overlaps sorted by id, not in tree order."""

    def overlap(self, start, last):
        return sorted(super().overlap(start, last))


def test_model_overlap_order_matters():
    f = fuzz.Fuzzer(FakeDebugfs(FAMILY_TREES), [FAMILY["interval"]],
                    config(keys=(0, 400)), log=None,
                    model_factory=lambda i: ModelWithoutOverlapOrder(
                        i.flags, i.api))
    failure = f.run()
    assert failure is not None and failure.what == "overlap-order"


@pytest.mark.parametrize("tree, batch", [
    ("interval", "n 5"), ("latch", "n 5"), ("interval", "o 5 3"),
    ("interval", "i 5"), ("interval", "i 6 5"), ("interval", "e 5"),
    ("mainline_aug", "i 5"), ("mainline_aug", "i 5 6 7"),
    ("latch", "i 5 6"), ("mainline_aug", "o 5 6"), ("mainline_cached",
                                                    "I 5 6"),
])
def test_fake_rejects_what_the_contract_calls_einval(tree, batch):
    driver = FakeDebugfs(FAMILY_TREES)
    with pytest.raises(OSError) as err:
        driver.ops(tree, f"i 1 {value_of(1) if tree == 'mainline_aug' else 2}"
                   f"\n{batch}\n" if tree != "latch" else f"i 1\n{batch}\n")
    assert err.value.name == "EINVAL"
    assert driver.dump(tree).count == 0     # nothing ran


def test_fake_replies_as_the_contract_says():
    driver = FakeDebugfs(FAMILY_TREES)
    out = driver.ops("interval", "i 10 20\ni 10 12\ni 3 4\nf 10\no 11 15\n"
                     "o 21 30\ne 10 12\ne 10 12\n")
    assert out.split("\n")[3:8] == ["found 1 10 20", "overlap 2 1 2",
                                    "overlap 0", "erased 2", "ENOENT"]
    with pytest.raises(OSError) as err:
        driver.lookup("latch", "near", 3)
    # Linux's EOPNOTSUPP is ENOTSUP, the name errno.errorcode gives.
    assert err.value.errno == errno.EOPNOTSUPP
    assert driver.overlap("interval", 0, 10) == [(3, 3, 4), (1, 10, 20)]
    assert driver.stats("interval")["overlaps"] == 3
