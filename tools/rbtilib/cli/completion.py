# SPDX-License-Identifier: GPL-2.0
"""Bash completion made from an argparse command line.

:func:`bash_completion` writes one function that completes, from the
parser's own definitions: the subcommands, each one's options, the
values of an option with choices, files or directories for an option
whose value names one (by its metavar: FILE, DIR, VMCORE...), and for a
positional TREE the live trees (the first word of each line of the
module's ``trees`` file, when it can be read) and files.  Nothing in it
depends on the machine it was made on (tools/gen-cli-docs compares the
committed file with a fresh one).
"""

import argparse

from .manpage import subparsers

FILE_WORDS = ("FILE", "DUMP", "VMCORE", "VMLINUX", "PATH")
DIR_WORDS = ("DIR",)


def _words(words) -> str:
    return " ".join(words)


def _value_kind(action: argparse.Action) -> str:
    """What completes an option's value: ``choices``, ``file``, ``dir`` or
    ``none`` (a number, a name, an expression: nothing to offer)."""
    if action.choices:
        return "choices"
    meta = str(action.metavar or action.dest).upper()
    if any(w in meta for w in DIR_WORDS) or action.dest in ("root", "params", "out"):
        return "dir"
    if any(w in meta for w in FILE_WORDS) or action.dest in (
            "output", "vmlinux", "kcore", "core", "debug_info"):
        return "file"
    return "none"


def _options(p: argparse.ArgumentParser) -> list:
    return [o for a in p._actions for o in a.option_strings]


def _positional(p: argparse.ArgumentParser) -> str:
    """How a positional word completes: ``trees`` (a TREE), ``files``, or
    ``none``."""
    for a in p._actions:
        if a.option_strings or isinstance(a, argparse._SubParsersAction):
            continue
        if "TREE" in str(a.metavar or ""):
            return "trees"
        return "files"
    return "none"


def _literals(action: argparse.Action) -> list:
    """The words of a metavar such as ``N|all|auto``: ``all``, ``auto``."""
    meta = action.metavar if isinstance(action.metavar, str) else ""
    return [w for w in meta.split("|") if "|" in meta and w.isalpha() and w.islower()]


def _case_values(p: argparse.ArgumentParser, indent: str) -> list:
    """The ``case $prev`` arms of *p*'s options that take a value."""
    arms = []
    for a in p._actions:
        if not a.option_strings or a.nargs == 0:
            continue
        kind = _value_kind(a)
        pattern = "|".join(a.option_strings)
        words = list(map(str, a.choices)) if kind == "choices" else _literals(a)
        if words:
            action = f'COMPREPLY=($(compgen -W "{_words(words)}" -- "$cur"))'
        elif kind == "file":
            action = 'COMPREPLY=($(compgen -f -- "$cur"))'
        elif kind == "dir":
            action = 'COMPREPLY=($(compgen -d -- "$cur"))'
        else:
            action = "COMPREPLY=()"
        arms.append(f"{indent}{pattern}) {action}; return ;;")
    return arms


def _body(p: argparse.ArgumentParser, indent: str, fn: str, words=None) -> list:
    """The completion of one (sub)command's words: an option's value, an
    option, or a positional word (*words*: the subcommands, for the top
    parser of subcommands)."""
    arms = _case_values(p, indent + "    ")
    lines = [f"{indent}case $prev in", *arms, f"{indent}esac"] if arms else []
    lines.append(f'{indent}if [[ $cur == -* ]]; then')
    lines.append(f'{indent}    COMPREPLY=($(compgen -W "{_words(_options(p))}" -- "$cur"))')
    kind = "words" if words else _positional(p)
    if kind == "words":
        lines += [f"{indent}else",
                  f'{indent}    COMPREPLY=($(compgen -W "{_words(words)}" -- "$cur"))']
    elif kind == "trees":
        lines += [f"{indent}else",
                  f'{indent}    COMPREPLY=($(compgen -W "$({fn}_trees)" -- "$cur") '
                  '$(compgen -f -- "$cur"))']
    elif kind == "files":
        lines += [f"{indent}else", f'{indent}    COMPREPLY=($(compgen -f -- "$cur"))']
    lines.append(f"{indent}fi")
    return lines


def bash_completion(p: argparse.ArgumentParser, *, fn: str, commands, header=(),
                    trees_file: str = "/sys/kernel/debug/rbtree_inspector/trees") -> str:
    """The bash completion of *p* as function *fn*, registered for each
    name of *commands* (``rbti``, a path such as ``viz/render``; bash
    also finds ``rbti``'s for ``tools/rbti``, by its last component)."""
    subs = subparsers(p)
    takes_value = [o for a in p._actions if a.option_strings and a.nargs != 0
                   for o in a.option_strings]
    out = [f"# {line}" for line in header]
    out.append("# shellcheck shell=bash disable=SC2207 # COMPREPLY=($(compgen ...)), "
               "bash-completion's own idiom")
    if any(_positional(sp) == "trees" for sp in [p, *subs.values()]):
        out += [f"{fn}_trees()", "{",
                f"    [[ -r {trees_file} ]] && "
                f"awk 'NR > 1 {{ print $1 }}' {trees_file} 2>/dev/null",
                "}", ""]
    out += [f"{fn}()", "{",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    COMPREPLY=()"]
    if subs:
        # The subcommand: the first word that is neither an option nor
        # the value of one.
        out += ["    local i cmd=",
                "    for ((i = 1; i < COMP_CWORD; i++)); do",
                "        case ${COMP_WORDS[i]} in"]
        if takes_value:
            out.append(f"            {'|'.join(takes_value)}) ((i++)) ;;")
        out += ["            -*) ;;",
                "            *) cmd=${COMP_WORDS[i]}; break ;;",
                "        esac",
                "    done",
                "    case $cmd in",
                "    '')"]
        out += _body(p, "        ", fn, words=list(subs))
        out.append("        ;;")
        for name, sp in subs.items():
            out.append(f"    {name})")
            out += _body(sp, "        ", fn)
            out.append("        ;;")
        out.append("    esac")
    else:
        out += _body(p, "    ", fn)
    out += ["}", f"complete -o filenames -F {fn} {' '.join(commands)}"]
    return "\n".join(out) + "\n"
