"""JAX103's text gate follows a list-bound name as its ast gate does (``sequence_names - other_assigned``): a name
that a plain assignment also binds, plainly, to something that is neither a list nor a name or attribute
(``analysis.list_arguments.assigned_otherwise_text``), or one bound to a list only in a string or comment, keeps no
file, and every layout the text cannot read with certainty (line breaks, comments, strings, chained or annotated
targets, ``+=``) still keeps it."""
from __future__ import annotations

import pytest
from support.gate_cases import text_gate_misses

from jaxlint.analysis.list_arguments import assigned_otherwise_text, may_pass_sequence_text
from jaxlint.lint import code_map
from jaxlint.lint.ast_gate import collect_facts
from jaxlint.lint.prefilter import Scan
from jaxlint.lint.text_gate import TextFacts
from jaxlint.rules.jax103_changed_signature import ChangedSignature

HEAD = "import jax.numpy as jnp\nw = [1, 2]\n"
USE = "y = jnp.sum(w)\n"


def _text_keeps(source: str) -> bool:
    return ChangedSignature.may_match_text(TextFacts(source), Scan(source).words)


def _ast_keeps(source: str) -> bool:
    return ChangedSignature.may_match_ast(collect_facts(source))


# ``w`` is also bound to a call, a constant, a subscript...: the ast gate puts it in ``other_assigned``
RULED_OUT = [
    HEAD + "w = jnp.asarray(w)\n" + USE,
    HEAD + USE + "def f(x):\n    w = jnp.roll(x, 1)\n    return w\n",  # any scope: ``other_assigned`` is per file
    HEAD + "w = None\n" + USE,
    HEAD + "w = 0\n" + USE,
    HEAD + "w = 1.5e3\n" + USE,
    HEAD + "w = 'a [b'\n" + USE,
    HEAD + "w = f'{x}'  # [c\n" + USE,
    HEAD + "w = x[0]\n" + USE,
    HEAD + "w = {'a': [1]}\n" + USE,
    HEAD + "w = a if b else [1]\n" + USE,
    HEAD + "w = f(\n    x,  # ) [\n    axis=[0],\n)\n" + USE,
    HEAD + "w = f(x) \\\n    + g(y)\n" + USE,
    HEAD + "w = a == f(b)\n" + USE,
    HEAD + "w = -x.y()\n" + USE,
    HEAD + "w = x, [1]\n" + USE,
    HEAD + "s = '''\n'''\nw = f()\n" + USE,
    # ``w`` is bound to a list in a docstring, a comment or a string only
    'import jax.numpy as jnp\ndef f(w):\n    """For example w = [1, 2]."""\n    return jnp.sum(w)\n',
    "import jax.numpy as jnp\n# w = [1, 2]\ny = jnp.sum(w)\n",
    "import jax.numpy as jnp\nx = 'w = [1]'; y = jnp.sum(w)\n",
    "import jax.numpy as jnp\nx = f'{x} w = [1]'\ny = jnp.sum(w)\n",
]

# The ast gate keeps these (``w`` is no other plain assignment's target, or the text cannot tell): so must the text
KEPT = [
    HEAD + USE,
    HEAD + "v = w = f()\n" + USE,  # two targets: no plain assignment of ``w``
    HEAD + "v = \\\nw = f()\n" + USE,  # the same, across a line continuation
    HEAD + "w += f()\n" + USE,
    HEAD + "w = g\n" + USE,  # an alias (``value_aliases``), not ``other_assigned``
    HEAD + "w = self.g\n" + USE,
    HEAD + "w = f(x).g\n" + USE,
    HEAD + "w = f(x).g  # )\n" + USE,
    HEAD + "w = ([3])\n" + USE,
    HEAD + "w = [x for x in y]\n" + USE,
    HEAD + "z = f(\n    w = g(1))\n" + USE,  # a keyword on a line of its own
    HEAD + "z = f(a,\nw=g(1))\n" + USE,
    HEAD + "s = '''\nw = f()\n'''\n" + USE,  # in a string
    HEAD + "s = f'''{x}\nw = f()\n'''\n" + USE,
    HEAD + "# w = f()\n" + USE,
    HEAD + "if w == f():\n    pass\n" + USE,
    "import jax.numpy as jnp\n# w = [1, 2]\nw = [1]\ny = jnp.sum(w)\n",  # a comment, then the code
    "import jax.numpy as jnp\nw = [  # w = [\n  1]\ny = jnp.sum(w)\n",
    "import jax.numpy as jnp\nw: list = [1]  # w = [\ny = jnp.sum(w)\n",
    HEAD + "w\\\n = f()\n" + USE.replace("w)", "w)  # the name then a continuation: left alone"),
]


@pytest.mark.parametrize("source", RULED_OUT)
def test_a_name_plainly_assigned_otherwise_keeps_no_file(source):
    assert not _ast_keeps(source)
    assert not _text_keeps(source)


@pytest.mark.parametrize("source", KEPT)
def test_layouts_the_text_cannot_rule_out_keep_the_file(source):
    assert _ast_keeps(source) or "w\\" in source
    assert _text_keeps(source)
    assert text_gate_misses(source) == []


@pytest.mark.parametrize("source", RULED_OUT + KEPT)
def test_every_name_read_as_assigned_otherwise_is_so_for_the_ast_gate(source):
    assert text_gate_misses(source) == []


def test_reading_the_assignments_is_sound_where_ast_counts_them():
    source = ("a = b = f()\nc: int = 3\nd += 1\ne = g\nh = [1]\ni = (x)\nj = lambda k=1: k\n"
              "l = 1; m = 2\nn = (\n  f())\no = 0x1.real if c else f()\n")
    facts = collect_facts(source)
    found = assigned_otherwise_text(source, set("abcdeghijklmno"), code_map.scan(source))
    assert found <= facts.other_assigned
    assert found == {"o"}  # the others: two targets, annotated, augmented, aliases, a list, unclear layouts


def test_a_large_file_keeps_its_list_bound_names():
    # linted in pieces: the piece that calls ``jnp.sum(w)`` may lack the other assignment
    source = HEAD + "w = f()\n" + USE
    assert not may_pass_sequence_text(source)
    assert may_pass_sequence_text(source, whole_file=False)


def test_unreadable_strings_rule_nothing_out():
    assert assigned_otherwise_text(HEAD + "w = f()\n", {"w"}, None) == set()
    assert assigned_otherwise_text("w = [1]\rw = f()\r", {"w"}, code_map.scan("w = [1]\rw = f()\r")) == set()
