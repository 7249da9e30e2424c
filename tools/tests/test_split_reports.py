# SPDX-License-Identifier: GPL-2.0
"""kmod/patches/split-reports: make patches' corruption boot takes
DEBUG_RBTREE's own warning blocks out of the kernel log, and only those;
what it keeps must still show any other report to qemu/log-check."""

import os
import subprocess

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
SPLIT = os.path.join(REPO, "kmod", "patches", "split-reports")
LOG_CHECK = os.path.join(REPO, "qemu", "log-check")
TEXT = "rb_erase corruption: "


def block(message: str, end: bool = True) -> str:
    lines = ["[   10.1] ------------[ cut here ]------------",
             f"[   10.1] {message}",
             "[   10.1] WARNING: CPU: 0 PID: 77 at lib/rbtree_debug.c:144 x+0x1/0x2",
             "[   10.1] Call Trace:", "[   10.1]  <TASK>"]
    if end:
        lines.append("[   10.2] ---[ end trace 0000000000000000 ]---")
    return "\r\n".join(lines) + "\r\n"


def split(tmp_path, text: str) -> tuple[int, str, str, int]:
    log = tmp_path / "guest.log"
    log.write_text(text)
    kept, cut = tmp_path / "kept.log", tmp_path / "cut.log"
    kept.write_text("stale\n")
    cut.write_text(f"stale {TEXT}\n")
    done = subprocess.run([SPLIT, str(log), TEXT, str(kept), str(cut)],
                          capture_output=True, text=True, check=True, timeout=30)
    check = subprocess.run([LOG_CHECK, str(kept)], capture_output=True, timeout=30)
    return int(done.stdout), kept.read_text(), cut.read_text(), check.returncode


def test_the_reports_go_and_the_rest_is_clean(tmp_path):
    ours = block(f"{TEXT}node is not a child of its parent (node=ffff888000001000, ...)")
    n, kept, cut, check = split(tmp_path, "boot\r\n" + ours + "middle\r\n" + ours + "end\r\n")
    assert n == 2 and cut.count("WARNING:") == 2
    assert kept == "boot\nmiddle\nend\n" and check == 0


def test_another_warning_stays_and_fails_the_check(tmp_path):
    ours = block(f"{TEXT}parent links to node from both sides (node=ffff888000002000, ...)")
    other = block("list_add corruption. prev->next should be next")
    n, kept, cut, check = split(tmp_path, ours + other)
    assert n == 1 and "list_add corruption" in kept and "list_add" not in cut
    assert check == 1


def test_an_unended_block_is_kept_even_if_it_is_ours(tmp_path):
    """A block the log ends in (the guest died in it) is not taken out."""
    ours = block(f"{TEXT}node's left child has another parent (node=ffff888000003000, ...)")
    n, kept, cut, check = split(tmp_path, ours + block(f"{TEXT}x", end=False))
    assert n == 1 and check == 1 and kept.count(TEXT) == 1


def test_a_block_cut_short_by_another_is_kept(tmp_path):
    ours = block(f"{TEXT}node is not in a tree (RB_EMPTY_NODE) (node=ffff888000004000, ...)")
    n, kept, cut, check = split(tmp_path, block(f"{TEXT}first", end=False) + ours)
    assert n == 1 and kept.count(TEXT) == 1 and check == 1
