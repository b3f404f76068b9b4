"""Value inference (``jaxlint.lint.inference``): what the last expression statement of a snippet holds."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.lint.inference import ARRAY, CONFIG, EXPORTED, MESH, OTHER, ValueInference
from jaxlint.lint.names import NameResolver


def kind_of_last(source: str) -> str | None:
    """The kind of the last expression statement (``probe``) found anywhere in the module, in source order."""
    module = cst.parse_module(textwrap.dedent(source))
    probes: list[cst.BaseExpression] = []

    class Probes(cst.CSTVisitor):
        def visit_Expr(self, node: cst.Expr) -> None:
            probes.append(node.value)

    module.visit(Probes())
    return ValueInference(module, NameResolver(module)).kind_of(probes[-1])


@pytest.mark.parametrize("source,expected", [
    # known factories
    ("import jax\njax.make_mesh((4,), ('x',))", MESH),
    ("from jax.sharding import Mesh\nMesh(devices, ('x',))", MESH),
    ("import jax\njax.export.deserialize(blob)", EXPORTED),
    ("from jax import export\nexport.export(jax.jit(f))(x)", EXPORTED),
    ("import jax\njax.config", CONFIG),
    ("from jax import config\nconfig", CONFIG),
    ("import jax.numpy as jnp\njnp.ones(3)", ARRAY),
    ("import jax\njax.random.normal(key, (3,))", ARRAY),
    ("import jax\njax.device_put(x)", ARRAY),
    ("import jax\njax.jit(f)(x)", ARRAY),
    # aliases and assignments
    ("import jax\nMesh = jax.sharding.Mesh\nMesh(devices, ('x',))", MESH),
    ("import jax\ncfg = jax.config\ncfg", CONFIG),
    ("import jax\ndef f():\n    cfg = jax.config\n    cfg", CONFIG),
    ("import jax\nmesh = jax.make_mesh((4,), ('x',))\ndef f():\n    mesh", MESH),
    ("import jax\nwith jax.make_mesh((4,), ('x',)) as m:\n    m", MESH),
    ("import jax.numpy as jnp\nx: jax.Array = jnp.ones(3)\nx", ARRAY),
    ("import jax\nif a:\n    m = jax.make_mesh((4,), ('x',))\nelse:\n    m = jax.make_mesh((2,), ('x',))\nm", MESH),
    ("import jax\nmesh = None\ndef init():\n    global mesh\n    mesh = jax.make_mesh((4,), ('x',))\nmesh", MESH),
    # annotations
    ("import jax\ndef f(mesh: jax.sharding.Mesh):\n    mesh", MESH),
    ("from typing import Optional\nfrom jax.sharding import Mesh\ndef f(mesh: Optional[Mesh] = None):\n    mesh", MESH),
    ("from jax.sharding import Mesh\ndef f(mesh: Mesh | None = None):\n    mesh", MESH),
    ("import jax\ndef f(x: jax.Array):\n    x", ARRAY),
    ("from jax import export\ndef f(e: export.Exported):\n    e", EXPORTED),
    # self.<attribute>
    ("""
     import jax
     class Trainer:
         def __init__(self, mesh: jax.sharding.Mesh):
             self._mesh = mesh
         def run(self):
             self._mesh
     """, MESH),
    ("""
     import jax
     class Trainer:
         mesh: jax.sharding.Mesh
         def run(self):
             self.mesh
     """, MESH),
    ("""
     import jax
     class Trainer:
         def setup(self):
             self.mesh = jax.make_mesh((4,), ('x',))
         def run(self):
             def inner():
                 return self.mesh
             self.mesh
     """, MESH),
    ("""
     import jax
     class Trainer:
         def __init__(self):
             self.mesh = None
         def setup(self):
             self.mesh = jax.make_mesh((4,), ('x',))
         def run(self):
             self.mesh
     """, MESH),  # None first, a mesh later
    ("class Trainer:\n    def run(self):\n        self", OTHER),  # self: the module's own class
    ("class Base:\n    pass\nclass Trainer(Base):\n    def run(self):\n        self", OTHER),
    # project functions
    ("""
     import jax
     def get_mesh(n):
         if n:
             return jax.make_mesh((n,), ('x',))
         return jax.sharding.Mesh(jax.devices(), ('x',))
     get_mesh(4)
     """, MESH),
    ("""
     from jax.sharding import Mesh
     def create_mesh() -> Mesh:
         return build()
     mesh = create_mesh()
     mesh
     """, MESH),
    # not JAX types
    ("class Mesh:\n    pass\nMesh()", OTHER),
    ("class Export:\n    pass\ndef f(e: Export):\n    e", OTHER),
    ("from .exporting import MyExport\ndef f(e: MyExport):\n    e", OTHER),
    ("from myproject.exporting import MyExport\ndef f(e: MyExport):\n    e", OTHER),
    ("def f(e: int):\n    e", OTHER),
    # elements of ``device_buffers`` (a name only JAX arrays have)
    ("def f(x):\n    x.device_buffers[0]", ARRAY),
    ("def f(x):\n    for b in x.device_buffers:\n        b", ARRAY),
])
def test_known(source, expected):
    assert kind_of_last(textwrap.dedent(source)) == expected


@pytest.mark.parametrize("source", [
    "def f(mesh):\n    mesh",  # a parameter without annotation
    "import jax, contextlib\nmesh = jax.make_mesh((4,), ('x',))\nif single:\n    mesh = contextlib.nullcontext()\nmesh",
    "mesh = None\nmesh",
    "import jax\na, b = jax.make_mesh((4,), ('x',)), 1\na",  # unpacking
    "import jax\nfor m in meshes:\n    m",
    "class T:\n    def run(self):\n        self.mesh",  # nothing stores it here
    """
    import jax
    class T:
        def a(self):
            self.m = jax.make_mesh((4,), ('x',))
        def b(self):
            self.m = contextlib.nullcontext()
        def c(self):
            self.m
    """,  # two kinds
    "import jax\ndef get():\n    return jax.make_mesh((4,), ('x',))\n    yield\nget()",  # a generator
    "import jax\ndef get(n):\n    if n:\n        return jax.make_mesh((4,), ('x',))\nget(1)",  # may fall off
    "import jax\ndef get(n):\n    if n:\n        return jax.make_mesh((4,), ('x',))\n    return None\nget(1)",
    "import jax.numpy as jnp\njnp.meshgrid(x, y)",  # a tuple of arrays
    "import jax.numpy as jnp\njnp.shape(x)",
    "import chex\ndef f(x: chex.Array):\n    x",  # an alias of JAX types in another library
    "x = f(x)\nx",  # a cycle
    "from myproject.typing import Array\ndef f(x: Array):\n    x",  # may be an alias of jax.Array
    "from .types import ArrayTree\ndef f(x: ArrayTree):\n    x",
    "from jax.sharding import Mesh\nclass MyMesh(Mesh):\n    def enter(self):\n        self",  # a JAX base class
    "from lib import Base\nclass Trainer(Base):\n    def run(self):\n        self",  # an unknown base class
    "import jax\njax.numpy",  # a module
    "def f(*meshes: jax.sharding.Mesh):\n    meshes",
    "class T:\n    @staticmethod\n    def f(mesh):\n        mesh.x = 1\n        mesh.x",
    "def f(x):\n    x.device_buffers[0:2]",  # a slice: a list
    "def f(x):\n    for a, b in x.device_buffers:\n        b",  # unpacked
    "def f(x):\n    x.buffers[0]",
    "class P:\n    def __init__(self):\n        self.device_buffers = []\n    def f(self):\n"
    "        for b in self.device_buffers:\n            b",  # the project's own attribute
])
def test_unknown(source):
    assert kind_of_last(textwrap.dedent(source)) is None
