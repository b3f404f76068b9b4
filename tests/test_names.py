"""Qualified-name resolution: aliases, from-imports, local imports, shadowing, scopes, star imports."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.lint.names import NameResolver


def resolve_calls(source: str) -> list[str | None]:
    """The qualified name of the function of every call, in source order."""
    module = cst.parse_module(textwrap.dedent(source))
    resolver = NameResolver(module)
    found: list[str | None] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(resolver.qualified_name(node.func))

    module.visit(Calls())
    return found


@pytest.mark.parametrize("source,expected", [
    ("import jax.numpy as np\nnp.meshgrid()", "jax.numpy.meshgrid"),
    ("from jax import numpy as jnp\njnp.meshgrid()", "jax.numpy.meshgrid"),
    ("from jax.numpy import meshgrid as mg\nmg()", "jax.numpy.meshgrid"),
    ("import jax\njax.numpy.meshgrid()", "jax.numpy.meshgrid"),
    ("import jax.numpy\njax.numpy.meshgrid()", "jax.numpy.meshgrid"),
    ("import jax, jax.numpy\njax.numpy.meshgrid()", "jax.numpy.meshgrid"),
    ("import numpy as np\nnp.meshgrid()", "numpy.meshgrid"),
    ("from jax.numpy import *\nmeshgrid()", "jax.numpy.meshgrid"),
    ("list()", "builtins.list"),
])
def test_module_level(source, expected):
    assert resolve_calls(source) == [expected]


@pytest.mark.parametrize("source", [
    "from .numpy import meshgrid\nmeshgrid()",  # relative import: the project's own module
    "from jax.numpy import *\nfrom mylib import *\nmeshgrid()",  # two star imports: ambiguous
    "try:\n    import jax.numpy as np\nexcept ImportError:\n    import numpy as np\nnp.meshgrid()",
    "from jax.numpy import meshgrid\ndef meshgrid(*a):\n    pass\nmeshgrid()",
    "import jax.numpy as jnp\njnp = None\njnp.meshgrid()",
    "undefined.meshgrid()",
])
def test_ambiguous_or_local_resolves_to_nothing(source):
    assert resolve_calls(source)[-1] is None


def test_function_local_import_and_parameter_shadowing():
    source = """
        import numpy as jnp
        def f():
            from jax import numpy as jnp
            return jnp.meshgrid()
        def g(jnp):
            return jnp.meshgrid()
        jnp.meshgrid()
    """
    assert resolve_calls(source) == ["jax.numpy.meshgrid", None, "numpy.meshgrid"]


def test_local_variable_named_like_the_function():
    source = """
        from jax.numpy import meshgrid
        def f(meshgrid):
            return meshgrid()
        def g():
            meshgrid = make()
            return meshgrid()
        def h():
            return meshgrid()
    """
    # make() is undefined here; the local meshgrid and the parameter hide the import; h() sees the import.
    assert resolve_calls(source) == [None, None, None, "jax.numpy.meshgrid"]


def test_class_scope_is_not_visible_in_methods():
    source = """
        import jax.numpy as jnp
        class C:
            jnp = object()
            x = jnp.meshgrid()
            def m(self):
                return jnp.meshgrid()
    """
    assert resolve_calls(source) == ["builtins.object", None, "jax.numpy.meshgrid"]


def test_global_and_nonlocal():
    source = """
        def setup():
            global jnp
            import jax.numpy as jnp
        def use():
            return jnp.meshgrid()
        def outer():
            import jax.numpy as np
            def inner():
                nonlocal np
                np = None
            return np.meshgrid()
    """
    assert resolve_calls(source) == ["jax.numpy.meshgrid", None]


def test_comprehension_and_lambda_scopes():
    source = """
        import jax.numpy as jnp
        a = [jnp.meshgrid() for jnp in range(3)]
        b = [jnp.meshgrid() for _ in range(3)]
        c = lambda jnp: jnp.meshgrid()
        d = lambda: jnp.meshgrid()
    """
    assert resolve_calls(source) == [None, "builtins.range", "jax.numpy.meshgrid", "builtins.range", None,
                                     "jax.numpy.meshgrid"]


def test_decorators_and_defaults_are_evaluated_outside():
    source = """
        import jax
        def f(jax=jax.numpy.zeros(3)):
            return jax.numpy.meshgrid()
    """
    assert resolve_calls(source) == ["jax.numpy.zeros", None]


def test_python_312_syntax():
    source = """
        import jax.numpy as jnp
        type Grid[T] = list[T]
        def f[T](x: T) -> T:
            return jnp.meshgrid(x)
    """
    module = cst.parse_module(textwrap.dedent(source), config=cst.PartialParserConfig(python_version="3.12"))
    resolver = NameResolver(module)
    calls = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node):
            calls.append(resolver.qualified_name(node.func))

    module.visit(Calls())
    assert calls == ["jax.numpy.meshgrid"]


def test_attribute_and_keyword_names_are_not_variables():
    module = cst.parse_module("from jax.experimental import export\nexport.export(f, export=1)\n")
    resolver = NameResolver(module)
    names = {}

    class Names(cst.CSTVisitor):
        def visit_Name(self, node):
            names.setdefault(node.value, []).append(resolver.qualified_name(node))

    module.visit(Names())
    # The import alias and the keyword carry no scope; only the variable `export` resolves.
    assert names["export"].count("jax.experimental.export") == 1
    assert names["f"] == [None]
