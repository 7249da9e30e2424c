# SPDX-License-Identifier: GPL-2.0
"""Flipbooks: a series of snapshots of one tree, browsable offline.

Usage (the fuzzer's view)::

    from rbtiviz.flipbook import Series

    with Series("out/flip", "santos", every=10) as series:
        for op in operations:
            result = apply(op)
            series.add(parse_dump(read_dump()), caption=f"{op} -> {result}",
                       highlight=[touched_id])

This writes ``out/flip/santos/frame_00001.svg``, ``frame_00002.svg``, ...
(one frame every ``every`` operations, plus one for the last state), then on
close ``out/flip/santos/index.html`` (the flipbook), ``frames.json`` (the
same data for scripts) and ``out/flip/index.html`` (links to every tree's
flipbook under ``out/flip``).

Where Graphviz is slow or missing (the fuzzer in the QEMU guest), a
*deferred* series (``render=False``) saves each frame's dump instead,
``frame_00001.dump`` ..., and ``frames.json`` with what is needed to draw
them; :func:`render_series` later draws every deferred series under a
directory (``viz/render --flipbook DIR`` on the host), giving the same
frames and pages the eager series would have written.

API:

``Series(outdir, tree_name, every=1, fmt="svg", render=True, **render_opts)``
    ``outdir/tree_name/`` is created; frames, frame dumps, ``index.html``
    and ``frames.json`` left there by an earlier series are removed.
    ``fmt`` is ``svg`` or ``png``; ``render_opts`` go to
    :func:`rbtiviz.render.to_dot` (``max_depth``, ``collapse_over``,
    ``title``, ``highlight_violation``).  ``render=False`` defers drawing
    (see above); then ``render_opts`` must be JSON values.
``Series.add(tree, caption, highlight=(), force=False, ops=1) -> Path | None``
    Records *ops* operations, described by *caption*, and the tree after
    them.  Once ``every`` operations have been recorded since the last
    frame (or with ``force``, e.g. on a failure) it makes a frame and
    returns its path (the frame's dump when deferred); the frame's
    caption lists every caption since the previous frame.  The tree is
    not copied: do not mutate it before the frame is made.
``Series.close() -> Path``
    Makes a frame of the last state if it has none yet, writes
    ``frames.json`` and (unless deferred) the index pages, and returns
    the path of the tree's ``index.html`` (deferred: of ``frames.json``).
    Also called on leaving a ``with`` block, even by an exception.
``render_series(outdir) -> list[Path]``
    Draws the frames of every deferred series in a directory under
    *outdir*, writes their pages and ``outdir/index.html``, and returns
    the paths of the trees' ``index.html``.  Rendered series are left
    alone, so a second call does nothing.

``frames.json`` is ``{"tree": NAME, "frames": [FRAME, ...]}``, each FRAME
``{"file", "first_op", "last_op", "ops", "count", "height", "highlight"}``;
a deferred series adds ``"deferred": {"render_opts": {...}}``,
which :func:`render_series` removes.

The pages work offline from ``file://`` with no external assets.  A
tree's ``index.html`` is the tree viewer (:mod:`rbtiviz.viewer`) in
flipbook mode: every frame's tree is embedded, the nodes and links that
changed since the previous frame are drawn in blue, and each frame has a
short caption computed by diffing it with the previous one
(:mod:`rbtiviz.diff`: "insert 25: recolour 20, rotate left at 10"; with
``every=1`` there is one frame per operation, so each rotation is seen).
The buttons (first, prev, play, next, last) or the arrow keys step
through frames, Home/End go to the first/last, PageUp/PageDown jump by
ten, space plays/pauses; the URL fragment (``#12``) selects a frame.
A latch tree's frames hold both its copies: the copy button (or ``l``)
switches between them, each with its own changes highlighted, and the
frame images draw the two side by side.
Under the viewer, a list links each frame's image with its full
operation list.
"""
from __future__ import annotations

import errno
import html
import json
import os
import re
from pathlib import Path
from string import Template
from typing import Iterable

from rbtilib.dump import Tree, format_dump, parse_dump, read_dump_file

from .copies import copies
from .diff import OP_NAMES, caption, describe_op, diff
from .layout import layout
from .render import write_snapshot
from .titles import plural
from .viewer import tree_data, viewer_html

FRAME_PATTERN = "frame_{:05d}.{}"
FRAME_GLOB = re.compile(r"frame_\d{5}\.(svg|png|dump)$")
DUMP_SUFFIX = ".dump"
INDEX = "index.html"
FRAMES_JSON = "frames.json"
_SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]+$")


class Series:
    """Snapshots of one tree, written as frames plus an HTML flipbook."""

    def __init__(self, outdir: str | Path, tree_name: str, every: int = 1,
                 fmt: str = "svg", render: bool = True, **render_opts) -> None:
        if not _SAFE_NAME.match(tree_name) or tree_name in (".", ".."):
            raise ValueError(f"tree name {tree_name!r} is not a plain directory name")
        if every < 1:
            raise ValueError(f"every must be at least 1, not {every}")
        if fmt not in ("svg", "png"):
            raise ValueError(f"frame format must be svg or png, not {fmt!r}")
        self.outdir = Path(outdir)
        self.tree_name = tree_name
        self.dir = self.outdir / tree_name
        self.every = every
        self.fmt = fmt
        self.render = render
        self.render_opts = render_opts
        self.frames: list[dict] = []
        self._trees: list[Tree] = []
        self._ops = 0
        self._pending_ops = 0
        self._pending: list[str] = []
        self._last: tuple[Tree, tuple[int, ...]] | None = None
        self._closed = False
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.iterdir():
            if FRAME_GLOB.match(old.name) or old.name in (INDEX, FRAMES_JSON):
                old.unlink()

    def __enter__(self) -> Series:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, tree: Tree, caption: str, highlight: Iterable[int] = (),
            force: bool = False, ops: int = 1) -> Path | None:
        """Record *ops* operations; make a frame every ``every`` operations."""
        if self._closed:
            raise RuntimeError(f"series {self.tree_name} is closed")
        if ops < 1:
            raise ValueError(f"ops must be at least 1, not {ops}")
        self._ops += ops
        self._pending_ops += ops
        self._pending.append(caption)
        self._last = (tree, tuple(highlight))
        if force or self._pending_ops >= self.every:
            return self._frame()
        return None

    def _frame(self) -> Path:
        """Make a frame of the last tree added: draw it or save its dump."""
        assert self._last is not None
        tree, highlight = self._last
        frame = {
            "file": FRAME_PATTERN.format(len(self.frames) + 1, self.fmt),
            "first_op": self._ops - self._pending_ops + 1,
            "last_op": self._ops,
            "ops": self._pending,
            "count": tree.count,
            "height": tree.height,
            "highlight": list(highlight),
        }
        if self.render:
            path = _draw_frame(self.dir, frame, tree, self.render_opts)
        else:
            path = _dump_path(self.dir, frame)
            path.write_text(format_dump(tree))
        self.frames.append(frame)
        if self.render:
            self._trees.append(tree)
        self._pending = []
        self._pending_ops = 0
        return path

    def close(self) -> Path:
        """Make the last frame if needed, write frames.json and the pages."""
        if not self._closed:
            if self._pending:
                self._frame()
            self._closed = True
            if not self.render:
                return _write_frames_json(self.dir, self.tree_name, self.frames,
                                          {"render_opts": self.render_opts})
            _write_pages(self.dir, self.tree_name, self.frames, self._trees)
            write_top_index(self.outdir)
        return self.dir / (INDEX if self.render else FRAMES_JSON)


def _dump_path(tree_dir: Path, frame: dict) -> Path:
    """Where a deferred frame's dump is kept: the frame's name, ``.dump``."""
    return tree_dir / Path(frame["file"]).with_suffix(DUMP_SUFFIX)


def _draw_frame(tree_dir: Path, frame: dict, tree: Tree, render_opts: dict) -> Path:
    """Draw one frame's image (eager and deferred series alike)."""
    return write_snapshot(tree, tree_dir / frame["file"], highlight=frame["highlight"],
                          **render_opts)


def _write_frames_json(tree_dir: Path, tree_name: str, frames: list[dict],
                       deferred: dict | None = None, summary: str = "") -> Path:
    """Write ``frames.json``; *deferred* says how to draw the frames later."""
    data: dict = {"tree": tree_name, "frames": frames}
    if deferred is not None:
        data["deferred"] = deferred
    if summary:
        data["summary"] = summary
    path = tree_dir / FRAMES_JSON
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def _write_pages(tree_dir: Path, tree_name: str, frames: list[dict],
                 trees: list[Tree]) -> Path:
    """Write a rendered series' ``frames.json`` and ``index.html``."""
    _write_frames_json(tree_dir, tree_name, frames, summary=summary(frames, trees))
    path = tree_dir / INDEX
    path.write_text(flipbook_html(tree_name, frames, trees))
    return path


def render_series(outdir: str | Path) -> list[Path]:
    """Draw every deferred series under *outdir*; return their index pages.

    Each ``outdir/TREE/frames.json`` with a ``deferred`` entry has its
    frames drawn from their dumps, then its pages written as an eager
    :class:`Series` writes them, and ``outdir/index.html`` is rewritten.
    Raises OSError (*outdir* is no directory, or a file cannot be read
    or written), ValueError (a bad dump or frames.json) or the errors
    of :func:`rbtiviz.render.write_snapshot`.
    """
    outdir = Path(outdir)
    if not outdir.is_dir():
        code = errno.ENOTDIR if outdir.exists() else errno.ENOENT
        raise OSError(code, os.strerror(code), str(outdir))
    pages = []
    for data_file in sorted(outdir.glob(f"*/{FRAMES_JSON}")):
        data = read_frames_json(data_file)
        deferred = data.get("deferred")
        if deferred is None:
            continue
        tree_dir = data_file.parent
        for frame in data["frames"]:
            for path in (tree_dir / frame["file"], _dump_path(tree_dir, frame)):
                _inside(path, tree_dir, data_file)
        trees = []
        for frame in data["frames"]:
            dump = _dump_path(tree_dir, frame)
            try:
                tree = parse_dump(read_dump_file(str(dump)))
            except ValueError as err:
                raise ValueError(f"{dump}: {err}") from None
            _draw_frame(tree_dir, frame, tree, deferred["render_opts"])
            trees.append(tree)
        pages.append(_write_pages(tree_dir, data["tree"], data["frames"], trees))
    if pages:
        write_top_index(outdir)
    return pages


_FRAME_FILE = re.compile(r"frame_\d{5,}\.(svg|png)\Z", re.ASCII)
"""A frame's ``file`` in frames.json: a plain name in the tree's
directory (never a path: frames.json is input, and a frame names both
the dump it reads and the image it writes)."""
_RENDER_OPTS = {"max_depth", "collapse_over", "title", "highlight_violation",
                "layout", "fmt"}


def _bad(data_file: Path, why: str) -> ValueError:
    return ValueError(f"{data_file}: not a flipbook's frames.json ({why})")


def read_frames_json(data_file: Path) -> dict:
    """``frames.json`` checked against the form :class:`Series` writes
    (module docstring); ValueError naming the file and what is wrong:
    not JSON, not an object, a frame whose ``file`` is no plain
    ``frame_NNNNN.svg|png`` name, a field of the wrong type."""
    try:
        data = json.loads(data_file.read_text(encoding="utf-8"),
                          parse_constant=lambda c: float("nan"))
    except RecursionError:
        raise _bad(data_file, "JSON nested too deeply") from None
    except ValueError as err:       # JSONDecodeError, UnicodeDecodeError
        raise _bad(data_file, str(err)) from None
    if not isinstance(data, dict) or not isinstance(data.get("tree"), str) \
            or not isinstance(data.get("frames"), list):
        raise _bad(data_file, 'expected {"tree": NAME, "frames": [...]}')
    for n, frame in enumerate(data["frames"], 1):
        if not isinstance(frame, dict):
            raise _bad(data_file, f"frame {n} is not an object")
        name = frame.get("file")
        if not isinstance(name, str) or not _FRAME_FILE.match(name):
            raise _bad(data_file, f"frame {n}: file {name!r} is not a "
                       "frame_NNNNN.svg or .png name in its directory")
        if not all(type(frame.get(k)) is int for k in ("first_op", "last_op")) \
                or not isinstance(frame.get("ops"), list) \
                or not all(isinstance(op, str) for op in frame["ops"]) \
                or not isinstance(frame.get("highlight", []), list) \
                or not all(type(h) is int for h in frame.get("highlight", [])):
            raise _bad(data_file, f"frame {n}: first_op, last_op, ops or "
                       "highlight of the wrong type")
        frame.setdefault("highlight", [])
    deferred = data.get("deferred")
    if deferred is not None and (
            not isinstance(deferred, dict) or
            not isinstance(deferred.get("render_opts"), dict) or
            not set(deferred["render_opts"]) <= _RENDER_OPTS):
        raise _bad(data_file, "deferred must be {\"render_opts\": {...}} "
                   f"with options among {', '.join(sorted(_RENDER_OPTS))}")
    return data


def _inside(path: Path, tree_dir: Path, data_file: Path) -> None:
    """ValueError unless *path*, symlinks resolved, lies in *tree_dir*,
    itself in the flipbook directory (a link to elsewhere would make
    render_series read or write outside it)."""
    home = tree_dir.resolve()
    if home.parent != tree_dir.parent.resolve() or \
            path.resolve().parent != home:
        raise _bad(data_file, f"{path.name} leads outside {tree_dir} "
                   "(a symbolic link)")


def frame_heading(frame: dict) -> str:
    """Which operations led to a frame: ``op 7`` or ``ops 11–20``."""
    first, last = frame["first_op"], frame["last_op"]
    return f"op {last}" if first == last else f"ops {first}\u2013{last}"


def frame_caption(frame: dict) -> str:
    """One line naming the operations that led to a frame."""
    return f"{frame_heading(frame)}: " + "; ".join(frame["ops"])


def _frame_ops(frame: dict) -> list[str]:
    """The single operations of a frame (an add's caption may list several)."""
    return [op for caption in frame["ops"] for op in caption.split("; ")]


def summary(frames: list[dict], trees: list[Tree]) -> str:
    """One line for the index: the operations by kind, the rebalancing
    seen (when frames are one operation apart), the largest tree."""
    kinds: dict = {}
    for frame in frames:
        for op in _frame_ops(frame):
            name = describe_op(op).split(" ")[0]
            if name in OP_NAMES.values():
                kinds[name] = kinds.get(name, 0) + 1
    parts = [", ".join(plural(n, kind) for kind, n in kinds.items())
             or plural(len(frames), "frame")]
    diffs = [diff(a, b) for a, b in zip(trees, trees[1:])]
    if diffs and all(d.exact or not d.moved for d in diffs):
        parts.append(plural(sum(len(d.rotations) for d in diffs), "rotation") + ", "
                     + plural(sum(len(d.recoloured) for d in diffs), "recolour"))
    elif diffs:
        apart = max(f["last_op"] - f["first_op"] + 1 for f in frames)
        parts.append(f"frames up to {apart} operations apart" if apart > 1
                     else "rotations guessed")
    if trees:
        parts.append(f"up to {max(t.count for t in trees)} nodes, "
                     f"height {max(t.height for t in trees)}")
    return "; ".join(parts)


def _changes(data: dict, previous: Tree | None, tree: Tree, frame: dict,
             d=None) -> None:
    """Put in *data* the nodes and links of *tree* (indices into its
    layout) that changed since *previous*, and the frame's highlights."""
    d = d or diff(previous, tree)
    index = {nid: i for i, nid in enumerate(layout(tree).ids)}
    changed = [] if previous is None else d.changed
    changed = list(dict.fromkeys(changed + list(frame.get("highlight", ()))))
    data.update(changed=[index[n] for n in changed if n in index],
                newlinks=[] if previous is None else
                [index[n] for n in d.relinked if n in index])


def viewer_frames(frames: list[dict], trees: list[Tree]) -> list[dict]:
    """The viewer's data for each frame: the tree, a short caption from the
    difference with the previous frame, and the changed nodes and links
    (indices into the frame's nodes) to highlight; a latch tree's copy 1
    has its own (:mod:`rbtiviz.copies`), from the previous frame's copy 1."""
    out = []
    previous = before = None
    for frame, tree in zip(frames, trees):
        data = tree_data(tree)
        d = diff(previous, tree)
        _changes(data, previous, tree, frame, d)
        data.update(heading=frame_heading(frame), file=frame["file"],
                    caption=caption(previous, tree, _frame_ops(frame), d))
        parts = copies(tree)
        if data["copy1"] is not None:
            _changes(data["copy1"], before, parts[1].tree, frame)
        out.append(data)
        previous, before = tree, parts[-1].tree if len(parts) > 1 else None
    return out


def flipbook_html(tree_name: str, frames: list[dict], trees: list[Tree]) -> str:
    """The flipbook page for one tree's frames: the tree viewer
    (:mod:`rbtiviz.viewer`) stepping through *trees*, plus the list of
    frame images with the full operation lists."""
    items = "\n".join(
        f'<li><a href="{html.escape(f["file"])}">{html.escape(f["file"])}</a> '
        f"{html.escape(frame_caption(f))}</li>" for f in frames)
    extra = (f'<details id="framelist"><summary>{len(frames)} frames: images and '
             f'every operation</summary>\n<ol id="frames">\n{items}\n</ol>\n</details>')
    return viewer_html(f"{tree_name}: {len(frames)} frames",
                       viewer_frames(frames, trees), mode="flipbook", extra=extra)


_TOP = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rbtree-inspector flipbooks</title>
<style>
body { font-family: sans-serif; margin: 1em 2em; color: #212121; }
td, th { padding: .2em 1em; text-align: left; }
</style>
</head>
<body>
<h1>rbtree-inspector flipbooks</h1>
<table>
<tr><th>tree</th><th>frames</th><th>what happens</th></tr>
$rows
</table>
</body>
</html>
""")


def write_top_index(outdir: str | Path) -> Path:
    """Write ``outdir/index.html`` linking every flipbook directly under it."""
    outdir = Path(outdir)
    rows = []
    for data_file in sorted(outdir.glob(f"*/{FRAMES_JSON}")):
        try:
            data = read_frames_json(data_file)
        except ValueError:
            continue                # not a flipbook of ours: no row
        frames = data["frames"]
        name = data_file.parent.name
        ops = frames[-1]["last_op"] if frames else 0
        line = data.get("summary") or plural(ops, "operation")
        rows.append(f'<tr><td><a href="{html.escape(name)}/{INDEX}">{html.escape(name)}</a>'
                    f"</td><td>{len(frames)}</td><td>{html.escape(line)}</td></tr>")
    path = outdir / INDEX
    path.write_text(_TOP.substitute(rows="\n".join(rows)))
    return path
