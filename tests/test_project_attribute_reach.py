"""JAX401's fix safety follows the attributes of ``self`` (``jaxlint.analysis.attribute_values``) across modules.

``self.model.train(batch)`` inside ``with mesh:`` runs whatever ``self.model`` holds. Where the class stores a
project class from another module there (``self.model = Model(...)`` in ``__init__``, ``self.model: Model``, or
``model: Model`` in the class body), and that module runs a ``pjit`` with bare ``PartitionSpec``s, the unsafe fix
is withheld; where the attribute holds something harmless, or nothing the class says, it is still offered.
"""
from __future__ import annotations

from test_project_index import HARMLESS_MODEL, PJIT_STEP, findings, run

PJIT_MODEL = """\
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P


class Model:
    def __init__(self, cfg):
        self.cfg = cfg

    def train(self, batch):
        step = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))
        return step(batch)
"""
TRAINER = """\
import jax
from pkg.model import Model


class Trainer:
{store}
    def fit(self, batch):
        mesh = jax.make_mesh((2,), ("x",))
        with mesh:
            return self.model.train(batch)
"""
IN_INIT = "    def __init__(self, cfg):\n        self.model = Model(cfg)\n"
ANNOTATED_IN_INIT = "    def __init__(self, model):\n        self.model: Model = model\n"
CLASS_ANNOTATION = "    model: Model\n"
STRING_ANNOTATION = '    def __init__(self, model):\n        self.model: "Model" = model\n'
PROJECT = {"pkg/__init__.py": "", "pkg/model.py": PJIT_MODEL}
REASON = ("the block calls `self.model.train` from `pkg/model.py`, which runs a `pjit` whose shardings are (or may "
          "be) bare `PartitionSpec`s")


def trainer(store: str) -> str:
    return TRAINER.format(store=store)


def only_finding(results, name="pkg/trainer.py"):
    (finding,) = findings(results[name])
    return finding


# -- withheld ----------------------------------------------------------------------------------------------------
def test_withheld_when_self_model_is_built_in_init_from_a_pjit_module(tmp_path):
    finding = only_finding(run(tmp_path, {**PROJECT, "pkg/trainer.py": trainer(IN_INIT)}))
    assert finding.fix is None
    assert finding.fix_withheld.reason.startswith(REASON)


def test_withheld_when_self_model_is_annotated_in_init_in_the_class_body_or_as_a_string(tmp_path):
    for number, store in enumerate((ANNOTATED_IN_INIT, CLASS_ANNOTATION, STRING_ANNOTATION)):
        name = f"pkg/trainer{number}.py"
        finding = only_finding(run(tmp_path, {**PROJECT, name: trainer(store)}), name)
        assert finding.fix is None, store
        assert finding.fix_withheld.reason.startswith(REASON), store


def test_withheld_when_fix_writes_nothing_and_through_a_module_that_imports_the_risky_one(tmp_path):
    # ``pkg/models.py`` re-exports Model; ``--fix --unsafe-fixes`` leaves the block as it is.
    from jaxlint.run.runner import Mode

    text = trainer(IN_INIT).replace("from pkg.model import Model", "from pkg.models import Model")
    run(tmp_path, {**PROJECT, "pkg/models.py": "from pkg.model import Model\n", "pkg/trainer.py": text}, Mode.FIX)
    assert (tmp_path / "pkg" / "trainer.py").read_text() == text


def test_withheld_through_a_local_copy_a_parameter_annotation_and_the_class_own_method(tmp_path):
    local = trainer(IN_INIT).replace("            return self.model.train(batch)",
                                     "            model = self.model\n            return model.train(batch)")
    parameter = ("import jax\nfrom pkg.model import Model\n\n\ndef fit(model: Model, batch):\n"
                 "    with jax.make_mesh((2,), ('x',)):\n        return model.train(batch)\n")
    method = trainer(IN_INIT + "\n    def step(self, batch):\n        return self.model.train(batch)\n").replace(
        "        with mesh:\n            return self.model.train(batch)",
        "        with mesh:\n            return self.step(batch)")
    results = run(tmp_path, {**PROJECT, "pkg/local.py": local, "pkg/parameter.py": parameter,
                             "pkg/method.py": method})
    assert only_finding(results, "pkg/local.py").fix is None
    assert only_finding(results, "pkg/parameter.py").fix_withheld.reason.startswith(
        "the block uses `Model` from `pkg/model.py`")  # what the annotation names
    assert only_finding(results, "pkg/method.py").fix_withheld.reason.startswith(
        "the block calls `self.step` from `pkg/model.py`")


def test_withheld_when_the_attribute_comes_from_a_base_class_of_a_risky_module(tmp_path):
    base = ("from pkg.model import Model\n\n\nclass Base:\n    def __init__(self, cfg):\n"
            "        self.model = Model(cfg)\n")
    text = trainer("").replace("from pkg.model import Model", "from pkg.base import Base").replace(
        "class Trainer:", "class Trainer(Base):")
    finding = only_finding(run(tmp_path, {**PROJECT, "pkg/base.py": base, "pkg/trainer.py": text}))
    assert finding.fix is None
    assert finding.fix_withheld.reason.startswith("the block calls `self.model.train` from `pkg/base.py`, which "
                                                  "imports `pkg/model.py`, which runs a `pjit`")


# -- still offered -----------------------------------------------------------------------------------------------
def test_offered_when_the_attribute_holds_a_harmless_class(tmp_path):
    harmless = HARMLESS_MODEL + "\n    def train(self, batch):\n        return batch\n"
    finding = only_finding(run(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": harmless,
                                          "pkg/train.py": PJIT_STEP, "pkg/trainer.py": trainer(IN_INIT)}))
    assert finding.fix is not None and finding.fix_withheld is None


def test_offered_when_what_the_attribute_holds_is_unknown(tmp_path):
    # Stored from an unannotated parameter, or never stored by a class without bases: as before, the fix stays.
    from_parameter = trainer("    def __init__(self, model):\n        self.model = model\n")
    never_stored = trainer("")
    other_attribute = trainer(IN_INIT + "        self.data = []\n").replace("self.model.train(batch)",
                                                                         "self.data.append(batch)")
    results = run(tmp_path, {**PROJECT, "pkg/a.py": from_parameter, "pkg/b.py": never_stored,
                             "pkg/c.py": other_attribute})
    for name in ("pkg/a.py", "pkg/b.py", "pkg/c.py"):
        finding = only_finding(results, name)
        assert finding.fix is not None and finding.fix_withheld is None, name


def test_a_string_in_the_block_is_no_annotation(tmp_path):
    text = ("import jax\nfrom pkg.model import Model\n\nwith jax.make_mesh((2,), ('x',)):\n"
            "    print('Model')\n")
    finding = only_finding(run(tmp_path, {**PROJECT, "main.py": text}), "main.py")
    assert finding.fix is not None


def test_the_reason_names_what_the_block_spells_before_what_a_base_class_reaches(tmp_path):
    # axlearn's tests: ``self.assertEqual(...)`` (inherited from the project's TestCase, whose module imports the
    # trainer) and ``Checkpointer`` used directly: the reason names ``Checkpointer``.
    base = "import pkg.model\n\n\nclass TestCase:\n    pass\n"
    test = ("import jax\nfrom pkg.base import TestCase\nfrom pkg.model import Model\n\n\nclass Test(TestCase):\n"
            "    def test(self):\n        with jax.make_mesh((2,), ('x',)):\n            factory = Model\n"
            "            self.assertEqual(1, 1)\n")
    finding = only_finding(run(tmp_path, {**PROJECT, "pkg/base.py": base, "pkg/test.py": test}), "pkg/test.py")
    assert finding.fix_withheld.reason.startswith("the block uses `Model` from `pkg/model.py`")


# -- the same module (``analysis.pjit_specs``) -------------------------------------------------------------------
SAME_MODULE = """\
import jax
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P

step = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))


class Model:
    def train(self, batch):
        return {call}(batch)


class Trainer:
    def __init__(self):
        self.model = Model()
        self.run = {held}

    def fit(self, batch):
        with jax.make_mesh((2,), ("x",)):
            return {block}
"""


def test_same_module_withheld_through_self_attributes(tmp_path):
    cases = {"model.py": dict(call="step", held="None", block="self.model.train(batch)"),
             "held.py": dict(call="len", held="step", block="self.run(batch)"),
             "method.py": dict(call="step", held="None", block="self.helper(batch)")}
    files = {name: SAME_MODULE.format(**values) for name, values in cases.items()}
    files["method.py"] = files["method.py"].replace(
        "    def fit(self", "    def helper(self, batch):\n        return self.model.train(batch)\n\n    def fit(self")
    results = run(tmp_path, files)
    for name in files:
        finding = only_finding(results, name)
        assert finding.fix is None, name
        assert finding.fix_withheld.reason.startswith("the block runs a `pjit` whose shardings"), name


def test_same_module_offered_when_the_attributes_run_no_such_pjit(tmp_path):
    harmless = SAME_MODULE.format(call="len", held="len", block="self.model.train(batch)")
    finding = only_finding(run(tmp_path, {"main.py": harmless}), "main.py")
    assert finding.fix is not None and finding.fix_withheld is None
