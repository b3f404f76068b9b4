"""The second prefilter stage: what a file can refer to, read from Python's own ``ast`` (~10x cheaper than libcst).

The word prefilter (``prefilter.may_match``) keeps every file that spells, say, ``jax`` and ``tree_map`` somewhere, so
``jax.tree_util.tree_map`` (valid) keeps the file alive for the removed ``jax.tree_map``. This stage parses the file
with ``ast`` and computes an over-approximation of every qualified name that ``jaxlint.lint.names.NameResolver`` could
give any node of the file, so that a rule can say "I can only fire if one of these names occurs" and the file is
skipped, without a libcst parse, when none does.

Why it is a superset of the resolver (the argument the tests rely on):

- the resolver qualifies a name only through an import binding of it (``import a.b as x``, ``from m import n``) or
  a star import of an absolute module; here *every* import binding of an identifier, anywhere in the file,
  counts for *every* use of the identifier, regardless of scope or of other bindings that would make it ambiguous;
- every absolute ``from m import *`` qualifies every identifier as ``m.<id>`` as well;
- attribute chains are qualified from their root name exactly as the resolver does (``base + "." + attr``);
- ``ast.Name`` nodes are a superset of the libcst ``Name`` nodes the resolver scopes (attribute names and keyword
  names are plain strings in ``ast``, as they are unscoped in the resolver).

Anything ``ast`` cannot parse (a syntax error, a grammar newer than the running Python) is not gated: the file goes
on to libcst, which reports it as ``JAX000`` or lints it.
"""
from __future__ import annotations

import ast
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Iterable, Protocol, Sequence

from jaxlint.lint.import_bindings import record_from_import, record_import, with_prefixes


@dataclass
class AstFacts:
    """Imports, attribute chains and calls of one module, with over-approximated qualified names."""

    # identifier -> every qualified name an import statement binds it to (anywhere in the file)
    bindings: dict[str, set[str]] = field(default_factory=dict)
    # absolute modules star-imported anywhere in the file
    star_modules: list[str] = field(default_factory=list)
    # names import statements mention: ``import a.b`` -> a, a.b; ``from m import n`` -> m (and prefixes), m.n
    import_names: set[str] = field(default_factory=set)
    # attribute chains whose root is a name: (root identifier, attribute names from the root outwards)
    chains: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    names: list[ast.Name] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    withs: list[ast.With] = field(default_factory=list)  # not ``async with``
    # ``fn = jnp.clip`` (one name target, a name or attribute chain as value), anywhere in the file: identifier ->
    # the values. Not part of ``qualified_names``: only rules that follow such aliases (JAX103) ask ``alias_targets``.
    value_aliases: dict[str, list[ast.expr]] = field(default_factory=dict)
    # names some plain assignment binds to a list literal, anywhere in the file (``xs = [1, 2]``), and those some
    # plain assignment binds to anything else (JAX103 follows only names of the first kind that are not the second)
    sequence_names: set[str] = field(default_factory=set)
    other_assigned: set[str] = field(default_factory=set)
    # functions taking ``**kwargs``, anywhere in the file: name -> the ``**`` parameter's names
    kwargs_functions: dict[str, set[str]] = field(default_factory=dict)
    # What ``ast_findings.AstView`` reads of the walk (it walks no tree of its own): every node in source order (of
    # a file: the module first), the import statements, the identifiers something other than an import binds, in
    # any scope (a stored name, a parameter, a definition, ``global``; anywhere in the file), and whether a type
    # parameter has a bound (``def f[T: jnp.ndarray]``)
    nodes: list[ast.AST] = field(default_factory=list)
    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    bound: set[str] = field(default_factory=set)
    type_bounds: bool = False
    tree: ast.Module | None = None  # the parsed module (``jaxlint.lint.focus`` reads its top-level statements)
    statements: list["AstFacts"] = field(default_factory=list)  # of each top-level statement (``statement_facts``)
    _referenced: set[str] | None = None
    _calls_named: "list[tuple[ast.Call, set[str]]] | None" = None  # ``_named_calls``
    # a statement's facts: those of its whole file (whose ``calls`` are complete once the walk is done), held
    # weakly: the file's facts list their statements, and a cycle would keep every tree until the rare collector
    _file: "weakref.ref[AstFacts] | None" = None

    @property
    def file(self) -> "AstFacts | None":
        return self._file() if self._file is not None else None

    # -- queries for rules ---------------------------------------------------------------------------------------
    def qualified_names(self, node: ast.expr) -> set[str]:
        """Every qualified name the resolver could give ``node`` (a ``Name`` or an attribute chain); may be empty."""
        attrs: list[str] = []
        while type(node) is ast.Attribute:
            attrs.append(node.attr)
            node = node.value
        if type(node) is not ast.Name:
            return set()
        bases = self._name_candidates(node.id)
        if not bases or not attrs:
            return bases
        suffix = ".".join(reversed(attrs))
        return {f"{base}.{suffix}" for base in bases}

    def referenced(self) -> set[str]:
        """Qualified names of every attribute chain and name in the file, plus what the import statements name."""
        if self._referenced is None:
            found = set(self.import_names)
            if self.bindings or self.star_modules:
                for root, attrs in self.chains:  # every prefix of a chain is an attribute node of its own
                    for base in self._name_candidates(root):
                        for attr in attrs:
                            base = f"{base}.{attr}"
                            found.add(base)
                for identifier in {name.id for name in self.names}:
                    found.update(self._name_candidates(identifier))
            self._referenced = found
        return self._referenced

    def refers_to_any(self, qualified: Iterable[str]) -> bool:
        referenced = self.referenced()
        if isinstance(qualified, (set, frozenset)):
            return not referenced.isdisjoint(qualified)
        return any(name in referenced for name in qualified)

    def calls_to(self, qualified: str | frozenset[str]) -> list[ast.Call]:
        """Calls whose callee may be ``qualified`` (one name or a set of names)."""
        wanted = {qualified} if isinstance(qualified, str) else qualified
        if not self.bindings and not self.star_modules:
            return []
        return [call for call, names in self._named_calls() if not wanted.isdisjoint(names)]

    def _named_calls(self) -> list[tuple[ast.Call, set[str]]]:
        """Every call whose callee may be some qualified name, with those names: computed once (JAX103's gate alone
        asks ``calls_to`` five times; each asked ``qualified_names`` of every call)."""
        if self._calls_named is None:
            qualified_names = self.qualified_names
            self._calls_named = [(call, names) for call in self.calls
                                 for names in (qualified_names(call.func),) if names]
        return self._calls_named

    def alias_targets(self, identifier: str) -> set[str]:
        """Every qualified name a plain assignment ``identifier = <imported name or chain>`` may give it."""
        found: set[str] = set()
        for value in self.value_aliases.get(identifier, ()):
            found |= self.qualified_names(value)
        return found

    def kwargs_forwarders(self) -> set[str]:
        """The ``kwargs_functions`` whose ``**`` parameter some call of these facts passes on (``f(x, **kw)``)."""
        if not self.kwargs_functions:
            return set()
        splatted = {keyword.value.id for call in self.calls for keyword in call.keywords
                    if keyword.arg is None and type(keyword.value) is ast.Name}
        return {name for name, kwargs in self.kwargs_functions.items() if not kwargs.isdisjoint(splatted)}

    def jax_aliases(self) -> set[str]:
        """The identifiers ``value_aliases`` binds to something an import binds (``mp = pjit``)."""
        return {identifier for identifier in self.value_aliases if self.alias_targets(identifier)}

    # -- internals -----------------------------------------------------------------------------------------------
    def _name_candidates(self, identifier: str) -> set[str]:
        found = self.bindings.get(identifier, set())
        if self.star_modules:
            found = found | {f"{module}.{identifier}" for module in self.star_modules}
        return found


# Each node class's fields that may hold a node: not contexts and operators (shared leaves that hold no name), nor
# the ones that hold only a string, a number or None (the walk, ``_collect``, and ``ast_findings``' mapping of
# parents read the same table).
_OPERATOR_FIELDS = frozenset({"ctx", "op", "ops"})
_SCALAR_FIELDS = frozenset({"id", "attr", "arg", "module", "level", "asname", "type_comment", "kind", "conversion",
                            "is_async", "simple", "rest", "kwd_attrs", "tag", "lineno"})
# Fields of those names that hold a string or a constant in these classes only (``TypeAlias.name`` is a ``Name``).
_SCALAR_IN = {"name": lambda cls: cls.__name__ != "TypeAlias", "names": lambda cls: cls in (ast.Global, ast.Nonlocal),
              "value": lambda cls: cls in (ast.Constant, ast.MatchSingleton)}
CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(name for name in cls._fields if name not in _OPERATOR_FIELDS and name not in _SCALAR_FIELDS
               and not (name in _SCALAR_IN and _SCALAR_IN[name](cls)))
    for cls in (getattr(ast, attr) for attr in dir(ast))
    if isinstance(cls, type) and issubclass(cls, ast.AST)
}


# The walk pushes a node's children last first, so that it takes them in source order: its fields reversed.
_CHILD_FIELDS_REVERSED = {cls: fields[::-1] for cls, fields in CHILD_FIELDS.items()}
# The nodes with a list that may hold None: ``{**d}``'s key, a keyword-only parameter's missing default.
_WITH_NONE_IN_LISTS = frozenset({ast.Dict, ast.arguments})
# Nodes whose ``name`` binds an identifier (type parameters exist from Python 3.12).
NAMED_NODES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs,
                         ast.MatchStar} | {getattr(ast, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple")
                                           if hasattr(ast, name)})
_LISTS = (ast.List, ast.ListComp)


def _collect(tree: ast.AST, facts: AstFacts) -> None:
    """The one walk of a tree, for the gate and for ``ast_findings.AstView``: every node in source order (an explicit
    stack, children pushed last first; ~4x faster than ``ast.walk``, which also yields every ``Load``), with the
    facts each reads of it (``AstFacts``' fields)."""
    bindings, bind = facts.bindings, facts.bound.add
    chains, names, calls, imports = facts.chains, facts.names, facts.calls, facts.imports
    Attribute, Name, Call, Import, ImportFrom, Constant, With, Assign, Load = (
        ast.Attribute, ast.Name, ast.Call, ast.Import, ast.ImportFrom, ast.Constant, ast.With, ast.Assign, ast.Load)
    aliases = facts.value_aliases
    child_fields, named_nodes, with_none, keyword, arg = (
        _CHILD_FIELDS_REVERSED, NAMED_NODES, _WITH_NONE_IN_LISTS, ast.keyword, ast.arg)
    stack: list = [tree]
    pop, push, extend, record = stack.pop, stack.append, stack.extend, facts.nodes.append
    while stack:
        node = pop()
        record(node)
        kind = type(node)
        if kind is Name:  # the commonest node, and a leaf (its context is not walked)
            names.append(node)
            if type(node.ctx) is not Load:
                bind(node.id)
            continue
        if kind is Attribute:  # the whole chain at once: its inner attributes have no other children
            attrs = [node.attr]
            node = node.value
            while type(node) is Attribute:
                record(node)
                attrs.append(node.attr)
                node = node.value
            if type(node) is Name:  # an attribute's value is loaded
                record(node)
                names.append(node)
                chains.append((node.id, tuple(reversed(attrs))))
            else:
                push(node)
            continue
        if kind is Constant:
            continue
        if kind is Call:  # the next commonest nodes, their children read directly (as ``CHILD_FIELDS`` has them)
            calls.append(node)
            extend(node.keywords[::-1])
            extend(node.args[::-1])
            push(node.func)
            continue
        if kind is keyword:
            push(node.value)
            continue
        if kind is arg:
            bind(node.arg)
        elif kind is With:
            facts.withs.append(node)
        elif kind is Assign and len(node.targets) == 1 and type(node.targets[0]) is Name:
            if type(node.value) in (Name, Attribute):
                aliases.setdefault(node.targets[0].id, []).append(node.value)
            elif type(node.value) in _LISTS:
                facts.sequence_names.add(node.targets[0].id)
            else:
                facts.other_assigned.add(node.targets[0].id)
        elif kind is ast.AnnAssign and type(node.target) is Name:
            (facts.sequence_names if type(node.value) in _LISTS else facts.other_assigned).add(node.target.id)
        elif kind in named_nodes:
            if node.name:  # None: an ``except`` or a ``case`` that binds no name
                bind(node.name)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                if node.args.kwarg is not None:
                    facts.kwargs_functions.setdefault(node.name, set()).add(node.args.kwarg.arg)
            elif getattr(node, "bound", None) is not None:
                facts.type_bounds = True
        elif kind is Import:
            imports.append(node)
            for alias in node.names:
                record_import(bindings, facts.import_names, alias.name, alias.asname)
        elif kind is ImportFrom:
            imports.append(node)
            if node.module and not node.level:  # relative imports never resolve to a qualified name
                facts.import_names.update(with_prefixes(node.module))
                for alias in node.names:
                    if alias.name == "*":
                        facts.star_modules.append(node.module)
                    else:
                        record_from_import(bindings, facts.import_names, node.module, alias.name, alias.asname)
        elif kind is ast.MatchMapping:
            if node.rest:
                bind(node.rest)
        elif kind is ast.Global or kind is ast.Nonlocal:
            facts.bound.update(node.names)
        for field in child_fields[kind]:
            value = getattr(node, field, None)
            if type(value) is list:
                if kind in with_none:
                    value = [item for item in value if item is not None]
                extend(value[::-1])
            elif value is not None:
                push(value)


def collect_facts(source: str, tree: ast.Module | None = None) -> AstFacts | None:
    """The facts of ``source``; None when ``ast`` cannot parse it (the caller must then not skip the file).
    ``tree``: ``ast.parse(source)``, when the caller has it already. The facts of ``parse_module``'s last tree are
    kept with it: a worker's later views of the tree the gate walked (``AstView``: the effective-floor uses, JAX207's
    port) read them, without a second walk."""
    global _LAST
    if tree is None:
        tree = parse_module(source)
        if tree is None:
            return None
    kept = _LAST is not None and _LAST[1] is tree
    if kept and _LAST[2] is not None:
        return _LAST[2]
    facts = AstFacts(tree=tree, nodes=[tree])
    # Statement by statement, so that ``focus`` can ask about each one without a second walk; the statements share
    # the file's bindings and star imports (complete once the walk is done, and only read by queries after it).
    for statement in tree.body:
        own = facts_of(statement, facts)
        facts.statements.append(own)
        facts.import_names |= own.import_names
        facts.chains += own.chains
        facts.names += own.names
        facts.calls += own.calls
        facts.withs += own.withs
        facts.nodes += own.nodes
        facts.imports += own.imports
        facts.type_bounds |= own.type_bounds
    facts.nodes += tree.type_ignores  # the module's other field (nodes without children)
    if kept:
        _LAST = (_LAST[0], tree, facts)
    return facts


def parse_module(source: str) -> ast.Module | None:
    """``ast.parse(source)``, or None where ``ast`` cannot parse it. The last text parsed and its tree (and the
    tree's facts, once ``collect_facts`` walked it) are kept: a worker's later stages on the same file (the
    effective-floor uses, ``run.effective_floor``) ask again for the tree the gate built, and get it without a
    second parse. Nothing may change a tree it is given."""
    global _LAST
    if _LAST is not None and _LAST[0] == source:
        return _LAST[1]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are not our business here
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        tree = None
    _LAST = (source, tree, None)
    return tree


_LAST: tuple[str, ast.Module | None, AstFacts | None] | None = None


def facts_of(node: ast.AST, file_facts: AstFacts) -> AstFacts:
    """The facts of one statement (at any depth) with the file's import bindings and star imports."""
    own = AstFacts(bindings=file_facts.bindings, star_modules=file_facts.star_modules,
                   value_aliases=file_facts.value_aliases, sequence_names=file_facts.sequence_names,
                   other_assigned=file_facts.other_assigned,
                   kwargs_functions=file_facts.kwargs_functions, bound=file_facts.bound,
                   _file=weakref.ref(file_facts))
    _collect(node, own)
    return own


def statement_facts(facts: AstFacts) -> list[AstFacts]:
    """The facts of each top-level statement of ``facts.tree`` on its own, with the import bindings and star
    imports of the whole file (a name in one statement is qualified by an import anywhere): a rule's gate asked
    about one statement answers "can a finding lie in this statement"."""
    return facts.statements


class GatedRule(Protocol):
    """What the gate asks of a rule class (``jaxlint.rules.base.Rule`` implements it; the gate sits below it)."""

    def has_ast_gate(self) -> bool: ...

    def may_match_ast(self, facts: AstFacts) -> bool: ...


def may_match_ast(source: str, rules: Sequence[GatedRule]) -> bool:
    """False only when no rule can fire on ``source``: every rule is gated and its gate says no."""
    return bool(rules_that_may_match_ast(source, rules))


def rules_that_may_match_ast(source: str, rules: Sequence[GatedRule]) -> list[GatedRule]:
    """The rules whose gate keeps ``source``. When one rule has no gate the file goes to libcst anyway, and all are
    kept without an ``ast`` parse (the gated ones only cost their visit); when ``ast`` cannot parse it, all are."""
    return gate(source, rules)[0]


def gate(source: str, rules: Sequence[GatedRule], tree: ast.Module | None = None
         ) -> tuple[list[GatedRule], AstFacts | None]:
    """``rules_that_may_match_ast`` and the facts it read (None when it parsed nothing); ``tree``: ``ast``'s parse
    of ``source``, when the caller has it."""
    if not all(rule.has_ast_gate() for rule in rules):
        return list(rules), None
    facts = collect_facts(source, tree)
    if facts is None:
        return list(rules), None
    return [rule for rule in rules if rule.may_match_ast(facts)], facts
