"""JAX201 tuple-return: cases that do not fit the inline examples (layout, many uses, positions, scopes)."""
from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.lint.diagnostics import Applicability
from jaxlint.lint.engine import fix_source, lint_source, parse
from jaxlint.rules.jax201_tuple_return import TupleReturn
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version

SETTINGS = Settings(select=("JAX201",))


def lint(source: str, settings: Settings = SETTINGS):
    return lint_source(textwrap.dedent(source), "example.py", settings, rules=[TupleReturn]).diagnostics


def fix(source: str, settings: Settings = SETTINGS) -> str:
    outcome = fix_source(textwrap.dedent(source), "example.py", settings, rules=[TupleReturn])
    assert not outcome.rejected
    return outcome.source


def test_reported_on_the_call_not_on_the_use():
    found = lint("""
        import jax.numpy as jnp
        def f(x, y, z):
            grids = jnp.meshgrid(x, y)
            a = 1
            grids.append(z)
            return grids
    """)
    assert len(found) == 1
    (diagnostic,) = found
    assert (diagnostic.start.row, diagnostic.start.column) == (4, 13)  # `jnp.meshgrid(` on line 4
    assert "`jnp.meshgrid` returns a tuple since JAX 0.11.1" in diagnostic.message
    assert "`grids`: `.append`" in diagnostic.message
    assert diagnostic.fix is not None and diagnostic.fix.applicability is Applicability.SAFE
    # The fix is two insertions around the call; the probe is the call.
    assert [edit.content for edit in diagnostic.fix.edits] == ["list(", ")"]
    assert diagnostic.fix.probe == (diagnostic.start_offset, diagnostic.end_offset)


def test_many_uses_give_one_finding_and_one_fix():
    uses = "\n".join(f"    g.append(x{i})" for i in range(200))
    source = f"import jax.numpy as jnp\ndef f(x, y):\n    g = jnp.meshgrid(x, y)\n{uses}\n    return g\n"
    found = lint(source)
    assert len(found) == 1
    fixed = fix(source)
    assert fixed.count("list(jnp.meshgrid(x, y))") == 1
    assert fix(fixed) == fixed


def test_crlf_line_endings_are_kept():
    source = "import jax.numpy as jnp\r\ng = jnp.meshgrid(x, y)\r\ng.append(z)\r\n"
    fixed = fix_source(source, "example.py", SETTINGS, rules=[TupleReturn]).source
    assert fixed == "import jax.numpy as jnp\r\ng = list(jnp.meshgrid(x, y))\r\ng.append(z)\r\n"


def test_multiline_call_with_comments():
    fixed = fix("""
        import jax.numpy as jnp
        g = jnp.broadcast_arrays(  # the inputs
            a,
            b,  # second
        )
        g[0] = a
    """)
    assert fixed == textwrap.dedent("""
        import jax.numpy as jnp
        g = list(jnp.broadcast_arrays(  # the inputs
            a,
            b,  # second
        ))
        g[0] = a
    """)
    parse(fixed)


def test_noqa_on_the_call_line_suppresses():
    assert not lint("""
        import jax.numpy as jnp
        g = jnp.meshgrid(x, y)  # noqa: JAX201
        g.append(z)
    """)


def test_noqa_on_the_use_line_does_not_suppress():
    # The finding (and the line to change) is the call's.
    assert len(lint("""
        import jax.numpy as jnp
        g = jnp.meshgrid(x, y)
        g.append(z)  # noqa: JAX201
    """)) == 1


@pytest.mark.parametrize("guard", [
    "if hasattr(jax.numpy, 'meshgrid'):",
    "if jax.__version_info__ < (0, 11, 1):",
])
def test_compat_branches_are_skipped(guard):
    assert not lint(f"""
        import jax
        import jax.numpy as jnp
        {guard}
            g = jnp.meshgrid(x, y)
            g.append(z)
    """)


def test_same_name_in_sibling_functions_is_tracked_per_scope():
    found = lint("""
        import jax.numpy as jnp
        def f(x, y):
            g = jnp.meshgrid(x, y)
            return g[0]
        def h(x, y):
            g = jnp.meshgrid(x, y)
            g.append(x)
        def k(g):
            g.append(1)
    """)
    assert [d.start.row for d in found] == [7]


def test_nested_function_with_its_own_binding_is_not_a_use():
    assert not lint("""
        import jax.numpy as jnp
        def f(x, y):
            g = jnp.meshgrid(x, y)
            def inner():
                g = []
                g.append(1)
            return g[0]
    """)


def test_nonlocal_rebinding_disqualifies_the_name():
    assert not lint("""
        import jax.numpy as jnp
        def f(x, y):
            g = jnp.meshgrid(x, y)
            def reset():
                nonlocal g
                g = []
            g.append(1)
    """)


def test_use_in_a_comprehension_and_in_a_lambda():
    found = lint("""
        import jax.numpy as jnp
        g = jnp.meshgrid(x, y)
        h = jnp.broadcast_arrays(a, b)
        [g.append(i) for i in range(3)]
        add = lambda v: h.insert(0, v)
    """)
    assert [d.start.row for d in found] == [3, 4]


def test_unpacking_targets_are_not_bindings_of_the_result():
    # `g, h = jnp.meshgrid(x, y)` unpacks: the names hold arrays, not the tuple.
    assert not lint("""
        import jax.numpy as jnp
        g, h = jnp.meshgrid(x, y)
        g[0] = 1
    """)


def test_atleast_versions():
    source = """
        import jax.numpy as jnp
        g = jnp.atleast_1d(a, b)
        g.append(c)
    """
    assert len(lint(source)) == 1
    assert not lint(source, replace(SETTINGS, target_version=Version("0.11.2")))
    assert not lint(source, replace(SETTINGS, explicit_min_version=Version("0.12.0"), min_version_source="test"))
    assert len(lint(source, replace(SETTINGS, explicit_min_version=Version("0.11.2"), min_version_source="t"))) == 1


def test_atleast_with_star_args_has_no_fix():
    (diagnostic,) = lint("""
        import jax.numpy as jnp
        g = jnp.atleast_2d(*arrays)
        g.append(c)
    """)
    assert diagnostic.fix is None
    assert "several arrays" in diagnostic.message
    # Two plain arguments before the star: several for sure, so the fix is there.
    (diagnostic,) = lint("""
        import jax.numpy as jnp
        g = jnp.atleast_2d(a, b, *arrays)
        g.append(c)
    """)
    assert diagnostic.fix is not None


def test_loop_carry_message_names_the_jax_error():
    (diagnostic,) = lint("""
        import jax
        import jax.numpy as jnp
        def body(c, x):
            return jnp.broadcast_arrays(*c), x
        out = jax.lax.scan(body, [a, b], xs)
    """)
    assert "`lax.scan` carry" in diagnostic.message
    assert "scan body function carry input and carry output must have the same pytree structure" in \
        diagnostic.message
    assert diagnostic.start.row == 5


def test_loop_carry_with_a_body_that_is_not_known_is_silent():
    assert not lint("""
        import jax
        import jax.numpy as jnp
        out = jax.lax.scan(make_body(), [a, b], xs)
        def helper(c):
            return jnp.broadcast_arrays(*c), None
        out = jax.lax.scan(functools.partial(helper), [a, b], xs)
        def decorated(c, x):
            return jnp.broadcast_arrays(*c), x
        decorated = wrap(decorated)
        out = jax.lax.scan(decorated, [a, b], xs)
    """)


def test_loop_carry_reported_once_even_if_also_used_as_a_list():
    found = lint("""
        import jax
        import jax.numpy as jnp
        def body(c, x):
            new = jnp.broadcast_arrays(*c)
            new.append(x)
            return new, x
        out = jax.lax.scan(body, [a, b], xs)
    """)
    assert len(found) == 1


def test_fixing_two_calls_in_one_expression():
    source = """
        import jax.numpy as jnp
        out = [w] + jnp.meshgrid(x) + [v] + jnp.broadcast_arrays(a, b)
    """
    # `[w] + meshgrid(...)` meets a list; once it is `list(...)`, `([w] + list(...) + [v])` is visibly a list too and
    # the second call is fixed on the next round.
    assert len(lint(source)) == 1
    fixed = fix(source)
    assert fixed == textwrap.dedent("""
        import jax.numpy as jnp
        out = [w] + list(jnp.meshgrid(x)) + [v] + list(jnp.broadcast_arrays(a, b))
    """)
    assert fix(fixed) == fixed


def test_array_plus_list_is_not_a_list():
    # `x + [1.0]` with an array `x` broadcasts: the result is an Array, and Array + tuple behaves like Array + list.
    assert not lint("""
        import jax.numpy as jnp
        y = (x + [1.0]) + jnp.meshgrid(x)
        z = [1.0] * n + jnp.broadcast_arrays(a, b)
    """)
    assert len(lint("""
        import jax.numpy as jnp
        y = [0.0] * 3 + jnp.meshgrid(x)
    """)) == 1


# -- the fixture, run on real JAX ---------------------------------------------------------------------------------
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "JAX201"
_RUNNER = r'''
import importlib.util, json, sys
import numpy as onp
import jax, jax.numpy as jnp

def load(path):
    spec = importlib.util.spec_from_file_location("fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def leaves(value):
    return jax.tree.map(lambda a: onp.asarray(a).tolist(), value)

x, y = jnp.arange(3.0), jnp.arange(2.0)
calls = {
    "pixel_grid": lambda m: m.pixel_grid(2, 3).shape,
    "grid_with_time": lambda m: leaves(m.grid_with_time(x, y, 1.0)),
    "padded": lambda m: (type(m.padded(x, 1.0)).__name__, leaves(m.padded(x, 1.0))),
    "all_at_least_2d": lambda m: leaves(m.all_at_least_2d(x, y)),
    "describe": lambda m: m.describe(x, y),
    "simulate": lambda m: leaves(m.simulate(jnp.float32(1.0), jnp.float32(0.0), jnp.ones(3) * 0.1)),
    "relax": lambda m: (type(m.relax(jnp.float32(1.0), jnp.float32(2.0), 3)).__name__,
                        leaves(m.relax(jnp.float32(1.0), jnp.float32(2.0), 3))),
    "sizes": lambda m: m.sizes(x, x),
}
out = {}
for path in sys.argv[1:]:
    module = load(path)
    for name, call in calls.items():
        try:
            out[f"{path}:{name}"] = repr(call(module))
        except Exception as error:
            out[f"{path}:{name}"] = f"{type(error).__name__}: {error}"
print(json.dumps(out))
'''


def _run_fixture(version: str) -> dict[str, str]:
    import json
    import subprocess

    from tests.support.jaxenv import jax_python

    before, after = str(FIXTURES / "before.py"), str(FIXTURES / "after.py")
    proc = subprocess.run([str(jax_python(version)), "-c", _RUNNER, before, after], capture_output=True, text=True,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    return {key.replace(before, "before").replace(after, "after"): value for key, value in results.items()}


@pytest.mark.jax
@pytest.mark.slow
def test_fixture_fix_keeps_old_results_and_repairs_new_jax():
    old, new = _run_fixture("0.10.2"), _run_fixture("0.12.0.1")
    names = {key.split(":", 1)[1] for key in old}
    broken = {"grid_with_time", "padded", "all_at_least_2d", "describe", "simulate", "relax"}
    for name in names:
        # The fixed file computes on the old JAX what the original computed there, and the same on the new JAX.
        assert old[f"after:{name}"] == old[f"before:{name}"], name
        assert new[f"after:{name}"] == old[f"before:{name}"], name
        if name in broken:
            assert new[f"before:{name}"] != old[f"before:{name}"], f"{name} was expected to change in 0.12.0.1"
        else:
            assert new[f"before:{name}"] == old[f"before:{name}"], name
    assert "scan body function carry input and carry output must have the same pytree structure" in \
        new["before:simulate"]
