"""Findings decided from the ast gate's tree, without libcst: for files whose findings carry no fix, or a fix whose
edits a rule can place exactly from ``ast`` (JAX503's ``flax.core.pop``, on the statement's one line).

libcst is needed to write most fixes; a finding without one needs only its place and its message. A rule that sets
``decides_from_ast`` (JAX501: flax's removed modules; JAX101/JAX402, JAX103, JAX201 and JAX401, which raise
``Undecidable`` at a site whose finding may carry a fix; JAX503, whose one-edit fix is given as offsets: ``AstFix``)
computes its findings here from the ``ast`` tree the ast
gate already parsed. The engine uses them when every rule left for the file decides so (``decide``); otherwise the
file goes to libcst as before.

Exactness matters more than coverage: the findings must be the ones the libcst visit gives, to the character. So
this view answers only what it can answer for certain, and raises ``Undecidable`` for the rest (the engine then
parses with libcst), measured against the libcst path by ``tests/test_ast_findings.py``:

- **names:** an identifier resolves as ``jaxlint.lint.names.NameResolver`` resolves it only when every binding of
  it in the whole file is an import: of one thing at module level, or else by the imports of the scope that owns the
  name (``scope_chain``); anything else (a local, a parameter, a ``global``, a star import anywhere) is undecidable,
  but for a rule whose port opts in (``AstView.star_names``): there a name that nothing binds in reach of a
  module-level star import (``ast_names``' scopes) is the star's, as the resolver has it;
- **compat code** (``jaxlint.lint.context.in_compat_code``) and ``if TYPE_CHECKING:`` (``annotations``): read
  exactly, as libcst's visitors read the tests (``AstView.is_feature_test``); a name in a test that cannot be
  resolved for certain, or a package named by an unusual string, is undecidable;
- **places:** ``ast`` counts columns in UTF-8 bytes (converted here); a node libcst would give its own parentheses
  (``(flax.optim).Adam``) and any text with a carriage return are undecidable;
- **annotations** (``jaxlint.lint.annotations``): read from the field that holds the node;
- **fixes** (``AstFix``): edits given as character offsets, located and sorted as ``jaxlint.lint.fixes.EditBuilder``
  does, with its realignment of continuation lines (``fixes.realign_continuations``, the same function) where the
  fixed expression is in a simple statement alone on its lines, or where the realignment cannot apply (the
  statement on one line, every edit on that line, ...); otherwise undecidable (a compound statement's header, a
  line of ``a; b``); an edit that inserts whole lines (an added import) realigns nothing and is set aside.
"""
from __future__ import annotations

import ast
import bisect
import builtins
import io
import keyword
import re
import sys
import tokenize
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Iterator, Sequence

from jaxlint.lint.annotations import has_future_annotations
from jaxlint.lint.ast_gate import CHILD_FIELDS, NAMED_NODES, AstFacts, collect_facts
from jaxlint.lint.ast_names import AstNames
from jaxlint.lint.diagnostics import Applicability, Diagnostic, Edit, Fix, LineIndex, WithheldFix
from jaxlint.lint.fixes import realign_continuations
from jaxlint.lint.noqa import Placements
from jaxlint.project.settings import Settings
from jaxlint.project.version_range import below_known_range, fixes_allowed

# Mirrors of jaxlint.lint.context's compat-code test (kept in step by tests/test_ast_findings.py).
_BUILTINS = frozenset(dir(builtins))
_GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})
# ``context._VERSION_ATTRIBUTES`` and ``context._TESTED_PACKAGES``
_VERSION_WORDS = frozenset({"__version__", "__version_info__"})
_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})  # ``annotations``
_TESTED_PACKAGES = ("jax", "jaxlib", "flax", "optax")


def _in_tested_package(qualified: str) -> bool:
    return qualified.split(".")[0] in _TESTED_PACKAGES


# The fields that hold a block of statements (``Lambda.body`` and ``IfExp.body`` hold one expression, not a list).
_BODIES = frozenset({"body", "orelse", "finalbody"})
# The statements whose bodies are scopes of their own (an import in one is not at module level).
_SCOPE_STATEMENTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Undecidable(Exception):
    """The answer is not certain from ``ast``: the file goes to libcst."""


@dataclass(frozen=True)
class MessageContext:
    """What a rule's message methods read of its ``RuleContext`` (none touches the libcst module): a rule instance
    made on it words its findings from ``ast`` as its visit does."""
    settings: Settings
    path: str
    file_text: str
    source: str


@dataclass(frozen=True)
class AstFix:
    """A rule's fix from ``ast``: ``FixSpec`` with its edits already as character offsets (``Edit`` without
    locations: ``_diagnostics`` locates them), and the probe's span where the fix names one."""
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]
    probe: tuple[int, int] | None = None  # character span of the expression the verifier probes (``Fix.probe``)


# Python 3.12 parses f-strings into tokens (PEP 701): the places of the nodes inside one are exact, as libcst's are.
# Before it, the nodes of a replacement field were placed by re-parsing its text, not always exactly.
_EXACT_IN_FSTRINGS = sys.version_info >= (3, 12)


@dataclass(frozen=True)
class AstFinding:
    code: str
    node: ast.AST  # the node libcst would report (its span is the finding's)
    message: str
    detail: str | None = None
    withheld: WithheldFix | None = None
    fix: AstFix | None = None


class AstView:
    """One file's ``ast`` tree, as the ast gate's walk read it (its nodes in source order, its bindings: ``AstFacts``;
    a node's parent is mapped when asked, for the statements that hold it), and the exact answers the rules may ask
    of it."""

    def __init__(self, source: str, tree: ast.Module, file_text: str | None = None, *,
                 settings: Settings | None = None, path: str = "", facts: AstFacts | None = None) -> None:
        """``facts``: the ast gate's of ``tree`` (``collect_facts``), when the caller has them; walked here if None."""
        if "\r" in source:
            raise Undecidable("ast and jaxlint count lines differently")  # ``\r`` ends a line for ast only
        self.source = source
        self.settings = settings if settings is not None else Settings()  # the file's (what rules' messages read)
        self.path = path
        self.tree = tree
        self.file_text = file_text if file_text is not None else source
        if facts is None:
            facts = collect_facts(source, tree)
        elif facts.tree is not tree:
            raise ValueError("the facts of another tree")
        self.star_import = False
        self._stars: set[str | None] = set()  # the star imports' modules (``_bind_import``)
        # the resolver's port (``names``), built when asked: a star import's file (``_unowned``), a name bound two ways
        self._names: AstNames | None = None
        self._star_names = False  # names resolved through star imports (``star_names``)
        self._imports: dict[str, set[str]] = {}  # identifier -> what module-level imports bind it to
        self._imported: dict[str, set[str]] = {}  # identifier -> what any import binds it to, in any scope
        self._other = set(facts.bound)  # identifiers bound any other way, somewhere (``_bind_import`` adds to it)
        self._import_scopes: dict[str, dict[int, set[str]]] = {}  # ``_import_in_scope``'s, per identifier
        self.nodes: list[ast.AST] = facts.nodes  # in source order
        # id(node) -> (its parent, the field that holds it): the top-level statements', then those of the statements
        # down to the innermost one that holds a node asked about (``_map_parents``)
        self._parents: dict[int, tuple[ast.AST, str]] = {id(statement): (tree, "body") for statement in tree.body}
        self._parents.update((id(ignore), (tree, "type_ignores")) for ignore in tree.type_ignores)
        # id(statement) -> the statements of its bodies, for each statement whose own nodes' parents are recorded
        self._nested: dict[int, list[ast.stmt]] = {}
        self._by_line: dict[int, tuple[list[int], list[ast.stmt]]] = {}  # ``_statements_on``'s, per statement list
        self.type_bounds = facts.type_bounds  # a type parameter with a bound (``def f[T: jnp.ndarray]``)
        if facts.imports:
            module_level = _module_level_imports(tree)
            for node in facts.imports:
                self._bind_import(node, id(node) in module_level)
        self.index = LineIndex(source)
        self._lines: list[str] | None = None
        self._of_kinds: dict[tuple[type, ...], list[ast.AST]] = {}
        self._attribute_values: set[int] | None = None  # ``is_attribute_value``'s
        self._binding_counts: dict[str, int] | None = None  # ``binding_count``'s, for every identifier
        self._definitions: dict[str, list[ast.AST]] | None = None  # ``definitions``', by name

    # -- parents -----------------------------------------------------------------------------------------------
    def _map_parents(self, node: ast.AST) -> None:
        """Record the parents of the nodes of each statement that holds ``node``'s first line, from the module's
        down to the innermost (a function's body is mapped statement by statement, as asked); of every node where
        that finds no parent for ``node`` or it has no line (``ast.arguments``)."""
        line = getattr(node, "lineno", None)
        if line is not None:
            bodies = [self.tree.body]  # the module's, then the bodies of each statement found at the depth above
            while bodies:
                inner = [self._map_statement(statement)
                         for statements in bodies for statement in self._statements_on(statements, line)]
                if id(node) in self._parents:
                    return
                bodies = inner
        statements = list(self.tree.body)
        while statements:
            statements += self._map_statement(statements.pop())

    def _statements_on(self, statements: list[ast.stmt], line: int) -> list[ast.stmt]:
        """The statements of ``statements`` (the module's body, or a list ``_map_statement`` keeps: both live as long
        as the view, so their ids key the cache) that span ``line`` (``a = 1; b = 2``: both), found by bisection
        over their first lines, sorted once per list (``_map_statement``'s joins a statement's bodies)."""
        by_line = self._by_line.get(id(statements))
        if by_line is None:
            ordered = sorted(statements, key=_first_line)
            by_line = self._by_line[id(statements)] = ([_first_line(s) for s in ordered], ordered)
        firsts, ordered = by_line
        found = []
        index = bisect.bisect_right(firsts, line) - 1
        # statements at one depth follow each other (a compound statement's bodies too; only ``a; b`` share a line):
        # going back from the last one that starts by ``line``, the first that ends before it ends the run
        while index >= 0 and ordered[index].end_lineno >= line:
            found.append(ordered[index])
            index -= 1
        return found

    def _map_statement(self, statement: ast.stmt) -> list[ast.stmt]:
        """Record the parent of every node of ``statement`` down to the statements of its bodies (those get their
        parent, not their nodes'), once; return those statements."""
        nested = self._nested.get(id(statement))
        if nested is not None:
            return nested
        nested = self._nested[id(statement)] = []
        parents, child_fields = self._parents, CHILD_FIELDS
        stack = [statement]
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            for field in child_fields[type(node)]:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if item is not None:
                            parents[id(item)] = (node, field)
                    if field in _BODIES:
                        nested += value
                    else:
                        stack += [item for item in value if item is not None]
                elif value is not None:
                    parents[id(value)] = (node, field)
                    push(value)
        return nested

    def _parent_or_none(self, node: ast.AST) -> tuple[ast.AST, str] | None:
        """``parent``, or None for the module (and for a node not in the tree)."""
        found = self._parents.get(id(node))
        if found is None and node is not self.tree:
            self._map_parents(node)
            found = self._parents.get(id(node))
        return found

    def nodes_of(self, kinds: tuple[type, ...]) -> list[ast.AST]:
        """The nodes of these kinds, in source order: one pass over the file's nodes per kinds tuple, however many
        rules ask (eleven ask for the calls alone)."""
        found = self._of_kinds.get(kinds)
        if found is None:
            found = self._of_kinds[kinds] = [node for node in self.nodes if type(node) in kinds]
        return found

    def is_attribute_value(self, node: ast.AST) -> bool:
        """Whether ``node`` is the ``value`` of an attribute (``jax.numpy`` in ``jax.numpy.zeros``): ``parent``'s
        answer for every attribute of the file at the cost of one pass over them (a parent is mapped when asked)."""
        if self._attribute_values is None:
            self._attribute_values = {id(attribute.value) for attribute in self.nodes_of((ast.Attribute,))
                                      if type(attribute.value) is ast.Attribute}
        return id(node) in self._attribute_values

    def parent(self, node: ast.AST) -> tuple[ast.AST, str]:
        """(the parent, the field of it that holds ``node``)."""
        found = self._parents.get(id(node))
        if found is None:
            found = self._parent_or_none(node)
            if found is None:
                raise KeyError(node)  # the module has none
        return found

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The innermost scope that holds ``node``: ``scope_chain(self.ancestors(node))[-1]``, read upwards from
        ``node`` to the first scope (without building every ancestor)."""
        parent_of = self.parent
        child, part = node, None  # ``part``: the field of ``child`` that holds the path down to ``node``
        while True:
            parent, field = parent_of(child)
            kind = type(parent)
            if kind is ast.Module:
                return parent
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                if field in ("body", "type_params"):
                    return parent
            elif kind is ast.Lambda:
                if field == "body":
                    return parent
            elif kind in _COMPREHENSIONS:  # the first iterable is evaluated in the enclosing scope
                if field != "generators" or not (child is parent.generators[0] and part == "iter"):
                    return parent
            child, part = parent, field

    def ancestors(self, node: ast.AST) -> tuple[tuple[ast.AST, str], ...]:
        """(ancestor, the field that holds the next one), the module first."""
        found = []
        parent = self._parent_or_none(node)  # maps its statement: every ancestor's parent is known then
        parents = self._parents
        while parent is not None:
            found.append(parent)
            parent = parents.get(id(parent[0]))
        return tuple(reversed(found))

    def _bind_import(self, node: ast.Import | ast.ImportFrom, module_level: bool) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.star_import = True
                # what ``NameResolver._star_source`` reads: the module, "" where relative (None: not at module level)
                self._stars.add((node.module if node.module and not node.level else "") if module_level else None)
                continue
            local = alias.asname or (alias.name.split(".")[0] if type(node) is ast.Import else alias.name)
            qualified = _import_binding(node, alias)
            if qualified is None:
                self._other.add(local)  # a relative import: the resolver does not qualify it
                continue
            self._imported.setdefault(local, set()).add(qualified)
            if module_level:
                self._imports.setdefault(local, set()).add(qualified)

    # -- names -------------------------------------------------------------------------------------------------
    def may_import(self, identifier: str) -> set[str]:
        """What any import of the file binds ``identifier`` to, in any scope (for deciding what to ask)."""
        return self._imported.get(identifier, set())

    def module_imports(self, identifier: str) -> set[str]:
        """What the module-level imports bind ``identifier`` to."""
        return self._imports.get(identifier, set())

    def bound_in_file(self, identifier: str) -> bool:
        """Whether anything in the file binds ``identifier`` other than an import."""
        return identifier in self._other

    def binding_count(self, identifier: str) -> int:
        """How many times the file binds ``identifier``, in any scope (imports included; ``global`` and ``nonlocal``
        not: they move a binding, they add none). One pass over the file's nodes counts every identifier's (a
        rule may ask of a hundred ``with`` blocks)."""
        if identifier not in self._other and identifier not in self._imported:
            return 0
        if self._binding_counts is None:
            self._binding_counts = _binding_counts(self.nodes)
        return self._binding_counts.get(identifier, 0)

    def definitions(self, identifier: str) -> list[ast.AST]:
        """The ``def`` and ``async def`` statements of the file named ``identifier``, in source order."""
        if self._definitions is None:
            self._definitions = {}
            for node in self.nodes_of((ast.FunctionDef, ast.AsyncFunctionDef)):
                self._definitions.setdefault(node.name, []).append(node)
        return self._definitions.get(identifier, [])

    def qualified_name(self, node: ast.AST) -> str | None:
        """The resolver's answer for a name or an attribute chain; ``Undecidable`` when it is not certain."""
        attrs: list[str] = []
        while type(node) is ast.Attribute:
            attrs.append(node.attr)
            node = node.value
        if type(node) is not ast.Name:
            return None
        base = self.qualified_in_scope(node.id, node)
        return None if base is None else ".".join([base, *reversed(attrs)])

    def qualified_in_scope(self, identifier: str, node: ast.AST) -> str | None:
        """What ``identifier`` resolves to written where ``node`` (a node of the tree) stands: the resolver's
        ``qualified_in_scope`` of ``node``'s scope; ``Undecidable`` when it is not certain. A star import makes
        every name undecidable, but inside ``star_names``: there a name that nothing binds in reach is the star's
        (``_unowned``), as ``qualified_name`` needs it (``NameResolver._resolve_name``)."""
        if self.star_import and not self._star_names:
            raise Undecidable("a star import")
        imported = self._imported.get(identifier)
        if not imported:
            if self.star_import:
                return self._unowned(identifier, node)
            if identifier in _BUILTINS:
                raise Undecidable(f"`{identifier}` may be the builtin")
            return None  # never imported: a local, or undefined; the resolver qualifies neither
        bound = self._imports.get(identifier, set())
        if identifier in self._other:
            return self._qualified_by_scopes(identifier, node)
        if bound != imported or len(bound) > 1:
            return self._import_in_scope(node, identifier)
        (base,) = bound
        return base

    def _qualified_by_scopes(self, identifier: str, node: ast.AST) -> str | None:
        """``qualified_in_scope`` for a name bound both by an import and otherwise (``shard_map = shard_map.shard_map``
        after ``from jax.experimental import shard_map``): the resolver's own rules on ``ast`` (``AstNames``, built
        once per file when asked), where ``node`` is a name it placed in a scope."""
        names = self.names()
        scope = names.scope_of(node)
        if scope is None or identifier in _BUILTINS:
            raise Undecidable(f"`{identifier}` is bound other than by an import")
        return names.qualified_in_scope(identifier, scope)

    def names(self):
        """The file's ``AstNames`` (``NameResolver`` on ``ast``: every binding, per scope), built on first use."""
        if self._names is None:
            self._names = AstNames(self.tree)
        return self._names

    def _import_in_scope(self, name: ast.AST, identifier: str) -> str | None:
        """The resolver's answer for a name that only imports bind, in several scopes or to several things: what
        the imports of its owner scope (``NameResolver._owner``: the nearest that binds it, class bodies skipped but
        the name's own) bind it to, when that is one thing; None when they disagree or none binds it (the star's
        answer where a star import reaches it)."""
        owners = self._import_scopes.get(identifier)
        if owners is None:
            owners = self._import_scopes[identifier] = {}  # id(scope) -> what its imports bind the name to
            for node in self.nodes:
                if type(node) is ast.alias and (node.asname or node.name.partition(".")[0]) == identifier:
                    statement, _ = self.parent(node)
                    scope = self.scope_of(statement)
                    owners.setdefault(id(scope), set()).add(_import_binding(statement, node))
        first = True
        for scope in reversed(scope_chain(self.ancestors(name))):
            if (first or type(scope) is not ast.ClassDef) and id(scope) in owners:
                found = owners[id(scope)]
                return next(iter(found)) if len(found) == 1 else None
            first = False
        if self.star_import:
            return self._star_answer(identifier)  # only imports bind it, none in reach
        if identifier in _BUILTINS:
            raise Undecidable(f"`{identifier}` may be the builtin")
        return None

    @contextmanager
    def star_names(self) -> Iterator[None]:
        """Within it, names in a file with a star import resolve as the resolver resolves them, for a rule whose port
        asks nothing else that a star import changes: a builtin read from the file's bindings alone (``isinstance``
        is the star module's where one is star-imported) would not be the resolver's."""
        self._star_names = True
        try:
            yield
        finally:
            self._star_names = False

    def _unowned(self, identifier: str, node: ast.AST) -> str | None:
        """A name no import binds, in a file with a star import: None where something binds it in reach of
        ``node`` (a local: the resolver qualifies it to nothing), else the star's answer."""
        if identifier in self._other:
            names = self.names()
            scope = names.scope_of(node)
            if scope is None:
                raise Undecidable("a star import, and a node without a scope")
            if names.is_bound_in_scope(identifier, scope):
                return None
        return self._star_answer(identifier)

    def _star_answer(self, identifier: str) -> str | None:
        """``NameResolver._resolve_name`` of a name nothing binds in reach: ``<module>.<name>`` where one module is
        star-imported (at module level: in reach everywhere), None where several are, or a relative one (never the
        builtin)."""
        if None in self._stars:
            raise Undecidable("a star import below module level")
        if len(self._stars) != 1 or not next(iter(self._stars)):
            return None
        return f"{next(iter(self._stars))}.{identifier}"

    def qualified_name_unless(self, node: ast.AST, relevant) -> str | None:
        """``qualified_name``, or None where that is undecidable but no name the resolver could give the node
        (each import binding of its root, with its attributes; else None) is ``relevant`` to the caller, which then
        treats the answer as it treats None (``google.cloud.storage.Client`` where ``storage`` is also bound to
        None in an ``except ImportError``)."""
        try:
            return self.qualified_name(node)
        except Undecidable:
            if self.star_import:
                raise
            attrs: list[str] = []
            while type(node) is ast.Attribute:
                attrs.append(node.attr)
                node = node.value
            suffix = "".join("." + attr for attr in reversed(attrs))
            if any(relevant(base + suffix) for base in self._imported.get(node.id, ())):
                raise
            return None

    def imported_name(self, node: ast.AST, relevant) -> str | None:
        """``qualified_name_unless`` for a name or attribute chain whose root an import may bind (or a star import);
        None at once for any other: the resolver qualifies only an imported name (and a builtin, which no caller
        asks about)."""
        root = node
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name or not (self.star_import or root.id in self._imported):
            return None
        return self.qualified_name_unless(node, relevant)

    # -- compat code and annotations -------------------------------------------------------------------------
    def in_compat_code(self, ancestors: Sequence[tuple[ast.AST, str]], node: ast.AST) -> bool:
        """``jaxlint.lint.context.in_compat_code`` for ``node`` (``Undecidable`` where a feature test cannot be read
        exactly)."""
        chain = [ancestor for ancestor, _ in ancestors] + [node]
        for index, (ancestor, _) in enumerate(ancestors):
            kind = type(ancestor)
            if kind is ast.Try and any(_catches_missing_names(handler) for handler in ancestor.handlers):
                return True
            if kind in (ast.If, ast.IfExp) and self.is_feature_test(ancestor.test):
                return True
            if kind is ast.BoolOp and type(ancestor.op) is ast.And:
                # libcst nests ``a and b and c`` to the left: ``c`` is the right operand after ``a and b``
                below = chain[index + 1]
                for value in ancestor.values:
                    if value is below:
                        break
                    if self.is_feature_test(value):
                        return True
        return False

    def is_feature_test(self, test: ast.AST) -> bool:
        """``context._is_jax_feature_test``: a name, attribute, keyword or parameter spelled ``__version__``,
        ``__version_info__`` or ``*jax_version*`` anywhere in the test (libcst visits each as a ``Name``);
        ``hasattr(<a name in jax, jaxlib, flax or optax>, ...)``; a comparison with a call given one of those
        packages (``version("jax") < (0, 5)``). ``Undecidable`` where a name or string cannot be read exactly."""
        nodes = list(ast.walk(test))
        for node in nodes:
            kind = type(node)
            word = node.id if kind is ast.Name else node.attr if kind is ast.Attribute else \
                node.arg if kind is ast.keyword or kind is ast.arg else None
            if word is not None and (word in _VERSION_WORDS or "jax_version" in word.lower()):
                return True
        for node in nodes:
            kind = type(node)
            if kind is ast.Call and type(node.func) is ast.Name and node.func.id == "hasattr" \
                    and (node.args or node.keywords):
                if node.keywords:
                    raise Undecidable("`hasattr` with a keyword")
                first = node.args[0].value if type(node.args[0]) is ast.Starred else node.args[0]
                if _in_tested_package(self.qualified_name_unless(first, _in_tested_package) or ""):
                    return True
            elif kind is ast.Compare:
                if any(type(operand) is ast.Call and self._names_tested_package(operand)
                       for operand in (node.left, *node.comparators)):
                    return True
        return False

    def _names_tested_package(self, call: ast.Call) -> bool:
        """``_FeatureTestFinder._names_jax``: an argument that is the string or the module of a tested package."""
        for value in [*(arg.value if type(arg) is ast.Starred else arg for arg in call.args),
                      *(passed.value for passed in call.keywords)]:
            if type(value) is ast.Constant and type(value.value) is str and value.value in _TESTED_PACKAGES:
                # libcst's ``SimpleString`` only: one plain literal (not ``"ja" "x"``, not an escape)
                text = self.text(value).lstrip("rRuU")
                if text not in {quote + value.value + quote for quote in ("'", '"', "'''", '"""')}:
                    raise Undecidable("a package named by an unusual string")
                return True
            if type(value) is ast.Name and self.qualified_name_unless(value, _TESTED_PACKAGES.__contains__) \
                    in _TESTED_PACKAGES:
                return True
        return False

    @staticmethod
    def in_annotation(ancestors: Sequence[tuple[ast.AST, str]]) -> bool:
        """Inside an annotation (libcst's ``cst.Annotation``: of a parameter, a return, an annotated assignment)."""
        return any(_holds_annotation(ancestor, field) for ancestor, field in ancestors)

    def is_unevaluated(self, ancestors: Sequence[tuple[ast.AST, str]]) -> bool:
        """``jaxlint.lint.annotations.is_unevaluated``."""
        for index, (ancestor, field) in enumerate(ancestors):
            kind = type(ancestor)
            if kind is ast.If and field == "body" and self._is_type_checking(ancestor.test):
                return True
            if _holds_annotation(ancestor, field):
                if has_future_annotations(self.file_text):
                    return True
                return kind is ast.AnnAssign and _in_function_body(ancestors[:index])
        return False

    def _is_type_checking(self, test: ast.AST) -> bool:
        """``annotations._is_type_checking``: the name ``TYPE_CHECKING``, or ``typing.TYPE_CHECKING`` spelled through
        an import."""
        if type(test) is ast.Name:
            return test.id == "TYPE_CHECKING"
        return type(test) is ast.Attribute and self.qualified_name_unless(test, _TYPE_CHECKING.__contains__) \
            in _TYPE_CHECKING

    def rule(self, rule_class):
        """An instance of ``rule_class`` for its message methods (``MessageContext``)."""
        return rule_class(MessageContext(self.settings, self.path, self.file_text, self.source))

    # -- places ------------------------------------------------------------------------------------------------
    def span(self, node: ast.AST, statement_start: ast.AST | None = None) -> tuple[int, int]:
        """The character offsets libcst gives ``node``. ``statement_start``: the statement holding an expression
        (an expression at the start of a continuation line may follow its own opening parenthesis)."""
        start = self._offset(node.lineno, node.col_offset)
        end = self._offset(node.end_lineno, node.end_col_offset)
        if type(node) is ast.keyword:
            return start, end  # libcst's ``Arg`` (no parentheses of its own): from its name to its value's end
        if not isinstance(node, ast.stmt):
            # a call's arguments hold what they like; its callee must be as plain as any other expression
            plain = node.func if type(node) is ast.Call else node
            text = self.source[start:end] if plain is node else self.text(plain)
            if "#" in text or "\\" in text or "(" in text and _groups_an_expression(text):
                # libcst's text of a part in parentheses of its own holds them; a rule's port may not
                raise Undecidable("parentheses or comments inside the expression")
            line_start = self.index.starts[node.lineno - 1]
            before = self.source[line_start:start].rstrip(" \t")
            if before.endswith("(") and not _opens_a_call(before[:-1]) \
                    and not self._opens_with_items(statement_start, node) and self._closes_after(end):
                raise Undecidable("an opening parenthesis before the expression")
            if not before.strip() and (statement_start is None or statement_start.lineno != node.lineno):
                before = self.code_before_line(node.lineno)
                if (before is None or before.endswith("(") and not _opens_a_call(before[:-1])
                        and not self._opens_with_items(statement_start, node) and self._closes_after(end)) \
                        and not self._starts_its_statement(node, statement_start):
                    raise Undecidable("the expression starts a continuation line after an opening parenthesis")
        return start, end

    def _starts_its_statement(self, node: ast.AST, statement: ast.AST | None) -> bool:
        """Whether ``node``, first on its line, is its statement's first token: no continuation line, whatever the
        comment lines above it quote (mesh-transformer-jax). Asked only where the lines above leave it unclear."""
        statement = statement or statement_of(self.ancestors(node))
        return statement is not None and statement.lineno == node.lineno

    def _closes_after(self, end: int) -> bool:
        """Whether the first code after offset ``end`` closes a parenthesis: then the one that opens right before
        an expression ending there wraps it alone, and libcst gives it to the expression (its text holds it). Any
        other opening parenthesis before it is a tuple's or a larger expression's, and leaves its span and its
        text as ``ast`` has them."""
        source, position, length = self.source, end, len(self.source)
        while position < length:
            char = source[position]
            if char in " \t\r\n\f\\":
                position += 1
            elif char == "#":
                newline = source.find("\n", position)
                position = length if newline < 0 else newline
            else:
                return char == ")"
        return False

    def _opens_with_items(self, statement: ast.AST | None, node: ast.AST) -> bool:
        """``node`` is the first item of ``with (...):``, right after the parenthesis that opens the items, which
        libcst gives the ``With`` (its ``lpar``: it closes right before the colon), not the expression."""
        if type(statement) not in (ast.With, ast.AsyncWith) or statement.items[0].context_expr is not node:
            return False
        start = self._offset(statement.lineno, statement.col_offset)
        header = self.source[start:self._offset(statement.body[0].lineno, statement.body[0].col_offset)]
        try:
            tokens = [token for token in tokenize.generate_tokens(io.StringIO(header).readline)
                      if token.type not in (tokenize.NL, tokenize.COMMENT)]
        except (tokenize.TokenError, SyntaxError):
            return False
        opening = 2 if tokens[0].string == "async" else 1
        if tokens[opening].string != "(":
            return False
        lines = header.split("\n")
        depth = 0
        for position in range(opening, len(tokens) - 1):
            token = tokens[position]
            if token.type == tokenize.OP:
                depth += _DEPTH.get(token.string, 0)
            if depth == 0:  # the parenthesis closes: the items' when a colon follows
                row, column = tokens[opening + 1].start
                first = start + sum(len(line) + 1 for line in lines[:row - 1]) + column
                return tokens[position + 1].string == ":" and first == self._offset(node.lineno, node.col_offset)
        return False

    def code_before_line(self, line: int) -> str | None:
        """The code of the nearest earlier line that has some, without its comment (what precedes an expression
        that starts line ``line``); None when a quote makes it unclear what is a comment."""
        if self._lines is None:
            self._lines = self.source.split("\n")
        for row in range(line - 2, -1, -1):
            text = self._lines[row]
            stripped = text.strip()
            if "#" in text and ("'" in text or '"' in text):
                return None
            if not stripped or stripped.startswith("#"):
                continue
            return text.partition("#")[0].rstrip(" \t")
        return None

    def offset_of(self, node: ast.AST, end: bool = False) -> int:
        """The character offset where ``node`` starts (or ends) as ``ast`` places it."""
        return self._offset(node.end_lineno, node.end_col_offset) if end else self._offset(node.lineno,
                                                                                          node.col_offset)

    def text(self, node: ast.AST) -> str:
        """The source text of ``node`` (libcst's ``code_for_node`` for a node without parentheses of its own)."""
        return self.source[self._offset(node.lineno, node.col_offset):self._offset(node.end_lineno,
                                                                                   node.end_col_offset)]

    def _offset(self, line: int, byte_column: int) -> int:
        if self._lines is None:
            self._lines = self.source.split("\n")
        text = self._lines[line - 1]
        column = byte_column if text.isascii() else len(text.encode("utf-8")[:byte_column].decode("utf-8"))
        return self.index.starts[line - 1] + column


def _import_binding(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str | None:
    """What an import binds its local name to (``names``: None for a relative import, which it does not qualify)."""
    if type(node) is ast.Import:
        return alias.name if alias.asname else alias.name.split(".")[0]
    return f"{node.module}.{alias.name}" if node.module and not node.level else None


def _first_line(statement: ast.stmt) -> int:
    """The line a statement starts on: its first decorator's, for a decorated definition."""
    decorators = getattr(statement, "decorator_list", None)
    return min(statement.lineno, *(decorator.lineno for decorator in decorators)) if decorators else statement.lineno


def _module_level_imports(tree: ast.Module) -> set[int]:
    """id() of each import that no function or class encloses (lambdas and comprehensions hold no statement): the
    statements of the module and of its compound statements' bodies, not of definitions."""
    found: set[int] = set()
    bodies = [tree.body]
    while bodies:
        for statement in bodies.pop():
            kind = type(statement)
            if kind is ast.Import or kind is ast.ImportFrom:
                found.add(id(statement))
                continue
            if kind in _SCOPE_STATEMENTS:
                continue
            for field in ("body", "orelse", "finalbody"):
                value = getattr(statement, field, None)
                if type(value) is list:
                    bodies.append(value)
            bodies.extend(part.body for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())))
    return found


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def scope_chain(ancestors: Sequence[tuple[ast.AST, str]]) -> list[ast.AST]:
    """The scopes, module first, that ``names._ScopeBuilder`` puts a node with these ancestors in: a definition's
    decorators, defaults, annotations and bases, and a comprehension's first iterable, are in the enclosing one."""
    chain: list[ast.AST] = []
    for index, (ancestor, field) in enumerate(ancestors):
        kind = type(ancestor)
        if kind is ast.Module:
            chain.append(ancestor)
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            if field in ("body", "type_params"):
                chain.append(ancestor)
        elif kind is ast.Lambda:
            if field == "body":
                chain.append(ancestor)
        elif kind in _COMPREHENSIONS:
            clause, part = ancestors[index + 1] if index + 1 < len(ancestors) else (None, None)
            if field != "generators" or not (clause is ancestor.generators[0] and part == "iter"):
                chain.append(ancestor)
    return chain


_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_TRAILING_WORD = re.compile(r"[A-Za-z0-9_]*$")


def _opens_a_call(before: str) -> bool:
    """Whether the ``(`` after ``before`` opens a call's arguments (``f(``, ``x[0](``, ``g()(``), not a
    parenthesized expression (``= (``, ``if (``, ``((``) whose parentheses libcst would give the expression."""
    before = before.rstrip(" \t")
    if not before or not (before[-1].isalnum() or before[-1] in "_)]"):
        return False
    word = _TRAILING_WORD.search(before).group()
    return not (keyword.iskeyword(word) or keyword.issoftkeyword(word))


def _binding_counts(nodes: list[ast.AST]) -> dict[str, int]:
    """How many times each identifier is bound among ``nodes`` (``AstView.binding_count``)."""
    counts: dict[str, int] = {}
    for node in nodes:
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:
                continue
            name = node.id
        elif kind is ast.arg:
            name = node.arg
        elif kind is ast.alias:
            name = node.asname or node.name.partition(".")[0]
        elif kind is ast.MatchMapping:
            name = node.rest
        elif kind in NAMED_NODES:
            name = node.name
        else:
            continue
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _groups_an_expression(text: str) -> bool:
    """Whether ``text`` (an expression's) holds an opening parenthesis that is not a call's (``f(``, ``g()(``,
    ``x[0](``): parentheses a part has of its own, or a tuple's (a quote before it: maybe one in a string)."""
    position = text.find("(")
    while position >= 0:
        if not _opens_a_call(text[max(0, position - 64):position]):
            return True
        position = text.find("(", position + 1)
    return False


def statement_of(ancestors: Sequence[tuple[ast.AST, str]]) -> ast.AST | None:
    """The innermost statement among ``ancestors``."""
    for ancestor, _ in reversed(ancestors):
        if isinstance(ancestor, ast.stmt):
            return ancestor
    return None


def _catches_missing_names(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if type(handler.type) is ast.Tuple else [handler.type]
    return any(_dotted(element).split(".")[-1] in _GUARD_EXCEPTIONS for element in types)


def _dotted(node: ast.AST) -> str:
    """libcst's ``get_full_name_for_node`` for a name or attribute chain; "" otherwise."""
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name:
        return ""
    return ".".join([node.id, *reversed(parts)])


def _holds_annotation(node: ast.AST, field: str) -> bool:
    kind = type(node)
    return (kind is ast.arg and field == "annotation") or (field == "returns" and kind in (
        ast.FunctionDef, ast.AsyncFunctionDef)) or (kind is ast.AnnAssign and field == "annotation")


def _in_function_body(ancestors: Sequence[tuple[ast.AST, str]]) -> bool:
    for ancestor, _ in reversed(ancestors):
        if type(ancestor) in (ast.FunctionDef, ast.AsyncFunctionDef):
            return True
        if type(ancestor) is ast.ClassDef:
            return False
    return False


def decide(source: str, path: str, rules: Sequence, tree: ast.Module, *, file_text: str | None = None,
           settings: Settings | None = None, facts: AstFacts | None = None) -> list[Diagnostic] | None:
    """The findings of ``rules`` on ``source`` from its ``ast`` tree, as the libcst path gives them; None when a
    rule does not decide from ``ast`` or something is undecidable. ``settings``: the file's (default ones if None);
    ``facts``: the ast gate's of ``tree``, when the caller has them (the view reads its walk)."""
    if not rules or not all(getattr(rule, "decides_from_ast", False) for rule in rules):
        return None
    try:
        view = AstView(source, tree, file_text, settings=settings, path=path, facts=facts)
        if view.type_bounds:  # the rules' ports do not read a type parameter's bound as libcst's visitors do
            raise Undecidable("a type parameter's bound")
        findings = [finding for rule in rules for finding in rule.findings_from_ast(view)]
        return _diagnostics(view, findings, path, {rule.code: rule for rule in rules})
    except Undecidable:
        return None


def _diagnostics(view: AstView, findings: list[AstFinding], path: str, rules: dict) -> list[Diagnostic]:
    """``engine._diagnostics_from_reports`` for these findings (``EditBuilder.build`` for their fixes)."""
    placements = Placements(view.index)
    diagnostics: list[Diagnostic] = []
    fixable = fixes_allowed(view.settings)  # below the oldest known release no rule fixes (version_range)
    for finding in findings:
        rule = rules[finding.code]
        ancestors = view.ancestors(finding.node)
        if not _EXACT_IN_FSTRINGS and any(type(ancestor) is ast.JoinedStr for ancestor, _ in ancestors):
            raise Undecidable("an f-string")
        if not rule.check_compat_code and view.in_compat_code(ancestors, finding.node):
            continue
        start, end = view.span(finding.node, statement_of(ancestors))
        placed = placements.place(finding.code, finding.message, start, end)
        if placed is None:
            continue
        start_location, end_location = placed
        fix = _fix(view, finding) if finding.fix is not None and fixable else None
        withheld = finding.withheld
        if finding.fix is not None and not fixable:
            withheld = below_known_range(view.settings)
        diagnostics.append(Diagnostic(
            finding.code, finding.message, path, start_location, end_location, start_offset=start, end_offset=end,
            fix=fix, noqa_row=start_location.row, url=rule.url(), detail=finding.detail, fix_withheld=withheld,
            unevaluated_annotation=view.is_unevaluated(ancestors)))
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _fix(view: AstView, finding: AstFinding) -> Fix:
    """``EditBuilder.build`` of the finding's fix, where its ``_realign_continuations`` adds nothing (then the edits
    are the fix): no edit within one line changes its length (an edit across lines moves nothing), or the statement is simple, on one line, last on it but for a
    comment, with every edit within that line, or no bracket a line may align to opens after a length-changing edit
    on its line (``_aligns_nothing``). Else, in a simple statement alone on its lines, the edits plus what
    ``realign_continuations`` adds within it (``EditBuilder``'s region: ``_simple_statement_region``); anything
    else (a compound statement's header) is undecidable."""
    source = view.source
    located = finding
    # an added import line moves no continuation line (``EditBuilder`` realigns only within a line): set aside
    edits = tuple(e for e in finding.fix.edits if not _inserts_lines(view, e))
    if len(edits) < len(finding.fix.edits):
        finding = replace(finding, fix=replace(finding.fix, edits=edits))
    across = [e for e in edits if "\n" in e.content or "\n" in source[e.start:e.end]]
    if all(len(e.content) == e.end - e.start for e in edits if e not in across):
        # no line changes length (``jax.tree_map`` -> ``jax.tree.map``), and ``EditBuilder`` shifts nothing for an
        # edit across lines (JAX505's ``, wrt=`` after a multi-line argument): none to realign
        return _located(view, located)
    if across:
        raise Undecidable("an edit across lines beside one that may realign")
    if _on_its_own_line(view, finding) or _in_a_one_line_with_header(view, finding) or _aligns_nothing(view, edits):
        return _located(view, located)
    region = _simple_statement_region(view, finding)
    if region is None:
        raise Undecidable("an edit before continuation lines that may align to a bracket")
    return _located(view, located, realign_continuations(view.source, view.index, edits, region))


def _simple_statement_region(view: AstView, finding: AstFinding) -> tuple[int, int] | None:
    """The offsets of the libcst ``SimpleStatementLine`` that ``EditBuilder`` realigns within, where it is one
    simple statement alone on its lines (nothing before it but indentation, nothing after it but a comment: not
    ``a; b``, nor a suite on its header's line, nor after a backslash); None for anything else (a compound
    statement's header)."""
    statement = finding.node
    if not isinstance(statement, ast.stmt):
        statement = statement_of(view.ancestors(statement))
    if statement is None or type(statement) in COMPOUND:
        return None
    start, end = view.offset_of(statement), view.offset_of(statement, end=True)
    if view.source[view.index.starts[statement.lineno - 1]:start].strip(" "):
        return None
    if statement.lineno > 1 and view.index.line_text(statement.lineno - 1).rstrip().endswith("\\"):
        return None  # after a backslash: on its header's logical line (``if x: \`` then the body, a suite)
    last_row = statement.end_lineno
    line_end = view.index.starts[last_row - 1] + len(view.index.line_text(last_row))
    after = view.source[end:line_end].lstrip(" \t")
    if after and not after.startswith("#"):
        return None
    return start, end


def _inserts_lines(view: AstView, edit: Edit) -> bool:
    """An edit that inserts whole lines at the start of a line (an added import)."""
    return edit.start == edit.end and edit.content.endswith("\n") and view.index.location(edit.start).column == 1


def _on_its_own_line(view: AstView, finding: AstFinding) -> bool:
    """The fixed statement is simple, on one line that it starts, last on it but for a comment, and every edit lies
    within that line (an edit on a statement's last line realigns nothing)."""
    statement = finding.node
    if not isinstance(statement, ast.stmt):  # an expression's fix (a rename): its statement must start its line
        statement = statement_of(view.ancestors(statement))
        if statement is None or view.source[view.index.starts[statement.lineno - 1]:view.offset_of(statement)].strip():
            return False
    if type(statement) in COMPOUND or statement.lineno != statement.end_lineno:
        return False
    line_start = view.index.starts[statement.lineno - 1]
    line_end = line_start + len(view.index.line_text(statement.lineno))
    after = view.source[view.offset_of(statement, end=True):line_end].lstrip(" \t")
    if after and not after.startswith("#"):
        return False
    return all(line_start <= edit.start <= edit.end <= line_end for edit in finding.fix.edits)


def _in_a_one_line_with_header(view: AstView, finding: AstFinding) -> bool:
    """The finding is in a ``with`` statement whose header (up to its ``:``) is one line, and every edit lies on that
    line: ``EditBuilder`` realigns only the header's lines before its last (JAX401's ``with jax.set_mesh(...):``)."""
    statement = statement_of(view.ancestors(finding.node))
    if type(statement) is not ast.With:
        return False
    last = statement.items[-1].optional_vars or statement.items[-1].context_expr
    if last.end_lineno != statement.lineno or not view.source[view.offset_of(last, end=True):].lstrip(" \t") \
            .startswith(":"):
        return False
    line_start = view.index.starts[statement.lineno - 1]
    line_end = line_start + len(view.index.line_text(statement.lineno))
    return all(line_start <= edit.start <= edit.end <= line_end for edit in finding.fix.edits)


_BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _aligns_nothing(view: AstView, edits: Sequence[Edit]) -> bool:
    """No continuation line can move with a length-changing edit: on the edit's line, every bracket that opens after
    it either closes on that line or ends it (a hanging indent moves only as its own line moves; only a bracket with
    text after it aligns the lines below to itself). A quote or a tab there makes it unclear."""
    source = view.source
    first_on_row: dict[int, int] = {}
    for edit in edits:
        if len(edit.content) != edit.end - edit.start:
            row = view.index.location(edit.start).row
            first_on_row[row] = min(first_on_row.get(row, edit.start), edit.start)
    for row, start in first_on_row.items():
        line_end = view.index.starts[row - 1] + len(view.index.line_text(row))
        rest = source[start:line_end]
        if "'" in rest or '"' in rest or "\t" in rest:
            return False
        code = rest.partition("#")[0]
        still_open: list[int] = []
        for index, char in enumerate(code):
            if char in _BRACKETS:
                still_open.append(index)
            elif char in ")]}" and still_open:
                still_open.pop()
        if any(code[index + 1:].strip() for index in still_open):
            return False  # a bracket with text after it on its line: lines below may align to it
    return True


def _located(view: AstView, finding: AstFinding, realigned: Sequence[Edit] = ()) -> Fix:
    edits = [*finding.fix.edits, *realigned]
    located = [Edit(e.start, e.end, e.content, view.index.location(e.start), view.index.location(e.end))
               for e in sorted(edits, key=lambda e: (e.start, e.end))]
    return Fix(finding.fix.applicability, finding.fix.message, tuple(located), finding.fix.probe)


# Compound statements (``TryStar``: Python 3.11+).
COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match,
                      ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef}
                     | {getattr(ast, name) for name in ("TryStar",) if hasattr(ast, name)})


def walk(view: AstView, kinds: tuple[type, ...]) -> Iterator[ast.AST]:
    """The nodes of these kinds, in source order."""
    return iter(view.nodes_of(kinds))
