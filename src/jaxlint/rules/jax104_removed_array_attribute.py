"""JAX104 removed-array-attribute: ``jax.Array`` methods and attributes that no longer exist."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis.ast_value_kinds import AstValueKinds
from jaxlint.lint.ast_findings import AstFinding, AstFix, AstView, Undecidable, statement_of, walk
from jaxlint.lint.diagnostics import Applicability, Edit
from jaxlint.lint.inference import ARRAY, OTHER
from jaxlint.lint.text_gate import BARE
from jaxlint.catalogue.floors import FLOORS, floor_withheld
from jaxlint.rules.base import FixSpec, Invalid, Replace, Report, Rule, Valid, safe_fix, unsafe_fix
from jaxlint.analysis.jax_imports import TracksJaxImports
from jaxlint.project.versions import Version


@dataclass(frozen=True)
class RemovedAttribute:
    name: str
    removed: str  # the first release where using it fails
    what: str  # how it fails there, and since when it warned
    advice: str  # what to write instead
    called: bool  # a method (reported on the call) or an attribute


# Names no other common library uses on its objects: reported whatever the receiver, in files that import JAX, unless
# the receiver is known not to be a JAX object. Checked in the JAX sources (``jax/_src/array.py``, ``device_array.py``)
# of 0.4.1, 0.4.6, 0.4.20 ... 0.4.31, and by execution on 0.10.2 and 0.12.0.1.
BY_NAME = {entry.name: entry for entry in (
    RemovedAttribute(
        "device_buffers", "0.4.27",
        "raises `AttributeError: arr.device_buffers has been deprecated` since JAX 0.4.27 (a `DeprecationWarning` "
        "from 0.4.22)",
        "use `[shard.data for shard in x.addressable_shards]` (the same single-device arrays, in the same order; "
        "JAX 0.4.1+)", called=False),
    RemovedAttribute(
        "device_buffer", "0.4.27",
        "raises `AttributeError: arr.device_buffer has been deprecated` since JAX 0.4.27 (a `DeprecationWarning` from "
        "0.4.22)",
        "use `x.addressable_data(0)` (JAX 0.4.1+)", called=False),
    RemovedAttribute(
        "to_py", "0.4.1",
        "does not exist on `jax.Array`, the array type since JAX 0.4.1 (only the removed `DeviceArray` had it): "
        "`AttributeError`",
        "use `np.asarray(x)` or `jax.device_get(x)` for a NumPy array", called=True),
    RemovedAttribute(
        "block_host_until_ready", "0.4.1",
        "was removed in JAX 0.4.1: `AttributeError`",
        "use `x.block_until_ready()`", called=True),
)}
DEVICE_PROPERTY_SINCE = FLOORS["array.device-property"].since  # a method (deprecated from 0.4.21) before
# The FLOORS key of what each fix writes (``jax.Array``'s API: none of it on the ``DeviceArray`` of 0.3.x).
FIX_WRITES = {"device_buffers": "array.addressable_shards", "device_buffer": "array.addressable_data",
              "block_host_until_ready": "array.block_until_ready"}


def _may_be_used(source: str, name: str, end: int, context: str) -> bool:
    """Whether the occurrence of ``name`` ending at ``end`` may be what the rule looks at: an attribute (not
    ``BARE``) and, for ``device``, called: ``(`` next on its line, or nothing readable there (a comment, a line
    continuation or the line's end)."""
    if context == BARE:
        return False
    if name != "device":
        return True
    while end < len(source) and source[end] in " \t\f":
        end += 1
    return end == len(source) or source[end] in "(\r\n#\\"


class RemovedArrayAttribute(TracksJaxImports, Rule):
    code = "JAX104"
    name = "removed-array-attribute"
    summary = "jax.Array methods and attributes that no longer exist (x.device(), .device_buffers, .to_py()...)"
    since = "0.4.1"
    # ``.device()`` as text; the other names as whole words (``to_py`` is a prefix of ``to_pytree``).
    triggers = (".device()",)
    required_words = frozenset(frozenset({"jax", name}) for name in BY_NAME)
    # Reported only in files that import JAX (any ``jax`` import names the ``jax`` package), and only on an
    # attribute of one of these names: a file that uses ``device_buffers`` only as a variable has nothing to report.
    ast_names = frozenset({"jax"})
    attribute_names = frozenset(BY_NAME) | {"device"}
    # Its findings and its one-edit fixes come from the ast gate's tree (``findings_from_ast``), the value inference
    # ported (``analysis.ast_value_kinds``).
    decides_from_ast = True

    explanation = """
## What it does
Finds uses of `jax.Array` methods and attributes that were removed:

| use | fails from | instead |
|---|---|---|
| `x.device_buffers` | 0.4.27 (`AttributeError`; warned from 0.4.22) | `[shard.data for shard in x.addressable_shards]` |
| `x.device_buffer` | 0.4.27 (`AttributeError`; warned from 0.4.22) | `x.addressable_data(0)` |
| `x.to_py()` | 0.4.1 (`jax.Array` never had it) | `np.asarray(x)` / `jax.device_get(x)` |
| `x.block_host_until_ready()` | 0.4.1 | `x.block_until_ready()` |
| `x.device()` | 0.4.27 (a property now: `TypeError: 'Device' object is not callable`; warned from 0.4.21) | `x.device` |

The first four names are JAX's own: they are reported on any receiver in a file that imports JAX, except one the
value inference (`jaxlint.lint.inference`) knows is not a JAX object (an instance of the module's own class, `self`).
`x.device()` is a common method name elsewhere (PyTorch tensors, for one), so it is reported only where the
inference knows `x` holds a `jax.Array`: the result of `jnp.*`, `jax.random.*`, `jax.device_put`,
`jax.jit(f)(...)`, a parameter annotated `jax.Array`, an element of `y.device_buffers` (`for b in
y.device_buffers`, `y.device_buffers[0]`: the name is JAX's own), a name or `self.x` bound only to those. Unknown
receivers are left alone.

## Why
Each of these raises on the target version (checked by execution on JAX 0.10.2 and 0.12.0.1, and in the sources
of 0.4.1 ... 0.4.31): `AttributeError: arr.device_buffers has been deprecated. Use [x.data for x in
arr.addressable_shards]`, `AttributeError: 'ArrayImpl' object has no attribute 'to_py'`, and for `x.device()`
`TypeError: 'jaxlib._jax.Device' object is not callable`.

## Example
```python
x = jnp.arange(8)
buffers = x.device_buffers
where = x.device()
```
Use instead:
```python
x = jnp.arange(8)
buffers = [shard.data for shard in x.addressable_shards]
where = x.device
```

## Fix safety
`.device_buffers`, `.device_buffer` and `.block_host_until_ready()` are rewritten to spellings present since JAX
0.4.1 that give the same values (for `device_buffer`, the same array whenever the old property did not raise):
safe where the receiver is known to be a `jax.Array`, unsafe otherwise (the name alone says it is JAX's). `x.device()`
becomes the property `x.device` (safe) when the min version is 0.4.27 or later, where the call always raises;
below that the method still exists and the property does not, so `next(iter(x.devices()))` (present in every
version; for an array on several devices it gives one of them where the method raised `ValueError`) is offered as
an unsafe fix. `x.to_py()` gets no fix: `np.asarray(x)` needs NumPy imported under a known name.

## JAX version
0.4.1 (`to_py`, `block_host_until_ready`), 0.4.27 (`device_buffers`, `device_buffer`, `device()` as a method).
"""

    VALID = [
        Valid("""
            import jax.numpy as jnp
            x = jnp.arange(8)
            buffers = [shard.data for shard in x.addressable_shards]
            first = x.addressable_data(0)
            where = x.device
            x.block_until_ready()
        """, note="the replacements"),
        Valid("""
            import jax
            import torch
            t = torch.ones(3)
            print(t.device())
            def where(x):
                return x.device()
        """, note="device() on receivers not known to be JAX arrays"),
        Valid("""
            import numpy as np
            buffers = pool.device_buffers
        """, note="a file that does not import JAX"),
        Valid("""
            import jax

            class BufferPool:
                def __init__(self):
                    self.device_buffers = []

                def size(self):
                    return len(self.device_buffers)

            pool = BufferPool()
            print(pool.device_buffers)
        """, note="the project's own object with such an attribute"),
        Valid("""
            import jax

            class BufferPool:
                def __init__(self):
                    self.device_buffers = []

                def devices(self):
                    return [b.device() for b in self.device_buffers] + [self.device_buffers[0].device()]
        """, note="elements of the project's own device_buffers"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.arange(8)
            try:
                buffers = x.device_buffers
            except AttributeError:
                buffers = [shard.data for shard in x.addressable_shards]
        """, note="compat code"),
        Valid("""
            import jax.numpy as jnp
            x = jnp.arange(8)
            buffers = x.device_buffers
        """, target_version="0.4.26", note="target before the removal"),
    ]

    INVALID = [
        Invalid("""
            import jax.numpy as jnp
            x = jnp.arange(8)
            buffers = x.device_buffers
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.arange(8)
            buffers = [shard.data for shard in x.addressable_shards]
        """, note="device_buffers on a known array"),
        Invalid("""
            import jax
            def local_devices(sharded):
                return [b.device() for b in sharded.device_buffers]
        """, fixed="""
            import jax
            def local_devices(sharded):
                return [b.device for b in sharded.device_buffers]
        """, unsafe_fixed="""
            import jax
            def local_devices(sharded):
                return [b.device for b in [shard.data for shard in sharded.addressable_shards]]
        """, count=2, note="an unknown receiver: device_buffers by name, unsafe fix; its elements are arrays"),
        Invalid("""
            import jax
            def first_device(x):
                for buffer in x.device_buffers:
                    print(buffer.device())
                return x.device_buffers[0].device()
        """, fixed="""
            import jax
            def first_device(x):
                for buffer in x.device_buffers:
                    print(buffer.device)
                return x.device_buffers[0].device
        """, unsafe_fixed="""
            import jax
            def first_device(x):
                for buffer in [shard.data for shard in x.addressable_shards]:
                    print(buffer.device)
                return [shard.data for shard in x.addressable_shards][0].device
        """, count=4, note="elements of device_buffers: a for loop, an index"),
        Invalid("""
            import jax
            x = jax.device_put(jnp.ones(3))
            single = x.device_buffer
        """, fixed="""
            import jax
            x = jax.device_put(jnp.ones(3))
            single = x.addressable_data(0)
        """, note="device_buffer"),
        Invalid("""
            import jax
            import jax.numpy as jnp

            def to_numpy(x: jax.Array):
                return x.to_py()
        """, note="to_py: no fix"),
        Invalid("""
            import jax
            y = jax.jit(f)(x)
            y.block_host_until_ready()
        """, fixed="""
            import jax
            y = jax.jit(f)(x)
            y.block_until_ready()
        """, note="block_host_until_ready"),
        Invalid("""
            import jax.numpy as jnp
            x = jnp.zeros((2, 2))
            print(x.device())
        """, fixed="""
            import jax.numpy as jnp
            x = jnp.zeros((2, 2))
            print(x.device)
        """, min_version="0.4.27", note="device() is a property from 0.4.27"),
        Invalid("""
            import jax
            import jax.numpy as jnp

            class Runner:
                def __init__(self, key):
                    self.state = jax.random.normal(key, (4,))

                def where(self):
                    return self.state.device()
        """, unsafe_fixed="""
            import jax
            import jax.numpy as jnp

            class Runner:
                def __init__(self, key):
                    self.state = jax.random.normal(key, (4,))

                def where(self):
                    return next(iter(self.state.devices()))
        """, min_version="0.4.20", note="below 0.4.27 the property does not exist: unsafe next(iter(x.devices()))"),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        """Also: one of the names may stand after a dot (``context_before``: an occurrence it reads as ``BARE`` has
        no dot before it, on its line or at the end of the code of the line before, so it is no attribute), and
        ``device`` may be called there (``x.device`` alone, the property, is fine)."""
        return super().may_match_text(facts, words) and any(
            _may_be_used(facts.source, name, end, context)
            for name in cls.attribute_names & words for end, context in facts.occurrences(name))

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        """Also: the file has an attribute of one of the names, ``device`` called (a statement's facts, without the
        tree: kept)."""
        if not super().may_match_ast(facts):
            return False
        return facts.tree is None or any(
            type(node) is ast.Attribute and node.attr in BY_NAME
            or type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "device"
            for node in facts.nodes)  # the tree's nodes, as the gate's walk recorded them

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Attribute`` reports, fixes included, in a file that imports JAX. Undecidable where the value
        inference is (``ast_value_kinds``), and where a fix's text needs libcst's view of parentheses (a receiver in
        parentheses of its own: ``code_for`` holds them)."""
        if not _imports_jax(view):
            return []
        rule = view.rule(cls)
        kinds = AstValueKinds(view)
        found = []
        for node in walk(view, (ast.Attribute,)):
            if node.attr == "device":
                finding = rule._device_call_from_ast(view, kinds, node)
            elif node.attr in BY_NAME:
                finding = rule._by_name_from_ast(view, kinds, node)
            else:
                continue
            if finding is not None:
                found.append(finding)
        return found

    def _by_name_from_ast(self, view: AstView, kinds: AstValueKinds, node: ast.Attribute) -> AstFinding | None:
        entry = BY_NAME[node.attr]
        if self.settings.target_version < Version(entry.removed) or _is_store_ast(view, node):
            return None
        call = _called_ast(view, node)
        if entry.called and call is None:
            return None
        kind = kinds.kind_of(node.value)
        if kind == OTHER:
            return None
        message = f"`.{entry.name}{'()' if entry.called else ''}` {entry.what}; {entry.advice}"
        fix = self._fix_from_ast(view, entry, node, call, known=kind == ARRAY)
        withheld = floor_withheld(FIX_WRITES[entry.name], self.settings) if fix is not None \
            and entry.name in FIX_WRITES else None
        return AstFinding(self.code, call if entry.called else node, message, withheld=withheld,
                          fix=None if withheld is not None else fix)

    def _fix_from_ast(self, view: AstView, entry: RemovedAttribute, node: ast.Attribute, call: ast.Call | None,
                      known: bool) -> AstFix | None:
        """``_fix``, its edit as offsets."""
        applicability = Applicability.SAFE if known else Applicability.UNSAFE
        if entry.name in REWRITES:
            message, content = rewrite_attribute(entry.name, _receiver_text(view, node))
            start, end = _span(view, node)
            return AstFix(applicability, message, (Edit(start, end, content),))
        if entry.name == "block_host_until_ready" and call is not None and not call.args and not call.keywords:
            end = view.offset_of(node, end=True)  # the attribute's name, last in its node
            return AstFix(applicability, BLOCK_FIX_MESSAGE, (Edit(end - len(node.attr), end, "block_until_ready"),))
        return None

    def _device_call_from_ast(self, view: AstView, kinds: AstValueKinds, node: ast.Attribute) -> AstFinding | None:
        call = _called_ast(view, node)
        if call is None or call.args or call.keywords:
            return None
        if self.settings.target_version < Version(DEVICE_PROPERTY_SINCE):
            return None
        if kinds.kind_of(node.value) != ARRAY:
            return None
        receiver = _receiver_text(view, node)
        start, end = _span(view, call)
        withheld = None
        if self.min_version_at_least(DEVICE_PROPERTY_SINCE):
            fix = AstFix(Applicability.SAFE, PROPERTY_FIX_MESSAGE, (Edit(start, end, f"{receiver}.device"),))
        else:
            withheld = floor_withheld("array.device-property", self.settings)
            fix = None if floor_withheld("array.devices", self.settings) else AstFix(
                Applicability.UNSAFE, DEVICES_FIX_MESSAGE, (Edit(start, end, f"next(iter({receiver}.devices()))"),))
        return AstFinding(self.code, call, _DEVICE_MESSAGE, withheld=withheld, fix=fix)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._by_name: list[Report] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        if name == "device":
            self._device_call(node)
            return
        entry = BY_NAME.get(name)
        if entry is None or self.settings.target_version < Version(entry.removed) or self._is_store(node):
            return
        call = self.context.parent
        called = isinstance(call, cst.Call) and call.func is node
        if entry.called and not called:
            return  # ``x.to_py`` not called: could be anything
        kind = self.context.inference.kind_of(node.value)
        if kind == OTHER:
            return
        subject = call if entry.called else node
        message = f"`.{name}{'()' if entry.called else ''}` {entry.what}; {entry.advice}"
        fix = self._fix(entry, node, call if called else None, known=kind == ARRAY)
        withheld = floor_withheld(FIX_WRITES[name], self.settings) if fix is not None and name in FIX_WRITES else None
        if withheld is not None:
            fix = None
        self._by_name.append(Report(self.code, subject, message, fix, tuple(self.context.ancestors), None, withheld))

    def leave_Module(self, node: cst.Module) -> None:
        if self.imports_jax:
            for report in self._by_name:
                self.context.add_report(report)

    def _is_store(self, node: cst.Attribute) -> bool:
        parent = self.context.parent
        return isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)) and parent.target is node

    def _fix(self, entry: RemovedAttribute, node: cst.Attribute, call: cst.Call | None, known: bool) -> FixSpec | None:
        make = safe_fix if known else unsafe_fix
        if entry.name in REWRITES:
            message, content = rewrite_attribute(entry.name, self.code_for(node.value).strip())
            return make(message, Replace(node, content))
        if entry.name == "block_host_until_ready" and call is not None and not call.args:
            return make(BLOCK_FIX_MESSAGE, Replace(node.attr, "block_until_ready"))
        return None

    def _device_call(self, node: cst.Attribute) -> None:
        call = self.context.parent
        if not (isinstance(call, cst.Call) and call.func is node and not call.args):
            return
        if self.settings.target_version < Version(DEVICE_PROPERTY_SINCE):
            return
        if self.context.inference.kind_of(node.value) != ARRAY:
            return  # ``.device()`` is a common method name: only on values known to be JAX arrays
        receiver = self.code_for(node.value).strip()
        message = _DEVICE_MESSAGE
        withheld = None
        if self.min_version_at_least(DEVICE_PROPERTY_SINCE):
            fix = safe_fix(PROPERTY_FIX_MESSAGE, Replace(call, f"{receiver}.device"))
        else:
            withheld = floor_withheld("array.device-property", self.settings)
            fix = None if floor_withheld("array.devices", self.settings) else unsafe_fix(
                DEVICES_FIX_MESSAGE, Replace(call, f"next(iter({receiver}.devices()))"))
        self.report(call, message, fix, withheld=withheld)


# What the fixes write (both paths: libcst's ``_fix``/``_device_call`` and ``findings_from_ast``).
REWRITES = {  # attribute -> (fix message, the attribute's replacement, of the receiver's text)
    "device_buffers": ("Use `x.addressable_shards`", "[shard.data for shard in {receiver}.addressable_shards]"),
    "device_buffer": ("Use `x.addressable_data(0)`", "{receiver}.addressable_data(0)"),
}
BLOCK_FIX_MESSAGE = "Use `x.block_until_ready()`"
PROPERTY_FIX_MESSAGE = "Use the `x.device` property"
DEVICES_FIX_MESSAGE = "Use `next(iter(x.devices()))` (the property does not exist below JAX 0.4.27)"


def rewrite_attribute(name: str, receiver: str) -> tuple[str, str]:
    """(the fix's message, what replaces ``<receiver>.<name>``) for a name in ``REWRITES``."""
    message, template = REWRITES[name]
    return message, template.format(receiver=receiver)


_DEVICE_MESSAGE = (f"`x.device()` raises `TypeError: 'Device' object is not callable` since JAX {DEVICE_PROPERTY_SINCE}, "
                   f"where `Array.device` became a property (the method warned from 0.4.21); use `x.device`")


def _imports_jax(view: AstView) -> bool:
    """``TracksJaxImports.imports_jax``: an import of ``jax`` or a module in it, in any scope."""
    for node in walk(view, (ast.Import, ast.ImportFrom)):
        if type(node) is ast.Import and any(alias.name.split(".")[0] == "jax" for alias in node.names):
            return True
        if type(node) is ast.ImportFrom and not node.level and node.module and node.module.split(".")[0] == "jax":
            return True
    return False


def _is_store_ast(view: AstView, node: ast.Attribute) -> bool:
    """``_is_store``: the attribute is itself the target of an assignment (not an element of an unpacking)."""
    parent, field = view.parent(node)
    return type(parent) is ast.Assign and field == "targets" or \
        type(parent) in (ast.AnnAssign, ast.AugAssign) and field == "target"


def _called_ast(view: AstView, node: ast.Attribute) -> ast.Call | None:
    """The call whose callee ``node`` is."""
    parent, field = view.parent(node)
    return parent if type(parent) is ast.Call and field == "func" else None


def _span(view: AstView, node: ast.AST) -> tuple[int, int]:
    """libcst's span of ``node``, which a fix replaces (``Undecidable`` where it has parentheses of its own)."""
    return view.span(node, statement_of(view.ancestors(node)))


def _receiver_text(view: AstView, node: ast.Attribute) -> str:
    """``code_for(node.value).strip()``: the receiver's text, where nothing but the dot (and blanks) stands between
    it and the attribute (a closing parenthesis there is the receiver's own, which ``code_for`` would hold)."""
    between = view.source[view.offset_of(node.value, end=True):view.offset_of(node, end=True) - len(node.attr)]
    if between.strip(" \t") != ".":
        raise Undecidable("the receiver in parentheses, or on another line")
    return view.text(node.value).strip()
