"""Issue 24 item 9: a fix that changes a line's length before what the next lines align to moves them with it."""
from __future__ import annotations

import pytest

from tests.cli.test_cli import run

PJIT = "from jax.experimental.pjit import pjit\n\n"


def _fix(tmp_path, source: str, *args: str) -> str:
    (tmp_path / "m.py").write_text(source)
    run(["--no-cache", "--isolated", "--fix", *args, "m.py"], tmp_path)
    fixed = (tmp_path / "m.py").read_text()
    run(["--no-cache", "--isolated", "--fix", *args, "m.py"], tmp_path)
    assert (tmp_path / "m.py").read_text() == fixed  # idempotent
    return fixed


@pytest.mark.parametrize("before, after", [
    # aligned to a bracket opened after the renamed keyword: moves with it; the keyword line below does not
    ("f = pjit(g, in_axis_resources=(a,\n"
     "                               b),\n"
     "         out_axis_resources=c)\n",
     "f = pjit(g, in_shardings=(a,\n"
     "                          b),\n"
     "         out_shardings=c)\n"),
    # two renames, the second on a continuation line: the moves add up, line by line
    ('h = pjit(g, in_axis_resources=P("x",\n'
     '                                "y"), out_axis_resources=(P("x",\n'
     '                                                            "y"),\n'
     '                                                          None))\n',
     'h = pjit(g, in_shardings=P("x",\n'
     '                           "y"), out_shardings=(P("x",\n'
     '                                                  "y"),\n'
     '                                                None))\n'),
    # hanging indent, and alignment to what is left of the rename: nothing moves
    ("k = pjit(g, in_axis_resources=a,\n"
     "            out_axis_resources=b)\n",
     "k = pjit(g, in_shardings=a,\n"
     "            out_shardings=b)\n"),
    ("k = pjit(\n"
     "    g, in_axis_resources=(a,\n"
     "                          b),\n"
     ")\n",
     "k = pjit(\n"
     "    g, in_shardings=(a,\n"
     "                     b),\n"
     ")\n"),
    # a comment line moves as the code around it
    ("f = pjit(g, in_axis_resources=(a,  # first\n"
     "                               # the second\n"
     "                               b))\n",
     "f = pjit(g, in_shardings=(a,  # first\n"
     "                          # the second\n"
     "                          b))\n"),
    # a bracket that ends its line: the lines after it are indented from the line's start, not aligned to it
    ("s = pjit(  # comment\n"
     "    f,\n"
     "    in_axis_resources=(\n"
     "        a,\n"
     "        b,\n"
     "    ),\n"
     "    out_axis_resources=c,\n"
     ")\n",
     "s = pjit(  # comment\n"
     "    f,\n"
     "    in_shardings=(\n"
     "        a,\n"
     "        b,\n"
     "    ),\n"
     "    out_shardings=c,\n"
     ")\n"),
    # a hanging indent under a line that moved moves with it
    ("t = pjit(g, in_axis_resources=(a,\n"
     "                               [\n"
     "                                   c]))\n",
     "t = pjit(g, in_shardings=(a,\n"
     "                          [\n"
     "                              c]))\n"),
    # aligned to a bracket on a line the fix does not touch
    ("x = pjit(g, in_axis_resources=a,\n"
     "         out_axis_resources=h(1,\n"
     "                              2))\n",
     "x = pjit(g, in_shardings=a,\n"
     "         out_shardings=h(1,\n"
     "                         2))\n"),
])
def test_keyword_rename_keeps_continuations_aligned(tmp_path, before, after):
    assert _fix(tmp_path, PJIT + before, "--select", "JAX103") == PJIT + after


def test_inserted_wrapper_moves_the_aligned_arguments(tmp_path):
    source = "import jax.numpy as jnp\nys = jnp.meshgrid(a,\n                  b)\nys.append(1)\n"
    assert _fix(tmp_path, source, "--select", "JAX201") == \
        "import jax.numpy as jnp\nys = list(jnp.meshgrid(a,\n                       b))\nys.append(1)\n"


def test_no_realignment_inside_a_multiline_string(tmp_path):
    source = PJIT + 'f = pjit(g, in_axis_resources=("""a\n                            b"""))\n'
    assert _fix(tmp_path, source, "--select", "JAX103") == source.replace("in_axis_resources", "in_shardings")
