# SPDX-License-Identifier: GPL-2.0
"""pip install of the checkout, as docs/your-kernel.md gives it: into a
fresh ``python3 -m venv --system-site-packages`` with Debian's own pip
and setuptools (``--no-index --no-build-isolation``), then the installed
commands run.  The system Python is not touched: everything lands in the
test's directory.  The sources are copied there first, because the build
writes build/ and an .egg-info next to pyproject.toml."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "tools/rbtilib",
           "viz/rbtiviz", "docs/man", "tools/completion")
"""What pyproject.toml and setup.py build from (its packages, readme, data
files, the census's C core)."""
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=120, **kw)


@pytest.mark.slow
def test_pip_install_into_a_venv_gives_the_commands(tmp_path):
    src = tmp_path / "src"
    for rel in SOURCES:
        origin, dest = REPO / rel, src / rel
        if origin.is_dir():
            shutil.copytree(origin, dest, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, dest)
    venv = tmp_path / "venv"
    made = run([PYTHON, "-m", "venv", "--system-site-packages", venv])
    if made.returncode != 0:
        pytest.skip(f"no venv here (apt-get install python3-venv): {made.stderr.strip()}")
    bin_ = venv / "bin"
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path), "LC_ALL": "C.UTF-8",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1"}
    pip = run([bin_ / "python", "-m", "pip", "install", "--no-index",
               "--no-build-isolation", src], env=env)
    assert pip.returncode == 0, pip.stdout + pip.stderr

    version = run([bin_ / "rbti", "--version"], env=env)
    assert version.returncode == 0 and version.stdout.startswith("rbti "), version.stderr
    census = run([bin_ / "rbti", "census", "--help"], env=env)
    assert census.returncode == 0 and census.stdout.startswith("usage: rbti census")
    doctor = run([bin_ / "rbti", "doctor", "--json"], env=env)
    assert doctor.returncode in (0, 1), doctor.stderr
    doc = json.loads(doctor.stdout)
    assert doc["command"] == "doctor" and doc["ok"] is (doctor.returncode == 0)
    render = run([bin_ / "rbti-render", "--help"], env=env)
    assert render.returncode == 0 and render.stdout.startswith("usage: rbti-render")
    walk = run([bin_ / "rbti-walkthrough", "--version"], env=env)
    assert walk.returncode == 0 and walk.stdout.startswith("rbti-walkthrough ")

    # From the installed package, not the checkout: its data files too
    # (the viewer's page and script are put inline in the .html).
    where = run([bin_ / "python", "-c", "import rbtilib, rbtiviz; "
                 "print(rbtilib.__file__); print(rbtiviz.__file__)"], env=env, cwd=tmp_path)
    assert all(str(venv) in line for line in where.stdout.splitlines()), where.stdout
    # The census's C core: the extension setup.py built, loaded by ctypes.
    core = run([bin_ / "python", "-c", "from rbtilib.kernel import ccore; "
                "print(ccore.library()[1])"], env=env, cwd=tmp_path)
    assert core.returncode == 0 and "/_rbti_cc" in core.stdout and \
        str(venv) in core.stdout, core.stdout + core.stderr
    page = tmp_path / "santos.html"
    drawn = run([bin_ / "rbti-render", REPO / "docs" / "examples" / "santos.dump",
                 "-o", page], env=env, cwd=tmp_path)
    assert drawn.returncode == 0, drawn.stderr
    assert "viewer" in page.read_text(encoding="utf-8").lower()
    share = venv / "share"
    assert (share / "man" / "man1" / "rbti.1").is_file()
    assert (share / "bash-completion" / "completions" / "rbti").is_file()
