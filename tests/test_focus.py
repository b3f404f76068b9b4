"""Files whose candidate rules look at names only are parsed by libcst in part (``jaxlint.lint.focus``): only the
statements that can hold a finding, and what they need. It must find and fix exactly what the whole module does."""
from __future__ import annotations

import ast

import pytest

from jaxlint.lint import engine, focus
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.rules import all_rules, rule_by_code

from tests.support.corpus import named_sources


SOURCES = named_sources()

# Most examples are a few statements that all matter, so focusing would keep them whole: each is also linted with
# statements around it that no rule needs (before it unless it starts with a ``__future__`` import).
FILLER_BEFORE = "_FILLER = [1, 2]\n\n\ndef _filler(x):\n    return [x * v for v in _FILLER]\n\n\n"
FILLER_AFTER = "\n\nclass _Filler:\n    def method(self, y):\n        return _filler(y) + len(_FILLER)\n"


def _with_filler(source: str) -> str:
    if not source.endswith(("\n", "\r")):
        source += "\n"
    before = "" if "__future__" in source else FILLER_BEFORE
    return before + source + FILLER_AFTER


FILLED = [(name + "+filler", _with_filler(source)) for name, source in SOURCES]

# The same inside a function and inside a method, between body statements no rule needs: what ``focus`` cuts out
# of an own definition (its body, statement by statement). ``__future__`` imports cannot move into a function.
WRAP_FILLER = "_a = [1, 2]\n_b = len(_a)\nfor _c in _a:\n    _b += _c\n"


def _wrapped(source: str, in_class: bool) -> str:
    if not source.endswith(("\n", "\r")):
        source += "\n"
    lines = (WRAP_FILLER + source + WRAP_FILLER).splitlines(keepends=True)
    indent = "        " if in_class else "    "
    body = "".join(indent + line if line.strip() else line for line in lines)
    if in_class:
        return f"class _Wrapper:\n    _x = 1\n\n    def _wrapped(self):\n{body}\n    def _other(self):\n        return 1\n"
    return f"def _wrapped():\n{body}"


WRAPPED = [(f"{name}+in-{where}", _wrapped(source, where == "class")) for name, source in SOURCES
           if "__future__" not in source and "\r" not in source for where in ("function", "class")]


def _lint(source: str, monkeypatch, focused: bool, settings: Settings | None = None):
    """Findings and libcst's parsed sizes, with focusing forced on (any share of the file) or off. Nothing is
    decided from ``ast`` alone (``ast_findings.decide``): every file these tests read goes on to libcst."""
    parsed: list[int] = []
    original = engine.parse

    def counting_parse(text: str, **options):
        parsed.append(len(text))
        return original(text, **options)

    with monkeypatch.context() as patch:
        patch.setattr(engine, "parse", counting_parse)
        patch.setattr(engine.ast_findings, "decide", lambda *args, **options: None)
        if focused:
            patch.setattr(focus, "MAX_SHARE", 1.0)
        else:
            patch.setattr(focus, "plan", lambda *args: None)
        result = engine.lint_source(source, "x.py", settings or Settings(), rules=all_rules())
    return result.diagnostics, parsed


@pytest.mark.parametrize("name, source", SOURCES + FILLED + WRAPPED,
                         ids=[name for name, _ in SOURCES + FILLED + WRAPPED])
def test_focused_finds_what_the_whole_module_finds(name, source, monkeypatch):
    whole, _ = _lint(source, monkeypatch, focused=False)
    focused, _ = _lint(source, monkeypatch, focused=True)
    assert focused == whole


FIXTURES = [(name, source) for name, source in SOURCES + FILLED + WRAPPED if name.startswith("tests")]


@pytest.mark.parametrize("name, source", FIXTURES, ids=[name for name, _ in FIXTURES])
def test_focused_fixes_what_the_whole_module_fixes(name, source, monkeypatch):
    settings = Settings()

    def fixed(focused: bool):
        with monkeypatch.context() as patch:
            if focused:
                patch.setattr(focus, "MAX_SHARE", 1.0)
            else:
                patch.setattr(focus, "plan", lambda *args: None)
            outcome = engine.fix_source(source, "x.py", settings, unsafe=True)
        return outcome.source, outcome.applied, outcome.remaining, outcome.rejected

    assert fixed(True) == fixed(False)


OLD_MODULE = '''"""An old module: one removed name in one of many functions."""
import jax
import jax.numpy as jnp

SCALE = 2.0


def helper(x):
    return x * SCALE


def uses_removed(tree):
    return jax.tree_map(helper, tree)


class Model:
    def apply(self, x):
        return jnp.sum(helper(x))


def unrelated(y):
    return [helper(v) for v in y]
'''


def test_only_the_statements_that_can_hold_a_finding_are_parsed(monkeypatch):
    whole, whole_parsed = _lint(OLD_MODULE, monkeypatch, focused=False)
    focused, focused_parsed = _lint(OLD_MODULE, monkeypatch, focused=True)
    assert [d.code for d in whole] == ["JAX101"] and focused == whole
    assert whole_parsed == [len(OLD_MODULE)]
    chosen = focus.plan(OLD_MODULE, collect_facts(OLD_MODULE), [rule_by_code("JAX101")])
    text = "".join(OLD_MODULE[start:end] for start, end in chosen.ranges)
    # the imports and the one function; not the docstring, the constant, the class or the other functions
    assert text == "import jax\nimport jax.numpy as jnp\n\n" + OLD_MODULE[OLD_MODULE.index("def uses_removed"):
                                                                      OLD_MODULE.index("class Model")]
    assert focused_parsed == [len(text)]


OLD_CLASS = """import jax


class Trainer:
    'Trains.'

    def __init__(self, steps):
        self.steps = steps
        self.history = []

    def step(self, state, batch):
        grads = compute(state, batch)
        self.history.append(len(batch))
        return jax.tree_map(lambda p, g: p - g, state, grads)

    def report(self):
        return sum(self.history) / max(len(self.history), 1)
"""


def test_only_the_statements_of_a_definition_that_can_hold_a_finding_are_parsed(monkeypatch):
    whole, _ = _lint(OLD_CLASS, monkeypatch, focused=False)
    focused, focused_parsed = _lint(OLD_CLASS, monkeypatch, focused=True)
    assert [d.code for d in whole] == ["JAX101"] and focused == whole
    chosen = focus.plan(OLD_CLASS, collect_facts(OLD_CLASS), [rule_by_code("JAX101")])
    text = "".join(OLD_CLASS[start:end] for start, end in chosen.ranges)
    # the import, the class's header, the method's header and its one statement with the removed name
    assert text == ("import jax\n\n\nclass Trainer:\n    def step(self, state, batch):\n"
                    "        return jax.tree_map(lambda p, g: p - g, state, grads)\n\n")
    assert focused_parsed == [len(text)]


def test_the_default_share_keeps_small_savings_whole():
    source = "import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n"
    assert focus.plan(source, collect_facts(source), [rule_by_code("JAX101")]) is None  # 100% of the file


@pytest.mark.parametrize("source", [
    "from jax.numpy import *\nimport jax\nx = 1\ny = jax.tree_map(f, t)\n",  # a star import: any name may come from it
    "import jax\nx = (1,\n     2); y = jax.tree_map(f, t)\nz = 1\n",  # a statement starting on another's last line
])
def test_layouts_that_are_not_focused(source):
    assert focus.plan(source, collect_facts(source), [rule_by_code("JAX101")]) is None


def test_a_rule_that_reads_other_statements_is_not_focused():
    source = "import jax\nmesh = jax.sharding.Mesh(d, ('x',))\nx = 1\ny = 2\ndef f():\n    with mesh:\n        pass\n"
    assert not rule_by_code("JAX401").statement_gated
    assert focus.plan(source, collect_facts(source), [rule_by_code("JAX401"), rule_by_code("JAX101")]) is None


@pytest.mark.parametrize("source, expected", [
    # a module-level rebinding of an imported name, in a statement with no candidate: the name no longer resolves
    ("import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n\njax = None\nA = 1\nB = 2\n", []),
    # a rebinding through ``global`` in a function that is no candidate
    ("import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n\ndef g():\n    global jax\n    jax = 1\nA = 1\n", []),
    # a compound statement rebinding the imported name without ``=``: every compound statement is kept
    ("import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n\nfor jax in []:\n    pass\nA = 1\n", []),
    ("import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n\nwith g() as jax:\n    pass\nA = 1\n", []),
    ("import jax\n\ndef f(t):\n    return jax.tree_map(g, t)\n\nif FLAG:\n    import other as jax\nA = 1\n", []),
    # the file's first statement starts at 0, after the header's comments: what it binds is read from its own line
    ("# header\ndef jax():\n    pass\nimport jax\nA = 1\nB = jax.tree_map(f, t)\nC = 2\nD = 3\n", []),
    # ``a; b`` on one line is one statement
    ("import jax\nA = 1; B = jax.tree_map(f, t)\nC = 1\nD = 2\n", ["JAX101"]),
    ("import jax\nB = jax.tree_map(f, t); A = 1\nC = 1\nD = jax.tree_map(g, u)\nE = 2\n", ["JAX101", "JAX101"]),
    # a decorated definition starts at its first decorator
    ("import jax\n\n@jax.jit\n@other\ndef f(t):\n    return jax.tree_map(g, t)\nA = 1\nB = 2\n", ["JAX101"]),
    # lone carriage returns end lines for ``ast`` too
    ("import jax\rA = 1\rdef f(t):\r    return jax.tree_map(g, t)\rB = 2\rC = 3\r", ["JAX101"]),
    ("import jax\rdef f(t):\r    a = 1\r    b = jax.tree_map(g, t)\r    c = 2\r    return b\rB = 2\r", ["JAX101"]),
    # -- inside an own definition: its body is cut too
    # a local rebinding of the imported name in a body statement with no candidate: ``jax`` is local there
    ("import jax\n\ndef f(t):\n    x = jax.tree_map(g, t)\n    a = 1\n    jax = None\n    return x\nA = 1\n", []),
    ("import jax\n\ndef f(t):\n    x = jax.tree_map(g, t)\n    a = 1\n    def jax():\n        pass\n    return x\n", []),
    ("import jax\n\ndef f(t):\n    x = jax.tree_map(g, t)\n    a = 1\n    for jax in []:\n        pass\n", []),
    # ``global`` in a method that is no candidate rebinds the module's name
    ("import jax\n\nclass A:\n    def m(self, t):\n        return jax.tree_map(g, t)\n\n"
     "    def n(self):\n        global jax\n        jax = 1\n", []),
    # a class attribute does not hide the module's name in a method (class scopes are skipped)
    ("import jax\n\nclass A:\n    jax = None\n    x = 1\n    def m(self, t):\n        return jax.tree_map(g, t)\n",
     ["JAX101"]),
    # the finding in a method's decorator: the method is kept whole (a body is needed)
    ("import jax\n\nclass A:\n    @jax.tree_map\n    def m(self):\n        return 1\n\n"
     "    def n(self):\n        return 2\n", ["JAX101"]),
    # a body on the header's line, and a body statement on another's last line: that definition is kept whole
    ("import jax\n\nclass A:\n    def m(self, t): return jax.tree_map(g, t)\n    def n(self):\n        return 2\n",
     ["JAX101"]),
    ("import jax\n\nclass A:\n    def m(self,\n          t): return jax.tree_map(g, t)\n    def n(self):\n"
     "        return 2\n", ["JAX101"]),
    ("import jax\n\ndef f(t):\n    x = (1,\n    2); y = jax.tree_map(g, t)\n    z = 1\n    return y\n", ["JAX101"]),
    # ``a; b`` in a body, a docstring, tabs, comments at any column, a decorated method, nested functions
    ("import jax\n\ndef f(t):\n    'Doc.'\n    a = 1; b = jax.tree_map(g, t)\n    c = 2\n    return b\n", ["JAX101"]),
    ("import jax\n\nclass A:\n\tdef m(self, t):\n\t\ta = 1\n# a comment\n\t\treturn jax.tree_map(g, t)\n"
     "\tdef n(self):\n\t\treturn 2\n", ["JAX101"]),
    ("import jax\n\nclass A:\n    x = 1\n\n    @property\n    @other\n    def m(self):\n        y = 1\n"
     "        return jax.tree_map(g, self.t)\n", ["JAX101"]),
    ("import jax\n\ndef f(t):\n    def g(u):\n        a = 1\n        return jax.tree_map(h, u)\n    b = 2\n    return g(t)\n",
     ["JAX101"]),
    # a definition that is the module's only statement
    ("def f(t):\n    import jax\n    a = 1\n    b = 2\n    return jax.tree_map(g, t)\n", ["JAX101"]),
])
def test_focused_edge_cases(source, expected, monkeypatch):
    whole, _ = _lint(source, monkeypatch, focused=False)
    focused, _ = _lint(source, monkeypatch, focused=True)
    assert [d.code for d in whole] == expected
    assert focused == whole
    _assert_plan_parses(source, monkeypatch)


def _assert_plan_parses(source: str, monkeypatch) -> None:
    """A plan's module is valid Python: a module that does not parse would only be linted whole again (the
    fallback hides it from the comparisons above), so each plan is checked on its own."""
    monkeypatch.setattr(focus, "MAX_SHARE", 1.0)
    rules, facts = engine._prefiltered(source, all_rules())
    chosen = focus.plan(source, facts, rules) if facts is not None and rules else None
    if chosen is not None:
        ast.parse("".join(source[start:end] for start, end in chosen.ranges))


@pytest.mark.parametrize("name, source", SOURCES + FILLED + WRAPPED,
                         ids=[name for name, _ in SOURCES + FILLED + WRAPPED])
def test_every_plan_is_a_module_that_parses(name, source, monkeypatch):
    _assert_plan_parses(source, monkeypatch)


def test_a_function_local_import_elsewhere_counts_as_in_the_whole_module(monkeypatch):
    # JAX101's fix of ``jax.core.DebugInfo`` adds ``import jax.extend.core`` unless the file's text has that line:
    # focusing must not narrow that search to the parsed statements.
    source = ("import jax\n\ndef uses():\n    return jax.core.DebugInfo\n\n"
              "def other():\n    import jax.extend.core\n    return 1\nA = 1\n")
    settings = Settings(explicit_min_version=Version("0.10.2"))
    whole, _ = _lint(source, monkeypatch, focused=False, settings=settings)
    focused, parsed = _lint(source, monkeypatch, focused=True, settings=settings)
    assert [d.code for d in whole] == ["JAX101"] and parsed[0] < len(source)
    assert len(whole[0].fix.edits) == 1  # the rename only: the import is there
    assert focused == whole
