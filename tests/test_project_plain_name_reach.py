"""JAX401's fix safety follows plain names through the project's constructions (``analysis.construction_sites``).

``def __init__(self, model): self.model = model`` says nothing of what ``self.model`` holds; the constructions of
the class do, wherever they are in the project (``Trainer(Model(cfg))``, ``Trainer(model=...)``, through imports
and aliases, a local variable, a factory whose return annotation names the class). Where every construction passes
a class of a module that runs a ``pjit`` with bare ``PartitionSpec``s, the unsafe fix is withheld; where one passes
an unknown value, or none is seen, the fix is still offered, as before. A result that read other modules'
constructions is not served from the results cache, and ``jaxlint check pkg/worker.py`` sees what ``check .`` sees.
"""
from __future__ import annotations

import pytest

from test_project_attribute_reach import PJIT_MODEL
from test_project_index import HARMLESS_MODEL, findings, run
from test_project_index_scope import CONFIG, check, write

TRAINER = """\
import jax


class Trainer:
    def __init__(self, model, steps=1, *, name=None):
        self.model = model

    def fit(self, batch):
        mesh = jax.make_mesh((2,), ("x",))
        with mesh:
            return self.model.train(batch)
"""
HARMLESS = HARMLESS_MODEL + "\n    def train(self, batch):\n        return batch\n"
PROJECT = {"pkg/__init__.py": "", "pkg/model.py": PJIT_MODEL, "pkg/harmless.py": HARMLESS,
           "pkg/trainer.py": TRAINER}
REASON = ("the block calls `self.model.train` from `pkg/model.py`, which runs a `pjit` whose shardings are (or may "
          "be) bare `PartitionSpec`s")


ALIASES = "from pkg.trainer import Trainer as T\nfrom pkg.model import Model as M\n"
BOTH = "from pkg.trainer import Trainer\nfrom pkg.model import Model\nfrom pkg.harmless import Model as Harmless\n"


def main(*lines: str, imports: str = "from pkg.trainer import Trainer\nfrom pkg.model import Model\n") -> str:
    body = "".join(f"    {line}\n" for line in lines)
    return f"{imports}\n\ndef main(cfg):\n{body}"


def verdict(tmp_path, files: dict[str, str], name: str = "pkg/trainer.py", **options):
    (finding,) = findings(run(tmp_path, {**PROJECT, **files}, **options)[name])
    return finding


def withheld(finding) -> bool:
    return finding.fix is None and finding.fix_withheld is not None and finding.fix_withheld.reason.startswith(REASON)


def offered(finding) -> bool:
    return finding.fix is not None and finding.fix_withheld is None


# -- withheld ----------------------------------------------------------------------------------------------------
def test_withheld_when_the_class_module_constructs_it_with_a_pjit_class(tmp_path):
    text = TRAINER.replace("import jax\n", "import jax\nfrom pkg.model import Model\n") \
        + "\n\ndef main(cfg):\n    return Trainer(Model(cfg)).fit(1)\n"
    assert withheld(verdict(tmp_path, {"pkg/trainer.py": text}))


def test_withheld_when_another_module_constructs_it(tmp_path):
    assert withheld(verdict(tmp_path, {"pkg/main.py": main("Trainer(Model(cfg), 2).fit(1)")}))


def test_withheld_when_the_value_is_passed_by_keyword(tmp_path):
    assert withheld(verdict(tmp_path, {"pkg/main.py": main("Trainer(steps=2, model=Model(cfg)).fit(1)")}))


def test_withheld_through_import_aliases_and_a_re_export(tmp_path):
    aliased = main("tr.Trainer(m.Model(cfg))", imports="import pkg.trainer as tr\nfrom pkg import model as m\n")
    renamed = main("T(model=M(cfg))", imports=ALIASES)
    exported = main("Trainer(Model(cfg))", imports="from pkg import Trainer, Model\n")
    package = "from pkg.trainer import Trainer\nfrom pkg.model import Model\n"
    for text in (aliased, renamed):
        assert withheld(verdict(tmp_path / str(len(text)), {"pkg/main.py": text})), text
    assert withheld(verdict(tmp_path / "exported", {"pkg/__init__.py": package, "pkg/main.py": exported}))


def test_withheld_through_a_local_variable_and_a_factory_return_annotation(tmp_path):
    local = main("model = Model(cfg)", "Trainer(model).fit(1)")
    factory = "from pkg.model import Model\n\n\ndef make_model(cfg) -> Model:\n    return REGISTRY[cfg]()\n"
    through_factory = main("Trainer(make_model(cfg))", imports="from pkg.trainer import Trainer\n"
                                                               "from pkg.factory import make_model\n")
    string = factory.replace("-> Model", '-> "Model"')
    assert withheld(verdict(tmp_path / "local", {"pkg/main.py": local}))
    assert withheld(verdict(tmp_path / "factory", {"pkg/factory.py": factory, "pkg/main.py": through_factory}))
    assert withheld(verdict(tmp_path / "string", {"pkg/factory.py": string, "pkg/main.py": through_factory}))


def test_withheld_when_the_class_module_has_a_factory_with_a_return_annotation(tmp_path):
    # The block's own module: ``self.model = make_model()``, whose body does not name the class.
    text = TRAINER.replace("import jax\n", "import jax\nfrom pkg.model import Model\n\n\n"
                                           "def make_model() -> Model:\n    return REGISTRY['model']()\n").replace(
        "self.model = model", "self.model = make_model()")
    assert withheld(verdict(tmp_path, {"pkg/trainer.py": text}))


def test_withheld_in_fix_mode_the_block_stays_as_it_is(tmp_path):
    from jaxlint.run.runner import Mode

    run(tmp_path, {**PROJECT, "pkg/main.py": main("Trainer(Model(cfg))")}, Mode.FIX)
    assert (tmp_path / "pkg" / "trainer.py").read_text() == TRAINER


# -- still offered -----------------------------------------------------------------------------------------------
def test_offered_when_any_construction_passes_an_unknown_value(tmp_path):
    # One construction passes ``Model``, another a value nothing here follows: what ``self.model`` holds stays
    # unknown, and the fix is offered as it was before constructions were read.
    unknown = main("Trainer(Model(cfg))", "Trainer(cfg.build())")
    parameter = main("Trainer(cfg)")
    unannotated = "from pkg.model import Model\n\n\ndef make_model(cfg):\n    return Model(cfg)\n"
    factory = main("Trainer(make_model(cfg))", imports="from pkg.trainer import Trainer\n"
                                                       "from pkg.factory import make_model\n")
    keywords = main("Trainer(**cfg)")
    for number, files in enumerate(({"pkg/main.py": unknown}, {"pkg/main.py": parameter},
                                    {"pkg/factory.py": unannotated, "pkg/main.py": factory},
                                    {"pkg/main.py": keywords})):
        assert offered(verdict(tmp_path / str(number), files)), files


def test_offered_when_the_constructions_pass_harmless_classes_or_literals(tmp_path):
    harmless = main("Trainer(Harmless())", "Trainer(None)", "Trainer(dict(a=1))",
                    imports="from pkg.trainer import Trainer\nfrom pkg.harmless import Model as Harmless\n")
    assert offered(verdict(tmp_path, {"pkg/main.py": harmless}))


def test_offered_when_no_construction_is_seen_or_another_class_is_constructed(tmp_path):
    other = main("Other(Model(cfg))", "Trainer", imports=(
        "from pkg.trainer import Trainer\nfrom pkg.model import Model\nfrom pkg.other import Trainer as Other\n"))
    assert offered(verdict(tmp_path / "none", {}))
    assert offered(verdict(tmp_path / "other", {"pkg/other.py": "class Trainer:\n    pass\n", "pkg/main.py": other}))


def test_a_default_that_is_not_passed_is_followed_in_the_class_module(tmp_path):
    text = TRAINER.replace("import jax\n", "import jax\nfrom pkg.model import Model\n").replace(
        "def __init__(self, model,", "def __init__(self, model=Model(None),")
    assert withheld(verdict(tmp_path, {"pkg/trainer.py": text, "pkg/main.py": main("Trainer()")}))


# -- the results cache and the project root ----------------------------------------------------------------------
def test_editing_the_constructing_module_changes_the_cached_verdict(tmp_path):
    # Both versions import both modules: the index's facts (and its digest) are the same, only the call differs.
    harmless = {"pkg/main.py": main("Trainer(Harmless())", imports=BOTH)}
    risky = {"pkg/main.py": main("Trainer(Model(cfg))", imports=BOTH)}
    for files, expected in ((harmless, offered), (harmless, offered), (risky, withheld), (risky, withheld),
                            (harmless, offered)):  # cold, warm, edited, warm, edited back
        assert expected(verdict(tmp_path, files, use_cache=True))


def test_one_file_check_sees_the_constructions_the_whole_project_sees(tmp_path, monkeypatch):
    write(tmp_path, {"pyproject.toml": CONFIG, **PROJECT, "pkg/main.py": main("Trainer(Model(cfg))", imports=BOTH)})
    whole = check(tmp_path, monkeypatch, ".")
    (finding,) = whole["pkg/trainer.py"]
    assert finding["fix"] is None and finding["fix_withheld"]["reason"].startswith(REASON)
    for _ in range(2):  # cold, then warm
        assert check(tmp_path, monkeypatch, "pkg/trainer.py") == {"pkg/trainer.py": whole["pkg/trainer.py"]}
    write(tmp_path, {"pkg/main.py": main("Trainer(Harmless())", imports=BOTH)})  # the same facts, another call
    for arguments in (["pkg/trainer.py"], ["."], ["pkg/trainer.py"]):
        (finding,) = check(tmp_path, monkeypatch, *arguments)["pkg/trainer.py"]
        assert finding["fix"] is not None and finding["fix_withheld"] is None, arguments


FACTORY = "from pkg.model import Model\n\n\ndef make_model(cfg) -> Model:\n    return REGISTRY[cfg]()\n"


@pytest.mark.parametrize("files, expected", [
    ({"pkg/main.py": main("Trainer(steps=2, model=Model(cfg))")}, withheld),
    ({"pkg/main.py": main("T(M(cfg))", imports=ALIASES)}, withheld),
    ({"pkg/factory.py": FACTORY, "pkg/main.py": main("Trainer(make_model(cfg))", imports=(
        "from pkg.trainer import Trainer\nfrom pkg.factory import make_model\n"))}, withheld),
    ({"pkg/main.py": main("Trainer(Model(cfg))", "Trainer(cfg.build())")}, offered),
    ({}, offered),
])
def test_one_file_check_and_whole_project_check_agree(tmp_path, monkeypatch, files, expected):
    write(tmp_path, {"pyproject.toml": CONFIG, **PROJECT, **files})
    whole = check(tmp_path, monkeypatch, ".")
    (finding,) = whole["pkg/trainer.py"]
    shown = finding["fix_withheld"]["reason"] if finding["fix_withheld"] else None
    assert (finding["fix"] is None and shown.startswith(REASON)) if expected is withheld \
        else (finding["fix"] is not None and shown is None)
    alone = {"pkg/trainer.py": whole["pkg/trainer.py"]}
    for _ in range(2):  # cold, then warm
        for options in ([], ["--no-cache"]):
            assert check(tmp_path, monkeypatch, *options, "pkg/trainer.py") == alone



@pytest.mark.parametrize("jobs", [1, 2])
def test_a_result_that_read_other_modules_code_stamps_every_module_in_the_main_process(tmp_path, monkeypatch, jobs):
    """A result that read the constructions (what no cache key holds) may come from a worker, whose reads a replay's
    recorder does not see: the main process then ``stat``s every module of the project, so that an edit of any ends
    the replay (``runner._note_modules_read``). Runs whose results read no other module's code stamp nothing more."""
    from jaxlint.run import runner

    noted = []
    monkeypatch.setattr(runner, "_note_modules_read", lambda index: noted.append(sorted(index.paths)))
    many = {f"pkg/extra{i}.py": "import jax\n" for i in range(20)}  # enough files for two jobs
    files = {**PROJECT, **many, "pkg/main.py": main("Trainer(Model(cfg))")}
    assert withheld(verdict(tmp_path / "reads", files, use_cache=True, jobs=jobs))
    assert noted == [sorted(str(tmp_path / "reads" / name) for name in files)]
    noted.clear()
    quiet = {name: text for name, text in files.items() if name != "pkg/trainer.py"}
    run(tmp_path / "quiet", quiet, use_cache=True, jobs=jobs)
    assert noted == []
