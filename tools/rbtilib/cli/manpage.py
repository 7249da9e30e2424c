# SPDX-License-Identifier: GPL-2.0
"""A man page (roff, the man macros) made from an argparse command line.

:func:`manpage` writes NAME, SYNOPSIS, DESCRIPTION, OPTIONS, one
subsection a subcommand under COMMANDS (its usage, description,
arguments, options and epilog) and the sections the caller adds.  The
text is argparse's own: the descriptions, each option's help with its
``%(default)s`` filled in, the usage lines at no width limit.  Nothing in
it depends on the terminal, the date or the machine, so that the
committed page can be compared with a fresh one (tools/gen-cli-docs).
"""

import argparse
import re


def escape(text: str) -> str:
    """*text* for roff: backslashes and hyphens escaped (``\\-`` is the
    ASCII hyphen-minus a reader can copy), characters beyond ASCII by
    their code point, a leading dot or quote protected."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # groff reads Latin-1 unless told: other characters by their code point.
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line
                     for line in text.split("\n"))


def usage_of(p: argparse.ArgumentParser) -> str:
    """*p*'s usage on one line, without ``usage:``."""
    fmt = argparse.HelpFormatter(p.prog, width=1 << 16)
    fmt.add_usage(p.usage, p._actions, p._mutually_exclusive_groups, prefix="")
    return " ".join(fmt.format_help().split())


def help_of(p: argparse.ArgumentParser, action: argparse.Action) -> str:
    """An action's help with ``%(default)s`` and the like filled in."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return argparse.HelpFormatter(p.prog)._expand_help(action)


def prose(text: str) -> str:
    """Paragraphs of help text as roff: a paragraph of plain lines is
    filled; one with indented lines (a list of exit statuses, examples)
    keeps its lines, under its heading line."""
    out = []
    for para in re.split(r"\n\s*\n", text.strip("\n")):
        lines = para.split("\n")
        if not any(line[:1].isspace() for line in lines):
            out.append(".PP\n" + escape(" ".join(line.strip() for line in lines)))
            continue
        head = []
        if not lines[0][:1].isspace():
            head, lines = [lines[0]], lines[1:]
        indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
        body = "\n".join(line[indent:] for line in lines)
        out.append(".PP\n" + (escape(head[0]) + "\n" if head else "")
                   + ".RS 4\n.nf\n" + escape(body) + "\n.fi\n.RE")
    return "\n".join(out)


def _term(action: argparse.Action) -> str:
    """The term of an option's or argument's .TP: ``\\fB-o\\fR, \\fB--output\\fR
    \\fIFILE\\fR``."""
    if not action.option_strings:
        return f"\\fI{escape(action.metavar or action.dest)}\\fR"
    names = ", ".join(f"\\fB{escape(o)}\\fR" for o in action.option_strings)
    if action.nargs == 0:
        return names
    if action.metavar:
        meta = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices:
        meta = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        meta = action.dest.upper()
    return f"{names} \\fI{escape(meta)}\\fR"


def arguments(p: argparse.ArgumentParser, with_help: bool = True) -> str:
    """A .TP a positional argument, then a .TP an option, ``-h`` last
    (unless not *with_help*: a subcommand's, which OPTIONS says once)."""
    acts = [a for a in p._actions if not isinstance(a, argparse._SubParsersAction)
            and a.help != argparse.SUPPRESS
            and (with_help or not isinstance(a, argparse._HelpAction))]
    acts.sort(key=lambda a: (bool(a.option_strings), isinstance(a, argparse._HelpAction)))
    return "\n".join(f".TP\n{_term(a)}\n{escape(help_of(p, a))}" for a in acts)


def subparsers(p: argparse.ArgumentParser) -> dict:
    """Name -> parser of *p*'s subcommands, in the order they were added."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def manpage(p: argparse.ArgumentParser, *, name: str, source: str, manual: str,
            summary: str, sections=(), header=()) -> str:
    """The man page (section 1) of the command line *p*, called *name*.

    *source*: the .TH footer (``rbti 1.2``); *manual*: its title;
    *summary*: NAME's line; *sections*: ``(TITLE, text)`` pairs after
    COMMANDS (text as :func:`prose` takes it); *header*: comment lines
    on top."""
    subs = subparsers(p)
    out = [f'.\\" {line}' for line in header]
    out.append(f'.TH {name.upper()} 1 "" "{escape(source)}" "{escape(manual)}"')
    # No hyphenation, ragged right: options and paths stay whole.
    out += [".nh", ".ad l"]
    out += [".SH NAME", f"{escape(name)} \\- {escape(summary)}", ".SH SYNOPSIS"]
    usages = [usage_of(p)] + [usage_of(sp) for sp in subs.values()]
    out.append("\n.br\n".join(escape(u) for u in usages))
    out += [".SH DESCRIPTION", prose(p.description or summary)]
    if p.epilog:
        out.append(prose(p.epilog))
    out += [".SH OPTIONS", arguments(p)]
    if subs:
        out += [".SH COMMANDS", ".PP\nEvery command takes \\fB\\-h\\fR, "
                "\\fB\\-\\-help\\fR: its own usage and options."]
        for sub, sp in subs.items():
            out += [f'.SS "{escape(sp.prog)}"', escape(usage_of(sp))]
            if sp.description:
                out.append(prose(sp.description))
            out.append(arguments(sp, with_help=False))
            if sp.epilog:
                out.append(prose(sp.epilog))
    for title, text in sections:
        out += [f".SH {title}", prose(text)]
    return "\n".join(out) + "\n"
