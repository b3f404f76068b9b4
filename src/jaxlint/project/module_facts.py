"""What one module tells the rest of the project (``jaxlint.project.index``), read cheaply from its bytes.

Every file of a run gets its imports from a regular expression over its text (no parse: an ``ast`` parse of every
file would cost as much as the whole lint). Only a file that spells ``thread_resources``, ``pjit`` or
``_shardings_hlo`` somewhere is parsed with ``ast``, to say whether it really uses them. Facts are plain JSON data
(lists, strings, booleans): they are cached with the results and handed to worker processes as they are.

The facts over-approximate, as JAX401's fix safety needs: a ``pjit`` whose shardings are anything but ``None`` or
concrete ``Sharding`` objects counts as running with ``PartitionSpec``s; a file ``ast`` cannot parse counts as using
whatever it spells.
"""
from __future__ import annotations

import ast
import bisect
import re
import warnings
from typing import Any

FIELDS = frozenset({"in_shardings_hlo", "out_shardings_hlo"})
SHARDING_KEYWORDS = frozenset({"in_shardings", "out_shardings", "in_axis_resources", "out_axis_resources"})
# Calls that build a concrete ``Sharding`` (no ``PartitionSpec`` without a mesh), by their last name.
CONCRETE_SHARDINGS = frozenset({"NamedSharding", "SingleDeviceSharding", "PositionalSharding", "GSPMDSharding"})

# What stands before an ``import`` keyword on its line: nothing (``import a.b as c, d``) or ``from <module>``.
_FROM = re.compile(rb"[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+\Z")
_NAMES_END = re.compile(rb"[\n;#]")
_COMMENT = re.compile(rb"#[^\n]*")

Facts = dict[str, Any]  # {"imports": [[level, module, [names]]], "thread_resources": bool, "pjit_specs": bool,
#                         "hlo_classes": [class names]}


_SPELLED = (b"thread_resources", b"pjit", b"_shardings_hlo")
_NON_ASCII = re.compile(rb"[\x80-\xff]+")


def spelled(data: bytes) -> tuple[bytes, ...]:
    """The names the facts are about that ``data`` spells: ``module_facts`` parses it when there is any."""
    return tuple(word for word in _SPELLED if word in data)


def module_facts(data: bytes, tree: ast.Module | None = None, spells: tuple[bytes, ...] | None = None) -> Facts:
    """``tree``: the module's ``ast`` parse, when the caller has it (of its text as jaxlint decodes it); ``spells``:
    ``spelled(data)``, when the caller has it."""
    facts: Facts = {"imports": _imports(data), "thread_resources": False, "pjit_specs": False, "hlo_classes": []}
    if spells is None:
        spells = spelled(data)
    if not spells:
        return facts
    if tree is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            facts["thread_resources"] = b"thread_resources" in spells
            facts["pjit_specs"] = b"pjit" in spells
            return facts
    _read_tree(tree, facts, classes=b"_shardings_hlo" in spells, lines=_spelling_lines(data, spells))
    return facts


def _spelling_lines(data: bytes, spells: tuple[bytes, ...]) -> list[int] | None:
    """The lines (1-based, sorted) where a name the facts are about may be spelled: each spelled word's and, in a
    file that is not ASCII, every line with a non-ASCII character (an identifier spelled with one may be such a
    name: Python normalizes identifiers, NFKC). Statements on no such line hold none of those names. None where
    ``ast``'s lines may not be the lines between ``\n``s (a ``\r`` ends a line too), or its names not the bytes
    (a coding comment may name an encoding in which ASCII bytes spell other letters: UTF-7)."""
    second_line_end = data.find(b"\n", data.find(b"\n") + 1)
    if b"\r" in data or b"coding" in (data if second_line_end < 0 else data[:second_line_end]):
        return None
    positions = []
    for word in spells:
        position = data.find(word)
        while position >= 0:
            positions.append(position)
            position = data.find(word, position + len(word))
    if not data.isascii():
        positions.extend(match.start() for match in _NON_ASCII.finditer(data))
    positions.sort()
    lines, line, counted = [], 1, 0
    for position in positions:
        line += data.count(b"\n", counted, position)
        counted = position
        lines.append(line)
    return lines


def _imports(data: bytes) -> list[list]:
    """``[level, module, names]`` of every import statement, found from each ``import`` keyword (a fast search; a
    regular expression anchored at line starts tries every position). Statements inside strings count too:
    harmless, an extra import only makes the analysis more careful."""
    found: list[list] = []
    position = data.find(b"import")
    while position >= 0:
        after = position + 6
        line_start = data.rfind(b"\n", 0, position) + 1
        head = data[line_start:position].rsplit(b";", 1)[-1]  # ``x = 1; import os``
        if after < len(data) and data[after:after + 1] in (b" ", b"\t", b"(", b"\\"):
            if not head.strip(b" \t"):
                found.extend([0, name, []] for name in _names(_rest_of_statement(data, after)))
            else:
                match = _FROM.match(head)
                if match is not None:
                    names = [name for name in _names(_rest_of_statement(data, after)) if name != "*"]
                    found.append([len(match.group(1)), match.group(2).decode("ascii", "replace"), names])
        position = data.find(b"import", after)
    return found


def _rest_of_statement(data: bytes, start: int) -> bytes:
    """The names after ``import``: up to the line's end, or the closing parenthesis, across ``\\`` newlines."""
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    rest = data[start:end]
    if rest.lstrip(b" \t").startswith(b"("):
        close = data.find(b")", start)
        return _COMMENT.sub(b"", data[start:close if close >= 0 else len(data)]).replace(b"(", b" ")
    while rest.rstrip(b"\r").endswith(b"\\") and end < len(data):  # ``import a, \`` then the next line
        following = data.find(b"\n", end + 1)
        following = len(data) if following < 0 else following
        rest = rest.rstrip(b"\r")[:-1] + b" " + data[end + 1:following]
        end = following
    match = _NAMES_END.search(rest)
    return rest[:match.start()] if match is not None else rest


def _names(text: bytes) -> list[str]:
    """``a.b as c, d`` -> ``["a.b", "d"]``."""
    names = []
    for part in text.split(b","):
        words = part.split()
        if words:
            names.append(words[0].decode("ascii", "replace"))
    return names


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


# Child fields per node class, without those that never hold a node of interest (as ``ast_gate`` walks).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(name for name in cls._fields if name not in ("ctx", "op", "type_comment", "kind"))
    for cls in (getattr(ast, attr) for attr in dir(ast))
    if isinstance(cls, type) and issubclass(cls, ast.AST)
}


_STATEMENTS = frozenset(cls for cls in _CHILD_FIELDS if issubclass(cls, ast.stmt))


def _read_tree(tree: ast.Module, facts: Facts, *, classes: bool = True, lines: list[int] | None = None) -> None:
    """One walk, parents before children (a callee is known as such when it is reached); an explicit stack, as
    ``ast_gate`` does (several times faster than ``ast.walk``). ``classes``: whether a class may define a field of
    ``FIELDS`` (a file that does not spell one has none to find: its classes are not searched). ``lines``: where
    the names may be spelled (``_spelling_lines``): a statement on none of them is not walked."""
    judged: set[int] = set()  # ``pjit`` names judged as a call's callee or ``partial``'s argument
    Call, Attribute, Name, ImportFrom, ClassDef, Load, AST = (
        ast.Call, ast.Attribute, ast.Name, ast.ImportFrom, ast.ClassDef, ast.Load, ast.AST)
    statements = _STATEMENTS if lines is not None else ()
    stack: list = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in statements and not _on_lines(node, lines):
            continue
        if kind is Call:
            callee = _last_name(node.func)
            if callee == "pjit":
                judged.add(id(node.func))
                if isinstance(node.func, Attribute):
                    judged.add(id(node.func.value))  # ``pjit.pjit(...)``: the module
                if _has_spec_shardings(node, 1):
                    facts["pjit_specs"] = True
            elif callee == "partial" and node.args and _last_name(node.args[0]) == "pjit":
                judged.add(id(node.args[0]))
                if _has_spec_shardings(node, 2):
                    facts["pjit_specs"] = True
        elif kind is Attribute or kind is Name:
            name = node.attr if kind is Attribute else node.id
            if name == "thread_resources":
                facts["thread_resources"] = True
            elif name == "pjit" and type(node.ctx) is Load and id(node) not in judged:
                # ``step = pjit``, ``@pjit``, ``jax.experimental.pjit`` as a value: not followed, so it counts.
                facts["pjit_specs"] = True
            if kind is Name:
                continue
        elif kind is ImportFrom:
            if any(alias.name == "thread_resources" for alias in node.names):
                facts["thread_resources"] = True
            continue
        elif kind is ClassDef and classes and _defines_field(node):
            facts["hlo_classes"].append(node.name)
        for field_name in _CHILD_FIELDS.get(kind, ()):
            value = getattr(node, field_name)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                stack.append(value)


def _on_lines(statement: ast.stmt, lines: list[int]) -> bool:
    """Whether the statement (its decorators included: they stand above its first line) spans one of ``lines``."""
    first = statement.lineno
    for decorator in getattr(statement, "decorator_list", ()):
        first = min(first, decorator.lineno)
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= statement.end_lineno


def _has_spec_shardings(call: ast.Call, positional_functions: int) -> bool:
    if len(call.args) > positional_functions or any(isinstance(a, ast.Starred) for a in call.args):
        return True  # shardings passed by position, or maybe in ``*args``
    for keyword in call.keywords:
        if keyword.arg is None:
            return True  # ``**kwargs`` may hold them
        if keyword.arg in SHARDING_KEYWORDS and not _spec_free(keyword.value):
            return True
    return False


def _spec_free(value: ast.expr, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(_spec_free(element, depth + 1) for element in value.elts)
    if isinstance(value, ast.Call):
        return _last_name(value.func) in CONCRETE_SHARDINGS
    return False  # a name, a helper's result...: may hold specs


def _defines_field(node: ast.ClassDef) -> bool:
    for statement in ast.walk(node):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in FIELDS:
            return True
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
            targets = [statement.target]
        for target in targets:
            if (isinstance(target, ast.Name) and target.id in FIELDS) \
                    or (isinstance(target, ast.Attribute) and target.attr in FIELDS):
                return True
    return False
