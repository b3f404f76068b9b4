"""``isinstance(v, FrozenDict)`` on flax variables: the test itself (False on flax 0.7.1+, where ``init`` returns a
dict) and the branches it narrows.

- ``frozendict_test``: ``isinstance(X, FrozenDict)`` (or ``not ...``): the tested expression and whether the test is
  true for a FrozenDict. A tuple of classes is not read (``(FrozenDict, dict)`` is the fix: no narrowing).
- ``in_frozendict_branch`` / ``in_frozendict_branch_ast``: a value used in the branch that runs only for a FrozenDict
  (``if isinstance(v, FrozenDict): v.unfreeze()``) is one: JAX503/504/508 stay silent there. The other branch runs
  for the dict and keeps its findings.
- ``guards_frozendict_code``: the FrozenDict branch calls a FrozenDict method on the tested value or a subscript of
  it, or unfreezes it (``if isinstance(v, FrozenDict): v = v.unfreeze()``): compatibility code, right on both sides
  (and the fix, ``(FrozenDict, dict)``, would send dicts into that branch), so the test is not reported either.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst
from jaxlint.lint.ast_findings import AstView, Undecidable
from jaxlint.lint.lazy_libcst import Visits, visitor

FROZEN_DICT = frozenset({"flax.core.FrozenDict", "flax.core.frozen_dict.FrozenDict"})
_UNFREEZE = frozenset({"flax.core.unfreeze", "flax.core.frozen_dict.unfreeze"})

Qualify = Callable[["cst.CSTNode"], "str | None"]
Code = Callable[["cst.CSTNode"], str]


def isinstance_frozendict(call: cst.BaseExpression, qualified: Qualify) -> bool:
    """``isinstance(X, FrozenDict)``: two positional arguments, the second a name of flax's FrozenDict."""
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance"
            and len(call.args) == 2 and all(arg.keyword is None and not arg.star for arg in call.args)):
        return False
    return qualified(call.func) in (None, "builtins.isinstance") and qualified(call.args[1].value) in FROZEN_DICT


def frozendict_test(test: cst.BaseExpression, qualified: Qualify) -> tuple[cst.BaseExpression, bool] | None:
    positive = True
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, positive = test.expression, not positive
    if not isinstance_frozendict(test, qualified):
        return None
    return test.args[0].value, positive


def in_frozendict_branch(ancestors: Sequence[cst.CSTNode], receiver: cst.BaseExpression, qualified: Qualify,
                         code: Code) -> bool:
    """``receiver`` (a name or a subscript of one) stands in a branch that runs only when it, or what it is a
    subscript of, is a FrozenDict."""
    for parent, child in zip(ancestors, ancestors[1:]):
        if not isinstance(parent, (cst.If, cst.IfExp)):
            continue
        found = frozendict_test(parent.test, qualified)
        if found is None:
            continue
        tested, positive = found
        branch = parent.body if positive else parent.orelse
        if child is branch and _holds_part(receiver, code(tested), code):
            return True
    return False


def guards_frozendict_code(call: cst.Call, ancestors: Sequence[cst.CSTNode], qualified: Qualify, code: Code,
                           methods: frozenset[str]) -> bool:
    """``call`` (an ``isinstance`` test) is an ``if``'s test whose FrozenDict branch calls one of ``methods`` on
    the tested value (or a subscript of it) or ``flax.core.unfreeze`` of it."""
    if len(ancestors) < 2:
        return False
    owner = next((node for node in reversed(ancestors[:-1]) if not isinstance(node, cst.UnaryOperation)), None)
    if not isinstance(owner, (cst.If, cst.IfExp)):
        return False
    found = frozendict_test(owner.test, qualified)
    if found is None:
        return False
    tested, positive = found
    branch = owner.body if positive else owner.orelse
    if branch is None:
        return False
    text = code(tested)
    finder = visitor(_MethodFinder)(text, qualified, code, methods)
    branch.visit(finder)
    return finder.found


class _MethodFinder(Visits):
    def __init__(self, text: str, qualified: Qualify, code: Code, methods: frozenset[str]) -> None:
        self.text, self.qualified, self.code, self.methods, self.found = text, qualified, code, methods, False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in self.methods:
            self.found = self.found or _holds_part(func.value, self.text, self.code)
        elif node.args and self.qualified(func) in _UNFREEZE:
            self.found = self.found or _holds_part(node.args[0].value, self.text, self.code)


def _holds_part(receiver: cst.BaseExpression, tested: str, code: Code) -> bool:
    """``tested`` is ``receiver`` or what it subscripts (a FrozenDict's values are FrozenDicts)."""
    node = receiver
    while True:
        if code(node) == tested:
            return True
        if not isinstance(node, cst.Subscript):
            return False
        node = node.value


# -- the same on ``ast`` (JAX503 and JAX504 decide from the ast gate's tree) -------------------------------------------
def in_frozendict_branch_ast(view: AstView, ancestors: Sequence[tuple[ast.AST, str]], receiver: ast.AST) -> bool:
    """``in_frozendict_branch``, which compares libcst's code of the tested value and of the receiver (or what it
    subscripts): the texts compared here are libcst's only without parentheses of their own, so a tree that matches
    but may be parenthesized is ``Undecidable``."""
    for parent, field in ancestors:
        if type(parent) not in (ast.If, ast.IfExp):
            continue
        test, positive = parent.test, True
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:
            test, positive = test.operand, not positive
        if not (type(test) is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance"
                and len(test.args) == 2 and not test.keywords and view.qualified_name(test.args[1]) in FROZEN_DICT):
            continue
        if field != ("body" if positive else "orelse"):
            continue
        tested = test.args[0]
        node = receiver
        while True:
            if ast.dump(node) == ast.dump(tested):  # equal code has equal trees
                if not (_first_argument_unparenthesized(view, test) and _value_unparenthesized(view, node)):
                    raise Undecidable("an isinstance test on a value that may be in parentheses")
                if view.text(node) == view.text(tested):
                    return True
            if type(node) is not ast.Subscript:
                break
            node = node.value
    return False


def _first_argument_unparenthesized(view: AstView, call: ast.Call) -> bool:
    between = view.source[view.offset_of(call.func, end=True):view.offset_of(call.args[0])]
    return between.strip(" \t") == "("


def _value_unparenthesized(view: AstView, node: ast.AST) -> bool:
    """``node`` is the ``.value`` of an attribute or subscript that starts where it starts (``(v).pop``, ``(v)[k]``
    start at the parenthesis)."""
    parent, field = view.parent(node)
    return type(parent) in (ast.Attribute, ast.Subscript) and field == "value" \
        and view.offset_of(parent) == view.offset_of(node)


def isinstance_frozendict_ast(view: AstView, call: ast.AST) -> bool:
    """``isinstance_frozendict`` of an ``ast`` call: the resolver's names from ``AstNames`` (its port, built only when
    the call may be one: ``isinstance`` with two positional arguments, the second a name or attribute chain that
    some import, or a star import, may bind to flax's FrozenDict)."""
    if not (type(call) is ast.Call and type(call.func) is ast.Name and call.func.id == "isinstance"
            and len(call.args) == 2 and not call.keywords and not any(type(arg) is ast.Starred for arg in call.args)):
        return False
    root, attributes = call.args[1], []
    while type(root) is ast.Attribute:
        attributes.append(root.attr)
        root = root.value
    if type(root) is not ast.Name:
        return False
    suffix = "".join("." + attribute for attribute in reversed(attributes))
    if not view.star_import and not any(base + suffix in FROZEN_DICT for base in view.may_import(root.id)):
        return False  # no import binds the name to what would qualify it to flax's FrozenDict
    names = view.names()
    return names.qualified_name(call.func) in (None, "builtins.isinstance") \
        and names.qualified_name(call.args[1]) in FROZEN_DICT


def guards_frozendict_code_ast(view: AstView, call: ast.Call, ancestors: Sequence[tuple[ast.AST, str]],
                               methods: frozenset[str]) -> bool:
    """``guards_frozendict_code`` of an ``ast`` call (``ancestors``: the call's). The code compared is libcst's
    only where neither side has parentheses of its own: a tree that matches but may be parenthesized is
    ``Undecidable``."""
    owner = next((node for node, _ in reversed(ancestors) if type(node) is not ast.UnaryOp), None)
    if type(owner) not in (ast.If, ast.IfExp):
        return False
    test, positive = owner.test, True
    while type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        test, positive = test.operand, not positive
    if not isinstance_frozendict_ast(view, test):
        return False
    branch = owner.body if positive else owner.orelse
    if not branch:
        return False  # an ``if`` without ``else``: libcst's ``orelse`` is None
    tested = test.args[0]
    names = view.names()
    for root in (branch if type(branch) is list else [branch]):
        for node in ast.walk(root):
            if type(node) is not ast.Call:
                continue
            func = node.func
            if type(func) is ast.Attribute and func.attr in methods:
                if _holds_part_ast(view, func.value, test, tested):
                    return True
            elif (node.args or node.keywords) and names.qualified_name(func) in _UNFREEZE:
                if _holds_part_ast(view, _first_argument(node), test, tested):
                    return True
    return False


def _first_argument(call: ast.Call) -> ast.AST:
    """libcst's ``call.args[0].value``: the value of the first argument in the source (a keyword's, a starred's)."""
    first = min([*call.args, *call.keywords], key=lambda node: (node.lineno, node.col_offset))
    return first.value if type(first) in (ast.Starred, ast.keyword) else first


def _holds_part_ast(view: AstView, receiver: ast.AST, test: ast.Call, tested: ast.AST) -> bool:
    """``_holds_part``: libcst's code of ``receiver``, or of what it subscripts, is that of ``tested`` (the first
    argument of ``test``). Equal code has equal trees; equal trees have equal code where neither is in parentheses
    of its own (the tested value right after ``isinstance(``; the receiver the value of an attribute or a
    subscript, or a call's first argument, that starts where its parent starts or right after the call's ``(``)."""
    node = receiver
    tested_dump = ast.dump(tested)
    while True:
        if ast.dump(node) == tested_dump:
            if not (_first_argument_unparenthesized(view, test) and _unparenthesized(view, node)):
                raise Undecidable("an isinstance test on a value that may be in parentheses")
            if view.text(node) == view.text(tested):
                return True
        if type(node) is not ast.Subscript:
            return False
        node = node.value


def _unparenthesized(view: AstView, node: ast.AST) -> bool:
    parent, field = view.parent(node)
    if type(parent) is ast.Call and field == "args" and parent.args[0] is node:
        return _first_argument_unparenthesized(view, parent)
    return _value_unparenthesized(view, node)
