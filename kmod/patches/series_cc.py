# SPDX-License-Identifier: GPL-2.0
"""Who the series is sent to: gen-series' Cc: lists.

scripts/get_maintainer.pl --nogit on each patch, without the submitter,
and the rbtree library's copyright holders as MAINTAINERS lists them (the
library has no MAINTAINERS entry, and a tree without git history gives
get_maintainer.pl nothing else to go on); the cover letter gets the union.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path


class EditError(Exception):
    """An anchor of an edit is missing or ambiguous."""


def get_maintainers(ksrc: Path, patches: list[str]) -> list[list[str]]:
    """The addresses scripts/get_maintainer.pl gives for each of @patches in
    @ksrc.  The runs go side by side: each spends most of its time parsing
    MAINTAINERS, and on a loaded machine one at a time took minutes."""
    script = ksrc / "scripts" / "get_maintainer.pl"
    if not (script.is_file() and (ksrc / "MAINTAINERS").is_file()):
        raise EditError(f"{ksrc}: no MAINTAINERS or scripts/get_maintainer.pl")
    runs = []
    for patch in patches:
        with tempfile.TemporaryFile("w+") as src:
            src.write(patch)
            src.seek(0)
            runs.append(subprocess.Popen(
                ["perl", str(script), "--nogit", "--nogit-fallback", "--no-rolestats"],
                stdin=src, cwd=ksrc, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True))
    found = []
    try:
        for run in runs:
            out, err = run.communicate(timeout=200)
            if run.returncode:
                raise EditError(f"get_maintainer.pl: {err.strip()}")
            found.append([line.strip() for line in out.splitlines() if line.strip()])
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait()
    return found


def get_maintainer(ksrc: Path, patch: str) -> list[str]:
    """The addresses scripts/get_maintainer.pl gives for @patch in @ksrc."""
    return get_maintainers(ksrc, [patch])[0]


def cc_lists(ksrc: Path, patches: list[str], ident: str) -> list[list[str]]:
    """cc_list() of each of @patches, get_maintainer.pl run side by side."""
    return [[address for address in found if email_of(address) != email_of(ident)]
            for found in get_maintainers(ksrc, patches)]


def cc_list(ksrc: Path, patch: str, ident: str) -> list[str]:
    """Cc: what get_maintainer.pl makes of @patch, but the submitter.

    The MAINTAINERS entry that patch 1 adds lists the submitter, and
    qemu/patches generates in the tree being patched, whose MAINTAINERS
    carries it from patch 1 on; make test's series-check generates
    against the untouched tree.  Both must give the same series.
    """
    return [address for address in get_maintainer(ksrc, patch)
            if email_of(address) != email_of(ident)]


# The rbtree library's files: whoever their copyright lines name and
# MAINTAINERS lists (under the address it lists) is Cc'd on the library's
# patches.  MAINTAINERS has no rbtree entry, and a tree without git history
# gives get_maintainer.pl nothing else to go on.
LIBRARY_FILES = ("lib/rbtree.c", "include/linux/rbtree.h",
                 "include/linux/rbtree_augmented.h", "include/linux/rbtree_latch.h",
                 "include/linux/interval_tree_generic.h")


def library_authors(ksrc: Path) -> list[str]:
    """The library's copyright holders that MAINTAINERS lists, as it lists them."""
    maintainers = (ksrc / "MAINTAINERS").read_text(errors="replace")
    found: list[str] = []
    for name in LIBRARY_FILES:
        path = ksrc / name
        if not path.is_file():
            raise EditError(f"{path}: missing (the library's Cc: comes from it)")
        for holder in re.findall(r"\(C\)\s+(?:\d{4}\s+)?(?:[^,<\n]*,\s*)?"
                                 r"([A-Z][\w.-]+(?: [A-Z][\w.-]+)+)\s*<", path.read_text()):
            listed = re.search(rf"^[MR]:\s+({re.escape(holder)} <[^>]+>)$", maintainers,
                               flags=re.MULTILINE)
            if listed and listed.group(1) not in found:
                found.append(listed.group(1))
    return found


def email_of(address: str) -> str:
    """The mailbox of 'Name <mailbox>' (or of a bare mailbox), lowercased."""
    match = re.search(r"<([^>]+)>", address)
    return (match.group(1) if match else address).strip().lower()


def add_cover_cc(outdir: Path, cc: list[str]) -> None:
    """Cc: the union of the patches' addresses on the cover letter."""
    cover = outdir / "0000-cover-letter.patch"
    text = cover.read_text()
    head, sep, body = text.partition("\n\n")
    if not sep or "\nDate: " not in head:
        raise EditError(f"{cover}: no mail header")
    lines = head.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("Date: ")) + 1
    lines[at:at] = [f"Cc: {address}" for address in cc]
    cover.write_text("\n".join(lines) + sep + body)
