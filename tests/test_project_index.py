"""Project-level facts across modules (``jaxlint.project.index``), as a run over a small project sees them.

Each test writes a project to a temporary folder and runs it as ``jaxlint check`` / ``--fix --unsafe-fixes``
does (``run_files``: the serial index pass, then the files): JAX401 withholds its unsafe fix when the block reaches
another module that reads ``thread_resources`` or runs a ``pjit`` with ``PartitionSpec``s, and says why; it keeps
the fix when the other module is harmless; JAX301 is silent on a project class from another module.
"""
from __future__ import annotations

from pathlib import Path

from jaxlint.lint.diagnostics import Applicability
from jaxlint.project.files import SourceFile
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version
from jaxlint.run.runner import Mode, run_files
from support.signed import shard_file, signed_json

THREAD_RESOURCES_MODEL = """\
from jax.interpreters.pxla import thread_resources


class Model:
    def __init__(self):
        self.width = thread_resources.env.physical_mesh.shape["x"]
"""
HARMLESS_MODEL = """\
import jax


class Model:
    def __init__(self):
        self.width = jax.device_count()
"""
PJIT_STEP = """\
from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P

step = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P("x"))
"""
MAIN = """\
import jax
from pkg.model import Model

mesh = jax.make_mesh((2,), ("x",))
with mesh:
    model = Model()
"""


def settings_for(root: Path, *codes: str) -> Settings:
    return Settings(select=codes or ("JAX401",), target_version=Version("0.12.0.1"),
                    explicit_min_version=Version("0.10.2"), min_version_source="test", root=root)


def run(root: Path, files: dict[str, str], mode: Mode = Mode.CHECK, codes: tuple[str, ...] = ("JAX401",),
        use_cache: bool = False, jobs: int = 1):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    settings = settings_for(root, *codes)
    sources = [SourceFile(root / name, settings) for name in sorted(files)]
    results = run_files(sources, mode, unsafe=True, jobs=jobs, use_cache=use_cache,
                        cache_dir=root / ".cache" if use_cache else None)
    return {str(Path(result.path).relative_to(root)): result for result in results}


def findings(result, code="JAX401"):
    return [d for d in result.diagnostics if d.code == code]


# -- JAX401: withheld -------------------------------------------------------------------------------------------
def test_withheld_when_a_class_of_another_module_reads_thread_resources(tmp_path):
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL, "main.py": MAIN},
                  Mode.FIX)
    assert (tmp_path / "main.py").read_text() == MAIN
    (finding,) = findings(results["main.py"])
    assert finding.fix is None
    assert finding.fix_withheld.reason == (
        "the block calls `Model` from `pkg/model.py`, which reads the legacy `thread_resources`, which "
        "`jax.set_mesh` leaves empty (`KeyError`)")
    assert finding.fix_withheld.needs_min_version is None
    assert "(no automatic fix: the block calls `Model` from `pkg/model.py`" in finding.message


def test_withheld_when_another_module_runs_a_pjit_with_partition_specs(tmp_path):
    main = "import jax\nfrom pkg.train import step\n\nmesh = jax.make_mesh((2,), ('x',))\nwith mesh:\n    step(x)\n"
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/train.py": PJIT_STEP, "main.py": main})
    (finding,) = findings(results["main.py"])
    assert finding.fix is None
    assert finding.fix_withheld.reason.startswith(
        "the block calls `step` from `pkg/train.py`, which runs a `pjit` whose shardings are (or may be) bare "
        "`PartitionSpec`s")


def test_withheld_through_a_module_that_imports_the_risky_one(tmp_path):
    helpers = "from pkg.train import step\n\n\ndef train(x):\n    return step(x)\n"
    main = "import jax\nfrom pkg.helpers import train\n\nmesh = jax.make_mesh((2,), ('x',))\nwith mesh:\n    train(1)\n"
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/train.py": PJIT_STEP, "pkg/helpers.py": helpers,
                             "main.py": main})
    (finding,) = findings(results["main.py"])
    assert finding.fix is None
    assert finding.fix_withheld.reason.startswith(
        "the block calls `train` from `pkg/helpers.py`, which imports `pkg/train.py`, which runs a `pjit`")


def test_withheld_through_a_relative_import_a_module_alias_and_a_variable_built_before_the_block(tmp_path):
    relative = ("import jax\nfrom .model import Model\n\n\ndef run():\n    model = Model()\n"
                "    with jax.make_mesh((2,), ('x',)):\n        model.fit()\n")
    aliased = "import jax\nimport pkg.model as m\n\nwith jax.make_mesh((2,), ('x',)):\n    m.Model()\n"
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL,
                             "pkg/relative.py": relative, "aliased.py": aliased})
    (through_variable,) = findings(results["pkg/relative.py"])
    assert through_variable.fix is None
    assert through_variable.fix_withheld.reason.startswith("the block uses `model` from `pkg/model.py`") \
        or through_variable.fix_withheld.reason.startswith("the block calls `Model` from `pkg/model.py`")
    (through_alias,) = findings(results["aliased.py"])
    assert through_alias.fix is None and "from `pkg/model.py`" in through_alias.fix_withheld.reason


def test_withheld_when_the_module_itself_reads_thread_resources(tmp_path):
    main = ("import jax\nfrom jax._src.mesh import thread_resources\n\nmesh = jax.make_mesh((2,), ('x',))\n"
            "with mesh:\n    print(thread_resources.env.physical_mesh)\n")
    (finding,) = findings(run(tmp_path, {"main.py": main})["main.py"])
    assert finding.fix is None and "this module reads the legacy `thread_resources`" in finding.fix_withheld.reason


# -- JAX401: still fixed -----------------------------------------------------------------------------------------
def test_fixed_when_the_other_module_is_harmless(tmp_path):
    # The same block, once over a harmless ``Model`` (fixed) and once over one that reads thread_resources (not).
    risky_main = MAIN.replace("pkg.model", "pkg.risky")
    run(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": HARMLESS_MODEL, "pkg/risky.py": THREAD_RESOURCES_MODEL,
                   "pkg/train.py": PJIT_STEP, "main.py": MAIN, "risky_main.py": risky_main}, Mode.FIX)
    assert (tmp_path / "main.py").read_text() == MAIN.replace("with mesh:", "with jax.set_mesh(mesh):")
    assert (tmp_path / "risky_main.py").read_text() == risky_main


def test_fixed_when_the_block_uses_nothing_of_the_risky_module(tmp_path):
    main = MAIN.replace("from pkg.model import Model", "from pkg.model import Model\nfrom pkg.train import step")
    other = main.replace("model = Model()", "step(model)")
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": HARMLESS_MODEL, "pkg/train.py": PJIT_STEP,
                             "main.py": main, "other.py": other})
    (finding,) = findings(results["main.py"])
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert finding.fix_withheld is None
    (finding,) = findings(results["other.py"])
    assert finding.fix is None and "the block calls `step` from `pkg/train.py`" in finding.fix_withheld.reason


def test_the_preview_never_keeps_the_removed_maps_mesh(tmp_path):
    main = 'import jax\nfrom jax.experimental import maps\n\nwith maps.Mesh(devices, ("x",)):\n    pass\n'
    (finding,) = findings(run(tmp_path, {"main.py": main})["main.py"])
    assert [edit.content for edit in finding.fix.edits] == ['jax.set_mesh(jax.sharding.Mesh(devices, ("x",)))']


def test_withheld_on_maps_mesh_says_the_safe_spelling_applies_and_jax101_writes_it(tmp_path):
    main = ('import jax\nfrom jax.experimental import maps\nfrom pkg.model import Model\n\n'
            'with maps.Mesh(devices, ("x",)):\n    Model()\n')
    files = {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL, "main.py": main}
    (finding,) = findings(run(tmp_path, files, codes=("JAX401", "JAX101"))["main.py"])
    assert finding.fix is None and "`pkg/model.py`" in finding.fix_withheld.reason
    assert finding.fix_withheld.reason.endswith(
        "; the safe rewrite `with jax.sharding.Mesh(...):` (JAX101's fix) keeps the legacy context and works")
    run(tmp_path, files, Mode.FIX, codes=("JAX401", "JAX101"))
    # JAX101 rewrites the mesh, then drops the removed module's import, which nothing uses any more.
    assert (tmp_path / "main.py").read_text() == main.replace("maps.Mesh(devices", "jax.sharding.Mesh(devices").replace(
        "from jax.experimental import maps\n", "")


# -- the cache -------------------------------------------------------------------------------------------------
def test_a_cached_result_is_not_reused_when_another_module_becomes_risky(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/model.py": HARMLESS_MODEL, "main.py": MAIN}
    (finding,) = findings(run(tmp_path, files, use_cache=True)["main.py"])
    assert finding.fix is not None
    files["pkg/model.py"] = THREAD_RESOURCES_MODEL
    (finding,) = findings(run(tmp_path, files, use_cache=True)["main.py"])
    assert finding.fix is None and "`pkg/model.py`" in finding.fix_withheld.reason
    model = str(tmp_path / "pkg" / "model.py")
    data = signed_json(shard_file(tmp_path / ".cache", "index", model), "index")  # plain JSON data, never pickle
    facts = data["entries"][model][3]
    assert facts["thread_resources"] is True and facts["imports"] == [[0, "jax.interpreters.pxla", ["thread_resources"]]]


def test_worker_processes_see_the_index(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL}
    files.update({f"main{i}.py": MAIN for i in range(20)})
    results = run(tmp_path, files, jobs=2)
    assert all(findings(results[f"main{i}.py"])[0].fix is None for i in range(20))


# -- JAX301 ------------------------------------------------------------------------------------------------------
RECORDS = """\
class Record:
    @property
    def in_shardings_hlo(self):
        return self._hlo
"""


def test_jax301_silent_on_a_project_class_from_another_module(tmp_path):
    main = "import jax\nfrom pkg.records import Record\n\nrecord = Record()\nprint(record.in_shardings_hlo)\n"
    relative = "import jax\nfrom . import records\n\nr = records.Record()\nprint(r.out_shardings_hlo)\n"
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/records.py": RECORDS, "main.py": main,
                             "pkg/relative.py": relative}, codes=("JAX301",))
    assert findings(results["main.py"], "JAX301") == []
    assert findings(results["pkg/relative.py"], "JAX301") == []


def test_jax301_still_flags_a_real_exported(tmp_path):
    main = ("import jax\nfrom pkg.records import Record\n\nexp = jax.export.deserialize(blob)\n"
            "print(Record().in_shardings_hlo, exp.in_shardings_hlo)\n")
    unrelated = "import jax\nfrom pkg.other import Plain\n\nprint(Plain().in_shardings_hlo)\n"
    results = run(tmp_path, {"pkg/__init__.py": "", "pkg/records.py": RECORDS, "pkg/other.py": "class Plain:\n    pass\n",
                             "main.py": main, "unrelated.py": unrelated}, codes=("JAX301",))
    assert [(d.start.row, d.start.column) for d in findings(results["main.py"], "JAX301")] == [(5, 34)]
    assert len(findings(results["unrelated.py"], "JAX301")) == 1  # the imported class defines no such attribute


def test_the_reason_does_not_depend_on_what_was_asked_before(tmp_path):
    # Worker processes ask in any order, and cached results are keyed by the reasons: ``a`` reaches the risky
    # ``c`` through ``b``, and ``b`` also through ``d`` (longer); asking ``d`` first must not change ``a``'s chain.
    from jaxlint.project.index import build_index

    files = {"pkg/__init__.py": "", "pkg/c.py": THREAD_RESOURCES_MODEL, "pkg/d.py": "from pkg import c\n",
             "pkg/b.py": "from pkg import c\nfrom pkg import d\n", "pkg/a.py": "from pkg import d\nfrom pkg import b\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    paths = [tmp_path / name for name in files]
    answers = []
    for order in (["a.py", "b.py", "d.py"], ["d.py", "b.py", "a.py"]):
        index = build_index(paths)
        answers.append({name: index.risk_of(str(tmp_path / "pkg" / name), str(tmp_path)) for name in order})
    assert answers[0] == answers[1]
    assert answers[0]["a.py"] == ("imports `pkg/d.py`, `pkg/c.py`".replace(", `", ", which imports `")
                                  + ", which reads the legacy `thread_resources`, which `jax.set_mesh` leaves empty "
                                  "(`KeyError`)")
    assert build_index(paths).digest() == build_index(paths).digest()


def test_an_edit_that_keeps_size_and_time_is_seen_when_the_index_read_the_file_in_its_tick(tmp_path):
    """The racy case for the index's (size, mtime) key: the model is rewritten with the same size and time right
    after the run that read it; that run kept no time for it, so the next one hashes it and sees the change."""
    import os

    width = max(len(HARMLESS_MODEL), len(THREAD_RESOURCES_MODEL)) + 2
    harmless, risky = (text + "#" * (width - len(text) - 1) + "\n" for text in (HARMLESS_MODEL, THREAD_RESOURCES_MODEL))
    files = {"pkg/__init__.py": "", "pkg/model.py": harmless, "main.py": MAIN}
    (finding,) = findings(run(tmp_path, files, use_cache=True)["main.py"])
    assert finding.fix is not None
    model = tmp_path / "pkg" / "model.py"
    status = model.stat()
    model.write_text(risky, encoding="utf-8")
    os.utime(model, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert model.stat().st_size == status.st_size and model.stat().st_mtime_ns == status.st_mtime_ns
    settings = settings_for(tmp_path)
    sources = [SourceFile(tmp_path / name, settings) for name in sorted(files)]
    results = run_files(sources, Mode.CHECK, unsafe=True, jobs=1, use_cache=True, cache_dir=tmp_path / ".cache")
    (finding,) = findings(next(r for r in results if r.path.endswith("main.py")))
    assert finding.fix is None and "`pkg/model.py`" in finding.fix_withheld.reason


def test_modules_named_from_is_every_module_a_prefix_names_or_that_extends_the_name(tmp_path):
    # The ast path of JAX401 asks this for every import of a file; the sorted lookup must answer as the definition
    # does: a module named by a prefix of the name, or by the name and more (``a.b`` -> ``a.b.c``), never one that
    # merely starts with the same letters (``a.bc``, ``ab``).
    from jaxlint.project.index import build_index

    files = ["a/__init__.py", "a/b/__init__.py", "a/b/c.py", "a/bc.py", "ab/__init__.py", "ab/x.py", "a/b/c/d.py",
             "z.py", "a-b/y.py"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    index = build_index([tmp_path / name for name in files])
    suffixes = index._suffixes()

    def by_definition(qualified: str) -> set[str]:
        parts = qualified.split(".")
        prefixes = {".".join(parts[:end]) for end in range(1, len(parts) + 1)}
        return {path for name, paths in suffixes.items()
                if name in prefixes or name.startswith(qualified + ".") for path in paths}

    for qualified in ("a", "a.b", "a.b.c", "a.b.c.d.f", "a.bc", "ab", "ab.x", "z", "z.f", "b", "y", "a.b.", ""):
        assert index.modules_named_from(qualified) == by_definition(qualified), qualified
    assert index.modules_named_from("a.b") == {str(tmp_path / p) for p in
                                               ("a/__init__.py", "a/b/__init__.py", "a/b/c.py", "a/b/c/d.py")}


def test_an_index_of_a_few_modules_of_a_large_cache_reads_only_their_shards(tmp_path, monkeypatch):
    """The index cache may hold a whole tree (``jaxlint check .``) while a run's index holds a few modules (a
    one-file check in a tree too large to walk): only their shards are read, not every shard."""
    from jaxlint.project import shards
    from jaxlint.project.index import build_index

    monkeypatch.setattr(shards, "SHARD_BYTES", 2000)
    modules = []
    for number in range(40):
        module = tmp_path / "p" / f"pkg{number}" / "m.py"
        module.parent.mkdir(parents=True)
        module.write_text("import jax\n")
        modules.append(module)
    whole = build_index(modules, tmp_path / "c")
    assert len(list(shard_file(tmp_path / "c", "index", str(modules[0])).parent.glob("*-*.json"))) > 2
    read = []
    original = shards.read_signed
    monkeypatch.setattr(shards, "read_signed",
                        lambda file, *args: read.append(Path(file).name) or original(file, *args))
    one = build_index(modules[:1], tmp_path / "c")
    assert one.facts == {str(modules[0]): whole.facts[str(modules[0])]}
    own = shard_file(tmp_path / "c", "index", str(modules[0])).name
    assert [name for name in read if name != "digest.json"] == [own]
