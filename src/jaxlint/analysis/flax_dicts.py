"""Whether an expression holds the variables that flax's ``init``/``apply`` returned (a ``FrozenDict`` up to flax
0.7.0, a plain ``dict`` from 0.7.1), or a collection nested in them, followed through the names of one scope.

What holds them (JAX508):

- ``model.init(...)``; ``model.init_with_output(...)[1]``; ``model.apply(..., mutable=...)[1]`` (with ``mutable``
  neither ``False`` nor ``None``: the updated collections);
- a subscript of any depth of such a value (``variables["params"]["Dense_0"]``);
- ``state.params`` where ``state`` is ``SomeTrainState.create(..., params=<one of these>)`` (or its
  ``apply_gradients(...)``: the new params keep the old container type);
- a name every assignment of which, in its scope, is one of these (``out, variables = model.init_with_output(...)``,
  ``y, state = model.apply(v, x, mutable=["batch_stats"])`` included), and there is one.

A function's parameter, a ``FrozenDict(...)`` or ``freeze(...)`` the code builds, a name assigned anything else in
the scope: not followed (no finding)."""
from __future__ import annotations

import libcst as cst

from jaxlint.analysis.flax_values import statements
from jaxlint.lint.names import NameResolver

_TUPLE_SOURCES = frozenset({"init_with_output", "apply"})
_STATE_KEEPING = frozenset({"apply_gradients"})


def method_call(node: cst.BaseExpression, names: frozenset[str] | set[str]) -> str | None:
    """The method name of ``x.NAME(...)`` when it is one of ``names``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in names:
        return node.func.attr.value
    return None


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((arg for arg in call.args if arg.keyword is not None and arg.keyword.value == name), None)


def returns_variables_pair(call: cst.BaseExpression) -> bool:
    """``init_with_output(...)`` or ``apply(..., mutable=...)``: a pair whose second value is the variables."""
    method = method_call(call, _TUPLE_SOURCES)
    if method == "init_with_output":
        return True
    if method == "apply":
        mutable = _keyword(call, "mutable")
        return mutable is not None and not (isinstance(mutable.value, cst.Name)
                                            and mutable.value.value in ("False", "None"))
    return False


class VariablesTracker:
    """Answers ``holds`` for the expressions of one file."""

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver
        self._names: dict[tuple[int, str], bool] = {}
        self._states: dict[tuple[int, str], bool] = {}

    def holds(self, node: cst.BaseExpression) -> bool:
        # a name's answer may rest on another name read at the same time: kept for this question only
        self._names.clear()
        self._states.clear()
        return self._holds(node) is True

    def _holds(self, node: cst.BaseExpression) -> bool | None:
        """True, False, or None: only through a name whose assignments are being read (``v = v["params"]``,
        ``v = v.copy({...})``: such an assignment neither proves nor disproves what ``v`` holds)."""
        if method_call(node, {"init"}):
            return True
        if method_call(node, {"copy"}) and node.args:
            return self._holds(node.func.value)  # ``FrozenDict.copy(...)``: the same type, the same variables
        if isinstance(node, cst.Subscript):
            if returns_variables_pair(node.value):
                return _index(node) == 1
            return self._holds(node.value)
        if isinstance(node, cst.Attribute) and node.attr.value == "params":
            return self._state(node.value) if isinstance(node.value, cst.Name) else False
        if isinstance(node, cst.Name):
            return self._name(node, self._names, self._binds_variables)
        return False

    # -- names, through every assignment of their scope -------------------------------------------------------
    def _name(self, name: cst.Name, cache: dict, binds) -> bool | None:
        scope = self.resolver.scope_of(name)
        if scope is None:
            return False
        key = (id(scope), name.value)
        if key in cache:
            return cache[key]
        cache[key] = None  # read while its own assignments are: neutral (``v = v["params"]``)
        found = False
        for statement in statements(scope.node):
            for small in getattr(statement, "body", ()):
                if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    continue
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                for target in targets:
                    if isinstance(small, cst.AugAssign) or small.value is None:
                        bound = None if not _binds_name(target, name.value) else False
                    else:
                        bound = binds(target, name.value, small.value)
                    if bound is False:
                        return False
                    found = found or bound is True
        cache[key] = found
        return found

    def _binds_variables(self, target: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool | None:
        if isinstance(target, cst.Name):
            return None if target.value != name else self._holds(value)
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
            if name not in names:
                return None
            return len(names) == 2 and names[1] == name and returns_variables_pair(value)
        return None if not _binds_name(target, name) else False

    def _state(self, name: cst.Name) -> bool | None:
        return self._name(name, self._states, self._binds_state)

    def _binds_state(self, target: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool | None:
        if not _binds_name(target, name):
            return None
        if not isinstance(target, cst.Name) or not isinstance(value, cst.Call):
            return False
        if method_call(value, {"create"}):
            params = _keyword(value, "params")
            return params is not None and self._holds(params.value)
        if method_call(value, _STATE_KEEPING) and isinstance(value.func.value, cst.Name) \
                and value.func.value.value == name:
            return None  # ``state = state.apply_gradients(grads=g)``: as the state it updates
        return False


def _binds_name(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds_name(element.value, name) for element in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds_name(target.value, name)
    return False


def _index(node: cst.Subscript) -> int | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    return int(value.value) if isinstance(value, cst.Integer) and value.value.isdigit() else None


def first_name(node: cst.CSTNode) -> cst.Name | None:
    """The leftmost name of an expression (``model`` in ``model.init(rng)["params"]``): where its scope is read."""
    while True:
        if isinstance(node, cst.Name):
            return node
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        else:
            return None
