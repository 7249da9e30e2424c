# SPDX-License-Identifier: GPL-2.0
"""The ``--json`` documents of rbti (described in docs/json.md).

Every document is one JSON object on one line: ``schema`` (this module's
:data:`SCHEMA`), ``command``, then the command's fields.  Keys and aug
values are JSON numbers, or ``"0x..."`` strings for the fields a dump's
``hex`` line (or ``--hex``) marks as addresses or sizes.
"""

from .dump import HEX_FIELDS, number_text, tree_rule

SCHEMA = 1


def document(command: str, body: dict) -> str:
    """The JSON text of *command*'s document."""
    import json
    return json.dumps({"schema": SCHEMA, "command": command, **body})


def ref(value):
    """A link: an id, null (NIL) or "?" (no node of this tree)."""
    return value if value is None or isinstance(value, int) else "?"


def violation(v) -> dict:
    return {"class": v.cls, "node": v.node, "message": v.message}


def node(tree, n) -> dict:
    def num(field, value):
        return value if field not in tree.hex or value is None \
            else number_text(tree, field, value)
    out = {"id": n.id, "key": num("key", n.key), "color": n.color,
           "parent": ref(n.parent), "left": ref(n.left),
           "right": ref(n.right), "aug": num("aug", n.aug)}
    if t_value(tree):
        out["value"] = n.value
    return out


def t_value(t) -> bool:
    """True if *t*'s nodes carry a VALUE (its ``value`` header)."""
    return getattr(t, "value", None) is not None


def tree(t) -> dict:
    """A parsed dump (docs/json.md, "tree"); ``name`` is an alias of
    ``tree``, which every document names a tree by."""
    return {"tree": t.name, "name": t.name, "api": t.api,
            "flags": sorted(t.flags),
            "count": t.count, "allocated": t.allocated,
            "root": ref(t.root), "leftmost": ref(t.leftmost),
            "rightmost": ref(t.rightmost), "height": t.height,
            "aug": t.aug, "aug_rule": tree_rule(t), "error": t.error,
            "hex": [f for f in HEX_FIELDS if f in t.hex],
            "nodes": [node(t, n) for n in t.nodes.values()],
            "lost": [node(t, n) for n in t.lost.values()],
            **({"value": t.value} if t_value(t) else {}),
            **({"copy1": copy(t, t.copy1)} if t.copy1 is not None else {})}


def copy(t, c) -> dict:
    """A latch tree's copy 1 (docs/json.md, "tree")."""
    return {"root": ref(c.root), "height": c.height, "error": c.error,
            "nodes": [node(t, n) for n in c.nodes.values()]}
