"""Whether an expression holds the variables that flax's ``init``/``apply`` returned (a ``FrozenDict`` up to flax
0.7.0, a plain ``dict`` from 0.7.1), or a collection nested in them, followed through the names of one scope.

What holds them (JAX508):

- ``model.init(...)``; ``model.init_with_output(...)[1]``; ``model.apply(..., mutable=...)[1]`` (with ``mutable``
  neither ``False`` nor ``None``: the updated collections);
- a subscript of any depth of such a value (``variables["params"]["Dense_0"]``);
- ``state.FIELD`` where ``state`` is ``SomeTrainState.create(..., FIELD=<one of these>)`` (``params``, or a field
  of a project subclass such as ``batch_stats``), or its ``apply_gradients(...)``/``replace(...)`` (the new params
  keep the old container type; a ``replace(params=...)`` holds what it is given, another field replaced is not
  followed). ``SomeTrainState`` is not a class
  of the module that does not derive from flax's ``TrainState`` (the project's own ``create`` may freeze);
- ``state.params`` where ``state`` is a function parameter annotated with flax's
  ``flax.training.train_state.TrainState`` or a class of the module deriving from it (a TrainState is built from
  ``init``'s variables), unless the file builds a TrainState's params with ``freeze(...)``/``FrozenDict(...)``
  (``_FROZEN_PARAMS``: then a parameter's params may be a FrozenDict on purpose);
- a name every assignment of which, in its scope, is one of these (``out, variables = model.init_with_output(...)``,
  ``y, state = model.apply(v, x, mutable=["batch_stats"])`` included), and there is one; ``pair[1]`` of a name
  every assignment of which is ``init_with_output(...)``/``apply(..., mutable=...)``.

Any other function parameter, a ``FrozenDict(...)`` or ``freeze(...)`` the code builds, a name assigned anything else
in the scope: not followed (no finding)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.flax_values import statements
from jaxlint.lint.names import NameResolver

_TUPLE_SOURCES = frozenset({"init_with_output", "apply"})
# a new state from an old one: the fields not passed keep their values (``apply_gradients(grads=g, **kwargs)``
# passes its keywords on to ``replace``; its new params are ``optax.apply_updates`` of the old: the same containers)
_STATE_KEEPING = frozenset({"apply_gradients", "replace"})
TRAIN_STATE = "flax.training.train_state.TrainState"
# A TrainState's params built frozen by the file (``params=freeze(...)``, ``params=FrozenDict(...)``): a parameter
# annotated with the class may hold those. Read in the whole file's text, as the ast path reads it.
_FROZEN_PARAMS = re.compile(r"\bparams\s*=\s*(?:[\w.]+\.)?(?:freeze|FrozenDict)\s*\(")


def builds_frozen_params(file_text: str) -> bool:
    """The file builds some ``params=`` from ``freeze(...)``/``FrozenDict(...)``."""
    return _FROZEN_PARAMS.search(file_text) is not None


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

    def __init__(self, resolver: NameResolver, classes=None, file_text: str = "") -> None:
        self.resolver = resolver
        self.classes = classes  # ``InstanceClasses``: the class a ``create`` receiver or an annotation names
        self._annotated_states = classes is not None and not builds_frozen_params(file_text)
        self._names: dict[tuple[int, str], bool] = {}
        self._pairs: dict[tuple[int, str], bool] = {}
        self._states: dict[str, dict[tuple[int, str], bool]] = {}

    def holds(self, node: cst.BaseExpression) -> bool:
        # a name's answer may rest on another name read at the same time: kept for this question only
        self._names.clear()
        self._pairs.clear()
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
            if isinstance(node.value, cst.Name) and _index(node) == 1 \
                    and self._name(node.value, self._pairs, self._binds_pair) is True:
                return True  # ``y = model.apply(v, x, mutable=[...])``, then ``y[1]``
            return self._holds(node.value)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            return self._state(node.value, node.attr.value)
        if isinstance(node, cst.Name):
            return self._name(node, self._names, self._binds_variables)
        return False

    # -- names, through every assignment of their scope -------------------------------------------------------
    def _name(self, name: cst.Name, cache: dict, binds, parameter=None) -> bool | None:
        scope = self.resolver.scope_of(name)
        if scope is None:
            return False
        key = (id(scope), name.value)
        if key in cache:
            return cache[key]
        cache[key] = None  # read while its own assignments are: neutral (``v = v["params"]``)
        found = False
        if parameter is not None and isinstance(scope.node, cst.FunctionDef):
            bound = self._parameter(scope.node, name, parameter)
            if bound is False:
                cache[key] = False
                return False
            found = bound is True
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

    def _binds_pair(self, target: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool | None:
        if not _binds_name(target, name):
            return None
        return isinstance(target, cst.Name) and returns_variables_pair(value)

    # -- TrainStates: ``state.FIELD`` ----------------------------------------------------------------------------
    def _state(self, name: cst.Name, field: str) -> bool | None:
        """``name`` holds a TrainState whose ``field`` holds variables."""
        def binds(target: cst.BaseExpression, identifier: str, value: cst.BaseExpression) -> bool | None:
            return self._binds_state(target, identifier, value, field)

        parameter = self._annotated_state if field == "params" and self._annotated_states else None
        return self._name(name, self._states.setdefault(field, {}), binds, parameter)

    def _binds_state(self, target: cst.BaseExpression, name: str, value: cst.BaseExpression,
                     field: str) -> bool | None:
        if not _binds_name(target, name):
            return None
        if not isinstance(target, cst.Name) or not isinstance(value, cst.Call):
            return False
        if method_call(value, {"create"}):
            passed = _keyword(value, field)
            return passed is not None and self._may_be_train_state(value.func.value) and self._holds(passed.value)
        if method_call(value, _STATE_KEEPING) and isinstance(value.func.value, cst.Name):
            passed = _keyword(value, field)
            if passed is not None:
                # a new value for the field: followed for ``params`` only (the ast path keeps in step)
                return field == "params" and self._holds(passed.value)
            if value.func.value.value == name:
                return None  # ``state = state.apply_gradients(grads=g)``: as the state it updates
            return self._state(value.func.value, field)  # ``new_state = state.replace(step=0)``
        return False

    def _may_be_train_state(self, receiver: cst.BaseExpression) -> bool:
        """A ``create`` receiver: not a class of the module that defines its own ``create`` (or inherits one from
        a class of the module) without deriving from flax's TrainState: the project's ``create`` may freeze. An
        imported class, or one the inference cannot name, is taken as one, as before."""
        if self.classes is None:
            return True
        named = self.classes.annotation_class(receiver)
        if not isinstance(named, cst.ClassDef) or self._train_state_class(named, set()):
            return True
        return not self._defines_create(named, set())

    def _defines_create(self, cls: cst.ClassDef, seen: set[int]) -> bool:
        if id(cls) in seen:
            return False
        seen.add(id(cls))
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        if any(isinstance(statement, cst.FunctionDef) and statement.name.value == "create" for statement in body):
            return True
        bases = (self.classes.annotation_class(base.value) for base in cls.bases if base.keyword is None)
        return any(isinstance(base, cst.ClassDef) and self._defines_create(base, seen) for base in bases)

    def _annotated_state(self, parameter: cst.Param) -> bool:
        """A parameter annotated with flax's TrainState, or a class of the module deriving from it."""
        if parameter.annotation is None or parameter.star:
            return False
        return self._train_state_class(self.classes.annotation_class(parameter.annotation.annotation), set())

    def _train_state_class(self, named, seen: set[int]) -> bool:
        if isinstance(named, str):
            return named == TRAIN_STATE
        if not isinstance(named, cst.ClassDef) or id(named) in seen:
            return False
        seen.add(id(named))
        return any(self._train_state_class(self.classes.annotation_class(base.value), seen) for base in named.bases
                   if base.keyword is None and not base.star)

    def _parameter(self, function: cst.FunctionDef, name: cst.Name, test) -> bool | None:
        """What ``test`` says of the parameter ``name`` of ``function`` (None: not a parameter of it). A name
        bound in the function otherwise than by a parameter or a plain assignment (a loop, a ``with``, an
        import) answers False."""
        params = function.params
        found = next((param for param in (*params.posonly_params, *params.params, *params.kwonly_params)
                      if param.name.value == name.value), None)
        if found is None:
            return None
        if any(not isinstance(binding.node, (cst.Param, cst.Assign, cst.AnnAssign))
               for binding in self.resolver.bindings(name)):
            return False
        return test(found)


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
