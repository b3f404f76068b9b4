"""JAX509 flax-optax-method-signature: a keyword that a flax or optax method stopped accepting, in a call on an
instance whose class the module makes plain (``cell = nn.LSTMCell(...)``; ``cell.initialize_carry(batch_dims=)``)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.ecosystem import INSTANCE_METHODS, KEYWORDS, METHOD_KEYWORDS, NOW_REQUIRED, \
    REMOVED_ATTRIBUTES, library_may_reach
from jaxlint.catalogue.ecosystem_generated import MethodChangeRow
from jaxlint.analysis.ast_calls import arguments_in_order
from jaxlint.analysis.ast_instance_classes import AstInstanceClasses
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.ast_instances import UNSPELLED, MayClasses, may_name_class
from jaxlint.lint.text_gate import BARE, NOT_A_NAME, a_call, names_by_last
from jaxlint.rules.base import Invalid, Rule, Valid
from jaxlint.project.versions import Version
from jaxlint.rules.jax507_flax_optax_changed_signature import KeywordFindings

# method -> the keywords some class's row lists for it (the gates' over-approximation)
_METHODS: dict[str, frozenset[str]] = {}
for _methods in METHOD_KEYWORDS.values():
    for _method, _rows in _methods.items():
        _METHODS[_method] = _METHODS.get(_method, frozenset()) | frozenset(_rows)
# the methods of the [[method_change]] rows: static methods turned instance methods, more required arguments
_INSTANCE_METHODS = frozenset(row.method for row in INSTANCE_METHODS.values())
_NOW_REQUIRED = frozenset(method for methods in NOW_REQUIRED.values() for method in methods)
_REMOVED_ATTRIBUTES = frozenset(name for names in REMOVED_ATTRIBUTES.values() for name in names)

# The releases that changed a reported method keyword or calling convention, per library (the docs' version column).
_RELEASES = {library: sorted({Version(row.removed_in) for methods in METHOD_KEYWORDS.values()
                              for rows in methods.values() for row in rows.values() if row.library == library}
                             | {Version(row.changed_in) for row in INSTANCE_METHODS.values() if row.library == library}
                             | {Version(row.changed_in) for table in (NOW_REQUIRED, REMOVED_ATTRIBUTES)
                                for methods in table.values() for row in methods.values() if row.library == library})
             for library in ("flax", "optax")}
# The classes whose instances each reported method or attribute concerns (what ``findings_from_ast`` asks about).
_KEYWORD_OWNERS = {method: frozenset(owner for owner, methods in METHOD_KEYWORDS.items() if method in methods)
                   for method in _METHODS}
_REQUIRED_OWNERS = {method: frozenset(owner for owner, methods in NOW_REQUIRED.items() if method in methods)
                    for method in _NOW_REQUIRED}
_ATTRIBUTE_OWNERS = {name: frozenset(owner for owner, names in REMOVED_ATTRIBUTES.items() if name in names)
                     for name in _REMOVED_ATTRIBUTES}
# Bases that add no method: a class with one of these besides its real base still has that base's methods.
_NEUTRAL_BASES = frozenset({"builtins.object", "typing.Generic", "typing.Protocol", "abc.ABC"})


# ``_super`` reports ``super().__init__(...)`` only where it passes a keyword of JAX507's rows of the base class (a
# ``super().method(...)`` call is reported as any call of that method is): the gates' test, over every class.
_SUPER_INIT_KEYWORDS = frozenset(keyword for rows in KEYWORDS.values() for keyword in rows)
_SUPER_INIT_OWNERS = frozenset(KEYWORDS)
# The classes a call of a now-required or instance method concerns: the rows' classes (an instance method's also
# when called on its class: ``nn.LSTMCell.initialize_carry`` names ``nn.LSTMCell``).
_CALL_OWNERS = {method: _REQUIRED_OWNERS.get(method, frozenset())
                | frozenset(name.rpartition(".")[0] for name, row in INSTANCE_METHODS.items() if row.method == method)
                for method in _NOW_REQUIRED | _INSTANCE_METHODS}


def _named_everywhere(owners: frozenset[str]) -> bool:
    """Classes ``may_name_class`` counts as named in every file (a builtin, a type no chain spells)."""
    return not owners.isdisjoint(UNSPELLED) or any(owner.startswith("builtins.") for owner in owners)


def _may_be_chain_attribute(facts, name: str) -> bool:
    """Whether an occurrence of ``name`` may be an attribute in an attribute chain rooted at a name (the ast gate's
    ``chains``): one that ``context_before`` reads as neither ``BARE`` (no dot before it) nor ``NOT_A_NAME`` (after
    a subscript, call, display, string or number, none of them a chain's root). ``model`` is a word of 76
    dev-corpus files that read no ``.model`` of anything."""
    return any(context not in (BARE, NOT_A_NAME) for _, context in facts.occurrences(name))

class FlaxOptaxMethodSignature(KeywordFindings, Rule):
    code = "JAX509"
    name = "flax-optax-method-signature"
    summary = ("a flax or optax method called as it no longer can be: a keyword it stopped accepting, fewer "
               "positional arguments than it now requires, a static method that became an instance method")
    since = "0.1.1"  # a flax/optax change: it does not depend on the JAX target
    library_version = ", ".join(f"{library} {releases[0]}" + (f"-{releases[-1]}" if len(releases) > 1 else "")
                                for library, releases in _RELEASES.items())
    triggers = ("flax", "optax")
    decides_from_ast = True  # where the file names none of the classes (``findings_from_ast``)
    ast_names = frozenset(METHOD_KEYWORDS) | frozenset(NOW_REQUIRED) | frozenset(INSTANCE_METHODS) \
        | frozenset(REMOVED_ATTRIBUTES)
    explanation = """
## What it does
JAX507's method rows (the `[[parameter]]` rows with `method_of` in `rules/ecosystem_generated.toml`, read from
every flax and optax wheel) for calls on an **instance**: `cell.initialize_carry(rng, batch_dims=(4,), size=8)`
where `cell = nn.LSTMCell(...)` (flax 0.7.0 made it a method of the cell, `initialize_carry(rng, input_shape)`),
`noise.sample(seed=key, ...)` where `noise = optax.perturbations.Gumbel()` (optax 0.2.5), `self.make_rng(kind=...)`
in a subclass of `nn.Module` (flax 0.3.0).

The `[[method_change]]` rows (read from the signatures in the same wheels) add two calling conventions:

- `instance-method`: a static method that became a method of the instance, called on the class as before:
  `nn.LSTMCell.initialize_carry(rng, (4,), 8)` (flax 0.7.0; the first argument becomes `self`);
- `now-required`: a method that requires more positional arguments than before, called with the old count:
  `optimizer.update(grads)` on an `nnx.Optimizer` (flax 0.11.0 requires `update(model, grads)`);
- `removed-attribute`: an attribute the old `__init__` stored that the class now refuses with an `AttributeError`
  of its own, read on an instance of that class itself: `optimizer.model` (flax 0.11.0; a project subclass may
  store it again, so only the library's class counts).

`super().method(...)` in a method of a class with one library base is read as a call on that base (and
`super().__init__(...)` as a call of the base's constructor, with JAX507's rows of the class).

The receiver's class comes from the value inference (`jaxlint.lint.instance_classes`), where the module makes it
plain: a name whose every binding constructs the same class (`cell = nn.LSTMCell(...)`) or is annotated with it (a
parameter `cell: nn.LSTMCell`), `self.cell` whose every store in the class's methods (`__init__`, flax's `setup`)
or class-level annotation agrees, `self` in a method of a subclass, and a call on the constructor itself
(`nn.LSTMCell(features=8).initialize_carry(...)`). A class of the project counts through its one base when neither
it nor a class between it and the library's class defines the method. Positional arguments and `**kwargs` are
never reported, as in JAX507.

Silent: a name bound to different things (reassigned, unpacked, a loop target), an unknown class, a project class
with several bases or one that defines the method itself (an override of another signature), a look-alike class of
the project with the same method name.

## Why
A call with a keyword the method no longer has fails: `TypeError: initialize_carry() got an unexpected keyword
argument 'batch_dims'`.

## Example
```python
from flax import linen as nn
cell = nn.LSTMCell(features=8)
carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
```
Use instead (flax 0.7.0+):
```python
from flax import linen as nn
cell = nn.LSTMCell(features=8)
carry = cell.initialize_carry(rng, (4, 8))
```

## Fix safety
As JAX507: a rename where the wheels show a plain rename (no method row is one today), otherwise no fix.

## Library version
Per keyword: the flax or optax release that stopped accepting it; not reported above the project's upper bound.
"""

    VALID = [
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            carry = cell.initialize_carry(rng, (4, 8))
        """, note="the new signature, positional"),
        Valid("""
            from flax import linen as nn
            class LSTMCell:
                def initialize_carry(self, rng, batch_dims, size):
                    return rng
            cell = LSTMCell()
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="a look-alike class of the project"),
        Valid("""
            from flax import linen as nn
            class MyCell(nn.LSTMCell):
                def initialize_carry(self, rng, batch_dims, size):
                    return rng
            cell = MyCell(features=8)
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="a subclass that overrides the method"),
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            cell = make_cell()
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="reassigned: the class is not known"),
        Valid("""
            from flax import linen as nn
            def run(cell):
                return cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="an unannotated parameter: the class is not known"),
        Valid("""
            import optax
            from flax import nnx
            optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
            optimizer.update(model, grads)
        """, note="the new arity"),
        Valid("""
            import optax
            tx = optax.sgd(0.1)
            updates, state = tx.update(grads, state)
        """, note="optax's own update: another class"),
        Valid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            carry = nn.LSTMCell.initialize_carry(cell, rng, (4, 8))
        """, note="the instance passed as `self`"),
        Valid("""
            from flax import nnx
            class Opt(nnx.Optimizer):
                def update(self, grads):
                    return super().update(self.model, grads)
            Opt(model, tx, wrt=nnx.Param).update(grads)
        """, note="a subclass that overrides update; super() with the new arity"),
        Valid("""
            import optax
            from flax import nnx
            optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
            optimizer.model = model
        """, note="stored by the code: no longer refused"),
        Valid("""
            from flax import nnx
            class Trainer(nnx.Optimizer):
                def __init__(self, model, tx):
                    super().__init__(model, tx, wrt=nnx.Param)
                    self.model = model
            print(Trainer(model, tx).model)
        """, note="a project subclass that stores it"),
    ]

    INVALID = [
        Invalid("""
            from flax import linen as nn
            cell = nn.LSTMCell(features=8)
            carry = cell.initialize_carry(rng, batch_dims=(4,), size=8)
        """, note="removed in flax 0.7.0"),
        Invalid("""
            import optax
            def smooth(key, shape):
                noise = optax.perturbations.Gumbel()
                return noise.sample(seed=key, sample_shape=shape)
        """, note="optax 0.2.5: `sample(key, ...)`"),
        Invalid("""
            from flax import linen as nn
            class Seq(nn.Module):
                def setup(self):
                    self.cell = nn.GRUCell(features=8)
                def __call__(self, x):
                    carry = self.cell.initialize_carry(self.make_rng("carry"), batch_dims=x.shape[:1], size=8)
                    return carry
        """, note="an attribute set in setup"),
        Invalid("""
            from flax import linen as nn
            def run(cell: nn.OptimizedLSTMCell, rng):
                return cell.initialize_carry(rng, batch_dims=(2,), size=4)
        """, note="a parameter annotated with the class"),
        Invalid("""
            import jax
            from flax import linen as nn
            carry = nn.LSTMCell.initialize_carry(jax.random.PRNGKey(0), (2,), 4)
        """, note="a static method up to flax 0.6.11, called on the class"),
        Invalid("""
            import optax
            from flax import nnx
            optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
            optimizer.update(grads)
        """, note="flax 0.11.0: `update(model, grads)`"),
        Invalid("""
            from flax import nnx
            class Trainer(nnx.Optimizer):
                def step(self, grads):
                    super().update(grads)
        """, note="super() reaching nnx.Optimizer"),
        Invalid("""
            from flax import linen as nn
            class Cell(nn.GRUCell):
                def initialize_carry(self, rng, shape):
                    return super().initialize_carry(rng, batch_dims=shape[:1], size=8)
        """, note="super() in an override reaches the library's method"),
        Invalid("""
            import optax
            from flax import nnx
            optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
            print(type(optimizer.model).__name__)
        """, note="flax 0.11.0 removed `Optimizer.model`"),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # the ast gate's method calls, read from the text (``TextFacts.may_call_method``): with one of the row's
        # keywords, or any call of a method whose parameter became required or of an instance's method; each only
        # where the file may name one of the classes it concerns (``findings_from_ast``'s ``may_name_class``)
        if not super().may_match_text(facts, words):
            return False

        def named(owners: frozenset[str]) -> bool:
            return _named_everywhere(owners) or facts.refers_to_any(names_by_last(owners), words)

        return (any(
            method in words and not keywords.isdisjoint(words) and named(_KEYWORD_OWNERS[method])
            and facts.may_call_method(method, lambda call, keywords=keywords: not call.keywords.isdisjoint(keywords))
            for method, keywords in _METHODS.items())
            or any(named(_CALL_OWNERS[method]) and facts.may_call_method(method, a_call)
                   for method in words & (_NOW_REQUIRED | _INSTANCE_METHODS))
            or any(named(_ATTRIBUTE_OWNERS[name]) and _may_be_chain_attribute(facts, name)
                   for name in words & _REMOVED_ATTRIBUTES)
            or "super" in words and "__init__" in words and not _SUPER_INIT_KEYWORDS.isdisjoint(words)
            and named(_SUPER_INIT_OWNERS))

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        if not super().may_match_ast(facts):
            return False
        whole = facts.file or facts

        def named(owners: frozenset[str]) -> bool:
            return _named_everywhere(owners) or whole.refers_to_any(owners)

        if any(named(_ATTRIBUTE_OWNERS[name]) for _, attributes in whole.chains
               for name in _REMOVED_ATTRIBUTES.intersection(attributes)):
            return True
        return any(type(call.func) is ast.Attribute and (
            call.func.attr in _METHODS and any(keyword.arg in _METHODS[call.func.attr] for keyword in call.keywords)
            and named(_KEYWORD_OWNERS[call.func.attr])
            or (call.func.attr in _NOW_REQUIRED or call.func.attr in _INSTANCE_METHODS)
            and named(_CALL_OWNERS[call.func.attr])
            or call.func.attr == "__init__" and type(call.func.value) is ast.Call
            and type(call.func.value.func) is ast.Name and call.func.value.func.id == "super"
            and any(keyword.arg in _SUPER_INIT_KEYWORDS for keyword in call.keywords) and named(_SUPER_INIT_OWNERS))
            for call in whole.calls)

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What the visit reports. A site is passed over where it concerns classes that no chain of the file can
        name (``ast_instances.may_name_class``: the receiver's class, a project class's base and ``super()``'s all
        come from such a chain), or that the receiver cannot be an instance of (``ast_instances.MayClasses``:
        ``pbar.update(1)`` where ``pbar = tqdm(...)``); any other site is read as the visit reads it, with the
        class inference ported to ``ast`` (``AstInstanceClasses``). A finding whose keywords would be renamed (a
        fix libcst writes) is ``Undecidable``."""
        rule = view.rule(cls)
        asked: dict[frozenset[str], bool] = {}
        receivers = MayClasses(view)
        classes: AstInstanceClasses | None = None

        def may_be(owners: frozenset[str], receiver: ast.AST | None = None) -> bool:
            if owners not in asked:
                asked[owners] = may_name_class(view, owners)
            if not asked[owners]:
                return False
            if receiver is None or type(receiver) is ast.Call and type(receiver.func) is ast.Name \
                    and receiver.func.id == "super":
                return True  # ``super()``: the enclosing class's base (``_super``)
            return receivers.may_be(receiver, owners)

        found: list[AstFinding] = []
        for node in walk(view, (ast.Call, ast.Attribute)):
            if type(node) is ast.Attribute:
                # ``visit_Attribute``: an instance of the library's class itself
                if node.attr in _REMOVED_ATTRIBUTES and not _stored(view, node) \
                        and may_be(_ATTRIBUTE_OWNERS[node.attr], node.value):
                    classes = classes or AstInstanceClasses(view)
                    found += rule._attribute_from_ast(view, node, classes)
                continue
            func = node.func
            if type(func) is not ast.Attribute:
                continue
            method = func.attr
            passed = {keyword.arg for keyword in node.keywords if keyword.arg is not None}
            if method in _INSTANCE_METHODS and view.qualified_name_unless(
                    func, INSTANCE_METHODS.__contains__) in INSTANCE_METHODS \
                    or method in _NOW_REQUIRED and may_be(cls._too_few_owners(view, node, method, passed), func.value) \
                    or method in _METHODS and not passed.isdisjoint(_METHODS[method]) \
                    and may_be(_KEYWORD_OWNERS[method], func.value) \
                    or method == "__init__" and passed and may_be(frozenset(
                        owner for owner, rows in KEYWORDS.items() if not passed.isdisjoint(rows))):
                classes = classes or AstInstanceClasses(view)
                found += rule._call_from_ast(view, node, classes)
        return found

    # -- the visit's reading, on ``ast`` ------------------------------------------------------------------------
    def _call_from_ast(self, view: AstView, node: ast.Call, classes: AstInstanceClasses) -> list[AstFinding]:
        """``visit_Call``."""
        func = node.func
        method = func.attr
        qualified = view.qualified_name(func)
        if qualified is not None:
            if qualified in INSTANCE_METHODS:
                return self._on_the_class_from_ast(view, node, INSTANCE_METHODS[qualified], classes)
            return []
        if _is_super_ast(func.value):
            return self._super_from_ast(view, node, method, classes)
        found = []
        if method in _NOW_REQUIRED:
            owner = self._library_class_from_ast(view, classes, classes.instance_class(func.value), method, 0,
                                                 NOW_REQUIRED)
            if owner is not None:
                found += self._too_few_from_ast(view, node, NOW_REQUIRED[owner][method], owner)
        if method not in _METHODS or not any(keyword.arg in _METHODS[method] for keyword in node.keywords):
            return found
        owner = self._library_class_from_ast(view, classes, classes.instance_class(func.value), method, 0)
        rows = METHOD_KEYWORDS.get(owner or "", {}).get(method)
        if rows:
            found += self._keywords_from_ast(view, node, rows, _code(view, func), f" on an instance of `{owner}`")
        return found

    def _attribute_from_ast(self, view: AstView, node: ast.Attribute,
                            classes: AstInstanceClasses) -> list[AstFinding]:
        """``visit_Attribute``."""
        owner = classes.instance_class(node.value)
        row = REMOVED_ATTRIBUTES.get(owner, {}).get(node.attr) if isinstance(owner, str) else None
        if row is None or not library_may_reach(self.settings, row.library, row.changed_in):
            return []
        return [AstFinding(self.code, node, self._attribute_message(_code(view, node), owner, row))]

    def _keywords_from_ast(self, view: AstView, node: ast.Call, rows: dict, shown: str,
                           receiver: str) -> list[AstFinding]:
        """``KeywordFindings._keywords``: its finding, where it has no fix."""
        keywords = [(keyword.arg, keyword) for keyword in node.keywords if keyword.arg is not None]
        finding = self._keyword_finding(keywords, rows, shown, receiver)
        if finding is None:
            return []
        message, renames, withheld = finding
        if renames:
            raise Undecidable("the keywords are renamed: a fix")
        return [AstFinding(self.code, node, message, withheld=withheld)]

    def _on_the_class_from_ast(self, view: AstView, node: ast.Call, row: MethodChangeRow,
                               classes: AstInstanceClasses) -> list[AstFinding]:
        """``_on_the_class``."""
        if not library_may_reach(self.settings, row.library, row.changed_in) or any(
                keyword.arg is not None and keyword.arg in KEYWORDS.get(row.name, {}) for keyword in node.keywords):
            return []
        arguments = arguments_in_order(node)
        first = arguments[0] if arguments and type(arguments[0]) not in (ast.keyword, ast.Starred) else None
        passed = classes.instance_class(first) if first is not None else None
        if isinstance(passed, ast.ClassDef) or isinstance(passed, str) and passed.rpartition(".")[2] == row.method_of:
            return []
        return [AstFinding(self.code, node, self._on_the_class_message(row))]

    def _too_few_from_ast(self, view: AstView, node: ast.Call, row: MethodChangeRow,
                          owner: str) -> list[AstFinding]:
        """``_too_few``."""
        if any(type(arg) is ast.Starred for arg in node.args) or any(keyword.arg is None for keyword in node.keywords) \
                or not library_may_reach(self.settings, row.library, row.changed_in):
            return []
        if any(keyword.arg == row.parameter for keyword in node.keywords):
            return []
        passed = len(node.args)
        if not (row.was_required or 0) <= passed < (row.required or 0):
            return []
        return [AstFinding(self.code, node, self._too_few_message(_code(view, node.func), owner, row, passed))]

    def _super_from_ast(self, view: AstView, node: ast.Call, method: str,
                        classes: AstInstanceClasses) -> list[AstFinding]:
        """``_super``."""
        owner = _enclosing_class_from_ast(view, node)
        if owner is None:
            return []
        bases = [base for base in owner.bases if _base_name(view, base) not in _NEUTRAL_BASES]
        base = classes.annotation_class(bases[0]) if len(bases) == 1 else None
        if method == "__init__":
            qualified = base if isinstance(base, str) else None
            rows = KEYWORDS.get(qualified or "")
            if rows and any(keyword.arg in rows for keyword in node.keywords):
                return self._keywords_from_ast(view, node, rows, "super().__init__", f" of `{qualified}`")
            return []
        found = []
        if method in _NOW_REQUIRED:
            library = self._library_class_from_ast(view, classes, base, method, 0, NOW_REQUIRED)
            if library is not None:
                found += self._too_few_from_ast(view, node, NOW_REQUIRED[library][method], library)
        if method in _METHODS and any(keyword.arg in _METHODS[method] for keyword in node.keywords):
            library = self._library_class_from_ast(view, classes, base, method, 0)
            rows = METHOD_KEYWORDS.get(library or "", {}).get(method)
            if rows:
                found += self._keywords_from_ast(view, node, rows, _code(view, node.func), f" reaching `{library}`")
        return found

    def _library_class_from_ast(self, view: AstView, classes: AstInstanceClasses, found, method: str, depth: int,
                                table: dict = METHOD_KEYWORDS) -> str | None:
        """``_library_class``."""
        if isinstance(found, str) or found is None or depth > 8:
            return found if isinstance(found, str) and method in table.get(found, {}) else None
        if _defines_from_ast(view, found, method):
            return None  # an override: another signature
        bases = [base for base in found.bases if _base_name(view, base) not in _NEUTRAL_BASES]
        if len(bases) != 1:
            return None
        return self._library_class_from_ast(view, classes, classes.annotation_class(bases[0]), method, depth + 1,
                                            table)

    @staticmethod
    def _too_few_owners(view: AstView, node: ast.Call, method: str, passed: set[str]) -> frozenset[str]:
        """The classes whose ``now-required`` row ``_too_few`` would report this call under (its arguments alone
        decide it: ``optimizer.update(model, grads)`` passes enough, whatever ``optimizer`` is)."""
        if any(type(arg) is ast.Starred for arg in node.args) or len(passed) < len(node.keywords):
            return frozenset()  # ``*args`` or ``**kwargs``
        owners = set()
        for owner in _REQUIRED_OWNERS[method]:
            row = NOW_REQUIRED[owner][method]
            if row.parameter not in passed and (row.was_required or 0) <= len(node.args) < (row.required or 0) \
                    and library_may_reach(view.settings, row.library, row.changed_in):
                owners.add(owner)
        return frozenset(owners)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        qualified = self.qualified_name(func)
        if qualified is not None:
            # a module's function, or the class spelled (``nn.LSTMCell.initialize_carry``): keywords are JAX507's
            if qualified in INSTANCE_METHODS:
                self._on_the_class(node, INSTANCE_METHODS[qualified])
            return
        if _is_super(func.value):
            self._super(node, method)
            return
        if method in _NOW_REQUIRED:
            owner = self._library_class(self._instance_class(func.value), method, 0, NOW_REQUIRED)
            if owner is not None:
                self._too_few(node, NOW_REQUIRED[owner][method], owner)
        if method not in _METHODS or not any(arg.keyword is not None and arg.keyword.value in _METHODS[method]
                                             for arg in node.args):
            return
        owner = self._library_class(self._instance_class(func.value), method, 0)
        rows = METHOD_KEYWORDS.get(owner or "", {}).get(method)
        if rows:
            self._keywords(node, rows, self.code_for(func), f" on an instance of `{owner}`")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """``optimizer.model`` on an instance of the library's class itself (a project subclass may store it)."""
        name = node.attr.value
        if name not in _REMOVED_ATTRIBUTES or isinstance(self.context.parent, (cst.AssignTarget, cst.Del)) \
                or isinstance(self.context.parent, (cst.AugAssign, cst.AnnAssign)) and self.context.parent.target is node:
            return
        owner = self._instance_class(node.value)
        row = REMOVED_ATTRIBUTES.get(owner, {}).get(name) if isinstance(owner, str) else None
        if row is None or not library_may_reach(self.settings, row.library, row.changed_in):
            return
        self.report(node, self._attribute_message(self.code_for(node), owner, row))

    @staticmethod
    def _attribute_message(shown: str, owner: str, row) -> str:
        return (f"`{shown}` on an instance of `{owner}`: {row.library} {row.changed_in} removed the attribute "
                f"(`AttributeError`: \"{(row.message or '').replace('{...}', row.method_of)}\").")

    def _instance_class(self, node: cst.BaseExpression) -> "str | cst.ClassDef | None":
        return self.context.inference.classes.instance_class(node)

    # -- [[method_change]] rows --------------------------------------------------------------------------------
    def _on_the_class(self, node: cst.Call, row: MethodChangeRow) -> None:
        """``nn.LSTMCell.initialize_carry(rng, ...)``: a method of the instance since ``row.changed_in``."""
        if not library_may_reach(self.settings, row.library, row.changed_in) or any(
                arg.keyword is not None and arg.keyword.value in KEYWORDS.get(row.name, {}) for arg in node.args):
            return  # out of the project's range, or a removed keyword: JAX507 reports the call
        first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
        passed = self._instance_class(first) if first is not None else None
        if isinstance(passed, cst.ClassDef) or isinstance(passed, str) and passed.rpartition(".")[2] == row.method_of:
            return  # ``LSTMCell.initialize_carry(cell, rng, shape)``: the instance passed as ``self``
        self.report(node, self._on_the_class_message(row))

    @staticmethod
    def _on_the_class_message(row: MethodChangeRow) -> str:
        return (f"`{row.owner}.{row.method}` is a method of the instance since {row.library} {row.changed_in} (a "
                f"static method up to {row.last_seen}): called on the class, its first argument becomes `self`; call "
                f"it on an instance (`{row.method_of}(...).{row.method}(...)`) with the new arguments.")

    def _too_few(self, node: cst.Call, row: MethodChangeRow, owner: str) -> None:
        """``optimizer.update(grads)``: fewer positional arguments than the method requires since
        ``row.changed_in``, as many as it required before."""
        if any(arg.star for arg in node.args) or not library_may_reach(self.settings, row.library, row.changed_in):
            return
        if any(arg.keyword is not None and arg.keyword.value == row.parameter for arg in node.args):
            return
        passed = sum(arg.keyword is None for arg in node.args)
        if not (row.was_required or 0) <= passed < (row.required or 0):
            return
        self.report(node, self._too_few_message(self.code_for(node.func), owner, row, passed))

    @staticmethod
    def _too_few_message(shown: str, owner: str, row: MethodChangeRow, passed: int) -> str:
        return (f"`{shown}(...)` on an instance of `{owner}`: since {row.library} {row.changed_in} it requires "
                f"{row.required} positional arguments, `{row.parameter}` among them ({row.was_required} before); this "
                f"call passes {passed} (`TypeError` from there).")

    # -- super() -----------------------------------------------------------------------------------------------
    def _super(self, node: cst.Call, method: str) -> None:
        """``super().method(...)`` / ``super().__init__(...)`` in a method of a class with one library base."""
        owner = self._enclosing_class()
        if owner is None:
            return
        base = self._one_base(owner)
        if method == "__init__":
            # the constructor's keywords: JAX507's rows of the class itself
            qualified = base if isinstance(base, str) else None
            rows = KEYWORDS.get(qualified or "")
            if rows and any(arg.keyword is not None and arg.keyword.value in rows for arg in node.args):
                self._keywords(node, rows, "super().__init__", f" of `{qualified}`")
            return
        if method in _NOW_REQUIRED:
            found = self._library_class(base, method, 0, NOW_REQUIRED)
            if found is not None:
                self._too_few(node, NOW_REQUIRED[found][method], found)
        if method in _METHODS and any(arg.keyword is not None and arg.keyword.value in _METHODS[method]
                                      for arg in node.args):
            found = self._library_class(base, method, 0)
            rows = METHOD_KEYWORDS.get(found or "", {}).get(method)
            if rows:
                self._keywords(node, rows, self.code_for(node.func), f" reaching `{found}`")

    def _enclosing_class(self) -> cst.ClassDef | None:
        """The class whose method (directly in its body) holds the call; None elsewhere."""
        ancestors = self.context.ancestors
        for i in range(len(ancestors) - 1, 0, -1):
            if isinstance(ancestors[i], (cst.FunctionDef, cst.Lambda)):
                owner = next((a for a in reversed(ancestors[:i]) if isinstance(a, (cst.ClassDef, cst.FunctionDef))),
                             None)
                return owner if isinstance(owner, cst.ClassDef) else None
        return None

    def _one_base(self, owner: cst.ClassDef) -> "str | cst.ClassDef | None":
        bases = [base.value for base in owner.bases
                 if base.keyword is None and self.qualified_name(_unsubscripted(base.value)) not in _NEUTRAL_BASES]
        return self.context.inference.classes.annotation_class(bases[0]) if len(bases) == 1 else None

    def _library_class(self, found: "str | cst.ClassDef | None", method: str, depth: int,
                       table: dict = METHOD_KEYWORDS) -> str | None:
        """The library class whose ``method`` an instance of ``found`` calls: ``found`` itself when ``table`` lists
        it, or, for a project class, its one base's (when neither defines ``method``); None when not known."""
        if isinstance(found, str) or found is None or depth > 8:
            return found if isinstance(found, str) and method in table.get(found, {}) else None
        if _defines(found, method):
            return None  # an override: another signature
        bases = [base.value for base in found.bases
                 if self.qualified_name(_unsubscripted(base.value)) not in _NEUTRAL_BASES]
        if len(bases) != 1:
            return None
        base = self.context.inference.classes.annotation_class(bases[0])
        return self._library_class(base, method, depth + 1, table)


def _stored(view: AstView, node: ast.Attribute) -> bool:
    """``visit_Attribute``'s targets: what an assignment (not an unpacking), ``del`` of one target, an augmented or
    annotated assignment stores."""
    parent, field = view.parent(node)
    kind = type(parent)
    return kind is ast.Assign and field == "targets" or kind is ast.Delete and len(parent.targets) == 1 \
        or kind in (ast.AugAssign, ast.AnnAssign) and field == "target"


def _is_super(node: cst.BaseExpression) -> bool:
    """``super()`` (no arguments: the enclosing class's next base)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super" \
        and not node.args


def _unsubscripted(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.value if isinstance(node, cst.Subscript) else node


def _defines(owner: cst.ClassDef, method: str) -> bool:
    """The class body defines or assigns ``method`` (``def initialize_carry``, ``initialize_carry = ...``)."""
    for statement in owner.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == method:
            return True
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                    [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                if any(isinstance(t, cst.Name) and t.value == method for t in targets):
                    return True
    return False


# -- the visit's helpers, on ``ast`` ---------------------------------------------------------------------------------
def _code(view: AstView, node: ast.AST) -> str:
    """``code_for``: libcst's text of the node, where ``ast``'s is the same (on one line, no parentheses of its
    own: ``code_for_node`` renders a node at column 0, so continuation lines would lose their indentation)."""
    start, end = view.span(node)
    text = view.source[start:end]
    if "\n" in text or "\r" in text:
        raise Undecidable("a node over several lines")
    return text


def _is_super_ast(node: ast.AST) -> bool:
    """``_is_super``: ``super()`` with no arguments."""
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "super" \
        and not node.args and not node.keywords


def _base_name(view: AstView, base: ast.AST) -> str | None:
    """The qualified name of a class's base (its value, subscripted or not: ``_unsubscripted``)."""
    if type(base) is ast.Starred:
        raise Undecidable("a starred base: libcst reads the name after the star")
    return view.qualified_name(base.value if type(base) is ast.Subscript else base)


def _enclosing_class_from_ast(view: AstView, node: ast.AST) -> ast.ClassDef | None:
    """``_enclosing_class``: the class whose method (directly in its body) holds the call."""
    ancestors = [ancestor for ancestor, _ in view.ancestors(node)]
    for i in range(len(ancestors) - 1, 0, -1):
        if type(ancestors[i]) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            owner = next((a for a in reversed(ancestors[:i])
                          if type(a) in (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)), None)
            return owner if type(owner) is ast.ClassDef else None
    return None


def _defines_from_ast(view: AstView, owner: ast.ClassDef, method: str) -> bool:
    """``_defines``: the class body defines or assigns ``method``. A body on the header's line (``class A(B): x =
    1``) is a suite whose statements ``_defines`` does not read: ``Undecidable``."""
    first = owner.body[0]
    if view.source[view.index.starts[first.lineno - 1]:view.offset_of(first)].strip():
        raise Undecidable("a class body on its header's line")
    for statement in owner.body:
        kind = type(statement)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef) and statement.name == method:
            return True
        targets = statement.targets if kind is ast.Assign else [statement.target] \
            if kind in (ast.AnnAssign, ast.AugAssign) else []
        if any(type(target) is ast.Name and target.id == method for target in targets):
            return True
    return False
