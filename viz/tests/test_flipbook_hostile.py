# SPDX-License-Identifier: GPL-2.0
"""``viz/render --flipbook DIR`` against a hostile ``frames.json``: a
document that is no object, frames that name a path instead of a file in
their directory, symbolic links out of DIR.  Each is refused with a
message and exit 1, and nothing is read or written outside DIR."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rbtiviz.flipbook import Series
from tests_support.dumps import DUMP_7, RENDER_CLI, tree_of


def deferred(outdir: Path) -> Path:
    """A deferred two-frame series under *outdir*; its frames.json."""
    with Series(outdir, "santos", every=1, render=False) as series:
        series.add(tree_of(DUMP_7), "i 1")
        series.add(tree_of(DUMP_7), "i 2")
    return outdir / "santos" / "frames.json"


def flipbook(outdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(RENDER_CLI), "--flipbook", str(outdir)],
                          capture_output=True, text=True, check=False,
                          timeout=120)


def edit(data_file: Path, change) -> None:
    data = json.loads(data_file.read_text())
    data = change(data)
    data_file.write_text(data if isinstance(data, str) else json.dumps(data))


def frame_file(name: str):
    def change(data):
        data["frames"][0]["file"] = name
        return data
    return change


@pytest.mark.parametrize("change", [
    lambda d: [d], lambda d: "3", lambda d: {"tree": "santos"},
    lambda d: {"tree": "santos", "frames": [7], "deferred": {}},
    lambda d: "[" * 100_000 + "]" * 100_000, lambda d: "{\"tree\": NaN",
    lambda d: dict(d, deferred={"render_opts": {"evil": 1}}),
    lambda d: dict(d, deferred=[]),
    lambda d: dict(d, frames=[dict(d["frames"][0], first_op="1")]),
], ids=["list", "string", "no-frames", "frame-not-object", "deep", "nan",
        "unknown-opt", "deferred-list", "op-not-int"])
def test_malformed_frames_json(tmp_path, change):
    """A frames.json that is not the form Series writes: exit 1 naming
    it, no traceback."""
    data_file = deferred(tmp_path / "out")
    edit(data_file, change)
    proc = flipbook(tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{data_file}: not a flipbook's frames.json" in proc.stderr


@pytest.mark.parametrize("name", [
    "{OUT}/frame_00001.svg", "../frame_00001.svg", "../../evil.svg",
    "frame_00001.svg/..", "sub/frame_00001.svg", "frame_00001.dump",
    "index.html", "", "frame_00001.svg\x00"])
def test_frame_file_is_a_plain_name(tmp_path, name):
    """A frame's file that is absolute or holds a directory: refused
    before anything is read or written (no dump beside it is read, no
    image written there)."""
    out = tmp_path / "out"
    data_file = deferred(out)
    target = tmp_path / "frame_00001.dump"
    target.write_text(DUMP_7)
    edit(data_file, frame_file(name.replace("{OUT}", str(tmp_path))))
    proc = flipbook(out)
    assert proc.returncode == 1 and "not a frame_NNNNN.svg" in proc.stderr, \
        proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["frame_00001.dump", "out"]


def test_symlinks_out_of_the_directory(tmp_path):
    """A frame's dump or image that is a symbolic link out of DIR, or a
    tree directory that is one: refused, the target left alone."""
    out = tmp_path / "out"
    data_file = deferred(out)
    victim = tmp_path / "victim.svg"
    victim.write_text("keep me")
    image = out / "santos" / "frame_00001.svg"
    image.symlink_to(victim)
    proc = flipbook(out)
    assert proc.returncode == 1 and "leads outside" in proc.stderr, proc.stderr
    assert victim.read_text() == "keep me"
    image.unlink()
    dump = out / "santos" / "frame_00002.dump"
    secret = tmp_path / "secret.dump"
    secret.write_text(DUMP_7)
    dump.unlink()
    dump.symlink_to(secret)
    proc = flipbook(out)
    assert proc.returncode == 1 and "frame_00002.dump leads outside" in \
        proc.stderr, proc.stderr
    dump.unlink()
    dump.write_text(DUMP_7)
    elsewhere = tmp_path / "elsewhere"
    os.rename(out / "santos", elsewhere)
    (out / "santos").symlink_to(elsewhere)
    proc = flipbook(out)
    assert proc.returncode == 1 and "leads outside" in proc.stderr, proc.stderr
    assert not (elsewhere / "frame_00001.svg").exists()
    assert data_file.exists()
