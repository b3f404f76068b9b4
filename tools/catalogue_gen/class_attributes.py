"""Instance attributes of a class, read in its body: those ``__init__`` stores (``self.model = model``) and those a
class ``__getattr__`` refuses by name with an ``AttributeError`` (flax 0.11.0's ``nnx.Optimizer``: ``if name ==
'model' and name not in vars(self): raise AttributeError(...)``), the library's own word that an attribute went."""
from __future__ import annotations

import ast


def stored_attributes(cls: ast.ClassDef) -> list[str]:
    """Public ``self.X`` that ``__init__`` assigns."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None or not init.args.args:
        return []
    me = init.args.args[0].arg
    found = set()
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == me \
                        and not part.attr.startswith("_"):
                    found.add(part.attr)
    return sorted(found)


def refused_attributes(cls: ast.ClassDef) -> dict[str, str]:
    """``X -> message`` for each ``if name == "X" ...: raise AttributeError(message)`` of the class's
    ``__getattr__`` or ``__getattribute__`` (the message as written: a string, or the source of an f-string)."""
    getattr_ = next((f for f in _body(cls) if isinstance(f, ast.FunctionDef)
                     and f.name in ("__getattr__", "__getattribute__")), None)
    if getattr_ is None or len(getattr_.args.args) < 2:
        return {}
    name = getattr_.args.args[1].arg
    found = {}
    for node in ast.walk(getattr_):
        if not isinstance(node, ast.If):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) \
            else [node.test]
        compared = [t.comparators[0].value for t in tests
                    if isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == name
                    and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) and isinstance(t.comparators[0], ast.Constant)
                    and isinstance(t.comparators[0].value, str)]
        raised = next((s.exc for s in node.body if isinstance(s, ast.Raise) and isinstance(s.exc, ast.Call)
                       and isinstance(s.exc.func, ast.Name) and s.exc.func.id == "AttributeError"), None)
        if len(compared) == 1 and raised is not None:
            found[compared[0]] = _text(raised.args[0]) if raised.args else ""
    return found


def _text(node: ast.expr) -> str:
    """A message's words: string parts joined, ``{...}`` for what is formatted in."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return ast.unparse(node)


def _body(cls: ast.ClassDef) -> list[ast.stmt]:
    """The class body, with the statements of its ``if`` blocks (``if not typing.TYPE_CHECKING: def ...``)."""
    found, stack = [], list(cls.body)
    while stack:
        statement = stack.pop(0)
        found.append(statement)
        if isinstance(statement, ast.If):
            stack += statement.body + statement.orelse
    return found
