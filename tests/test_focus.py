"""Files whose candidate rules look at names only are parsed by libcst in part (``jaxlint.lint.focus``): only the
statements that can hold a finding, and what they need. It must find and fix exactly what the whole module does."""
from __future__ import annotations

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


def _lint(source: str, monkeypatch, focused: bool, settings: Settings | None = None):
    """Findings and libcst's parsed sizes, with focusing forced on (any share of the file) or off."""
    parsed: list[int] = []
    original = engine.parse

    def counting_parse(text: str, **options):
        parsed.append(len(text))
        return original(text, **options)

    with monkeypatch.context() as patch:
        patch.setattr(engine, "parse", counting_parse)
        if focused:
            patch.setattr(focus, "MAX_SHARE", 1.0)
        else:
            patch.setattr(focus, "plan", lambda *args: None)
        result = engine.lint_source(source, "x.py", settings or Settings(), rules=all_rules())
    return result.diagnostics, parsed


@pytest.mark.parametrize("name, source", SOURCES + FILLED, ids=[name for name, _ in SOURCES + FILLED])
def test_focused_finds_what_the_whole_module_finds(name, source, monkeypatch):
    whole, _ = _lint(source, monkeypatch, focused=False)
    focused, _ = _lint(source, monkeypatch, focused=True)
    assert focused == whole


FIXTURES = [(name, source) for name, source in SOURCES + FILLED if name.startswith("tests")]


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
    # ``a; b`` on one line is one statement
    ("import jax\nA = 1; B = jax.tree_map(f, t)\nC = 1\nD = 2\n", ["JAX101"]),
    # a decorated definition starts at its first decorator
    ("import jax\n\n@jax.jit\n@other\ndef f(t):\n    return jax.tree_map(g, t)\nA = 1\nB = 2\n", ["JAX101"]),
    # lone carriage returns end lines for ``ast`` too
    ("import jax\rA = 1\rdef f(t):\r    return jax.tree_map(g, t)\rB = 2\rC = 3\r", ["JAX101"]),
])
def test_focused_edge_cases(source, expected, monkeypatch):
    whole, _ = _lint(source, monkeypatch, focused=False)
    focused, _ = _lint(source, monkeypatch, focused=True)
    assert [d.code for d in whole] == expected
    assert focused == whole


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
