# SPDX-License-Identifier: GPL-2.0
"""viz/walkthrough's command line: --help, and --dumps, a flipbook of
saved dumps on the host (docs/your-kernel.md)."""

import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "viz" / "walkthrough"
EXAMPLES = REPO / "docs" / "examples"


def walkthrough(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_help_exits_0_and_names_both_uses():
    r = walkthrough("--help")
    assert r.returncode == 0 and r.stderr == ""
    assert "OUTDIR [TREE...]" in r.stdout and "--dumps OUTDIR" in r.stdout


def test_no_arguments_is_a_usage_error():
    r = walkthrough()
    assert r.returncode == 2 and "usage:" in r.stderr


def test_a_flipbook_of_saved_dumps(tmp_path):
    files = [str(EXAMPLES / "santos.dump"), str(EXAMPLES / "santos-red-root.dump")]
    r = walkthrough("--dumps", str(tmp_path), *files)
    assert r.returncode == 0, r.stderr
    index = Path(r.stdout.strip())
    assert index == tmp_path / "santos" / "index.html" and index.exists()
    frames = json.loads((tmp_path / "santos" / "frames.json").read_text())["frames"]
    assert [f["ops"] for f in frames] == [["santos.dump"], ["santos-red-root.dump"]]
    assert all((tmp_path / "santos" / f["file"]).read_text().lstrip().startswith(("<?xml", "<svg"))
               for f in frames)
    assert (tmp_path / "index.html").exists()


def test_dumps_with_a_name(tmp_path):
    r = walkthrough("--dumps", str(tmp_path), "--name", "mine", str(EXAMPLES / "santos.dump"))
    assert r.returncode == 0 and (tmp_path / "mine" / "index.html").exists()


def test_a_bad_dump_is_named_with_exit_1(tmp_path):
    bad = tmp_path / "bad.dump"
    bad.write_text("tree x\napi santos\n")
    r = walkthrough("--dumps", str(tmp_path / "out"), str(EXAMPLES / "santos.dump"), str(bad))
    assert r.returncode == 1 and str(bad) in r.stderr and "Traceback" not in r.stderr


def test_dumps_of_different_apis_are_refused(tmp_path):
    r = walkthrough("--dumps", str(tmp_path), str(EXAMPLES / "santos.dump"),
                    str(EXAMPLES / "interval.dump"))
    assert r.returncode == 1 and "one flipbook is one tree" in r.stderr
