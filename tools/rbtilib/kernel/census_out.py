# SPDX-License-Identifier: GPL-2.0
"""What ``rbti census`` writes: its JSON document and ``--out DIR``.

``--out DIR`` writes every non-empty tree read as
``DIR/NNNNN-NAME.dump`` (the dump format of kmod/DEBUGFS.md, which ``rbti
check``, ``rbti show`` and ``viz/render`` take) and ``DIR/index.html``: a
table of the kinds, then a line a tree (its kind, route, nodes, verdict)
linking its dump and its viewer page ``NNNNN-NAME.html``, which ``viz/render DUMP -o PAGE`` draws
(the index gives the command; drawing is left to the host).
"""

import html
import os

from .. import jsondoc
from .commands import _safe_name


def _violation(inst, res, v) -> dict:
    addr = {i: a for a, i in res.ids.items()}.get(v.node)
    return {"tree": inst.name, "kind": inst.kind, "route": inst.route,
            **jsondoc.violation(v),
            "address": None if addr is None else f"{addr:#x}"}


def document(c) -> str:
    """The ``census --json`` document (docs/json.md)."""
    kinds = [{"kind": s.kind, "routes": sorted(s.routes), "trees": s.trees,
              "nodes": s.nodes, "deepest": s.deepest,
              "violations": s.violations, "changing": s.changing,
              "unreadable": s.unreadable, "checks": s.order}
             for s in sorted(c.kinds.values(), key=lambda s: s.kind)]
    bad = [_violation(i, r, v) for i, r in c.violations()
           for v in r.violations[:10]]
    return jsondoc.document("census", {
        "ok": c.status() == 0, "complete": c.complete(),
        "seconds": round(c.seconds, 3),
        "trees": sum(s.trees for s in c.kinds.values()),
        "nodes": sum(s.nodes for s in c.kinds.values()),
        "changing": c.count("changing"),
        "unreadable": c.count("unreadable"),
        "stopped": c.stopped, "not_read": c.not_read,
        "checker": c.checker, "checker_trees": c.checked(), "kinds": kinds,
        "violations": bad,
        "missing": [{"kind": k, "why": w}
                    for k, w in sorted(c.missing.items())],
        "notes": c.notes})


def _file_name(i: int, name: str) -> str:
    return f"{i:05d}-{_safe_name(name)[:80]}"


def write_out(c, outdir: str) -> int:
    """Every tree read as a dump, and the index page; returns the number
    of dumps written."""
    os.makedirs(outdir, exist_ok=True)
    rows, written = [], 0
    for i, (inst, res) in enumerate(c.results):
        text = res.text()
        base = _file_name(i, inst.name)
        if text is not None:
            with open(os.path.join(outdir, base + ".dump"), "w") as f:
                f.write(text)
            written += 1
        verdict = res.state if not res.violations else \
            f"{res.state}: {res.violations[0]}"
        links = (f'<a href="{base}.dump">dump</a> '
                 f'<a href="{base}.html">viewer</a>') if text else ""
        rows.append(f"<tr><td>{html.escape(inst.name)}</td>"
                    f"<td>{html.escape(inst.kind)}</td>"
                    f"<td>{html.escape(inst.route)}</td>"
                    f"<td>{res.nodes}</td><td>{html.escape(verdict)}</td>"
                    f"<td>{links}</td></tr>")
    kinds = "".join(
        f"<tr><td>{html.escape(s.kind)}</td><td>{s.trees}</td>"
        f"<td>{s.nodes}</td><td>{s.deepest}</td><td>{s.violations}</td>"
        f"<td>{s.changing}</td><td>{s.unreadable}</td></tr>"
        for s in sorted(c.kinds.values(), key=lambda s: s.kind))
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>rbti census</title>
<style>body{{font-family:sans-serif}} td,th{{padding:0 .6em}}
tr:nth-child(even){{background:#f4f4f4}}</style></head><body>
<h1>rbti census</h1>
<p>{len(c.results)} trees in {c.seconds:.1f} s. The viewer pages are
drawn from the dumps: <code>for d in DIR/*.dump; do viz/render "$d" -o
"${{d%.dump}}.html"; done</code>.</p>
<h2>Kinds</h2>
<table><tr><th>kind</th><th>trees</th><th>nodes</th><th>deepest</th>
<th>violations</th><th>changing</th><th>unreadable</th></tr>{kinds}</table>
<h2>Trees</h2>
<table><tr><th>tree</th><th>kind</th><th>route</th><th>nodes</th>
<th>verdict</th><th></th></tr>{"".join(rows)}</table>
</body></html>
"""
    with open(os.path.join(outdir, "index.html"), "w") as f:
        f.write(page)
    return written
