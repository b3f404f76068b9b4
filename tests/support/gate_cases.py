"""Sources the prefilter gates are checked on (tests/test_ast_gate.py, tests/test_text_gate.py): every rule
example, every test fixture, jaxlint's own source, and hand-written scope and star-import cases."""
from __future__ import annotations

import ast

from pathlib import Path

from jaxlint.analysis.list_arguments import _list_bindings, assigned_otherwise_text, bound_in_code
from jaxlint.lint import code_map
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.rules import all_rules
from jaxlint.rules.jax601_behaviour_change import _may_be_a_literal
from jaxlint.lint.prefilter import Scan, rules_matching_scan
from jaxlint.lint.text_gate import TextFacts

ROOT = Path(__file__).resolve().parents[2]


def _sources():
    for rule in all_rules():
        for i, example in enumerate(rule.VALID + rule.INVALID):
            yield f"{rule.code}-example-{i}", example.code
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "src").rglob("*.py")):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


SOURCES = list(_sources())

SCOPE_CASES = [
    "import jax.numpy as jnp\ndef f(jnp):\n    return jnp.meshgrid(1)\n",
    "def f():\n    import jax.numpy as jnp\n    return jnp.meshgrid(1)\n",
    "def g():\n    return np.take_along_axis(a, b, 0)\nimport jax.numpy as np\n",
    "try:\n    import jax.numpy as np\nexcept ImportError:\n    import numpy as np\nnp.meshgrid(1)\n",
    "from jax.numpy import *\nmeshgrid(1)\n",
    "from jax.experimental.pallas import *\nfrom numpy import *\nds(0, None)\n",
    "class A:\n    from jax import numpy as jnp\n    x = jnp.meshgrid(1)\n",
    "x = [jnp.empty(3) for jnp in (1,)]\nimport jax.numpy as jnp\n",
    "from jax import tree_util as tu, experimental\nexperimental.maps.xmap(tu.tree_map)\n",
    "import jax.experimental.maps, jax.experimental.pjit as pj\npj.pjit(jax.experimental.maps.xmap)\n",
    "from jax.core import (\n    pp as _pp,\n)\n_pp\n",
    "global_x = 1\ndef f():\n    global jnp\n    import jax.numpy as jnp\njnp.meshgrid(1)\n",
    "match x:\n    case jnp.X:\n        import jax.numpy as jnp\n",
    # JAX103's list-bound names: an annotation ending in a word, a parenthesized target (both missed before)
    "import jax.numpy as jnp\nw: list = [1]\ny = jnp.sum(w)\n",
    "import jax.numpy as jnp\n(w) = [1]\ny = jnp.sum(w)\n",
]


def text_gate_misses(source: str) -> list[str] | None:
    """What the text gate would wrongly rule out in ``source``: names the ast gate counts as referenced or imported,
    calls whose positional arguments it undercounts or whose keywords it does not see, and rules whose ast gate keeps
    the file while their text gate does not. None when ``ast`` cannot parse the source."""
    facts = collect_facts(source)
    if facts is None:
        return None
    text = TextFacts(source)
    misses = [f"referenced {name}" for name in sorted(facts.referenced()) if not text.may_refer(name)]
    misses += [f"imported {name}" for name in sorted(facts.import_names - text.imports.import_names)]
    for call in facts.calls:
        for name in sorted(facts.qualified_names(call.func)):
            if not text.may_call_with_more_than(name, len(call.args) - 1):
                misses.append(f"call of {name} on line {call.lineno} with {len(call.args)} positional arguments")
            keywords = frozenset(keyword.arg for keyword in call.keywords if keyword.arg is not None)
            if keywords and not text.may_call_with_keyword(name, keywords):
                misses.append(f"call of {name} on line {call.lineno} with keywords {sorted(keywords)}")
            if not any(keyword.arg is None for keyword in call.keywords) and not text.may_call_with_at_most(
                    name, len(call.args), frozenset({"_never_passed"}) - keywords):
                misses.append(f"call of {name} on line {call.lineno} with at most {len(call.args)} positional")
            if call.args and type(call.args[0]) is ast.Constant and call.args[0].value is None \
                    and not text.may_call_such(name, lambda text_call: text_call.first == "None"):
                misses.append(f"call of {name} on line {call.lineno} with None first")
            if not text.may_call_such(name, _reads_as(call, keywords)):
                misses.append(f"call of {name} on line {call.lineno} not read as one call of its shape")
    # JAX103's reading of plain assignments: a name it finds plainly bound to something else is one the ast gate
    # counts in ``other_assigned`` (tried on every name the file binds)
    stored = {node.id for node in ast.walk(facts.tree) if type(node) is ast.Name and type(node.ctx) is ast.Store}
    strings = code_map.scan(source)
    misses += [f"{name} read as assigned otherwise" for name in
               sorted(assigned_otherwise_text(source, stored, strings) - facts.other_assigned)] if stored else []
    if strings is not None:  # and every name it binds to a list, from an ``=`` in code
        misses += [f"{name} bound to a list not read" for name in
                   sorted(facts.sequence_names - bound_in_code(_list_bindings(source), strings))]
    scan = Scan(source)
    for rule in _GATED_RULES:
        if rules_matching_scan(scan, [rule]) and rule.may_match_ast(facts) and not rule.may_match_text(text, scan.words):
            misses.append(f"{rule.code}: the ast gate keeps the file, the text gate does not")
    return misses


def _reads_as(call: ast.Call, keywords: frozenset[str]):
    """Whether a call read from the text may be ``call``: as many positional arguments, its keywords among those
    read, a ``None`` first where it has one, a first that may be a literal where it is one (JAX601's numbers)
    (what ``TextFacts.may_call_such`` must find in one call)."""
    none_first = bool(call.args) and type(call.args[0]) is ast.Constant and call.args[0].value is None
    literal_first = bool(call.args) and type(call.args[0]) in (ast.Constant, ast.UnaryOp)
    return lambda text_call: (text_call.positional >= len(call.args) and keywords <= text_call.keywords
                              and (not none_first or text_call.first == "None")
                              and (not literal_first or _may_be_a_literal(text_call.first)))


# Every rule with both gates, opt-in ones included: each text gate keeps whatever its ast gate keeps, on these
# cases. (On real code JAX207's and JAX103's text gates are sometimes the stricter: ``tools/gate_recall.py`` checks
# end to end that no gate drops a finding.)
_GATED_RULES = [rule for rule in all_rules() if rule.has_ast_gate()]
