"""What the flax rules know about a value: whether it comes from ``Module.init`` in the same scope, whether the file
imports flax, whether ``flax`` names the flax package where a fix would write it."""
from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.ast_findings import COMPOUND, AstView, Undecidable, scope_chain, statement_of
from jaxlint.lint.code_map import bracket_depth, is_assignment_sign, is_word_char, line_start, starts_statement
from jaxlint.lint.names import NameResolver
from jaxlint.lint.text_gate import BARE, TextFacts, a_call, chain_start

INIT_METHODS = frozenset({"init", "init_with_output"})
_IMPORTS_FLAX = re.compile(r"^[ \t]*(?:import[ \t]+flax\b|from[ \t]+flax\b)", re.M)


def calls_methods_on_init(facts, method: str) -> bool:
    """The ast gate of JAX503/JAX504: the file imports flax and calls both ``.init``/``.init_with_output`` and
    ``.METHOD`` somewhere (every finding is a ``.METHOD(...)`` on what an ``.init`` call returned). Without it every
    file that imports flax went to libcst whole: most of old flax code, and 2.4x the cold time of the older projects."""
    if not facts.refers_to_any(frozenset({"flax"})):
        return False
    whole = facts.file or facts
    # a method of a value, not a function of flax's modules (``flax.core.unfreeze(x)`` is the fix, not a finding)
    methods = {call.func.attr for call in whole.calls if type(call.func) is ast.Attribute
               and not any(name.startswith("flax.") for name in whole.qualified_names(call.func))}
    return method in methods and not methods.isdisjoint(INIT_METHODS)


def may_call_method_on_init(facts: TextFacts, words: set[str], method: str, shaped=a_call) -> bool:
    """The text gate of JAX503/JAX504, before ``calls_methods_on_init``: both method names are attribute names, so
    whole words of the file, and each is called after a dot somewhere (``TextFacts.may_call_method``; ``shaped``:
    what the call of ``method`` must be read as). Without it every file that spells ``flax`` went on to the ast
    gate: 378 of the 661 corpus files that reached it did only for JAX503, which kept 9 of them."""
    if method not in words or INIT_METHODS.isdisjoint(words):
        return False
    # as ``calls_methods_on_init``: not a function of flax's modules (``flax.core.unfreeze(x)``: a chain that starts
    # at a name an import in code binds to flax)
    return facts.may_call_method(method, shaped, not_on=lambda name: facts.bound_by_code_import(name, _is_flax)) \
        and any(facts.may_call_method(init, a_call) for init in INIT_METHODS & words)


def _is_flax(module: str) -> bool:
    return module == "flax" or module.startswith("flax.")


def pop_may_be_unpacked(facts: TextFacts, *, or_subscripted: bool = False):
    """``pop_of_one_key`` that also asks the call may be the whole value of an assignment (``a, b = v.pop("k")``:
    JAX503's ``unpacks_a_pop``), or (``or_subscripted``) be subscripted (``v.pop("k")[1]``: JAX508's
    ``_may_have_shape``), read in the file's ``masked_code`` (scanned on the first call that may be so): False only
    where the text says for sure it is neither (``rngs.pop("params")`` alone on its line, ``f(v.pop("k"))`` after a
    comma, ``return v.pop("k")``)."""

    def shaped(call) -> bool:
        if not pop_of_one_key(call):
            return False
        text = facts.masked_code()
        if text is None or call.start < 1 or call.end < 0 or call.lambdas:
            return True
        after = call.end
        while after < len(text) and text[after] in " \t":
            after += 1
        following = text[after:after + 1]
        if or_subscripted and (following in ("[", "\\")
                               or following in ("\r", "\n") and bracket_depth(text, 0, after) > 0):
            return True  # a subscript, or one that may follow on the next line (inside brackets)
        return _may_be_an_assigned_value(text, call.start - 1)

    return shaped


def _may_be_an_assigned_value(code: str, opening: int) -> bool:
    """Whether the call whose ``(`` is at ``opening`` of ``code`` (``masked_code``) may be the whole value of an
    assignment to several targets: what stands before its callee's attribute chain is an ``=`` after a target that
    is not for sure one plain name, or a ``(`` (``a, b = (v.pop("k"))``), or anything that is not for sure the start
    of a statement, a ``return``, an argument after a comma..."""
    i = opening
    while i and code[i - 1] in " \t":
        i -= 1
    word_start = i
    while word_start and is_word_char(code[word_start - 1]):
        word_start -= 1
    root = chain_start(code, word_start)
    if root == word_start and code[root - 1:root] == ".":
        return True  # ``(x).pop(...)``: the chain is not all words
    return _assigned_after(code, root)


def _assigned_after(code: str, start: int) -> bool:
    """``_may_be_an_assigned_value`` for the expression that starts at ``start`` of ``code``."""
    before = start
    while before and code[before - 1] in " \t":
        before -= 1
    if not before or code[before - 1] in "\r\n":
        return not starts_statement(code, before)  # inside brackets, or after a ``\``: "maybe"
    char = code[before - 1]
    if char == "(":
        return _assigned_after(code, before - 1)  # ``= (v.pop("k"))``, not ``f(v.pop("k"))``
    if char == "\\":
        return True
    if not is_assignment_sign(code, before - 1):
        return False  # an argument, an element, an operand, a keyword's value (``return``), a comparison
    line = line_start(code, before)
    target = code[line:before - 1].strip(" \t")
    plain = target.replace(".", "").replace("_", "").isalnum() and not target[:1].isdigit()
    return not (plain and starts_statement(code, line))


def after_a_dot(facts: TextFacts, word: str) -> bool:
    return any(context != BARE for _, context in facts.occurrences(word))


def pop_of_one_key(call) -> bool:
    """A ``.pop(...)`` call read from the text (``CallText``) that may have one positional argument and no keyword, as
    JAX503's ``unpacks_a_pop`` and JAX508's ``_may_report`` need (a ``lambda`` among the arguments reads its
    parameters as arguments: "maybe")."""
    return call.positional >= 0 and (call.lambdas or call.positional == 1 and not call.keywords
                                     and not call.double_star)


def unpacks_a_pop(facts) -> bool:
    """JAX503's ast gate, past ``calls_methods_on_init``: some ``a, b = X.pop("key")`` (two targets, one string
    argument) exists; the visit reports nothing else. Walked only in files that passed the cheaper test."""
    whole = facts.file or facts
    if whole.tree is None:
        return True  # nothing to look at: keep the file
    for node in whole.nodes:  # every node of the tree, as the gate's walk recorded them (``ast.walk`` walks again)
        if type(node) is not ast.Assign or len(node.targets) != 1:
            continue
        target, call = node.targets[0], node.value
        if type(target) in (ast.Tuple, ast.List) and len(target.elts) == 2 \
                and not any(type(e) is ast.Starred for e in target.elts) and type(call) is ast.Call \
                and type(call.func) is ast.Attribute and call.func.attr == "pop" and len(call.args) == 1 \
                and not call.keywords and type(call.args[0]) is ast.Constant and isinstance(call.args[0].value, str):
            return True
    return False


def imports_flax(text: str) -> bool:
    """The file has an ``import flax...`` / ``from flax... import`` statement (the rules' own check: the examples'
    harness runs them without the gates)."""
    return _IMPORTS_FLAX.search(text) is not None


def init_call(value: cst.BaseExpression) -> bool:
    """``model.init(...)`` / ``model.init_with_output(...)`` (any receiver: flax modules are the common case)."""
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
        and value.func.attr.value in INIT_METHODS


def from_init(resolver: NameResolver, name: cst.Name) -> bool:
    """Every assignment of ``name`` in its scope's statements is from an init call (and there is one)."""
    scope = resolver.scope_of(name)
    if scope is None:
        return False
    found = False
    for statement in statements(scope.node):
        for small in getattr(statement, "body", ()):
            if not isinstance(small, cst.Assign):
                continue
            for target in small.targets:
                bound = binds(target.target, name.value, small.value)
                if bound is False:
                    return False
                found = found or bound is True
    return found


def flax_bound(resolver: NameResolver, node: cst.CSTNode) -> bool:
    """``flax`` names the flax package where ``node`` (a call or attribute chain on a name) stands."""
    receiver = node
    while isinstance(receiver, (cst.Attribute, cst.Call)):
        receiver = receiver.value if isinstance(receiver, cst.Attribute) else receiver.func
    scope = resolver.scope_of(receiver) if isinstance(receiver, cst.Name) else None
    return scope is not None and resolver.qualified_in_scope("flax", scope) == "flax"


def statements(node: cst.CSTNode):
    """The simple statements directly in a module or function body, and in the blocks nested in it (not in nested
    functions or classes: another scope)."""
    body = node.body.body if isinstance(node, cst.FunctionDef) else getattr(node, "body", ())
    stack = list(body) if isinstance(body, (list, tuple)) else []
    while stack:
        statement = stack.pop()
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        else:
            for field in ("body", "orelse", "handlers", "finalbody"):
                child = getattr(statement, field, None)
                if child is None:
                    continue
                for part in child if isinstance(child, (list, tuple)) else [child]:
                    inner = getattr(part, "body", part)
                    inner = getattr(inner, "body", inner)
                    if isinstance(inner, (list, tuple)):
                        stack.extend(inner)


def binds(target: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool | None:
    """True: ``target = value`` binds ``name`` to an init result; False: to something else; None: not at all."""
    if isinstance(target, cst.Name):
        return None if target.value != name else init_call(value)
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if name not in names:
            return None
        # ``out, variables = model.init_with_output(...)``: the second value is the variables
        return len(names) == 2 and names[1] == name and isinstance(value, cst.Call) \
            and isinstance(value.func, cst.Attribute) and value.func.attr.value == "init_with_output"
    return None


# -- the same answers from ``ast`` (``jaxlint.lint.ast_findings``; kept in step by tests/test_ast_findings.py) ------
_SCOPE_NODES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def init_call_ast(value: ast.AST) -> bool:
    """``init_call`` of an ``ast`` expression."""
    return type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr in INIT_METHODS


def from_init_ast(view: AstView, statement: ast.stmt, name: str) -> bool:
    """``from_init`` for ``name`` read in ``statement``: its scope is the function, class or module around it."""
    scope = next(ancestor for ancestor, _ in reversed(view.ancestors(statement)) if isinstance(ancestor, _SCOPE_NODES))
    found = False
    for small in statements_in_order_ast(view, scope):  # a ``False`` anywhere answers: the order does not matter
        if type(small) is not ast.Assign:
            continue
        for target in small.targets:
            bound = binds_ast(target, name, small.value)
            if bound is False:
                return False
            found = found or bound is True
    return found


def on_init_ast(view: AstView, node: ast.AST, receiver: ast.AST) -> bool:
    """``init_call(receiver)``, or ``receiver`` a name that ``from_init`` finds assigned from init (``node``: the
    call on it). ``from_init`` reads the statements of the name's scope: a lambda or a comprehension
    (``lambda: v.unfreeze()``) has none, so a name there is never from init."""
    if init_call_ast(receiver):
        return True
    if type(receiver) is not ast.Name:
        return False
    ancestors = view.ancestors(receiver)
    if type(scope_chain(ancestors)[-1]) not in _SCOPE_NODES:
        return False
    return from_init_ast(view, statement_of(view.ancestors(node)), receiver.id)


def statements_in_order_ast(view: AstView, scope: ast.AST):
    """The simple statements ``statements`` reaches, in the order it yields them (``VariablesTrackerAst``'s answers
    may rest on the order it reads assignments in): the lines of a block from the last, each line's statements
    (``a = 1; b = 2``) from the first. With its quirks: only a module's or a function's body is read (a class, a
    lambda, a comprehension give none); a one-line suite (``if x: a = 1``, ``def f(): a = 1``) gives none (its
    statements are not statement lines); an ``elif`` gives its own body but not what follows it (``elif``/``else``);
    a ``match`` gives none."""
    if type(scope) not in _STATEMENT_SCOPES or type(scope) is not ast.Module and _one_line_suite(view, scope.body):
        return
    stack = _lines(scope.body)
    while stack:
        item = stack.pop()
        if type(item) is list:
            yield from item
            continue
        for block in _blocks(view, item):
            if block and not _one_line_suite(view, block):
                stack.extend(_lines(block))


_STATEMENT_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)


def _lines(block: list[ast.stmt]) -> list:
    """A block as libcst's statements: a compound statement, or the list of the simple statements of one line
    (joined by ``;``: the next starts on the line the previous ends)."""
    items: list = []
    for statement in block:
        if type(statement) in COMPOUND:
            items.append(statement)
        elif items and type(items[-1]) is list and items[-1][-1].end_lineno == statement.lineno:
            items[-1].append(statement)
        else:
            items.append([statement])
    return items


def _blocks(view: AstView, statement: ast.stmt) -> list[list[ast.stmt]]:
    """The blocks of a compound statement that ``statements`` walks into (``body``, ``orelse``, ``handlers``,
    ``finalbody``: an ``elif``, libcst's ``orelse`` ``If``, gives only its ``body``)."""
    kind = type(statement)
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match):
        return []
    if kind is ast.If:
        orelse = statement.orelse
        if len(orelse) == 1 and type(orelse[0]) is ast.If and view.source.startswith("elif", view.offset_of(orelse[0])):
            return [statement.body, orelse[0].body]
        return [statement.body, orelse]
    # libcst's fields in ``statements``' order: ``body``, ``orelse``, ``handlers``, ``finalbody``
    handlers = [handler.body for handler in getattr(statement, "handlers", ())]
    return [statement.body, getattr(statement, "orelse", []), *handlers, getattr(statement, "finalbody", [])]


def _one_line_suite(view: AstView, block: list[ast.stmt]) -> bool:
    """Whether ``block`` is libcst's ``SimpleStatementSuite`` (on the line of its header's colon) rather than an
    ``IndentedBlock``: its first statement has code before it on its line. A line continued by a backslash before
    it is undecidable (``if x: \\`` joins the next line to the header's)."""
    first = block[0]
    if type(first) in COMPOUND:
        return False  # a suite holds simple statements only
    start = view.offset_of(first)
    line_start = view.index.starts[first.lineno - 1]
    if view.source[line_start:start].strip(" \t\f"):
        return True
    if first.lineno > 1 and view.index.line_text(first.lineno - 1).endswith("\\"):
        raise Undecidable("a backslash continuation before a block's first statement")
    return False


def binds_ast(target: ast.AST, name: str, value: ast.AST) -> bool | None:
    """``binds`` of an ``ast`` target (a starred element counts as the name it stars, as libcst's ``.value``)."""
    if type(target) is ast.Name:
        return None if target.id != name else init_call_ast(value)
    if type(target) in (ast.Tuple, ast.List):
        elements = [element.value if type(element) is ast.Starred else element for element in target.elts]
        names = [element.id if type(element) is ast.Name else None for element in elements]
        if name not in names:
            return None
        return len(names) == 2 and names[1] == name and type(value) is ast.Call \
            and type(value.func) is ast.Attribute and value.func.attr == "init_with_output"
    return None


def flax_bound_ast(view: AstView, node: ast.AST) -> bool:
    """``flax_bound``: the chain's root is a name (any name has a scope) and ``flax`` written in that name's scope
    resolves to the flax package (``AstView.qualified_in_scope``: ``Undecidable`` where that is not certain)."""
    receiver = node
    while type(receiver) in (ast.Attribute, ast.Call):
        receiver = receiver.value if type(receiver) is ast.Attribute else receiver.func
    return type(receiver) is ast.Name and view.qualified_in_scope("flax", receiver) == "flax"
