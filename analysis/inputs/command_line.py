"""Words given on the command line: `main(argv=None)` builds an argparse parser, adds
`--age` and `--sex`, and reads the person from `parser.parse_args(argv)`; a script reads
`age = int(sys.argv[1])`. Each option a parser declares (in the function, in a function of
the module it calls, or at the module's top) is an input of its own, named by where argparse
keeps it, typed by `type=`, closed to its `choices=`, described by its `help=`; a
sub-command's options are given after its name. Each `sys.argv[i]` the function reads is the
i-th word. The parameter handed to `parse_args` is left None, so argparse reads `sys.argv`,
which the harness writes from these inputs (harness/runner.py COMMAND_LINE)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from analysis.caches import Cache
from analysis.execution.harness.runner import COMMAND, COMMAND_LINE
from analysis.facts.module import ModuleFacts
from analysis.facts.param_docs import first_clause
from analysis.inputs.answers import NUMBER_READERS, own_nodes
from analysis.source.functions import FunctionNode
from analysis.values import MISSING

__all__ = ["COMMAND", "COMMAND_LINE", "Option", "command_line"]
PARSING = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
# What a parser's method gives that takes options for the same parser.
SAME_PARSER = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
TYPES = frozenset({"int", "float", "str", "bool"})
MAX_HELPERS = 2  # how deep the calls are followed to where the parser is built
READS_COMMAND_LINE: Cache[None, bool] = Cache("the module reads a command line")


@dataclass
class Option:
    """One word (or option and its value) of the command line: `key` is how the harness
    writes it ("--age", a positional's name, "heart --age" for a sub-command's option)."""

    key: str
    name: str
    annotation: ast.expr | None = None
    choices: list[Any] = field(default_factory=list)
    default: Any = MISSING
    help: str = ""


@dataclass
class CommandLine:
    """What `fn` reads from its command line, and its parameters handed to `parse_args`."""

    options: list[Option]
    handed_on: set[str]


def command_line(fn: FunctionNode, facts: ModuleFacts) -> CommandLine | None:
    """The command line `fn` parses with argparse, else the `sys.argv` words it reads."""
    if not facts.caches.once(READS_COMMAND_LINE, lambda: reads_command_line(facts.tree)):
        return None  # most modules: nothing to walk for
    nodes_of: dict[int, list[ast.AST]] = {}

    def nodes(part: FunctionNode) -> list[ast.AST]:
        if id(part) not in nodes_of:
            nodes_of[id(part)] = own_nodes(part)[0]
        return nodes_of[id(part)]

    scope = parsing_scope(fn, facts.functions, nodes)
    if scope is None:
        words = argv_words(fn)
        return CommandLine(words, set()) if words else None
    declaring = [node for part in scope for node in nodes(part)]
    if not any(is_parser_call(node) for node in declaring):
        declaring += [node for stmt in facts.tree.body for node in ast.walk(stmt)]  # the module's
    options = declared_options(declaring, facts.const)
    parsers = {part.name for part in scope[1:] if any(map(is_parsing, nodes(part)))}
    handed_on = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    handed_on &= {name.id for node in nodes(fn) for name in handed_names(node, parsers)}
    return CommandLine(options, handed_on) if options else None


def reads_command_line(module: ast.Module) -> bool:
    """Whether the module parses a command line or reads `sys.argv` anywhere."""
    return any(
        isinstance(node, ast.Attribute) and (node.attr in PARSING or node.attr == "argv")
        for node in ast.walk(module)
    )


def parsing_scope(
    fn: FunctionNode,
    functions: dict[str, FunctionNode],
    nodes: Callable[[FunctionNode], list[ast.AST]],
) -> list[FunctionNode] | None:
    """`fn` and the module's functions it calls, to MAX_HELPERS deep, when one of them
    parses a command line (`parser.parse_args(...)`); else None."""
    scope, todo, parses = [fn], [(fn, 0)], False
    while todo:
        part, depth = todo.pop()
        for node in nodes(part):
            parses = parses or is_parsing(node)
            called = node.func if isinstance(node, ast.Call) else None
            helper = functions.get(called.id) if isinstance(called, ast.Name) else None
            if helper is not None and helper not in scope and depth < MAX_HELPERS:
                scope.append(helper)
                todo.append((helper, depth + 1))
    return scope if parses else None


def is_parsing(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in PARSING
    )


def is_parser_call(node: ast.AST) -> bool:
    called = node.func if isinstance(node, ast.Call) else None
    name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
    return name == "ArgumentParser"


def handed_names(node: ast.AST, parsers: set[str]) -> list[ast.Name]:
    """The names a call hands to `parse_args`, or to a function of the module that
    calls it (`args = parse_arguments(argv)`)."""
    if not isinstance(node, ast.Call):
        return []
    called = node.func
    if not is_parsing(node) and not (isinstance(called, ast.Name) and called.id in parsers):
        return []
    given = [*node.args, *(k.value for k in node.keywords)]
    return [value for value in given if isinstance(value, ast.Name)]


def declared_options(nodes: list[ast.AST], const: Callable[[ast.expr], Any]) -> list[Option]:
    """The options the parsers among `nodes` declare, in source order: those of a
    sub-command keyed after its name, with the sub-command itself first (COMMAND)."""
    commands: dict[str, str | None] = {}  # parser variable -> its sub-command ("" the main)
    chooser = ""  # where argparse keeps the sub-command's name
    names: list[str] = []
    options: list[Option] = []
    for node in sorted(
        (n for n in nodes if isinstance(n, (ast.Assign, ast.Call))),
        key=lambda n: (n.lineno, n.col_offset),
    ):
        if isinstance(node, ast.Assign):
            target = node.targets[0] if len(node.targets) == 1 else None
            made = node.value
            if isinstance(target, ast.Name) and isinstance(made, ast.Call):
                method = made.func.attr if isinstance(made.func, ast.Attribute) else ""
                owner = made.func.value if isinstance(made.func, ast.Attribute) else None
                if method == "add_parser":
                    name = const(made.args[0]) if made.args else None
                    commands[target.id] = name if isinstance(name, str) else None
                elif method in SAME_PARSER and isinstance(owner, ast.Name):
                    commands[target.id] = commands.get(owner.id, "")
                elif method == "add_subparsers":
                    chooser = text_keyword(made, "dest", const) or "command"
            continue
        called = node.func
        if not isinstance(called, ast.Attribute):
            continue
        if called.attr == "add_parser" and node.args and isinstance(const(node.args[0]), str):
            names.append(const(node.args[0]))
        if called.attr != "add_argument":
            continue
        owner = called.value
        command = commands.get(owner.id, "") if isinstance(owner, ast.Name) else ""
        option = declared_option(node, const)
        if option is not None and command is not None:
            option.key = f"{command} {option.key}" if command else option.key
            options.append(option)
    if names:
        options.insert(0, Option(COMMAND, chooser or "command", choices=names, default=names[0]))
    return options


def declared_option(call: ast.Call, const: Callable[[ast.expr], Any]) -> Option | None:
    """One `add_argument(...)`: "--body-weight" is kept as `body_weight`."""
    flags = [const(arg) for arg in call.args]
    if not flags or not all(isinstance(flag, str) and flag for flag in flags):
        return None
    longest = max(flags, key=lambda flag: (flag.startswith("--"), len(flag)))
    name = text_keyword(call, "dest", const) or longest.lstrip("-").replace("-", "_")
    # What the help says first: "needs --sex" further on is no description of this one.
    option = Option(longest, name, help=first_clause(text_keyword(call, "help", const) or ""))
    action = text_keyword(call, "action", const) or ""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if action in {"store_true", "store_false"}:
        option.annotation, option.default = ast.Name("bool", ast.Load()), False
        return option
    if action not in {"", "store"} or "nargs" in keywords:
        return None  # counts, appends and lists: no one word of a person
    typed = keywords.get("type")
    if isinstance(typed, ast.Name) and typed.id in TYPES:
        option.annotation = ast.Name(typed.id, ast.Load())
    choices = const(keywords["choices"]) if "choices" in keywords else None
    if isinstance(choices, (list, tuple)):
        option.choices = [c for c in choices if isinstance(c, (str, int, float))]
    default = const(keywords["default"]) if "default" in keywords else None
    if isinstance(default, (str, int, float, bool)):
        option.default = default
    return option


def text_keyword(call: ast.Call, name: str, const: Callable[[ast.expr], Any]) -> str | None:
    found = next((k.value for k in call.keywords if k.arg == name), None)
    value = const(found) if found is not None else None
    return value if isinstance(value, str) else None


def argv_words(fn: FunctionNode) -> list[Option]:
    """`age = int(sys.argv[1])`: the words of `sys.argv` the function reads, by position,
    named by the variable each is kept in; the ones between that none keeps, by number."""
    read: dict[int, Option] = {}
    nodes, _ = own_nodes(fn)
    for node in nodes:
        if isinstance(node, ast.Subscript) and argv_position(node) is not None:
            position = argv_position(node)
            assert position is not None
            read.setdefault(position, Option(f"argv{position}", f"argv{position}"))
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            position, reader = word_read(node.value)
            if isinstance(target, ast.Name) and position is not None:
                word = Option(target.id, target.id)
                if reader:
                    word.annotation = ast.Name(reader, ast.Load())
                read[position] = word
    if not read:
        return []
    return [read.get(i, Option(f"argv{i}", f"argv{i}")) for i in range(1, max(read) + 1)]


def argv_position(node: ast.Subscript) -> int | None:
    """`sys.argv[2]` -> 2 (the program's own name, 0, is no input)."""
    seq, index = node.value, node.slice
    if not (
        isinstance(seq, ast.Attribute)
        and seq.attr == "argv"
        and isinstance(seq.value, ast.Name)
        and seq.value.id == "sys"
        and isinstance(index, ast.Constant)
        and isinstance(index.value, int)
        and not isinstance(index.value, bool)
    ):
        return None
    return index.value if index.value >= 1 else None


def word_read(value: ast.expr) -> tuple[int | None, str]:
    """The `sys.argv` word an assigned value reads, through `int(...)`, `.lower()`..."""
    reader = ""
    while True:
        if isinstance(value, ast.Subscript):
            return argv_position(value), reader
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.args:
            if value.func.id in NUMBER_READERS:
                reader = "float" if value.func.id == "Decimal" else value.func.id
            value = value.args[0]
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value
        else:
            return None, ""
