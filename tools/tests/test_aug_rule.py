# SPDX-License-Identifier: GPL-2.0
"""A dump carries its augment rule (``aug NAME RULE``), so that a saved
or kernel-read dump checks on the host as a live read does; a dump
without one still parses and says what it cannot check."""

import subprocess

import pytest

from rbtilib import checker, cli
from rbtilib.dump import DumpError, format_dump, parse_dump, tree_rule
from tests_support.dumps import RENDER_CLI
from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, FAMILY_TREES

FREE_VMAP = """\
tree free_vmap_area
api kernel
flags unique,value
count 4
root 2
leftmost -
rightmost -
height 3
aug subtree_max_size max:va_size
value va_size
hex key,aug
node 2 18446739675461726208 B - 0 3 18446683600570023935 4096
node 0 1 B 2 - 1 18446683600570023935 18446683600570023935
node 1 18446683600570105856 R 0 - - 56074891608064 56074891608064
node 3 18446744072099016704 B 2 - - 1610534911 1610534911
end 4
"""
"""docs/free-vmap-area.dump's tree with its rule: each node's VALUE is
its own va_size (va_end - va_start), subtree_max_size the largest in its
subtree (mm/vmalloc.c)."""

OLD = "".join(
    " ".join(line.split(" ")[:8]) + "\n" if line.startswith("node ") else
    "" if line.startswith("value ") else
    line.replace(" max:va_size", "").replace(",value", "") + "\n"
    for line in FREE_VMAP.splitlines())
"""The same dump without its rule and VALUEs."""


def node1_aug(text: str, aug: int) -> str:
    """*text* with node 1's subtree_max_size set to *aug*."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("node 1 "):
            fields = line.rstrip("\n").split(" ")
            fields[7] = str(aug)
            lines[i] = " ".join(fields) + "\n"
    return "".join(lines)


def test_rule_parses_and_formats_back():
    tree = parse_dump(FREE_VMAP)
    assert tree.aug == "subtree_max_size" and tree.aug_rule == "max:va_size"
    assert tree.value == "va_size" and tree.nodes[2].value == 4096
    assert format_dump(tree) == FREE_VMAP
    assert checker.check(tree) == [] and checker.notes(tree) == []


@pytest.mark.parametrize("rule, values, want", [
    ("size", None, {2: 4, 0: 2, 1: 1, 3: 1}),
    ("sum:v", {2: 1, 0: 2, 1: 3, 3: 4}, {2: 10, 0: 5, 1: 3, 3: 4}),
    ("min:v", {2: 9, 0: 2, 1: 3, 3: 4}, {2: 2, 0: 2, 1: 3, 3: 4}),
    ("max:v", {2: 1, 0: 2, 1: 3, 3: 4}, {2: 4, 0: 3, 1: 3, 3: 4})])
def test_every_rule_checked(rule, values, want):
    """size, sum, min and max, each right, then one node off by one."""
    tree = parse_dump(FREE_VMAP)
    lines = ["tree t", "api kernel",
             "flags unique" + (",value" if values else ""), "count 4",
             "root 2", "leftmost -", "rightmost -", "height 3",
             f"aug a {rule}"] + (["value v"] if values else [])
    for nid, node in tree.nodes.items():
        lines.append(f"node {nid} {node.key} {node.color} "
                     f"{'-' if node.parent is None else node.parent} "
                     f"{'-' if node.left is None else node.left} "
                     f"{'-' if node.right is None else node.right} "
                     f"{want[nid]}" + (f" {values[nid]}" if values else ""))
    text = "\n".join(lines + ["end 4"]) + "\n"
    assert checker.check(parse_dump(text)) == []
    broken = parse_dump(node1_aug(text, want[1] + 1))
    found = checker.check(broken)
    assert [(v.cls, v.node) for v in found] == [("augment", 1)]
    op = rule.split(":")[0]
    assert found[0].message.startswith(
        f"a is {want[1] + 1}, {op} over its subtree is {want[1]}")


def test_a_saved_kernel_dump_checks_as_live(tmp_path, capsys):
    """Node 1's subtree_max_size set to 7 in the saved free vmap tree:
    rbti check, show and viz/render report it, as a live read does."""
    path = tmp_path / "free-vmap.dump"
    path.write_text(node1_aug(FREE_VMAP, 7))
    status = cli.main(["check", str(path)], FakeDebugfs())
    out = capsys.readouterr().out
    assert status == 1
    assert "free_vmap_area: fail augment node #1 (key 0xffffc90000014000): " \
        "subtree_max_size is 0x7, max over its subtree is 0x32fff3fec000 " \
        "(rule max:va_size)" in out
    assert cli.main(["show", "--color", "never", str(path)],
                    FakeDebugfs()) == 0
    assert "0xffffc90000014000 R #1 subtree_max_size=0x7 " \
        "va_size=0x32fff3fec000 !! augment:" in capsys.readouterr().out
    proc = subprocess.run([str(RENDER_CLI), "--violation", str(path), "-o",
                           str(tmp_path / "f.svg")], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "fail augment node #1 (key" in proc.stderr


def test_an_old_dump_says_what_it_cannot_check(tmp_path, capsys):
    """A dump without the rule still parses; check, show and viz/render
    say that its aug is not checked (a note, not a violation)."""
    tree = parse_dump(OLD)
    assert tree.aug_rule is None and tree_rule(tree) is None
    assert checker.check(tree) == []
    path = tmp_path / "old.dump"
    path.write_text(node1_aug(OLD, 7))
    assert cli.main(["check", str(path)], FakeDebugfs()) == 0
    out = capsys.readouterr().out
    note = "note: aug subtree_max_size is not checked: the dump names no " \
        "augment rule"
    assert out.splitlines()[0] == "free_vmap_area: ok (4 nodes)"
    assert out.splitlines()[1].startswith(f"free_vmap_area: {note}")
    assert cli.main(["check", "--json", str(path)], FakeDebugfs()) == 0
    assert '"notes": ["aug subtree_max_size is not checked' in \
        capsys.readouterr().out
    assert cli.main(["show", "--color", "never", str(path)],
                    FakeDebugfs()) == 0
    assert note in capsys.readouterr().out
    proc = subprocess.run([str(RENDER_CLI), "--violation", str(path), "-o",
                           str(tmp_path / "f.svg")], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0 and note in proc.stderr


def test_module_trees_know_their_rule_by_kind():
    """A module's dump writes no rule: its flags imply it."""
    driver = FakeDebugfs(CONTRACT_TREES + FAMILY_TREES)
    for name in ("santos_aug", "mainline_aug", "interval"):
        driver.insert(name, [5, 1, 9],
                      None if name == "santos_aug" else [7, 3, 12])
        tree = driver.dump(name)
        assert tree.aug_rule is None
        assert tree_rule(tree) == {"santos_aug": "size",
                                   "mainline_aug": "max:value",
                                   "interval": "max:last"}[name]
        assert f"aug {tree.aug}\n" in driver.dump_text(name)


@pytest.mark.parametrize("text, message", [
    (FREE_VMAP.replace("max:va_size", "max"), "bad augment rule"),
    (FREE_VMAP.replace("max:va_size", "avg:va_size"), "bad augment rule"),
    (FREE_VMAP.replace("max:va_size", "size:x"), "bad augment rule"),
    (FREE_VMAP.replace("max:va_size", "max:"), "bad augment rule"),
    (FREE_VMAP.replace("max:va_size", "max:other"),
     "needs the line 'value other'"),
    (FREE_VMAP.replace("max:va_size", "max:va_size x"), "has 4 fields"),
    (FREE_VMAP.replace("api kernel", "api santos"), "dump line"),
    (OLD.replace("aug subtree_max_size", "aug subtree_max_size size")
     .replace("api kernel", "api mainline").replace("flags unique",
                                                    "flags unique,augmented")
     .replace("aug subtree_max_size size", "aug size size"),
     "rule follows from its flags"),
])
def test_bad_rules(text, message):
    with pytest.raises(DumpError, match=message):
        parse_dump(text)
