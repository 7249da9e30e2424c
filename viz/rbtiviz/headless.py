# SPDX-License-Identifier: GPL-2.0
"""Headless Chromium for the viewer's tests and the README's screenshots.

Every call runs Debian's ``chromium`` in its own session and a throwaway
profile, under a timeout after which its whole process group is killed.
:func:`selftest` loads a viewer page with ``?selftest`` (the page drives
itself, see :mod:`rbtiviz.viewer`) and returns the JSON it wrote.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

WINDOW = (1200, 800)
TIMEOUT = 120


def chromium() -> str:
    """Path of the browser; FileNotFoundError if it is not installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise FileNotFoundError("chromium not found (qemu/install-deps installs it)")


def run(args: list[str], timeout: float = TIMEOUT,
        window: tuple[int, int] = WINDOW) -> str:
    """Run chromium headless with *args*; return its stdout.

    RuntimeError if it fails or outlives *timeout* (then it is killed).
    """
    with tempfile.TemporaryDirectory(prefix="rbti-chromium-") as profile:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--no-first-run", "--mute-audio",
               "--disable-extensions", "--disable-background-networking",
               f"--user-data-dir={profile}",
               f"--window-size={window[0]},{window[1]}"] + args
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise RuntimeError(f"chromium timed out after {timeout} s: {' '.join(args)}")
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): "
                           f"{err.decode(errors='replace')[-2000:]}")
    return out.decode(errors="replace")


def url(page: str | Path, query: str = "", fragment: str = "") -> str:
    """A file:// URL for *page*."""
    return Path(page).resolve().as_uri() + (f"?{query}" if query else "") + \
        (f"#{fragment}" if fragment else "")


def dump_dom(page: str | Path, query: str = "", fragment: str = "",
             timeout: float = TIMEOUT) -> str:
    """The DOM of *page* after its load-time scripts ran."""
    return run(["--dump-dom", url(page, query, fragment)], timeout)


def selftest(page: str | Path, fragment: str = "", timeout: float = TIMEOUT) -> dict:
    """Load *page* with ``?selftest``; return the results it wrote."""
    dom = dump_dom(page, "selftest", fragment, timeout)
    found = re.search(r'<pre id="selftest">(.*?)</pre>', dom, re.S)
    if not found:
        raise RuntimeError(f"no self-test result in the page: {dom[-2000:]}")
    return json.loads(html.unescape(found.group(1)))


def screenshot(page: str | Path, png: str | Path, fragment: str = "",
               window: tuple[int, int] = WINDOW, timeout: float = TIMEOUT) -> Path:
    """Save a PNG of *page* as a *window*-sized browser shows it."""
    png = Path(png).resolve()
    run([f"--screenshot={png}", url(page, "", fragment)], timeout, window)
    if not png.exists():
        raise RuntimeError(f"chromium wrote no screenshot {png}")
    return png
