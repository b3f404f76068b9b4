"""JAX401 mesh-context-manager: ``with mesh:`` is deprecated; ``with jax.set_mesh(mesh):`` replaces it."""
from __future__ import annotations

import ast
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.floors import FLOORS, floor_withheld
from jaxlint.analysis.ast_value_kinds import own_body_nodes, returned_values
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, scope_chain, statement_of, walk
from jaxlint.lint.code_map import closing_bracket_end
from jaxlint.lint.diagnostics import Applicability, Edit, WithheldFix
from jaxlint.lint.inference import MESH, MESH_FACTORIES
from jaxlint.lint.names import Scope
from jaxlint.project.index import READS_THREAD_RESOURCES, active_index
from jaxlint.analysis import added_imports
from jaxlint.rules.base import InsertBefore, Invalid, NodeEdit, Replace, Rule, Valid, unsafe_fix
from jaxlint.analysis.ast_attribute_values import is_static
from jaxlint.analysis.ast_pjit_specs import AstPjitSpecFinder
from jaxlint.analysis.ast_project_reach import AstProjectReach
from jaxlint.analysis.pjit_specs import PjitSpecFinder
from jaxlint.analysis.project_reach import ProjectReach

# Calls that build a concrete ``jax.sharding.Mesh``.
MESH_CONSTRUCTORS = MESH_FACTORIES
DEPRECATED = "0.10.1"
# ``jax.set_mesh`` in the top-level namespace: present from 0.7.1, absent in 0.7.0 (``FLOORS``, read in the wheels).
SET_MESH_SINCE = FLOORS["jax.set_mesh"].since
MESSAGE = (f"`with mesh:` has been deprecated since JAX {DEPRECATED} (still a `DeprecationWarning` in 0.12.0.1, to "
           f"be removed); use `with jax.set_mesh(mesh):`, which also sets the abstract mesh and raises `ValueError` "
           f"inside `jax.jit`")
# Removed spellings of ``jax.sharding.Mesh`` (the catalogue gives the replacement and from when it exists).
LEGACY_MESH = frozenset({"jax.experimental.maps.Mesh", "jax.interpreters.pxla.Mesh"})


# What the text gate reads of a ``with`` statement's items (``_may_enter_a_mesh``): an attribute chain (blanks around
# its dots), the brackets to skip, an ``as`` target.
_ITEM_CHAIN = re.compile(r"[ \t]*([^\W\d]\w*(?:[ \t]*\.[ \t]*[^\W\d]\w*)*)[ \t]*")
_BLANKS = re.compile(r"[ \t]*")
_AS_TARGET = re.compile(r"as(?![\w.])[ \t]*")
_CONSTRUCTOR_LASTS = frozenset(name.rpartition(".")[2] for name in MESH_FACTORIES)


def _may_enter_a_mesh(source: str, start: int, strings) -> bool:
    """Whether the ``with`` statement whose items start at ``start`` may have an item ``may_match_ast`` keeps: a
    name, an attribute of a name, a call of a name, a call of a chain that ends in a mesh constructor's name (a
    chain's qualified names end in its last word), a named expression. Items read for sure as something else (a
    longer chain, a call of a longer chain or of a method, a subscript, each then ``:``, ``,`` or ``as``) are passed
    over; anything else (brackets around the items, a string, an operator, a line continuation) is a maybe.
    ``strings``: the file's ``code_map`` (brackets in strings and comments are not counted)."""
    position = start
    while True:
        match = _ITEM_CHAIN.match(source, position)
        if match is None:
            return True
        chain = [part.strip() for part in match.group(1).split(".")]
        position = match.end()
        follows = source[position:position + 2]
        if follows.startswith("("):
            if len(chain) == 1 or chain[-1] in _CONSTRUCTOR_LASTS:
                return True
            position = closing_bracket_end(source, position, strings)
        elif follows.startswith("["):
            position = closing_bracket_end(source, position, strings)
        elif follows == ":=" or len(chain) <= 2:
            return True  # a named expression, a name, an attribute of a name (``as`` or ``,`` or ``:`` after it)
        if position < 0:
            return True
        position = _BLANKS.match(source, position).end()
        as_target = _AS_TARGET.match(source, position)
        if as_target is not None:  # ``as name``, ``as self.x``, ``as (a, b)``, ``as [a, b]``
            position = as_target.end()
            if source[position:position + 1] in ("(", "["):
                position = closing_bracket_end(source, position, strings)
            else:
                target = _ITEM_CHAIN.match(source, position)
                position = -1 if target is None else target.end()
            if position < 0:
                return True
            position = _BLANKS.match(source, position).end()
        following = source[position:position + 1]
        if following == ":" and source[position:position + 2] != ":=":
            return False  # the statement's items end here
        if following != ",":
            return True  # a trailer (``.x``, ``(...)`` after the brackets), an operator: unclear
        position += 1


def _base_name(node: cst.BaseExpression) -> cst.Name | None:
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node if isinstance(node, cst.Name) else None


class MeshContextManager(Rule):
    code = "JAX401"
    name = "mesh-context-manager"
    summary = "`with mesh:` is deprecated; use `with jax.set_mesh(mesh):`"
    since = DEPRECATED
    triggers = ()
    whole_module_strings = ("pjit",)  # a pjit kept anywhere in the module withholds the fix
    required_words = frozenset({frozenset({"jax", "Mesh"}), frozenset({"jax", "make_mesh"})})
    ast_names = MESH_CONSTRUCTORS
    decides_from_ast = True  # where the min version withholds every fix (``findings_from_ast``)

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # Only ``with`` statements (``ast.With``) are reported: a ``with`` keyword first on its line, in code; prose
        # ("with a mesh") in docstrings, comments and f-strings' text does not count. Of those, only statements with
        # an item that ``may_match_ast`` keeps (``_may_enter_a_mesh``: not ``with self.assertRaises(...):``).
        starts = facts.line_starts_in_code("with")
        if not starts or not super().may_match_text(facts, words):
            return False
        strings = facts.strings()
        return strings is None or any(_may_enter_a_mesh(facts.source, start + 4, strings) for start in starts)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # Only ``with`` items are reported, and only values the inference traces to a mesh constructor or to a
        # ``Mesh`` annotation (the file must refer to one of those names): a name, ``self.<attr>``, a call of a
        # constructor, or a call of a plain name (an alias of a constructor, or the module's own function).
        if not facts.withs or not facts.refers_to_any(MESH_CONSTRUCTORS):
            return False
        for node in facts.withs:
            for item in node.items:
                expression = item.context_expr
                kind = type(expression)
                if kind is ast.Name or kind is ast.NamedExpr \
                        or (kind is ast.Attribute and type(expression.value) is ast.Name):
                    return True
                if kind is ast.Call and (type(expression.func) is ast.Name
                                         or not MESH_CONSTRUCTORS.isdisjoint(facts.qualified_names(expression.func))):
                    return True
        return False

    explanation = """
## What it does
Finds `with` statements that enter a `jax.sharding.Mesh` directly, wherever the value inference
(`jaxlint.lint.inference`) traces the item to a mesh: `with jax.make_mesh(...):`, `with Mesh(devices, names):` (also
`jax.experimental.maps.Mesh`), a name bound to one (`mesh = jax.make_mesh(...)`; a `global_mesh = None` set to a
mesh later counts), a parameter annotated `mesh: jax.sharding.Mesh`, `self._mesh` stored in any method of the class
(from such a parameter or call), the result of one of the module's own functions whose every `return` is a mesh
(or annotated `-> Mesh`), one item among several (`with mesh, nn.logical_axis_rules(rules):`).
Unknown values stay silent: a parameter without annotation, a name with another binding (`contextlib.nullcontext()`
in a branch), a function imported from elsewhere, an instance of the project's own class, `async with`. Using a
mesh as a decorator (`@mesh`) is not reported.

## Why
JAX 0.10.1 deprecated the mesh context manager; every release since (0.10.2 ... 0.12.0.1) warns
`DeprecationWarning: \\`with mesh:\\` context manager has been deprecated. Please use \\`with jax.set_mesh(mesh):\\`
instead.` It is not removed yet (still only a warning in 0.12.0.1), but it will be.

## Example
```python
mesh = jax.make_mesh((4, 2), ("data", "model"))
with mesh:
    y = train_step(params, batch)
```
Use instead:
```python
mesh = jax.make_mesh((4, 2), ("data", "model"))
with jax.set_mesh(mesh):
    y = train_step(params, batch)
```

## Fix safety
Unsafe: the two are not equivalent. `with mesh:` only pushes the mesh on the legacy thread resources
(`jax.sharding.get_abstract_mesh()` stays empty); `jax.set_mesh` sets both the abstract and the concrete mesh, so
bare `PartitionSpec`s start to be accepted (`device_put(x, P("data"))`) and explicit-sharding semantics apply.
Inside a `jax.jit`-traced function `jax.set_mesh` raises `ValueError: \\`set_mesh\\` can only be used outside of
\\`jax.jit\\`.`, where `with mesh:` worked. `jax.set_mesh(...)` also returns `None` from `__enter__` (a `Mesh`
returns itself), so `with make_mesh(...) as m:` becomes `with jax.set_mesh(m := make_mesh(...)):`; other `as`
targets get no fix. The fix adds `import jax` when the module has no `jax` binding; it is not offered when `jax`
names something else there, or below a min version of 0.7.1 (no top-level `jax.set_mesh`).

It is also withheld (the message says why) when the `with` body may run a `pjit` whose shardings are, or may be,
bare `PartitionSpec`s (anything but `None` and concrete `Sharding` objects: a spec built by a helper counts): a
`pjit(...)` call in the body, a name bound to one, a function of the same module called from the body (transitively)
that holds or is decorated with one, a method reached through `self` (`self.step(x)`, or `self.model.train(x)` where
`self.model` holds an instance of a class of the module) that runs one, or any such `pjit` the module stores where
calls are not followed (`self.step = pjit(...)`). Under `with jax.set_mesh(m):` that `pjit` raises
`RuntimeError: pjit requires a non-empty mesh in context if you are passing \\`PartitionSpec\\`s to pjit` (JAX
0.12.0.1), where `with m:` works.
Turning it into `jax.jit` in the same fix is not safe either: the `jax.jit` of the same function with the same
`PartitionSpec`s raises `RuntimeError: jit requires a non-empty mesh ...` under `with m:` and, under
`jax.set_mesh(m)`, `ValueError: Sharding passed to jit does not match the sharding on the respective arg` for an
argument that is not already sharded that way (both checked on 0.12.0.1, `tests/rules/test_jax401_exec.py`).

The same holds across modules (`jaxlint.project.index`: the facts of every module of the project, the folder of
its configuration or pin file, whichever paths the command line names, so `jaxlint check pkg/worker.py` withholds
what `jaxlint check .` withholds). The fix is withheld when the block may reach a project module that reads the
legacy `thread_resources`
(`jax.interpreters.pxla.thread_resources`, `jax._src.mesh.thread_resources`: `jax.set_mesh` leaves it empty, so
`thread_resources.env.physical_mesh.shape["x"]` raises `KeyError`), or runs a `pjit` whose shardings are (or may
be) `PartitionSpec`s, or imports such a module, however indirectly. The block reaches a module through any name it
uses that is imported from there (`Model()`, `m.Model()`, `from .model import Model`), through the values of local
variables it uses (`trainer = Trainer(cfg)` before the block), the annotations of parameters it uses
(`trainer: Trainer`), what the attributes of `self` it uses hold (`self.model.train(batch)` where the class stores
`self.model = Model(cfg)` or declares `self.model: Model` / `model: Model`; the class's own methods it calls; an
attribute the class never stores, through its base classes), what the project's constructions of the class pass
to an unannotated `__init__` parameter (`self.model = model` where every `Trainer(...)` of the project, in any module
and through any import alias, passes `Model(cfg)`, by position or keyword, a local variable assigned one, or the
result of a factory whose return annotation names it: `def make_model() -> Model`), and through the module's own
functions it calls. Where any construction passes a value that is not followed (a parameter, a factory without a
return annotation, `**kwargs`), or none is seen, the attribute stays unknown and the fix is offered, as without
the constructions. A result that read other modules' constructions is not kept in the results cache.
A module that itself reads `thread_resources` withholds every fix of it. The finding says which name, which module
and why (`fix_withheld` in JSON and `full`). Where a removed spelling is entered (`with maps.Mesh(...):`), it also
says that the safe part still applies: `with jax.sharding.Mesh(...):` (JAX101's safe fix), the same class, which
keeps the legacy context (checked on 0.12.0.1, `tests/rules/test_jax401_project_exec.py`); the unsafe fix never
keeps the removed spelling inside `jax.set_mesh(...)`.

## JAX version
Deprecated in 0.10.1 (`jax/_src/mesh.py`, `Mesh.__enter__`); still a warning in 0.12.0.1.
"""

    VALID = [
        Valid("""
            import jax
            mesh = jax.make_mesh((4,), ("data",))
            with jax.set_mesh(mesh):
                pass
        """, note="already jax.set_mesh"),
        Valid("""
            import jax
            def run(mesh, step):
                with mesh:
                    return step()
        """, note="a parameter: its type is unknown"),
        Valid("""
            import jax
            mesh = jax.make_mesh((4,), ("data",))
            if single:
                mesh = contextlib.nullcontext()
            with mesh:
                pass
        """, note="another binding that is not a mesh"),
        Valid("""
            import jax
            class Trainer:
                def run(self):
                    with self.mesh:
                        pass
        """, note="an attribute is not followed"),
        Valid("""
            from myproject.parallel import Mesh
            with Mesh(devices, ("x",)):
                pass
        """, note="a project's own Mesh class"),
        Valid("""
            import jax
            from jax.sharding import Mesh
            with open(path) as f, jax.set_mesh(Mesh(devices, ("x",))):
                pass
        """, note="other context managers"),
        Valid("""
            import jax
            mesh = jax.make_mesh((4,), ("data",))
            with mesh:
                pass
        """, target_version="0.10.0", note="target before the deprecation"),
        Valid("""
            import contextlib
            import jax
            def get_mesh(n):
                if n > 1:
                    return jax.make_mesh((n,), ("data",))
                return contextlib.nullcontext()
            with get_mesh(4):
                pass
        """, note="a project function that does not always return a mesh"),
        Valid("""
            import jax
            from myproject.parallel import create_device_mesh
            with create_device_mesh((2, 2)):
                pass
        """, note="a function imported from elsewhere: not followed"),
        Valid("""
            import jax
            class MeshContext:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    return False
            class Trainer:
                def __init__(self, make_mesh):
                    self.mesh = MeshContext()
                def run(self):
                    with self.mesh:
                        pass
        """, note="self.mesh holds the project's own class"),
        Valid("""
            import jax
            class Trainer:
                def __init__(self, mesh):
                    self._mesh = mesh
                def run(self):
                    with self._mesh:
                        pass
        """, note="a constructor parameter without annotation: unknown"),
        Valid("""
            import jax
            abstract = jax.sharding.AbstractMesh((4,), ("data",))
            with jax.sharding.use_abstract_mesh(abstract):
                pass
        """, note="abstract meshes have their own API"),
    ]

    INVALID = [
        Invalid("""
            import jax
            mesh = jax.make_mesh((4, 2), ("data", "model"))
            with mesh:
                y = step(x)
        """, unsafe_fixed="""
            import jax
            mesh = jax.make_mesh((4, 2), ("data", "model"))
            with jax.set_mesh(mesh):
                y = step(x)
        """, target_version="0.12.0.1", note="still reported at 0.12.0.1 (only a warning there)"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((4,), ("data",))
            with mesh:
                pass
        """, unsafe_fixed="""
            import jax
            mesh = jax.make_mesh((4,), ("data",))
            with jax.set_mesh(mesh):
                pass
        """, target_version="0.10.1", note="reported from the deprecation release"),
        Invalid('''
            """Training entry point."""
            from __future__ import annotations
            import numpy as np
            from jax.sharding import Mesh
            def main(devices):
                mesh = Mesh(np.array(devices), ("data",))
                with mesh:
                    train()
        ''', unsafe_fixed='''
            """Training entry point."""
            from __future__ import annotations
            import jax
            import numpy as np
            from jax.sharding import Mesh
            def main(devices):
                mesh = Mesh(np.array(devices), ("data",))
                with jax.set_mesh(mesh):
                    train()
        ''', note="jax.sharding.Mesh through a local name; `import jax` added after the docstring and __future__"),
        Invalid("""
            import jax
            with jax.make_mesh((8,), ("x",)):
                pass
        """, unsafe_fixed="""
            import jax
            with jax.set_mesh(jax.make_mesh((8,), ("x",))):
                pass
        """, note="the call itself"),
        Invalid("""
            import jax
            with jax.make_mesh((8,), ("x",)) as mesh:
                print(mesh.shape)
        """, unsafe_fixed="""
            import jax
            with jax.set_mesh(mesh := jax.make_mesh((8,), ("x",))):
                print(mesh.shape)
        """, note="`as mesh`: set_mesh's __enter__ returns None, so the name is bound with :="),
        Invalid("""
            import jax
            from jax.experimental import maps
            with maps.Mesh(devices, ("x",)) as self.mesh:
                pass
        """, note="jax.experimental.maps.Mesh; an attribute `as` target: no fix (JAX101 renames the class)"),
        Invalid("""
            import jax
            from jax.experimental import maps
            with maps.Mesh(devices, ("x",)):
                pass
        """, unsafe_fixed="""
            import jax
            from jax.experimental import maps
            with jax.set_mesh(jax.sharding.Mesh(devices, ("x",))):
                pass
        """, note="the removed `maps.Mesh` spelling becomes `jax.sharding.Mesh` inside `jax.set_mesh`"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            with open(path) as f, mesh:
                pass
        """, unsafe_fixed="""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            with open(path) as f, jax.set_mesh(mesh):
                pass
        """, note="one item among several"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            def run():
                with mesh:
                    pass
        """, unsafe_fixed="""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            def run():
                with jax.set_mesh(mesh):
                    pass
        """, note="a module-level mesh used in a function"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            def run(jax):
                with mesh:
                    pass
        """, note="`jax` shadowed where the with is: no fix"),
        Invalid("""
            import jax
            mesh = jax.make_mesh((8,), ("x",))
            with mesh:
                pass
        """, min_version="0.6.2", note="no top-level jax.set_mesh at the min version: no fix"),
        Invalid("""
            import jax
            import flax.linen as nn

            class Trainer:
                def __init__(self, mesh: jax.sharding.Mesh, rules):
                    self._mesh = mesh
                    self._rules = rules

                def train_step(self, state, batch):
                    with self._mesh, nn.logical_axis_rules(self._rules):
                        return self._step(state, batch)
        """, unsafe_fixed="""
            import jax
            import flax.linen as nn

            class Trainer:
                def __init__(self, mesh: jax.sharding.Mesh, rules):
                    self._mesh = mesh
                    self._rules = rules

                def train_step(self, state, batch):
                    with jax.set_mesh(self._mesh), nn.logical_axis_rules(self._rules):
                        return self._step(state, batch)
        """, note="an annotated constructor parameter kept in self._mesh, one item of a multi-item with"),
        Invalid("""
            import jax
            import numpy as np
            from jax.sharding import Mesh

            def create_device_mesh(shape, names):
                devices = np.asarray(jax.devices()).reshape(shape)
                return Mesh(devices, names)

            def main():
                global_mesh = create_device_mesh((2, 2), ("data", "model"))
                with global_mesh:
                    run()
        """, unsafe_fixed="""
            import jax
            import numpy as np
            from jax.sharding import Mesh

            def create_device_mesh(shape, names):
                devices = np.asarray(jax.devices()).reshape(shape)
                return Mesh(devices, names)

            def main():
                global_mesh = create_device_mesh((2, 2), ("data", "model"))
                with jax.set_mesh(global_mesh):
                    run()
        """, note="a mesh returned by the module's own function"),
        Invalid("""
            import jax
            from jax.sharding import Mesh

            def get_jax_mesh(config) -> Mesh:
                return build(config)

            with get_jax_mesh(cfg):
                pass
        """, unsafe_fixed="""
            import jax
            from jax.sharding import Mesh

            def get_jax_mesh(config) -> Mesh:
                return build(config)

            with jax.set_mesh(get_jax_mesh(cfg)):
                pass
        """, note="a project function annotated `-> Mesh`"),
        Invalid("""
            import jax
            global_mesh = None

            def init(n):
                global global_mesh
                global_mesh = jax.make_mesh((n,), ("data",))

            def run():
                with global_mesh:
                    step()
        """, unsafe_fixed="""
            import jax
            global_mesh = None

            def init(n):
                global global_mesh
                global_mesh = jax.make_mesh((n,), ("data",))

            def run():
                with jax.set_mesh(global_mesh):
                    step()
        """, note="a module-level global_mesh = None set to a mesh later"),
        Invalid("""
            import jax
            from jax.experimental.pjit import pjit
            from jax.sharding import Mesh, PartitionSpec as P

            step = pjit(train_step, in_shardings=P("data"), out_shardings=P())

            def main(devices, batch):
                mesh = Mesh(devices, ("data",))
                with mesh:
                    return step(batch)
        """, note="the body calls a pjit with PartitionSpec shardings: fix withheld"),
        Invalid("""
            import jax
            from jax.experimental.pjit import pjit

            def train(devices, params, make_specs):
                mesh = jax.sharding.Mesh(devices, ("dp",))
                param_spec = make_specs(params)
                with mesh:
                    state = pjit(init, in_axis_resources=(param_spec,), out_axis_resources=None)(params)
                return state
        """, note="shardings built by a helper may be PartitionSpecs: fix withheld"),
        Invalid("""
            import jax
            from jax.experimental.pjit import pjit

            mesh = jax.make_mesh((8,), ("x",))
            with mesh:
                out = pjit(f, out_shardings=None)(x)
        """, unsafe_fixed="""
            import jax
            from jax.experimental.pjit import pjit

            mesh = jax.make_mesh((8,), ("x",))
            with jax.set_mesh(mesh):
                out = pjit(f, out_shardings=None)(x)
        """, note="a pjit without PartitionSpec shardings keeps the fix"),
        Invalid("""
            import jax
            from functools import partial
            from jax.experimental.pjit import pjit
            from jax.sharding import PartitionSpec

            @partial(pjit, in_shardings=(PartitionSpec("data"),), out_shardings=None)
            def forward(batch):
                return batch * 2

            def evaluate(batch):
                return forward(batch)

            mesh = jax.make_mesh((8,), ("data",))
            with mesh:
                evaluate(batch)
        """, note="a function called from the body runs a pjit-decorated function: fix withheld"),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._pjit_finder: PjitSpecFinder | None = None
        self._reach: ProjectReach | None = None
        # Every pjit the search can find is named through an import or a chain that spells it: a module that never
        # does needs no search (decided once, not for each ``with``).
        self._spells_pjit = "pjit" in context.source

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is not None:
            return
        for item in node.items:
            if self._is_mesh(item.item):
                self._report(node, item)

    def _is_mesh(self, node: cst.BaseExpression) -> bool:
        """Known to hold a ``jax.sharding.Mesh`` (``jaxlint.lint.inference``); unknown values are not reported."""
        if isinstance(node, cst.Call):
            qualified = self.qualified_name(node.func)
            if qualified is not None and qualified not in MESH_CONSTRUCTORS:
                return False  # an imported function or class: its result is not followed
        return self.context.inference.kind_of(node) == MESH

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``), where the range withholds every fix ------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_With`` reports where the min version withholds the fix (then nothing else is looked at): the
        ``with`` items the inference knows to be a mesh without following a local binding (a call of an imported
        constructor). An item whose kind needs the inference to follow the file's own bindings (a local name, an
        attribute of ``self``, a call of a local function) is ``Undecidable``, and so is a file where a fix may be
        possible."""
        if not cls.applies_to(view.settings):
            return []  # (the engine does not ask then)
        rule = view.rule(cls)
        found = []
        for node in walk(view, (ast.With,)):
            for item in node.items:
                try:
                    finding = cls._item_finding(view, rule, node, item)
                except Undecidable:
                    if _in_compat_code(view, item.context_expr):
                        continue  # its finding would be dropped as compat code: the inference need not follow it
                    raise
                if finding is not None:
                    found.append(finding)
        return found

    @classmethod
    def _item_finding(cls, view: AstView, rule, node: ast.With, item: ast.withitem) -> AstFinding | None:
        """``findings_from_ast``'s finding on one ``with`` item (its expression), if any."""
        expression = item.context_expr
        local = _local_root(view, expression)
        if type(expression) is ast.Name and local and view.bound_in_file(expression.id):
            if not _local_name_is_mesh(view, expression, node):
                return None
            qualified = None  # a name: no constructor of its own to advise on
        elif type(expression) is ast.Attribute and local:
            if not _attribute_is_mesh(view, expression, node):
                return None
            qualified = None
        else:
            qualified = _mesh_constructor_from_ast(view, expression)
            if qualified is None:
                return None
        withheld = floor_withheld("jax.set_mesh", rule.settings)
        if withheld is None:
            return _in_range_from_ast(view, rule, node, item, qualified)
        problem = withheld.reason + rule._legacy_advice(rule._legacy_replacement_of(qualified))
        return AstFinding(cls.code, expression, f"{MESSAGE} (no automatic fix: {problem})",
                          withheld=WithheldFix(problem, SET_MESH_SINCE))

    # -- the fix -------------------------------------------------------------------------------------------------
    def _report(self, with_node: cst.With, item: cst.WithItem) -> None:
        message = MESSAGE
        problem, edits = self._edits(item)
        needs = SET_MESH_SINCE if problem is not None and edits is None else None
        if problem is None and self._runs_pjit_with_specs(with_node):
            problem = PJIT_PROBLEM
        if problem is None and _reads_thread_resources(self.context.file_text, self.context.path):
            problem = f"this module {READS_THREAD_RESOURCES}"
        if problem is None:
            problem = self._reaches_risky_module(with_node)
        if problem is not None:
            problem += self._legacy_spelling_advice(item)
            self.report(item.item, f"{message} (no automatic fix: {problem})", withheld=WithheldFix(problem, needs))
            return
        self.report(item.item, message, unsafe_fix(
            "Use `jax.set_mesh(...)` (check that this code does not run under `jax.jit`)", *edits,
            probe=None))

    def _reaches_risky_module(self, with_node: cst.With) -> str | None:
        """Why the block may break through the project's other modules (``jaxlint.project.index``), or None."""
        index = active_index()
        if index is None:
            return None
        if self._reach is None:
            self._reach = ProjectReach(self.context.resolver, index, os.path.abspath(self.context.path),
                                       str(self.settings.root))
        return _risky_reach_problem(index, self._reach.risky_use(with_node.body), str(self.settings.root))

    def _legacy_spelling_advice(self, item: cst.WithItem) -> str:
        """Where the unsafe fix is withheld, the safe part of it: ``maps.Mesh(...)`` (removed) becomes
        ``jax.sharding.Mesh(...)``, still entered as the legacy context manager. JAX101 offers that edit as its safe
        fix (one fix, not two findings with the same edit); this says it applies here."""
        return self._legacy_advice(self._legacy_mesh_replacement(item.item))

    @staticmethod
    def _legacy_advice(replacement: str | None) -> str:
        if replacement is None:
            return ""
        return f"; the safe rewrite `with {replacement}(...):` (JAX101's fix) keeps the legacy context and works"

    def _legacy_mesh_replacement(self, node: cst.BaseExpression) -> str | None:
        """``jax.sharding.Mesh`` for a call of a removed spelling (``jax.experimental.maps.Mesh``), else None."""
        if not isinstance(node, cst.Call):
            return None
        return self._legacy_replacement_of(self.qualified_name(node.func))

    def _legacy_replacement_of(self, qualified: str | None) -> str | None:
        """The replacement of a removed spelling of the Mesh class (``qualified``: the callee), else None."""
        if qualified is None or qualified not in LEGACY_MESH:
            return None
        from jaxlint.catalogue import load

        entry = load().symbol(qualified)
        return entry.safe_replacement(self.settings.min_version) if entry is not None else None

    def _runs_pjit_with_specs(self, with_node: cst.With) -> bool:
        if not self._spells_pjit:
            return False
        if self._pjit_finder is None:
            self._pjit_finder = PjitSpecFinder(self.context.module, self.context.resolver)
        return self._pjit_finder.body_runs_pjit_with_specs(with_node.body)

    def _edits(self, item: cst.WithItem) -> tuple[str | None, list[NodeEdit] | None]:
        """The unsafe fix's edits, or why there is none (edits None: the min version is the only obstacle)."""
        withheld = floor_withheld("jax.set_mesh", self.settings)
        if withheld is not None:  # the same words as every other fix the range withholds
            return withheld.reason, None
        jax_state = self._jax_state(item.item)
        if jax_state == "other":
            return "`jax` names something else here", []
        # in place: a continuation line keeps the enclosing blocks' indentation (``code_for`` drops it)
        expression = self.code_in_place(item.item).strip()
        replacement = self._legacy_mesh_replacement(item.item)
        callee = self.code_in_place(item.item.func).strip() if replacement is not None else ""
        if replacement is not None and expression.startswith(callee):
            expression = replacement + expression[len(callee):]  # never keep the removed spelling
        edits: list[NodeEdit] = []
        if item.asname is None:
            edits.append(Replace(item.item, f"jax.set_mesh({expression})"))
        elif isinstance(item.asname.name, cst.Name):
            target = item.asname.name.value
            edits.append(Replace(item.item, f"jax.set_mesh({target} := {expression})"))
            edits.append(Replace(item.asname, ""))
        else:
            return "`jax.set_mesh(...)` enters as `None`, and the `as` target is not a plain name", []
        if jax_state == "missing":
            edits.append(self._import_jax())
        return None, edits

    def _jax_state(self, expression: cst.BaseExpression) -> str:
        """"bound" (``jax`` is the jax module where the expression is), "missing" (unbound), or "other"."""
        name = _base_name(expression)
        scope: Scope | None = self.context.resolver.scope_of(name) if name is not None else None
        if scope is None:
            return "other"
        first = True
        while scope is not None:
            if (first or scope.kind != "class") and "jax" in scope.bindings:
                bindings = scope.bindings["jax"]
                return "bound" if all(b.qualified == "jax" for b in bindings) else "other"
            if "jax" in scope.global_names or "jax" in scope.nonlocal_names:
                return "other"
            first = False
            scope = scope.parent
        return "missing" if not self.context.resolver.module_scope.star_imports else "other"

    def _import_jax(self) -> NodeEdit:
        placed = added_imports.placement(self.context.module, "jax", (self.settings.root,))
        if placed is not None:  # where isort would put it
            return placed
        body = list(self.context.module.body)
        newline = self.context.module.default_newline
        index = 0
        if body and _is_docstring(body[0]):
            index = 1
        while index < len(body) and _is_future_import(body[index]):
            index += 1
        for position in range(index, len(body)):
            if _is_import(body[position]):
                index = position
                break
        return InsertBefore(body[index], f"import jax{newline}")


PJIT_PROBLEM = ("the block runs a `pjit` whose shardings are (or may be) `PartitionSpec`s, which raises "
                "`RuntimeError: pjit requires a non-empty mesh in context` under `jax.set_mesh`: move it to "
                "`jax.jit` with `NamedSharding`s first")


def _reads_thread_resources(file_text: str, path: str) -> bool:
    """The module itself reads ``thread_resources`` (``with mesh:`` fills it, ``jax.set_mesh`` does not)."""
    if "thread_resources" not in file_text:
        return False
    index = active_index()
    facts = index.facts_of(os.path.abspath(path)) if index is not None else None
    return facts["thread_resources"] if facts is not None else True  # the index knows comments from code


def _risky_reach_problem(index, found: tuple[str, str, str, str] | None, root: str) -> str | None:
    if found is None:
        return None
    verb, name, path, why = found
    return f"the block {verb} `{name}` from `{index.display(path, root)}`, which {why}"


# -- ``_report`` from ``ast`` where ``jax.set_mesh`` is in range ---------------------------------------------------
_FIX_MESSAGE = "Use `jax.set_mesh(...)` (check that this code does not run under `jax.jit`)"


def _in_range_from_ast(view: AstView, rule: MeshContextManager, with_node: ast.With, item: ast.withitem,
                       qualified: str | None) -> AstFinding:
    """``_report`` of a mesh item where the min version allows ``jax.set_mesh``: the fix (``Replace`` of the item by
    ``jax.set_mesh(...)``) where ``jax`` is the module, imported at module level, and every reason to withhold it is
    known to be absent; an import of ``jax`` to add, a legacy spelling, or a reason that needs
    libcst's analyses (a ``pjit`` in the module, ``thread_resources``, a block that may reach a risky project module)
    is ``Undecidable``."""
    expression = item.context_expr
    if rule._legacy_replacement_of(qualified) is not None:
        raise Undecidable("a removed spelling of Mesh: the fix rewrites the callee")
    if _jax_state_from_ast(view, expression) != "bound":
        raise Undecidable("`jax` is not the module imported at module level: an import to add, or another `jax`")
    target = item.optional_vars
    if target is not None and type(target) is not ast.Name:
        problem = "`jax.set_mesh(...)` enters as `None`, and the `as` target is not a plain name"
        return AstFinding(rule.code, expression, f"{MESSAGE} (no automatic fix: {problem})",
                          withheld=WithheldFix(problem, None))
    problem = _withheld_by_the_block(view, rule, with_node)
    if problem is not None:
        return AstFinding(rule.code, expression, f"{MESSAGE} (no automatic fix: {problem})",
                          withheld=WithheldFix(problem, None))
    start, end = view.span(expression, statement_of(view.ancestors(expression)))
    if target is None:
        edits = (Edit(start, end, f"jax.set_mesh({view.text(expression)})"),)
    else:  # ``with mesh as m:`` -> ``with jax.set_mesh(m := mesh):`` (set_mesh enters as None)
        name_start, name_end = view.span(target)
        if not _AS.fullmatch(view.source[end:name_start]) or view.source[name_start:name_end] != target.id:
            raise Undecidable("an `as` target spelled across lines or in parentheses")
        edits = (Edit(start, end, f"jax.set_mesh({target.id} := {view.text(expression)})"),
                 Edit(end, name_end, ""))  # libcst's ``AsName``: from the expression's end to the name's
    return AstFinding(rule.code, expression, MESSAGE, fix=AstFix(Applicability.UNSAFE, _FIX_MESSAGE, edits))


_AS = re.compile(r"[ \t]+as[ \t]+")


def _jax_state_from_ast(view: AstView, expression: ast.AST) -> str | None:
    """``_jax_state``: "bound" where ``jax`` is the jax module in every scope (only module-level ``import jax``
    binds it), "other" where the expression has no name at its base; None (undecided) otherwise."""
    node = expression
    while type(node) in (ast.Attribute, ast.Call, ast.Subscript):
        node = node.func if type(node) is ast.Call else node.value
    if type(node) is not ast.Name:
        return "other"
    return "bound" if view.qualified_name(ast.Name(id="jax", ctx=ast.Load())) == "jax" else None


def _withheld_by_the_block(view: AstView, rule: MeshContextManager, with_node: ast.With) -> str | None:
    """``_report``'s reasons to withhold the fix, in its order, from the ``ast`` ports of its searches (a ``pjit``
    the block may run, ``thread_resources`` read here, a risky project module the block may reach)."""
    if "pjit" in view.source and _searches(view).pjit.body_runs_pjit_with_specs(view, with_node.body):
        return PJIT_PROBLEM
    if _reads_thread_resources(view.file_text, view.path):
        return f"this module {READS_THREAD_RESOURCES}"
    if _reaches_no_project_module(view):
        return None
    index = active_index()
    root = str(rule.settings.root)
    searches = _searches(view)
    if searches.reach is None:
        searches.reach = AstProjectReach(searches.names, index, os.path.abspath(view.path), root)
    return _risky_reach_problem(index, searches.reach.risky_use(view, with_node.body), root)


class _Searches:
    """The file's name bindings and the two searches, built once per file (as the libcst visit keeps its own)."""

    def __init__(self, view: AstView) -> None:
        self.names = view.names()  # the view's one (``AstValueKinds`` and the view itself ask it too)
        self.pjit = AstPjitSpecFinder(self.names)
        self.reach: AstProjectReach | None = None


def _searches(view: AstView) -> _Searches:
    cached = view.__dict__.get("_jax401_searches")
    if cached is None:
        cached = view.__dict__["_jax401_searches"] = _Searches(view)
    return cached


def _reaches_no_project_module(view: AstView) -> bool:
    """``_no_project_module_reached``, asked once per file (every ``with`` block asks it)."""
    answer = view.__dict__.get("_jax401_reaches_none")
    if answer is None:
        answer = view.__dict__["_jax401_reaches_none"] = _no_project_module_reached(view)
    return answer


def _no_project_module_reached(view: AstView) -> bool:
    """``_reaches_risky_module`` is None for every block of the file: no project index, or no project module the
    search could resolve is risky. The search resolves a name through the file's imports only (a star import's
    module, a builtin: the same), so every module it may reach is named from one of them (``modules_named_from``;
    a relative import's, as it resolves them), but where it looks up what the project's constructions of a class
    pass to an ``__init__`` parameter (``construction_sites``): a file with such a parameter is not decided. More
    than a few modules to ask about: not decided either (each question may read the facts of many modules)."""
    index = active_index()
    if index is None:
        return True
    path = os.path.abspath(view.path)
    named = {"builtins"}
    modules: set[str] = set()
    for node in walk(view, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef)):
        if type(node) is ast.Import:
            named.update(alias.name if alias.asname else alias.name.split(".")[0] for alias in node.names)
        elif type(node) is ast.ImportFrom and node.level:
            modules.update(index.resolve(path, node.level, node.module or "", alias.name) for alias in node.names)
        elif type(node) is ast.ImportFrom:
            named.update(node.module if alias.name == "*" else f"{node.module}.{alias.name}" for alias in node.names)
        elif node.name == "__init__" and _has_unannotated_parameter(node):
            return False
    modules.discard(None)
    modules.discard(path)
    for qualified in named:
        modules |= index.modules_named_from(qualified)
        if len(modules) - (path in modules) > _MAX_MODULES_ASKED:
            return False  # too many already (a file of a large package names hundreds)
    modules.discard(path)
    return all(index.risk_of(module) is None for module in sorted(modules))


_MAX_MODULES_ASKED = 8


def _has_unannotated_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A parameter after the first, not ``*args``/``**kwargs``, without an annotation (``ProjectReach._constructed``
    asks the project's constructions about it)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args][1:]
    return any(parameter.annotation is None for parameter in (*positional, *arguments.kwonlyargs))


# What the ast mirror of ``ValueInference._binding_kind`` tells apart (``_agree``: a mesh when every binding is one,
# ``None`` bindings aside).
_MESH, _NONE, _OTHER = "mesh", "none", "other"
_SCOPE_NODES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _agree(kinds: set[str]) -> str:
    """``inference._agree``, as mesh or not: a mesh when every binding gives one, ``None`` bindings aside."""
    if len(kinds) == 2 and _NONE in kinds:
        kinds = kinds - {_NONE}
    return _MESH if kinds == {_MESH} else _OTHER


def _no_global(view: AstView, identifier: str) -> None:
    """``Undecidable`` where a ``global`` or ``nonlocal`` anywhere names ``identifier`` (it moves the bindings)."""
    if any(identifier in node.names for node in view.nodes_of((ast.Global, ast.Nonlocal))):
        raise Undecidable("a `global` or `nonlocal` of the name")


def _no_global_reaching(view: AstView, identifier: str, with_node: ast.With) -> None:
    """``_no_global`` for the bindings a name read at ``with_node`` may have: a ``nonlocal`` in a function outside
    the outermost function holding the ``with`` binds in its own tree of functions only (never in the module), so
    it cannot move them (t5x's ``nonlocal mesh`` in another method's nested function). Any ``global``, or a
    ``nonlocal`` within that outermost function, is ``Undecidable``."""
    outermost = next((ancestor for ancestor, _ in view.ancestors(with_node)
                      if type(ancestor) in (ast.FunctionDef, ast.AsyncFunctionDef)), None)
    for node in view.nodes_of((ast.Global, ast.Nonlocal)):
        if identifier not in node.names:
            continue
        if type(node) is ast.Global or outermost is None \
                or any(ancestor is outermost for ancestor, _ in view.ancestors(node)):
            raise Undecidable("a `global` or `nonlocal` of the name")


def _local_name_is_mesh(view: AstView, name: ast.Name, with_node: ast.With) -> bool:
    """``ValueInference.kind_of(name) == MESH`` for a ``with`` item that is a name bound in the file, where it is
    certain: the name's owner (the function or module that holds the ``with``, else the nearest enclosing one that
    binds it, as the resolver finds it) binds it only by plain assignments (``mesh = jax.sharding.Mesh(...)``,
    ``mesh = None``), none of whose values needs the inference to follow another binding. Anything else is
    ``Undecidable``."""
    identifier = name.id
    _no_global_reaching(view, identifier, with_node)
    scope = next(ancestor for ancestor, _ in reversed(view.ancestors(with_node)) if isinstance(ancestor, _SCOPE_NODES))
    if type(scope) not in (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef):
        raise Undecidable("a `with` in a class body")
    found = _scope_binds_mesh(view, scope, identifier)
    if found is not None:
        return found
    # The holder binds nothing of that name: the resolver's bindings are its owner's (``NameResolver._owner``).
    owner = _searches(view).names.owner(name)
    if owner is None:
        return False  # no binding the resolver sees (another function's): unknown to the inference, no mesh
    if owner.node is scope or type(owner.node) not in (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef):
        raise Undecidable("the name is bound in an enclosing scope")
    found = _scope_binds_mesh(view, owner.node, identifier)
    if found is None:
        raise Undecidable("the name is bound in an enclosing scope")
    return found


def _scope_binds_mesh(view: AstView, scope: ast.AST, identifier: str) -> bool | None:
    """Whether ``scope``'s bindings of ``identifier`` make it a mesh (``_name_kind``); None where it has none."""
    if _binds_no_mesh(view, scope, identifier):
        return False
    arguments = getattr(scope, "args", None)
    parameter = arguments is not None and any(argument is not None and argument.arg == identifier for argument in (
        *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg))
    function = scope if type(scope) in (ast.FunctionDef, ast.AsyncFunctionDef) else None
    kinds = {_bound_kind(view, bound, function) for bound in _assigned_values(view, scope, identifier,
                                                                              parameters=not parameter,
                                                                              annotated=True)}
    if parameter:
        # annotated and not starred (``_binds_no_mesh`` took the others): ``_binding_kind`` reads its annotation
        kinds.add(_annotation_kind(view, _parameter(arguments, identifier).annotation))
        return _agree(kinds) == _MESH
    if not kinds:
        return None
    return _agree(kinds) == _MESH


def _parameter(arguments: ast.arguments, identifier: str) -> ast.arg:
    """The parameter named ``identifier`` (the last, as the binding that counts, should a broken file repeat it)."""
    return [argument for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                      arguments.vararg, arguments.kwarg)
            if argument is not None and argument.arg == identifier][-1]


def _binds_no_mesh(view: AstView, scope: ast.AST, identifier: str) -> bool:
    """``scope`` (so the owner of the name, no ``global`` of it being in the file) binds ``identifier`` at least once
    in a way ``ValueInference._binding_kind`` never reads as a mesh nor as ``None``: a parameter without an
    annotation, or a starred one; an unpacking, a loop target, ``+=``; an import, a definition, an ``except ... as``.
    Then ``inference._agree`` makes the name no mesh, whatever its other bindings."""
    if type(scope) in (ast.FunctionDef, ast.AsyncFunctionDef):
        arguments = scope.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            if argument.arg == identifier and argument.annotation is None:
                return True
        if any(argument is not None and argument.arg == identifier for argument in (arguments.vararg,
                                                                                   arguments.kwarg)):
            return True
    for node in _binders(view).get(identifier, ()):
        if type(node) is ast.Name:
            ancestors = view.ancestors(node)
            if _no_mesh_target(ancestors) and scope_chain(ancestors)[-1] is scope:
                return True
        elif view.scope_of(node) is scope:  # a definition, ``except ... as``, an import
            return True
    return False


def _binders(view: AstView) -> dict[str, list[ast.AST]]:
    """identifier -> the nodes that may bind it (a stored name, a definition, ``except ... as``, an import's alias),
    in source order: found once per file, for ``_binds_no_mesh``'s question about each ``with`` item."""
    found = view.__dict__.get("_jax401_binders")
    if found is None:
        found = view.__dict__["_jax401_binders"] = {}
        for node in view.nodes_of((ast.Name, *_DEFINITIONS, ast.ExceptHandler, ast.alias)):
            kind = type(node)
            if kind is ast.Name:
                identifier = node.id if type(node.ctx) is ast.Store else None
            elif kind is ast.alias:
                identifier = node.asname or node.name.partition(".")[0]
            else:
                identifier = node.name  # None for a bare ``except``
            if identifier is not None:
                found.setdefault(identifier, []).append(node)
    return found


def _no_mesh_target(ancestors) -> bool:
    """A stored name whose binding ``_binding_kind`` reads as unknown (or an array): a loop's target, ``+=``'s, or
    an element of an unpacking that no plain target of the same statement names."""
    parent, field = ancestors[-1]
    kind = type(parent)
    if kind in (ast.For, ast.AsyncFor, ast.AugAssign):
        return field == "target"
    if kind not in (ast.Tuple, ast.List, ast.Starred):
        return False  # a plain or annotated assignment, a walrus, a ``with`` target...: it may be a mesh
    for ancestor, _ in reversed(ancestors):
        if type(ancestor) in (ast.Tuple, ast.List, ast.Starred):
            continue
        if type(ancestor) is ast.Assign:  # ``mesh = (a, mesh) = x``: the plain target decides
            return not any(type(target) is ast.Name for target in ancestor.targets)
        return type(ancestor) in (ast.For, ast.AsyncFor)
    return False


def _local_root(view: AstView, expression: ast.AST) -> bool:
    """A name or attribute chain whose root is a name no import binds (and no star import may)."""
    root = expression
    while type(root) is ast.Attribute:
        root = root.value
    return type(root) is ast.Name and not (view.star_import or view.may_import(root.id))


def _attribute_is_mesh(view: AstView, attribute: ast.Attribute, with_node: ast.With) -> bool:
    """``ValueInference.kind_of(self.<attribute>) == MESH`` (``_attribute_kind``) where it is certain: the receiver is
    the first parameter of the method holding the ``with`` (bound nowhere else in it, no ``staticmethod``), and every
    ``<receiver>.<attribute> = ...`` in the class's methods is a plain assignment of a value the inference need not
    follow further (a class-level annotation of it is ``Undecidable``). A longer chain (``self.a.mesh``) is no mesh."""
    receiver = attribute.value
    if type(receiver) is not ast.Name:
        return False  # ``_attribute_kind`` follows ``<name>.<attribute>`` only
    _no_global(view, receiver.id)
    if not _may_be_self(view, receiver):
        return False  # ``class_of_self`` finds no class: the inference knows nothing of the attribute
    owner, method = _method_of(view, with_node, receiver.id)
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional or positional[0].arg != receiver.id:
        raise Undecidable("an attribute of a name other than the method's first parameter")
    if is_static(method, view.names()):  # (``@prop.setter`` is none: the inference reads the qualified name)
        raise Undecidable("a static or class method")
    if _assigned_values(view, method, receiver.id, parameters=False):
        raise Undecidable("the receiver is bound again")
    kinds = set()
    for statement in owner.body:
        if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name \
                and statement.target.id == attribute.attr:
            kinds.add(_annotation_kind(view, statement.annotation))
        if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef):
            kinds |= _stored_kinds(view, statement, attribute.attr)
    return _agree(kinds) == _MESH


def _may_be_self(view: AstView, receiver: ast.Name) -> bool:
    """False where ``inference.class_of_self`` surely answers None: the name has another binding than one parameter,
    or that parameter is not the first positional one of a ``def`` in a class's body (a later one, ``pending_save``
    in orbax's ``_drain(self, pending_save)``, a nested function's, a lambda's): no method's first parameter is
    that node."""
    bindings = view.names().bindings(receiver)
    if len(bindings) != 1 or type(bindings[0].node) is not ast.arg:
        return False
    parameter = bindings[0].node
    for function in view.nodes_of((ast.FunctionDef, ast.AsyncFunctionDef)):
        positional = [*function.args.posonlyargs, *function.args.args]
        if positional and positional[0] is parameter:
            parent, field = view.parent(function)
            return type(parent) is ast.ClassDef and field == "body"
    return False


def _method_of(view: AstView, with_node: ast.With, receiver: str) -> tuple[ast.ClassDef, ast.AST]:
    """(the class, the method) whose scope owns ``receiver`` where the ``with`` stands (``_class_of_self``): the
    nearest of the enclosing functions that binds it, through functions only; that one must be a method."""
    ancestors = view.ancestors(with_node)
    for index in range(len(ancestors) - 1, -1, -1):
        scope = ancestors[index][0]
        if not isinstance(scope, _SCOPE_NODES):
            continue
        if type(scope) not in (ast.FunctionDef, ast.AsyncFunctionDef):
            raise Undecidable("an attribute outside a method of a class")
        arguments = scope.args
        parameters = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg,
                      arguments.kwarg)
        if not any(parameter is not None and parameter.arg == receiver for parameter in parameters) \
                and not _assigned_values(view, scope, receiver, parameters=False):
            continue  # a nested function that does not bind it: the name is the enclosing function's
        parent, field = ancestors[index - 1] if index else (None, None)
        if type(parent) is not ast.ClassDef or field != "body":
            raise Undecidable("an attribute outside a method of a class")
        return parent, scope
    raise Undecidable("an attribute outside a method of a class")


def _annotation_kind(view: AstView, annotation: ast.expr) -> str:
    """``ValueInference.annotation_kind``, as mesh or neither: ``jax.sharding.Mesh`` (also ``X | None``,
    ``Optional[X]``) is a mesh; any other annotation is not (``Undecidable`` where a name cannot be resolved)."""
    kind = type(annotation)
    if kind is ast.BinOp and type(annotation.op) is ast.BitOr:
        kept = [side for side in (annotation.left, annotation.right)
                if not (type(side) is ast.Constant and side.value is None)]
        return _annotation_kind(view, kept[0]) if len(kept) == 1 else _OTHER
    if kind is ast.Subscript:
        if _local_root(view, annotation.value) or type(annotation.slice) in (ast.Tuple, ast.Slice):
            return _OTHER  # not ``typing.Optional``, or not one type in it
        if view.qualified_name(annotation.value) not in ("typing.Optional", "typing_extensions.Optional"):
            return _OTHER
        return _annotation_kind(view, annotation.slice)
    if kind not in (ast.Name, ast.Attribute) or _local_root(view, annotation):
        return _OTHER  # a string, a local or builtin class...: never a mesh
    return _MESH if view.qualified_name(annotation) in ("jax.sharding.Mesh", "jax.experimental.maps.Mesh") \
        else _OTHER


def _stored_kinds(view: AstView, method: ast.AST, attribute: str) -> set[str]:
    """``_stored_kind``'s kinds for one method: what each store of ``<first parameter>.<attribute>`` in its body
    (not in the functions, lambdas and classes nested in it) gives."""
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional:
        return set()
    receiver = positional[0].arg
    kinds = set()
    for node in own_body_nodes(method):
        if type(node) is ast.Attribute and node.attr == attribute and type(node.ctx) is ast.Store \
                and type(node.value) is ast.Name and node.value.id == receiver:
            parent, field = view.parent(node)
            if type(parent) is ast.AnnAssign:
                raise Undecidable("an annotated store of the attribute")
            if type(parent) is ast.Assign and field == "targets":
                kinds.add(_assigned_kind(view, parent.value, method))
            else:
                kinds.add(_OTHER)  # unpacked, augmented, a loop or ``with`` target: unknown
    return kinds


def _assigned_values(view: AstView, scope: ast.AST, identifier: str, *, parameters: bool = True,
                     annotated: bool = False) -> list[ast.expr]:
    """The values of the plain assignments that bind ``identifier`` in ``scope`` (its own parameters, its body, and
    the decorators, defaults and annotations of the definitions in it; not their bodies). Any other binding there
    (a ``for`` or ``with`` target, an unpacking, an import, a definition, a comprehension's or lambda's own...) is
    ``Undecidable``: the resolver's bindings are a subset of what this finds. ``annotated``: an annotated
    assignment (``ckpt: Checkpointer = make()``) is no exception, it is listed as itself (``_bound_kind``)."""
    if type(scope) is not ast.Module and parameters:
        arguments = scope.args
        if any(argument.arg == identifier for argument in (
                *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
               if argument is not None):
            raise Undecidable("a parameter")
    values = []
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if node.id == identifier and type(node.ctx) is not ast.Load:
                parent, field = view.parent(node)
                if annotated and type(parent) is ast.AnnAssign:
                    values.append(parent)  # its target (its annotation and value hold no store of a name)
                    continue
                if type(parent) is not ast.Assign or field != "targets":
                    raise Undecidable("a binding other than a plain assignment")
                values.append(parent.value)
            continue
        if kind in _DEFINITIONS:
            if node.name == identifier:
                raise Undecidable("a definition of the name")
            stack += node.decorator_list
            if kind is ast.ClassDef:
                stack += node.bases
                stack += node.keywords
            else:  # evaluated here; the parameters themselves bind in the function
                arguments = node.args
                stack += arguments.defaults
                stack += [default for default in arguments.kw_defaults if default is not None]
                stack += [argument.annotation for argument in (
                    *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg,
                    arguments.kwarg) if argument is not None and argument.annotation is not None]
                if node.returns is not None:
                    stack.append(node.returns)
            continue
        if kind is ast.arg and node.arg == identifier or kind is ast.alias and (
                node.asname or node.name.partition(".")[0]) == identifier or kind in (
                ast.ExceptHandler, ast.MatchAs, ast.MatchStar) and node.name == identifier or (
                kind is ast.MatchMapping and node.rest == identifier):
            raise Undecidable("a binding other than a plain assignment")
        stack += ast.iter_child_nodes(node)
    return values


def _bound_kind(view: AstView, bound: ast.AST, function: ast.AST | None = None) -> str:
    """``_binding_kind`` of what ``_assigned_values(..., annotated=True)`` lists: a plain assignment's value, or an
    annotated assignment, whose annotation's kind counts where the inference knows it, else its value's (no value:
    unknown). ``_annotation_kind`` tells a mesh from the rest, not a known other type from an unknown one: only
    where that choice matters (an annotation that is no mesh, a value that is one) is it ``Undecidable``.
    ``function``: the function whose assignment this is, where a name it assigns is followed to its own plain
    assignments or parameter (``mesh = global_mesh``, paxml)."""
    if type(bound) is not ast.AnnAssign:
        return _assigned_kind(view, bound, function)
    if _annotation_kind(view, bound.annotation) == _MESH:
        return _MESH
    if bound.value is None or _assigned_kind(view, bound.value, function) != _MESH:
        return _OTHER  # declared no mesh, or unknown and a value that is none: no mesh either way (never ``None``)
    raise Undecidable("an annotation that may not say what the annotated mesh value is")


def _assigned_kind(view: AstView, value: ast.expr, scope: ast.AST | None = None) -> str:
    """``_binding_kind`` of a plain assignment of ``value``, as mesh, ``None``, or neither (``Undecidable`` where the
    inference would follow a binding of the file). ``scope``: the function holding the assignment (a method whose
    store of ``self.<attribute>`` this is, or a function assigning a name), where a name it assigns is followed to
    its own plain assignments there, or to its parameter."""
    kind = type(value)
    if kind is ast.Constant:
        return _NONE if value.value is None else _OTHER
    if kind is ast.Name and scope is not None and _local_root(view, value):
        return _method_name_kind(view, value.id, scope)
    if kind in (ast.Name, ast.Attribute, ast.NamedExpr):
        raise Undecidable("an assignment of a name: the inference follows it")
    if kind is not ast.Call:
        return _OTHER  # a literal, an operation, a subscript...: never a mesh to the inference
    func = value.func
    if type(func) not in (ast.Name, ast.Attribute):
        return _OTHER  # ``f(x)(y)``, ``a[0](y)``: no mesh
    root = func
    while type(root) is ast.Attribute:
        root = root.value
    if type(root) is not ast.Name:
        return _OTHER  # a method of a computed value
    if view.star_import or view.may_import(root.id):
        return _MESH if view.qualified_name(func) in MESH_CONSTRUCTORS else _OTHER
    if type(func) is ast.Attribute or not view.bound_in_file(func.id):
        return _OTHER  # a method of a local value (``self.make()``), a builtin (``open(p)``): not followed
    return _MESH if _alias_callee(view, func.id) in MESH_CONSTRUCTORS else _OTHER


def _method_name_kind(view: AstView, identifier: str, method: ast.AST) -> str:
    """``_name_kind`` of a name a method assigns to ``self.<attribute>`` (or a function to a name): a parameter of
    the method (not its first) without an annotation is unknown; a name bound in the method only by plain
    assignments gives what they agree on (``mesh = Mesh(...)``; ``self.mesh = mesh``)."""
    _no_global(view, identifier)
    arguments = method.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    own = [parameter for parameter in parameters if parameter is not None and parameter.arg == identifier]
    values = _assigned_values(view, method, identifier, parameters=False)
    if own:
        first = parameters[0] if arguments.posonlyargs or arguments.args else None
        if values or own[0] is first:
            raise Undecidable("a parameter the inference may follow")
        if own[0].annotation is None or own[0] is arguments.vararg or own[0] is arguments.kwarg:
            return _OTHER  # one binding, a parameter without an annotation (or starred): unknown
        return _annotation_kind(view, own[0].annotation)  # ``_binding_kind`` of an annotated parameter
    kinds = {_assigned_kind(view, value) for value in values}
    if not kinds:
        raise Undecidable("the name is bound in an enclosing scope")
    return _agree(kinds)


def _mesh_constructor_from_ast(view: AstView, expression: ast.AST) -> str | None:
    """The mesh constructor a ``with`` item calls (``_is_mesh`` answers True), or None where it answers False;
    ``Undecidable`` where the inference would follow a binding of the file."""
    kind = type(expression)
    if kind is ast.NamedExpr:
        raise Undecidable("a `with` item bound by `:=`")
    if kind not in (ast.Call, ast.Name, ast.Attribute):
        return None  # a subscript, a literal...: never a mesh to the inference
    func = expression.func if kind is ast.Call else expression
    root = func
    while type(root) is ast.Attribute:
        root = root.value
    if type(root) is not ast.Name:
        if kind is ast.Attribute:
            raise Undecidable("an attribute of a computed value")
        return None  # ``f()()``, ``a[0]()``: the inference gives no mesh
    if view.star_import or view.may_import(root.id):
        qualified = view.qualified_name(func)  # an imported name: only a constructor's call is a mesh
        return qualified if kind is ast.Call and qualified in MESH_CONSTRUCTORS else None
    if kind is ast.Attribute:
        raise Undecidable("an attribute the inference follows (`self.mesh`)")
    if type(func) is ast.Name and view.bound_in_file(func.id):
        if kind is not ast.Call:
            raise Undecidable("a name bound in the file: the inference follows it")
        local = _local_callee_kind(view, func, 0)
        if local is not None:  # a mesh through the module's own function: no constructor spelled to advise on
            return "" if local == _MESH else None
        if _calls_no_mesh_function(view, func.id):
            return None
        _no_global(view, func.id)
        if len(_searches(view).names.bindings(func)) > 1:
            return None  # ``callee`` and ``_call_kind`` follow one binding only (paxml's polyfilled context manager)
        # a mesh through a local alias, whose own name the resolver does not qualify: no spelling to advise on
        return "" if _alias_callee(view, func.id) in MESH_CONSTRUCTORS else None
    return None  # bound nowhere (or a method of a local value): unknown to the inference, never a mesh


def _local_callee_kind(view: AstView, func: ast.Name, depth: int) -> str | None:
    """``ValueInference._call_kind`` of a call of ``func``, a name the module binds, where its only binding (as the
    resolver finds it) is a class (an instance of it: no mesh) or a function (``_returned_kind``); None where it
    is neither (the caller decides otherwise)."""
    bindings = _searches(view).names.bindings(func)
    if len(bindings) != 1:
        return None
    bound = bindings[0].node
    if type(bound) is ast.ClassDef:
        return _OTHER
    if type(bound) not in (ast.FunctionDef, ast.AsyncFunctionDef):
        return None
    if depth > 3:
        raise Undecidable("functions returning each other's results: the inference stops at a cycle")
    if bound.returns is not None:
        return _annotation_kind(view, bound.returns)
    if type(bound) is ast.AsyncFunctionDef:
        return _OTHER
    values, complete = returned_values(bound)
    if not complete:
        return _OTHER
    kinds = {_returned_kind(view, value, depth) for value in values}
    return _MESH if kinds == {_MESH} else _OTHER


def _returned_kind(view: AstView, value: ast.expr, depth: int) -> str:
    """``ValueInference.kind_of`` of a returned value, as mesh or not, where it is certain: a call of an imported
    constructor, a call of the module's own function (followed), a literal; anything else is ``Undecidable``."""
    if type(value) is ast.Constant:
        return _OTHER
    if type(value) is not ast.Call or type(value.func) not in (ast.Name, ast.Attribute):
        raise Undecidable("a returned value the inference follows")
    root = value.func
    while type(root) is ast.Attribute:
        root = root.value
    if type(root) is not ast.Name:
        raise Undecidable("a returned value the inference follows")
    if view.star_import or view.may_import(root.id):
        return _MESH if view.qualified_name(value.func) in MESH_CONSTRUCTORS else _OTHER
    if type(value.func) is ast.Name and view.bound_in_file(root.id):
        kind = _local_callee_kind(view, value.func, depth + 1)
        if kind is not None:
            return kind
    raise Undecidable("a returned value the inference follows")


def _in_compat_code(view: AstView, expression: ast.AST) -> bool:
    """Whether a finding on ``expression`` (every one of ``findings_from_ast`` is on a ``with`` item's expression)
    would be dropped as compat code; False where that cannot be read (the finding is then decided as before)."""
    try:
        return view.in_compat_code(view.ancestors(expression), expression)
    except Undecidable:
        return False


def _calls_no_mesh_function(view: AstView, identifier: str) -> bool:
    """A call of ``identifier``, which the file binds once, by a ``def`` whose result ``ValueInference`` never reads
    as a mesh (``_returned_kind``, without a return annotation: a coroutine, a generator such as a
    ``@contextmanager``, or a function that returns no value); the call's name is bound by it or by nothing."""
    _no_global(view, identifier)
    if view.binding_count(identifier) != 1:
        return False
    function = next(iter(view.definitions(identifier)), None)
    if function is None or function.returns is not None:
        return False
    if type(function) is ast.AsyncFunctionDef:
        return True
    values = False
    for node in own_body_nodes(function):
        kind = type(node)
        if kind in (ast.Yield, ast.YieldFrom):
            return True
        if kind is ast.Return and node.value is not None:
            values = True
    return not values


def _alias_callee(view: AstView, identifier: str) -> str | None:
    """``ValueInference.callee`` of a call of ``identifier``, a name bound in the file and by no import, where it
    is certain: the file binds it once, by a module-level ``identifier = <name or attribute chain>`` (``Mesh =
    jax.sharding.Mesh``), whose qualified name is the callee's; a call of any other such single binding qualifies
    to None (the inference knows no other kind for it). Anything else (a local function or class, a second
    binding, one in a function) is ``Undecidable``."""
    _no_global(view, identifier)
    values = _assigned_values(view, view.tree, identifier)
    if len(values) != 1 or view.binding_count(identifier) != 1:
        raise Undecidable("a call of a local name: the inference follows it")
    value = values[0]
    statement, _ = view.parent(value)
    if len(statement.targets) != 1 or type(value) not in (ast.Name, ast.Attribute):
        return None  # ``a = Mesh = x`` or ``Mesh = make()``: the inference follows no callee through it
    return view.qualified_name(value)


def _small(statement: cst.CSTNode) -> list[cst.BaseSmallStatement]:
    return list(statement.body) if isinstance(statement, cst.SimpleStatementLine) else []


def _is_docstring(statement: cst.CSTNode) -> bool:
    small = _small(statement)
    return len(small) == 1 and isinstance(small[0], cst.Expr) \
        and isinstance(small[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _is_future_import(statement: cst.CSTNode) -> bool:
    small = _small(statement)
    return bool(small) and all(isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name)
                               and s.module.value == "__future__" for s in small)


def _is_import(statement: cst.CSTNode) -> bool:
    small = _small(statement)
    return bool(small) and isinstance(small[0], (cst.Import, cst.ImportFrom))
