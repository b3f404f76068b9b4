"""JAX509 flax-optax-method-signature: JAX507's method rows for calls on an instance whose class is plain to see
(``jaxlint.lint.instance_classes``)."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jaxlint.catalogue.ecosystem import METHOD_KEYWORDS, methods_by_class
from jaxlint.catalogue.ecosystem_generated import ParameterRow
from jaxlint.lint.inference import ValueInference
from jaxlint.lint.names import NameResolver
from tests.rules.test_ecosystem import findings, project

HEADER = "from flax import linen as nn\nimport optax\n"
OLD_CARRY = "initialize_carry(rng, batch_dims=(4,), size=8)"


def codes(root, *args):
    return [(f["code"], f["message"]) for f in findings(root, "--select", "JAX509", *args)]


# -- the table ------------------------------------------------------------------------------------------------------
def test_the_table_is_every_public_method_row():
    table = methods_by_class([
        ParameterRow("flax.linen.recurrent.LSTMCell.initialize_carry", "flax", "size", "removed", "0.7.0",
                     method_of="LSTMCell"),
        ParameterRow("flax.nnx._private.Thing.go", "flax", "k", "removed", "0.9.0", method_of="Thing"),
        ParameterRow("flax.linen.scan", "flax", "k", "removed", "0.9.0"),  # a function: JAX507's only
    ])
    assert list(table) == ["flax.linen.recurrent.LSTMCell"]
    assert list(table["flax.linen.recurrent.LSTMCell"]["initialize_carry"]) == ["size"]
    # the generated rows: every module that names the class
    assert "batch_dims" in METHOD_KEYWORDS["flax.linen.LSTMCell"]["initialize_carry"]
    assert "batch_dims" in METHOD_KEYWORDS["flax.linen.recurrent.GRUCell"]["initialize_carry"]
    assert "seed" in METHOD_KEYWORDS["optax.perturbations.Gumbel"]["sample"]
    assert "kind" in METHOD_KEYWORDS["flax.linen.Module"]["make_rng"]


# -- the class of a value -------------------------------------------------------------------------------------------
def class_of_last(source: str):
    """The class of the receiver of the last call's method in the snippet (``x`` in ``x.method()``)."""
    module = cst.parse_module(textwrap.dedent(source))
    receivers: list[cst.BaseExpression] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute):
                receivers.append(node.func.value)

    module.visit(Calls())
    found = ValueInference(module, NameResolver(module)).classes.instance_class(receivers[-1])
    return found.name.value if isinstance(found, cst.ClassDef) else found


@pytest.mark.parametrize("source,expected", [
    ("from flax import linen as nn\nc = nn.LSTMCell(4)\nc.go()", "flax.linen.LSTMCell"),
    ("from flax.linen.recurrent import GRUCell\nc = GRUCell(4)\nc.go()", "flax.linen.recurrent.GRUCell"),
    ("from flax import linen as nn\nc = None\nc = nn.LSTMCell(4)\nc.go()", "flax.linen.LSTMCell"),  # None: neutral
    ("from flax import linen as nn\nif (c := nn.LSTMCell(4)):\n    c.go()", "flax.linen.LSTMCell"),
    ("from flax import linen as nn\nc: nn.LSTMCell = make()\nc.go()", "flax.linen.LSTMCell"),
    ("import typing\nfrom flax import linen as nn\ndef f(c: typing.Optional[nn.LSTMCell]):\n    c.go()",
     "flax.linen.LSTMCell"),
    ("from flax import linen as nn\ndef f(c: nn.LSTMCell | None):\n    c.go()", "flax.linen.LSTMCell"),
    ("from flax import linen as nn\nclass M(nn.Module):\n    cell: nn.GRUCell\n    def f(self):\n"
     "        self.cell.go()", "flax.linen.GRUCell"),  # a dataclass field
    ("from flax import linen as nn\nclass M:\n    def __init__(self):\n        self.c = nn.GRUCell(3)\n"
     "    def f(self):\n        self.c.go()", "flax.linen.GRUCell"),
    ("class Cell:\n    pass\nc = Cell()\nc.go()", "Cell"),  # the project's class: the rule follows its bases
    ("class Cell:\n    def f(self):\n        self.go()", "Cell"),
    # not known
    ("from flax import linen as nn\nc = nn.LSTMCell(4)\nc = other()\nc.go()", None),  # reassigned
    ("from flax import linen as nn\nc, d = nn.LSTMCell(4), 1\nc.go()", None),  # unpacked
    ("from flax import linen as nn\nfor c in cells:\n    c.go()", None),  # a loop target
    ("def f(c):\n    c.go()", None),  # a bare parameter
    ("import jax\nf = jax.jit(g)\nf.go()", "jax.stages.Wrapped"),  # what jax.jit returns (JAX105's stages)
    ("import jax\nf = jax.vmap(g)\nf.go()", None),  # a function's result, not a class's instance
    ("from flax import linen as nn\nclass M:\n    def __init__(self):\n        self.c = nn.GRUCell(3)\n"
     "    def g(self):\n        self.c = None if x else make()\n    def f(self):\n        self.c.go()", None),
])
def test_instance_class(source, expected):
    assert class_of_last(source) == expected


# -- findings -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body,words", [
    (f"cell = nn.LSTMCell(features=8)\ncarry = cell.{OLD_CARRY}\n",
     "`cell.initialize_carry(batch_dims=..., size=...)` on an instance of `flax.linen.LSTMCell`: `batch_dims=`, "
     "`size=` were removed in flax 0.7.0 (`TypeError` from there): from flax 0.7.0 it is a method of the cell"),
    (f"carry = nn.OptimizedLSTMCell(8).{OLD_CARRY}\n", "`flax.linen.OptimizedLSTMCell`"),
    (f"def init(cell: nn.GRUCell, rng):\n    return cell.{OLD_CARRY}\n", "`flax.linen.GRUCell`"),
    (f"class Seq(nn.Module):\n    def setup(self):\n        self.cell = nn.LSTMCell(8)\n"
     f"    def __call__(self, rng):\n        return self.cell.{OLD_CARRY}\n", "`flax.linen.LSTMCell`"),
    (f"class Seq(nn.Module):\n    cell: nn.LSTMCell\n    def __call__(self, rng):\n        return self.cell.{OLD_CARRY}\n",
     "`flax.linen.LSTMCell`"),
    # a project subclass that keeps the library's method, also through a project base
    (f"class Mine(nn.LSTMCell):\n    pass\ncell = Mine(8)\ncarry = cell.{OLD_CARRY}\n", "`flax.linen.LSTMCell`"),
    (f"class A(nn.GRUCell):\n    pass\nclass B(A):\n    x = 1\nB(8).{OLD_CARRY}\n", "`flax.linen.GRUCell`"),
    ("class Block(nn.Module):\n    def __call__(self, x):\n        return self.make_rng(kind='dropout')\n",
     "`self.make_rng(kind=...)` on an instance of `flax.linen.Module`: `kind=` was removed in flax 0.3.0"),
    ("noise = optax.perturbations.Gumbel()\nz = noise.sample(seed=key, sample_shape=(3,))\n",
     "`noise.sample(seed=...)` on an instance of `optax.perturbations.Gumbel`: `seed=` was removed in optax 0.2.5"),
])
def test_flagged(tmp_path, body, words):
    project(tmp_path, "", HEADER + body)
    ((code, message),) = codes(tmp_path)
    assert code == "JAX509" and words in message


@pytest.mark.parametrize("pins,body", [
    ("", "cell = nn.LSTMCell(8)\ncarry = cell.initialize_carry(rng, (4, 8))\n"),  # the new signature
    ("", "cell = nn.LSTMCell(8)\ncarry = cell.initialize_carry(rng, **old)\n"),  # hidden in **kwargs
    # a look-alike class of the project with the same method
    ("", f"class LSTMCell:\n    def initialize_carry(self, rng, batch_dims, size):\n        return rng\n"
         f"cell = LSTMCell()\ncarry = cell.{OLD_CARRY}\n"),
    ("", "class Sampler:\n    def sample(self, seed, sample_shape):\n        return seed\n"
         "s = Sampler()\nz = s.sample(seed=1, sample_shape=(2,))\n"),
    # a subclass that overrides the method, directly or in a project base between
    ("", f"class Mine(nn.LSTMCell):\n    def initialize_carry(self, rng, batch_dims, size):\n        return rng\n"
         f"Mine(8).{OLD_CARRY}\n"),
    ("", f"class A(nn.LSTMCell):\n    initialize_carry = staticmethod(old_carry)\nclass B(A):\n    pass\n"
         f"B(8).{OLD_CARRY}\n"),
    ("", f"class Both(nn.LSTMCell, Mixin):\n    pass\nBoth(8).{OLD_CARRY}\n"),  # two bases: another MRO
    # the class is not known
    ("", f"cell = nn.LSTMCell(8)\ncell = wrap(cell)\ncarry = cell.{OLD_CARRY}\n"),  # reassigned
    ("", f"def init(cell, rng):\n    return cell.{OLD_CARRY}\n"),  # an unannotated parameter
    ("", f"cell = cells[0]\ncarry = cell.{OLD_CARRY}\n"),
    ("", f"from mylib import LSTMCell\ncell = LSTMCell(8)\ncarry = cell.{OLD_CARRY}\n"),  # not flax's class
    # the class spelled: JAX507's
    ("", f"carry = nn.LSTMCell.{OLD_CARRY}\n"),
    # a class without the row's method of that name (``Dense`` is a Module, but not in the table)
    ("", "d = nn.Dense(3)\nz = d.sample(seed=1)\n"),
    ("flax>=0.6,<0.7\n", f"cell = nn.LSTMCell(8)\ncarry = cell.{OLD_CARRY}\n"),  # pinned below the change
])
def test_not_flagged(tmp_path, pins, body):
    project(tmp_path, pins, HEADER + body)
    assert codes(tmp_path) == []


# -- the new side, executed ------------------------------------------------------------------------------------------
CALLS = {
    "cell": "from flax import linen as nn\nimport jax\n"
            "nn.LSTMCell(features=8).initialize_carry(jax.random.PRNGKey(0), batch_dims=(4,), size=8)\n",
    "noise": "import optax, jax\noptax.perturbations.Gumbel().sample(seed=jax.random.PRNGKey(0), sample_shape=(3,))\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("env,call", [
    ("flax-0.7.0-jax-0.4.20", "cell"),
    ("warns-flax-0.12.12-optax-0.2.8-jax-0.12.0.1", "cell"),
    ("warns-flax-0.12.12-optax-0.2.8-jax-0.12.0.1", "noise"),
])
def test_the_flagged_calls_fail_on_the_new_releases(tmp_path, env, call):
    """The flagged keyword is a TypeError on an instance from the release the row names (flax 0.7.0, optax 0.2.5);
    the old side is the wheels' signature: a ``@staticmethod initialize_carry(rng, batch_dims, size, init_fn)``
    before flax 0.7.0, ``sample(self, seed, ...)`` in optax 0.2.4."""
    import subprocess

    from tests.support.jaxenv import named_env

    python = named_env(env)  # built on first use
    done = subprocess.run([str(python), "-W", "ignore", "-c", CALLS[call]], capture_output=True, text=True,
                          timeout=300, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "got an unexpected keyword argument" in done.stderr, done.stderr[-1000:]
    project(tmp_path, "", CALLS[call])
    assert [code for code, _ in codes(tmp_path)] == ["JAX509"]


# -- the text gate: a removed attribute must be read after a dot ----------------------------------------------------
_OPTIMIZER = "from flax import nnx\nopt = nnx.Optimizer(m, tx)\n"


@pytest.mark.parametrize("source, kept", [
    (_OPTIMIZER + "model = opt.target\n", False),  # a bare name
    (_OPTIMIZER + "def f(model):\n    return model\n", False),  # a parameter
    (_OPTIMIZER + "x = f().model\ny = d['a'].model\n", False),  # no chain rooted at a name
    (_OPTIMIZER + "# the model\ns = 'the model'\n", False),  # prose
    (_OPTIMIZER + "m = opt.model\n", True),
    (_OPTIMIZER + "m = self.opt.model\n", True),
    (_OPTIMIZER + "m = (opt\n     .model)\n", True),
    (_OPTIMIZER + "m = opt.\\\n    model\n", True),
])
def test_the_text_gate_reads_a_removed_attribute_only_after_a_dot(source, kept):
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX509")
    assert rule.may_match_text(TextFacts(source), Scan(source).words) is kept
    assert rule.may_match_ast(collect_facts(source)) is kept  # the ast gate agrees: the text gate lost nothing


@pytest.mark.parametrize("source, kept", [
    (_OPTIMIZER + "class O(nnx.Optimizer):\n    def __init__(self, m, tx):\n        super().__init__(m, tx)\n", False),
    (_OPTIMIZER + "class O(nnx.Optimizer):\n    def setup(self):\n        super().setup()\n", False),
    # a keyword of JAX507's rows (``name`` is one), passed to ``super().__init__``, in a file that names a callable
    # with such rows (``freeze``; the base must be one: ``_super`` reads the base's own rows)
    ("from flax.core import freeze\n" + _OPTIMIZER
     + "class O(nnx.Optimizer):\n    def __init__(self, m, tx):\n        super().__init__(m, tx, name='o')\n", True),
    ("from flax.core import freeze\n" + _OPTIMIZER
     + "class O(nnx.Optimizer):\n    def __init__(self, m, tx):\n        super(\n  O, self).__init__(\n"
       "            m,  # the model\n            name='o')\n", True),
    # the same keyword, but the file names no callable with JAX507's rows: no base can have them
    (_OPTIMIZER + "class O(nnx.Optimizer):\n    def __init__(self, m, tx):\n        super().__init__(m, tx, name='o')\n",
     False),
])
def test_the_gates_read_super_init_only_with_a_constructor_keyword(source, kept):
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX509")
    assert rule.may_match_ast(collect_facts(source)) is kept
    assert rule.may_match_text(TextFacts(source), Scan(source).words) is kept


@pytest.mark.parametrize("source, kept", [
    # ``.model`` and ``update(...)`` concern nnx.Optimizer: a file that names another class of the rule's rows but
    # not nnx.Optimizer has no finding there (gemma's and kauldron's modules: ``self.model``, ``x.update(y)``)
    ("from flax.core import FrozenDict\nd = FrozenDict(a=1)\nm = self.model\nstate.update(grads)\n", False),
    ("from flax.core import FrozenDict\nfrom flax import nnx\nd = FrozenDict(a=1)\nopt = nnx.Optimizer(m, tx)\n"
     "m = opt.model\n", True),
    ("from flax.core import FrozenDict\nfrom flax import nnx\nd = FrozenDict(a=1)\nopt = nnx.Optimizer(m, tx)\n"
     "opt.update(grads)\n", True),
])
def test_the_gates_ask_that_the_file_may_name_the_class_a_site_concerns(source, kept):
    from jaxlint.lint.ast_gate import collect_facts
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    rule = rule_by_code("JAX509")
    assert rule.may_match_ast(collect_facts(source)) is kept
    assert rule.may_match_text(TextFacts(source), Scan(source).words) is kept
