"""JAX207 changed-return-type: the rows of ``rules/return_types.toml`` (one per kind of member: attribute, subscript by
position, subscript by key, iteration, the class's name), the ranges that cross each change, the chains followed
through names and receivers, and the ast path against the libcst path on every case."""
from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from jaxlint.catalogue.return_types import INDEX, KEY, return_types
from jaxlint.lint import ast_findings
from jaxlint.lint.engine import lint_source
from jaxlint.project.settings import Settings
from jaxlint.project.version_pins import Bound, PinnedRange
from jaxlint.project.versions import Version
from jaxlint.rules.jax207_changed_return_type import ChangedReturnType

REPO = Path(__file__).resolve().parents[2]
OLD_JAX = replace(Settings(select=("JAX207",)), explicit_min_version=Version("0.4.20"), min_version_source="test")
NEW_JAX = replace(OLD_JAX, explicit_min_version=Version("0.5.0"))


def pinned(library: str, low: str | None, high: str | None = None) -> Settings:
    bounds = (library, Bound(Version(low), "requirements.txt:1", f"{library}>={low}") if low else None,
              Bound(Version(high), "requirements.txt:1", f"{library}<{high}") if high else None)
    return replace(Settings(select=("JAX207",)), pinned=PinnedRange(Path("."), None, None, (bounds,)))


def libcst(source: str, settings: Settings) -> list[dict]:
    result = lint_source(textwrap.dedent(source), "t.py", settings, rules=[ChangedReturnType], prefilter=False,
                         whole=True)
    return [asdict(d) for d in result.diagnostics]


def both(source: str, settings: Settings) -> list[dict]:
    """The libcst path's findings, after checking that the ast path gives the same where it decides."""
    source = textwrap.dedent(source)
    found = libcst(source, settings)
    decided = ast_findings.decide(source, "t.py", [ChangedReturnType], ast.parse(source), settings=settings)
    if decided is not None:
        assert [asdict(d) for d in decided] == found
    return found


def rows(found: list[dict]) -> list[int]:
    return [d["start"]["row"] for d in found]


COMPILED = "import jax\ncompiled = jax.jit(f).lower(x).compile()\n"
FLAT = "from flax import nnx\nflat = nnx.state(model).flat_state()\n"
MULTI = "import optax\ntx = optax.multi_transform(transforms, labels)\nstate = tx.init(params)\n"

# (settings, source, rows reported) per row kind
INVALID = {
    "jax: subscript by position": (OLD_JAX, COMPILED + "flops = compiled.cost_analysis()[0]['flops']\n", [3]),
    "jax: negative position": (OLD_JAX, COMPILED + "costs = compiled.cost_analysis()\nc = costs[-1]\n", [4]),
    "jax: a list method": (OLD_JAX, COMPILED + "costs = compiled.cost_analysis()\ncosts.append({})\n", [4]),
    "jax: iteration": (OLD_JAX, COMPILED + "total = sum(c['flops'] for c in compiled.cost_analysis())\n", [3]),
    "jax: one chain, no names": (OLD_JAX, "import jax\nc = jax.jit(f).lower(x).compile().cost_analysis()[0]\n", [2]),
    "jax: traced, then lowered": (
        OLD_JAX, "import jax\nc = jax.jit(f).trace(x).lower().compile().cost_analysis()[0]\n", [2]),
    "flax: a dict method": (pinned("flax", "0.10.2"), FLAT + "print(flat.items())\n", [3]),
    "flax: subscript by key": (pinned("flax", "0.10.2"), FLAT + "kernel = flat[('kernel',)]\n", [3]),
    "flax: iteration": (pinned("flax", "0.10.2"), FLAT + "paths = [p for p in flat]\n", [3]),
    "flax: unpinned": (Settings(select=("JAX207",)), FLAT + "print(flat.keys())\n", [3]),
    "flax: in a function, the module's name": (
        pinned("flax", "0.10.2"), FLAT + "def f():\n    return flat.values()\n", [4]),
    "optax: type name": (pinned("optax", "0.1.7"), MULTI + "ok = type(state).__name__ == 'MultiTransformState'\n",
                         [4]),
    "optax: __class__": (pinned("optax", "0.1.7"), MULTI + "name = state.__class__.__qualname__\n", [4]),
    "flax: a state leaf's type name": (
        pinned("flax", "0.10.2"), "from flax import nnx\nleaf = nnx.state(model)['kernel']\n"
        "print(type(leaf).__name__)\n", [3]),  # tests/data/breakages/nnx-state-leaf-type
    "flax: a VariableState method": (
        pinned("flax", "0.10.2"), "from flax import nnx\nv = nnx.state(model)['bias'].to_variable()\n", [2]),
    "flax: a leaf of a named state": (
        Settings(select=("JAX207",)), "from flax import nnx\nstate = nnx.state(model)\n"
        "ok = state['embedding'].__class__.__name__ == 'VariableState'\n", [3]),
    "CRLF": (OLD_JAX, (COMPILED + "flops = compiled.cost_analysis()[0]\n").replace("\n", "\r\n"), [3]),
}

VALID = {
    "jax: new-only range": (NEW_JAX, COMPILED + "flops = compiled.cost_analysis()['flops']\n"),
    "jax: new-only range, even the old spelling": (NEW_JAX, COMPILED + "flops = compiled.cost_analysis()[0]\n"),
    "jax: the new API on a crossing range: a key": (OLD_JAX, COMPILED + "f = compiled.cost_analysis()['flops']\n"),
    "jax: a method both have": (OLD_JAX, COMPILED + "c = compiled.cost_analysis().copy()\n"),
    "jax: target below the change": (replace(OLD_JAX, target_version=Version("0.4.38")),
                                     COMPILED + "flops = compiled.cost_analysis()[0]\n"),
    "jax: guarded": (OLD_JAX, COMPILED + "costs = compiled.cost_analysis()\n"
                     "costs = costs[0] if isinstance(costs, list) else costs\nprint(costs['flops'])\n"),
    "jax: parameter": (OLD_JAX, "import jax\ndef f(compiled):\n    return compiled.cost_analysis()[0]\n"),
    "jax: a variable subscript": (OLD_JAX, COMPILED + "i = 0\nc = compiled.cost_analysis()[i]\n"),
    "jax: loop target": (OLD_JAX, "import jax\nfor compiled in things:\n    c = compiled.cost_analysis()[0]\n"),
    "jax: a class-body name is not a method's": (
        OLD_JAX, "import jax\nclass A:\n    costs = jax.jit(f).lower(x).compile().cost_analysis()\n"
        "    def f(self, costs):\n        return costs[0]\n"),
    "flax: pinned at the change": (pinned("flax", "0.10.3"), FLAT + "print(flat.keys())\n"),
    "flax: capped below the change": (pinned("flax", "0.10.0", "0.10.3"), FLAT + "print(flat.keys())\n"),
    "flax: a FlatState member": (pinned("flax", "0.10.2"), FLAT + "print(flat.paths, flat[0], len(flat))\n"),
    "flax: the drop-in": (pinned("flax", "0.10.2"), "from flax import nnx\n"
                          "flat = dict(nnx.state(model).flat_state())\nprint(flat.keys())\n"),
    "flax: the project's own flat_state": (
        pinned("flax", "0.10.2"), "from flax import nnx\nclass M:\n    def flat_state(self):\n        return {}\n"
        "print(M().flat_state().keys())\n"),
    "flax: state not from nnx": (pinned("flax", "0.10.2"), "from flax import nnx\nflat = state.flat_state()\n"
                                 "print(flat.keys())\n"),
    "flax: no nnx import": (pinned("flax", "0.10.2"), "flat = nnx.state(model).flat_state()\nprint(flat.keys())\n"),
    "flax: reassigned": (pinned("flax", "0.10.2"), FLAT + "flat = {}\nprint(flat.keys())\n"),
    "flax: a state leaf's value": (
        pinned("flax", "0.10.2"), "from flax import nnx\nprint(nnx.state(model)['kernel'].value.shape)\n"),
    "flax: a nested state's type name": (
        pinned("flax", "0.10.2"), "from flax import nnx\nprint(type(nnx.state(model)['encoder']).__name__)\n"),
    "flax: a state leaf, pinned at the change": (
        pinned("flax", "0.11.0"), "from flax import nnx\nprint(type(nnx.state(model)['kernel']).__name__)\n"),
    "flax: the state leaves' drop-in": (
        pinned("flax", "0.10.2"), "from flax import nnx\n"
        "ok = isinstance(nnx.state(model)['kernel'], (nnx.Variable, nnx.VariableState))\n"),
    "flax: a subscript of another mapping": (
        pinned("flax", "0.10.2"), "from flax import nnx\nprint(type(params['kernel']).__name__)\n"),
    "optax: another transformation": (
        pinned("optax", "0.1.7"), "import optax\nstate = optax.adam(1e-3).init(params)\n"
        "ok = type(state).__name__ == 'ScaleByAdamState'\n"),
    "optax: the drop-in": (pinned("optax", "0.1.7"), MULTI + "ok = isinstance(state, optax.MultiTransformState)\n"),
    "optax: a member both have": (pinned("optax", "0.1.7"), MULTI + "inner = state.inner_states\n"),
    "optax: pinned at the change": (pinned("optax", "0.2.3"), MULTI + "ok = type(state).__name__\n"),
    "optax: a user's own type": (pinned("optax", "0.1.7"), MULTI + "type = lambda v: v\nok = type(state).__name__\n"),
}


@pytest.mark.parametrize("name", INVALID)
def test_invalid(name):
    settings, source, expected = INVALID[name]
    found = both(source, settings)
    assert rows(found) == expected, found
    assert all(d["code"] == "JAX207" and d["fix"] is None for d in found)


@pytest.mark.parametrize("name", VALID)
def test_valid(name):
    settings, source = VALID[name]
    assert both(source, settings) == []


def test_messages_name_the_change_and_the_drop_in():
    (cost,) = both(INVALID["jax: subscript by position"][1], OLD_JAX)
    assert "`jax.stages.Compiled.cost_analysis()` returns a `dict` from JAX 0.5.0 (a `list` up to 0.4.38)" \
        in cost["message"] and "`[0]`" in cost["message"]
    (keys,) = both(INVALID["flax: unpinned"][1], Settings(select=("JAX207",)))
    assert "`.keys`" in keys["message"] and "flax 0.10.3" in keys["message"] and "`dict(...)`" in keys["message"]
    (name,) = both(INVALID["optax: type name"][1], pinned("optax", "0.1.7"))
    assert "'PartitionState'" in name["message"] and "isinstance" in name["message"]


def test_the_finding_sits_on_the_use():
    (found,) = both(COMPILED + "flops = compiled.cost_analysis()[0]['flops']\n", OLD_JAX)
    assert (found["start"]["row"], found["start"]["column"], found["end"]["column"]) == (3, 9, 36)


def test_the_common_shapes_are_decided_from_ast():
    """A file without a finding, and a finding on a plain name, need no libcst."""
    for settings, source in (VALID["jax: parameter"], VALID["flax: reassigned"], VALID["optax: the drop-in"]):
        assert ast_findings.decide(source, "t.py", [ChangedReturnType], ast.parse(source), settings=settings) == []
    settings, source, _ = INVALID["flax: a dict method"]
    decided = ast_findings.decide(source, "t.py", [ChangedReturnType], ast.parse(source), settings=settings)
    assert decided is not None and len(decided) == 1


# -- the rows ------------------------------------------------------------------------------------------------------
def test_rows_are_complete_and_cite_their_source():
    table = return_types()
    assert set(table) == {"jax.stages.Compiled.cost_analysis()", "flax.nnx.State.flat_state()",
                          "optax.multi_transform().init()", "flax.nnx.State[key]"}
    for row in table.values():
        assert row.source and row.advice and row.old_env and row.new_env
        assert row.missing or row.differs
        assert Version(row.last_old) < Version(row.changed_in)
    assert INDEX in table["jax.stages.Compiled.cost_analysis()"].missing
    assert KEY in table["flax.nnx.State.flat_state()"].missing
    assert "keys" in table["flax.nnx.State.flat_state()"].attributes
    assert table["optax.multi_transform().init()"].differs == ("type-name",)
    leaf = table["flax.nnx.State[key]"]
    assert (leaf.changed_in, leaf.old_name, leaf.differs) == ("0.11.0", "VariableState", ("type-name",))
    assert {"kernel", "bias"} <= set(leaf.keys) and "to_variable" in leaf.missing


@pytest.mark.slow
def test_rows_are_what_the_runs_give():
    """Every row's example re-run on both sides (the venvs under ``$JAXLINT_JAXENVS``) gives the file as it is."""
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "generate_return_types.py"), "--check"],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_libcst_path_prints_no_syntax_warning_of_the_users_code():
    # The rule's libcst visit reads the file with ``ast`` too: a user's invalid escape sequence must not reach
    # stderr as a SyntaxWarning (it did on two dev-corpus projects before the gate's parse was reused).
    import warnings

    source = FLAT + 'pattern = "\\w+"\nprint(flat.keys())\n'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = lint_source(source, "a.py", pinned("flax", "0.10.2"), rules=[ChangedReturnType], prefilter=False)
    assert [d.code for d in found.diagnostics] == ["JAX207"]
    assert not [w for w in caught if issubclass(w.category, SyntaxWarning)], [str(w.message) for w in caught]


# -- the gates: a file that spells no crossed row's chain is not walked ---------------------------------------------
def _text_gate(source: str) -> bool:
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts

    source = textwrap.dedent(source)
    return ChangedReturnType.may_match_text(TextFacts(source), Scan(source).words)


KEPT = {
    **{name: source for name, (_, source, _) in INVALID.items()},
    "an imported class's method, called": "from jax.stages import Compiled as C\nr = C.cost_analysis(c)[0]\n",
    "an identifier in NFKC form": COMPILED + "flops = compiled.\uff43ost_analysis()[0]\n",
    "the subscript row, without flat_state": "from flax import nnx\nprint(type(nnx.state(m)['bias']).__name__)\n",
    "the subscript row, its lacking member": "from flax import nnx\nv = nnx.state(m)['kernel'].to_variable()\n",
    "the subscript row, its lacking member in NFKC form":
        "from flax import nnx\nv = nnx.state(m)['kernel'].to_v\uff41riable()\n",
}


@pytest.mark.parametrize("name", KEPT)
def test_the_text_gate_keeps_every_file_a_row_can_reach(name):
    assert _text_gate(KEPT[name])


@pytest.mark.parametrize("source", [
    "import jax\nf = jax.jit(g)\nfor s in f(x):\n    print(s[0], s.keys(), type(s).__name__)\n",
    "import jax\nc = jax.jit(f).lower(x).compile()\nprint(c.as_text()[0])\n",  # no ``cost_analysis``
    "import optax\ntx = optax.multi_transform(t, l)\nprint(type(tx.update).__name__)\n",  # no ``init``
    # the chain formed, but no use a row reports is spelled: no member ``State[key]`` lacks, no class name
    "from flax import nnx\nstate = nnx.state(model)\nprint(state['kernel'].value)\n",
    "import optax\ntx = optax.multi_transform(t, l)\nstate = tx.init(params)\nprint(state.inner_states)\n",
    # ``__name__`` spelled only as a name, not as the attribute a class's name is read from
    "from flax import nnx\nstate = nnx.state(model)\nif __name__ == '__main__':\n    main()\n",
], ids=["jax.jit alone", "compiled, no cost_analysis", "multi_transform, no init", "nnx.state, no use",
        "multi_transform().init(), no use", "nnx.state, __name__ as a name"])
def test_the_text_gate_refuses_a_file_that_makes_no_rows_chain(source):
    assert not _text_gate(source)


def test_the_text_gate_reads_the_words_before_the_names(monkeypatch):
    """The words first: ``jax.jit`` in a file that spells no chain's words is refused without reading its imports
    or looking for a name (a file that is not ASCII, its NFKC form its own, is read the same)."""
    from jaxlint.lint.text_gate import TextFacts

    monkeypatch.setattr(TextFacts, "imports", property(lambda self: pytest.fail("read the imports")))
    monkeypatch.setattr(TextFacts, "occurrences", lambda self, word: pytest.fail(f"looked for {word}"))
    assert not _text_gate("import jax\nf = jax.jit(g)  # caf\u00e9 \u2014 jit\nprint(f(x).lower())\n")


@pytest.mark.parametrize("source", [
    COMPILED + "# caf\u00e9\nflops = compiled.cost_analysis()[0]\n",  # not ASCII, NFKC already
    COMPILED + "flops = compiled.cost_\uff41nalysis()[0]\n",  # a fullwidth letter: NFKC spells the word
    "import jax\n\uff43 = jax.jit(f).lower(x).compile()\nflops = \uff43.cost_analysis()[0]\n",
    "from jax.stages import Compiled as C\nr = C.cost_analysis(c)[0]  # \ufb01\n",
])
def test_the_words_first_keep_what_a_row_can_reach(source):
    """Each keeps its file (the rows' chains are spelled in ASCII, in NFKC form, or beside a text that NFKC
    changes): a words test that missed the NFKC words, or read the wrong words, would refuse one of them."""
    assert _text_gate(source)


def test_a_call_of_an_imported_classs_method_is_reported():
    """``C.cost_analysis(compiled)`` is ``compiled.cost_analysis()``: the gates keep it without ``jax.jit``."""
    source = KEPT["an imported class's method, called"]
    assert rows(both(source, OLD_JAX)) == [2]
    gated = lint_source(source, "t.py", OLD_JAX, rules=[ChangedReturnType], prefilter=True, whole=True)
    assert [d.start.row for d in gated.diagnostics] == [2]


def test_an_identifier_in_nfkc_form_is_still_reported():
    """``ast`` reads identifiers in NFKC form: the words the rule looks for include the text's NFKC words."""
    assert rows(both(KEPT["an identifier in NFKC form"], OLD_JAX)) == [3]


def test_a_file_that_makes_no_crossed_rows_chain_builds_no_chains(monkeypatch):
    """Rows are crossed per file (the gates cannot read the range): ``cost_analysis`` on a range that crosses only
    flax's change, in a file that spells no flax chain, reads no binding."""
    from jaxlint.rules import jax207_changed_return_type as rule

    def refuse(*args, **kwargs):
        raise AssertionError("chains built")

    source = COMPILED + "flops = compiled.cost_analysis()[0]\nprint(type(flops).__name__)\n"
    assert rows(both(source, OLD_JAX)) == [3]
    monkeypatch.setattr(rule, "ResultChains", refuse)
    assert both(source, NEW_JAX) == []
