"""JAX507 flax-optax-changed-signature: a keyword that a flax or optax function stopped accepting."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.ecosystem import KEYWORD_ADVICE, KEYWORDS, library_may_reach, library_min
from jaxlint.catalogue.ecosystem_generated import ParameterRow
from jaxlint.lint.ast_findings import AstFinding, AstView, Undecidable, walk
from jaxlint.lint.diagnostics import WithheldFix
from jaxlint.lint.text_gate import keywords_by_last
from jaxlint.project.versions import Version
from jaxlint.rules.base import Invalid, Replace, Rule, Valid, safe_fix

PARTIAL = "functools.partial"
# The releases that changed a reported keyword, per library (the version column of the docs).
_RELEASES = {library: sorted({Version(row.removed_in) for rows in KEYWORDS.values() for row in rows.values()
                              if row.library == library}) for library in ("flax", "optax")}


_FUNCTIONS = frozenset(KEYWORDS)
_KEYWORDS_BY_LAST = keywords_by_last(KEYWORDS)  # the text gate's table


def _passes_a_row(names: set[str], call: ast.Call) -> bool:
    """``call`` passes by name a keyword of a row of one of ``names`` (what the callee may be)."""
    passed = {keyword.arg for keyword in call.keywords if keyword.arg is not None}
    return bool(passed) and any(not passed.isdisjoint(KEYWORDS[name]) for name in names if name in KEYWORDS)


class KeywordFindings:
    """The finding for a call that passes keywords a flax/optax function or method stopped accepting: one message
    for all of them, and the rename as a fix where every reported keyword is a plain rename (JAX507, JAX509)."""

    def _keywords(self, node: cst.Call, rows: dict[str, ParameterRow], shown: str, receiver: str = "") -> None:
        """``receiver``: what follows the call in the message (`` on a `flax.linen.LSTMCell` ``)."""
        keywords = [(arg.keyword.value, arg.keyword) for arg in node.args if arg.keyword is not None]
        finding = self._keyword_finding(keywords, rows, shown, receiver)
        if finding is None:
            return
        message, renames, withheld = finding
        fix = None
        if renames:
            spelled = ", ".join(f"`{keyword.value}=` -> `{new}=`" for keyword, new in renames)
            fix = safe_fix(f"Rename {spelled}", *(Replace(keyword, new) for keyword, new in renames))
        self.report(node, message, fix, withheld=withheld)

    def _keyword_finding(self, keywords: list[tuple[str, object]], rows: dict[str, ParameterRow], shown: str,
                         receiver: str = "") -> tuple[str, list, WithheldFix | None] | None:
        """The finding for a call's keywords (name, the node a rename replaces; in the call's order), shared by the
        libcst visit and ``ast``: (message, the renames [(node, new name)] of its fix, empty for none, withheld);
        None when no keyword is reported."""
        found = [(handle, rows[name]) for name, handle in keywords
                 if name in rows and library_may_reach(self.settings, rows[name].library, rows[name].removed_in)]
        if not found:
            return None
        passed = {name for name, _ in keywords}
        spelled_keywords = ", ".join(f"{row.parameter}=..." for _, row in found)
        groups: dict[tuple, list[ParameterRow]] = {}
        for _, row in found:
            key = (row.change, row.library, row.removed_in, KEYWORD_ADVICE.get((row.name, row.parameter)))
            groups.setdefault(key, []).append(row)
        message = f"`{shown}({spelled_keywords})`{receiver}: " + "; ".join(
            self._clause(key, rows) for key, rows in groups.items())
        renames = [(handle, row.replacement) for handle, row in found
                   if row.change == "renamed" and row.replacement and row.replacement not in passed]
        withheld = None
        if renames and len(renames) == len(found) and len({new for _, new in renames}) == len(renames):
            floors = [row for _, row in found if library_min(self.settings, row.library) < Version(
                row.replacement_since)]
            if floors:
                row = floors[0]
                withheld = WithheldFix(f"`{row.replacement}=` exists from {row.library} {row.replacement_since}; the "
                                       f"project's {row.library} pins allow older releases")
                renames = []
        else:
            renames = []
        return message + ".", renames, withheld

    @staticmethod
    def _clause(key: tuple, rows: list[ParameterRow]) -> str:
        """One sentence for the keywords of one change, release and advice."""
        change, library, removed_in, advice = key
        where = f"{library} {removed_in}"
        spelled = ", ".join(f"`{row.parameter}=`" for row in rows)
        verb = "was" if len(rows) == 1 else "were"
        if change == "renamed":
            renames = ", ".join(f"`{row.parameter}=` -> `{row.replacement}=`" for row in rows)
            clause = f"{where} renamed {renames} (`TypeError` from there)"
        elif change == "positional-only":
            names = ", ".join(f"`{row.parameter}`" for row in rows)
            clause = f"{names} {'is' if len(rows) == 1 else 'are'} positional-only from {where}: pass " \
                     f"{'it' if len(rows) == 1 else 'them'} positionally"
        else:
            clause = f"{spelled} {verb} removed in {where} (`TypeError` from there)"
        return clause + (f": {advice}" if advice else "")


class FlaxOptaxChangedSignature(KeywordFindings, Rule):
    code = "JAX507"
    name = "flax-optax-changed-signature"
    summary = "a keyword that a flax or optax function stopped accepting (removed, renamed, positional-only)"
    since = "0.1.1"  # a flax/optax change: it does not depend on the JAX target
    library_version = (f"flax {_RELEASES['flax'][0]}-{_RELEASES['flax'][-1]}, "
                       f"optax {_RELEASES['optax'][0]}-{_RELEASES['optax'][-1]}")
    triggers = ("flax", "optax")
    ast_names = frozenset(KEYWORDS)
    statement_gated = True
    decides_from_ast = True  # where no finding has a fix (``findings_from_ast``)
    explanation = """
## What it does
Finds calls that pass a flax or optax function a keyword its newer releases reject, read from the signatures in
every flax and optax wheel (the `[[parameter]]` rows of `rules/ecosystem_generated.toml`): a keyword removed
(`flax.training.checkpoints.save_checkpoint(gda_manager=)`, flax 0.6.1; `nnx.jit(donate_state=)`, flax 0.9.0),
renamed (`optax.projections.projection_box(pytree=)` -> `tree=`, optax 0.2.4; `flax.core.freeze(x=)` -> `xs=`),
or made positional-only (`nnx.iter_modules(module=)`, flax 0.12.5), and the methods of public classes where the
call spells the class (`nn.LSTMCell.initialize_carry(rng, batch_dims=..., size=...)`, static before flax 0.7.0; a
call on an instance whose class the module makes plain is JAX509's). Direct calls through any binding of `flax` or
`optax`
(`from flax import nnx`, `import optax.projections as proj`) and `functools.partial(f, kw=...)`. One finding per
call; positional arguments and `**kwargs` are never reported (they bind whatever the signature says).

Only functions users reach: those of flax's API modules (`flax.nnx`, `flax.core`, `flax.training.*`, ...), and of
an implementation module whose package's function lost the same keyword (`jaxlint.catalogue.flax_reach`); every
public optax function.

## Why
A call with a keyword the function no longer has fails: `TypeError: projection_box() got an unexpected keyword
argument 'pytree'`.

## Example
```python
import optax
x = optax.projections.projection_box(pytree=params, lower=0.0, upper=1.0)
```
Use instead:
```python
import optax
x = optax.projections.projection_box(tree=params, lower=0.0, upper=1.0)
```

## Fix safety
A keyword is renamed only where the wheels show a plain rename: in the release that changed it, the new keyword
sits where the old one sat, with the same kind and default, and nothing else of the signature changed (flax 0.2.2's
`scan(variable_in_axes=, variable_out_axes=)` -> `scan(variable_axes=, variable_broadcast=)` changed more than
names: reported as removed, no fix). The fix needs the new keyword at the project's lowest pinned flax/optax (or,
unpinned, the newest); otherwise `fix_withheld` says which release it needs. A call that already passes the new
keyword, or passes a removed or positional-only one, gets no fix.

## Library version
Per keyword: the flax or optax release that stopped accepting it. Keywords removed above the project's flax/optax
upper bound (`optax<0.2.4`) are not reported.
"""

    VALID = [
        Valid("""
            import optax
            x = optax.projections.projection_box(params, 0.0, 1.0)
            y = optax.projections.projection_box(tree=params, lower=0.0, upper=1.0)
        """, note="positional, or the new keyword"),
        Valid("""
            import optax
            def projection_box(pytree, lower, upper):
                return pytree
            x = projection_box(pytree=params, lower=0.0, upper=1.0)
        """, note="a project's own function of that name"),
        Valid("""
            import optax
            kwargs = {"pytree": params, "lower": 0.0, "upper": 1.0}
            x = optax.projections.projection_box(**kwargs)
        """, note="keywords hidden in **kwargs"),
        Valid("""
            from flax import nnx
            import jax
            f = nnx.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)
            h = jax.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)
        """, note="the current keyword"),
    ]

    INVALID = [
        Invalid("""
            import optax
            x = optax.projections.projection_box(pytree=params, lower=0.0, upper=1.0)
        """, fixed="""
            import optax
            x = optax.projections.projection_box(tree=params, lower=0.0, upper=1.0)
        """, note="renamed in optax 0.2.4"),
        Invalid("""
            from optax import projections
            from functools import partial
            clip = partial(projections.projection_hypercube, pytree=params)
        """, fixed="""
            from optax import projections
            from functools import partial
            clip = partial(projections.projection_hypercube, tree=params)
        """, note="a keyword bound by functools.partial"),
        Invalid("""
            from flax.training import checkpoints
            checkpoints.save_checkpoint(ckpt_dir, state, step, gda_manager=manager)
        """, note="removed in flax 0.6.1: no replacement keyword"),
        Invalid("""
            from flax import nnx
            f = nnx.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P(), check_rep=False)
        """, note="flax 0.12.1 follows jax.shard_map: check_vma="),
    ]

    @classmethod
    def may_match_text(cls, facts, words) -> bool:
        # ``may_match_ast`` read from the text: a call, ``partial`` or binding of a function with rows that may
        # pass it one of its rows' keywords
        return facts.may_pass_a_listed_keyword(_KEYWORDS_BY_LAST, words)

    @classmethod
    def may_match_ast(cls, facts) -> bool:
        # Every finding is a call of a function with rows, direct or through ``functools.partial``, that passes one
        # of its rows' keywords by name; a plain alias (``fn = optax.adamw``) is kept too, as the resolver may
        # follow it.
        if not super().may_match_ast(facts):
            return False
        if any(_passes_a_row(facts.qualified_names(call.func), call) for call in facts.calls_to(_FUNCTIONS)):
            return True
        if any(call.args and _passes_a_row(facts.qualified_names(call.args[0]), call)
               for call in facts.calls_to(PARTIAL)):
            return True
        return any(type(call.func) is ast.Name and call.func.id in facts.value_aliases
                   and _passes_a_row(facts.alias_targets(call.func.id), call) for call in facts.calls)

    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``visit_Call`` reports, for calls whose finding has no fix; a call whose keywords would be renamed
        (a fix libcst writes) is ``Undecidable``, as is a callee whose name is not certain."""
        rule = view.rule(cls)
        relevant = KEYWORDS.__contains__
        found = []
        for node in walk(view, (ast.Call,)):
            keywords = [(keyword.arg, keyword) for keyword in node.keywords if keyword.arg is not None]
            if not keywords:
                continue  # only keywords are reported
            qualified = view.qualified_name_unless(node.func, lambda name: relevant(name) or name == PARTIAL)
            if qualified in KEYWORDS:
                shown = node.func
                if view.offset_of(node) != view.offset_of(shown):
                    raise Undecidable("a parenthesized callee")  # libcst's code for it has the parentheses
            elif qualified == PARTIAL and node.args and type(node.args[0]) is not ast.Starred:
                shown = node.args[0]
                qualified = view.qualified_name_unless(shown, relevant)
                if qualified not in KEYWORDS:
                    continue
                between = view.source[view.offset_of(node.func, end=True):view.offset_of(shown)]
                if between.strip() != "(":
                    raise Undecidable("a parenthesized or commented argument")
            else:
                continue
            text = view.text(shown)
            if "(" in text or "#" in text or "\\" in text:
                raise Undecidable("parentheses or comments in the callee")  # libcst's code keeps them
            finding = rule._keyword_finding(keywords, KEYWORDS[qualified], text)
            if finding is None:
                continue
            message, renames, withheld = finding
            if renames:
                raise Undecidable("the keywords are renamed: a fix")
            found.append(AstFinding(cls.code, node, message, withheld=withheld))
        return found

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualified_name(node.func)
        if qualified in KEYWORDS:
            self._keywords(node, KEYWORDS[qualified], self.code_for(node.func))
        elif qualified == PARTIAL and node.args and node.args[0].keyword is None and not node.args[0].star:
            wrapped = self.qualified_name(node.args[0].value)
            if wrapped in KEYWORDS:
                self._keywords(node, KEYWORDS[wrapped], self.code_for(node.args[0].value))

