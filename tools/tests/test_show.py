# SPDX-License-Identifier: GPL-2.0
"""Tests of rbti show's terminal drawing (rbtilib.show)."""

import time

import pytest

from rbtilib import show
from rbtilib.dump import parse_dump
from tests_support.trees import AUG_SAMPLE_DUMP, CONTRACT_TREES, build_tree, corrupt_tree

SANTOS, SANTOS_DUP, SANTOS_AUG = CONTRACT_TREES[2], CONTRACT_TREES[3], CONTRACT_TREES[4]


def test_rotated_in_order_with_box_lines_and_caches():
    tree = build_tree([40, 20, 60, 10, 30, 50, 70, 5], SANTOS)
    assert show.render(tree) == """\
santos (santos: unique,leftmost,rightmost,count): 8 nodes, height 4, ok
        ┌── 5 R [leftmost]
    ┌── 10 B
┌── 20 R
│   └── 30 B
40 B
│   ┌── 50 R
└── 60 B
    └── 70 R [rightmost]
"""


def test_keys_top_to_bottom_are_in_order_for_any_tree():
    tree = build_tree([(k * 37) % 101 for k in range(101)], SANTOS)
    lines = show.render(tree).splitlines()[1:]
    keys = [int(line.lstrip("│┌└─ ").split()[0]) for line in lines]
    assert keys == list(range(101))


def test_ids_only_where_keys_repeat_and_aug_values():
    tree = build_tree([4, 2, 2, 6], SANTOS_DUP)
    text = show.render(tree)
    assert "┌── 2 B #2 [leftmost]\n2 B #3\n" in text
    assert "4 B\n" in text and "#1" not in text            # key 4 is unique
    aug = show.render(parse_dump(AUG_SAMPLE_DUMP))
    assert "20 B size=3" in aug and "10 R size=1" in aug


def test_violations_marked_on_their_nodes():
    tree = corrupt_tree(build_tree(list(range(10)), SANTOS_AUG), "aug 7")
    text = show.render(tree)
    line = next(line for line in text.splitlines() if "!!" in line)
    assert "!! augment: aug is " in line and "── 7 " in line and "#8" in line
    assert "1 violation" in text.splitlines()[0]


def test_colour_only_when_asked():
    tree = build_tree([2, 1, 3], SANTOS)
    plain = show.render(tree, color=False)
    assert "\x1b" not in plain and "1 R" in plain
    coloured = show.render(tree, color=True)
    assert "\x1b[31;1m1\x1b[0m" in coloured and "\x1b[1m2\x1b[0m" in coloured
    assert " R" not in coloured and " B" not in coloured


def test_max_depth_folds_but_keeps_the_way_to_a_violation():
    tree = build_tree(list(range(100)), SANTOS)
    text = show.render(tree, max_depth=2)
    assert text.count("…") == 4 and len(text.splitlines()) == 1 + 3 + 4
    assert "… " in text and "keys 0.." in text and "..99" in text
    folded = show.render(corrupt_tree(tree, "color 99"), max_depth=2)
    line = next(line for line in folded.splitlines() if "!!" in line)
    assert "── 99 " in line and "#100" in line


def test_auto_depth_fits_the_terminal():
    tree = build_tree(list(range(1000)), SANTOS)
    assert show.max_depth_for(tree, "all", 24) is None
    depth = show.max_depth_for(tree, "auto", 24)
    assert len(show.render(tree, max_depth=depth).splitlines()) <= 24
    assert show.max_depth_for(tree, "auto", None) is None     # 1000 < 2000 lines
    assert show.max_depth_for(build_tree([1], SANTOS), "auto", 24) is None


def test_corrupted_links_end_and_are_shown():
    tree = build_tree(list(range(7)), SANTOS)
    root = tree.nodes[tree.root]
    cyc = dict(tree.nodes)
    left = cyc[root.left]
    cyc[left.id] = type(left)(**{**left.__dict__, "right": root.id})
    tree.nodes = cyc
    text = show.render(tree)
    assert f"→ #{root.id} (cycle)" in text


def test_a_thousand_nodes_fast():
    tree = build_tree([(k * 7919) % 100003 for k in range(1000)], SANTOS)
    start = time.process_time()
    text = show.render(tree)
    took = time.process_time() - start
    assert len(text.splitlines()) == 1001
    assert took < 0.5, took          # ~15 ms on the host; the guest is ~13x slower


def test_show_starts_without_heavy_imports(tmp_path):
    """rbti show's time in the TCG guest is mostly start-up: each module
    imported is tens of ms there.  dataclasses (inspect, ast, dis, ...),
    typing, shutil (bz2, lzma), the drgn walk and the fuzzer's rooms
    (fuzz, opstream, treerun, shrink) must stay out of it."""
    import os
    import subprocess
    import sys
    from rbtilib.dump import format_dump
    path = tmp_path / "t.dump"
    path.write_text(format_dump(build_tree(list(range(50)), SANTOS_AUG)))
    rbti = os.path.join(os.path.dirname(__file__), os.pardir, "rbti")
    code = ("import pkgutil, runpy, sys  # runpy imports pkgutil, typing\n"
            "base = set(sys.modules)\n"
            f"sys.argv = ['rbti', 'show', {str(path)!r}]\n"
            "try:\n"
            f"    runpy.run_path({rbti!r}, run_name='__main__')\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print(' '.join(sorted(set(sys.modules) - base)))\n")
    # From tools/, where the script finds rbtilib.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         cwd=os.path.dirname(rbti), text=True, check=True,
                         timeout=60).stdout
    loaded = set(out.split("\n")[-2].split())
    assert "rbtilib.show" in loaded
    heavy = {"dataclasses", "inspect", "typing", "shutil", "ast", "bz2",
             "lzma", "rbtilib.kernel", "rbtilib.fuzz", "rbtilib.opstream",
             "rbtilib.treerun", "rbtilib.shrink"}
    assert not loaded & heavy, sorted(loaded & heavy)


@pytest.mark.drgn
def test_rbti_runs_without_site_and_kernel_still_finds_drgn():
    """rbti's shebang is ``python3 -S`` (site's .pth hooks are a third of
    its start in the guest); the one subcommand that needs dist-packages
    (drgn, for `rbti kernel`) must still find it."""
    import os
    import subprocess
    import sys
    tools = os.path.join(os.path.dirname(__file__), os.pardir)
    with open(os.path.join(tools, "rbti")) as f:
        assert f.readline().split() == ["#!/usr/bin/python3", "-S"]
    code = ("import sys\n"
            "assert 'site' not in sys.modules\n"
            "from rbtilib.kernel import debuginfo\n"
            "print(debuginfo._drgn().__name__)\n")
    # From tools/, as the script finds rbtilib: beside it.
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=tools,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "drgn\n"
