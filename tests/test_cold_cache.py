"""A cold run with a cache folder (``run_files``): no serial pass over the modules' facts before the workers start;
each worker computes its own module's facts from the bytes it lints, and the project digest is computed once at
the end. Its results equal ``--no-cache`` and the warm run's, and are cached only under facts they were computed with.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from jaxlint.project import index as index_module
from jaxlint.project.files import SourceFile
from jaxlint.run import runner
from jaxlint.run.runner import Mode, run_files
from support.corpus import make_project, source_files, summary
from support.signed import cache_entries, cache_folder, shard_files, signed_json
from test_project_index import HARMLESS_MODEL, MAIN, PJIT_STEP, THREAD_RESOURCES_MODEL, findings, settings_for

PROJECT = {"pkg/__init__.py": "", "pkg/model.py": THREAD_RESOURCES_MODEL, "main.py": MAIN, "other.py": MAIN,
           "lonely.py": "import jax\n"}


@pytest.fixture
def counted(monkeypatch):
    """The files processed (not answered from the cache), and the modules whose facts the index read itself."""
    calls = SimpleCounts()
    process_file, module_facts = runner.process_file, index_module.module_facts

    def processing(path, *args, **kwargs):
        calls.processed.append(Path(path).name)
        return process_file(path, *args, **kwargs)

    def facts(data):
        calls.index_facts += 1
        return module_facts(data)

    monkeypatch.setattr(runner, "process_file", processing)
    monkeypatch.setattr(index_module, "module_facts", facts)
    return calls


class SimpleCounts:
    def __init__(self) -> None:
        self.processed: list[str] = []
        self.index_facts = 0

    def clear(self) -> None:
        self.processed.clear()
        self.index_facts = 0


def write(root: Path, files: dict[str, str]) -> list[SourceFile]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    settings = settings_for(root)
    return [SourceFile(root / name, settings) for name in sorted(files)]


def check(files, cache: Path | None, jobs: int = 1, mode: Mode = Mode.CHECK):
    results = run_files(files, mode, True, jobs=jobs, use_cache=cache is not None, cache_dir=cache)
    return {Path(result.path).name: result for result in results}


def shown(results) -> list:
    return [(name, [(d.code, d.message, d.fix is not None, d.fix_withheld) for d in result.diagnostics])
            for name, result in sorted(results.items())]


def test_a_cold_run_reads_no_module_facts_before_the_workers(tmp_path, counted):
    """Without the change, ``build_index`` read every module's facts in the parent first (then the worker read
    and hashed each file again)."""
    files = write(tmp_path / "p", {"a.py": "import jax\n", "b.py": "x = 1\n", "c.py": MAIN})
    check(files, tmp_path / "c")
    assert counted.index_facts == 0
    assert sorted(counted.processed) == ["a.py", "b.py", "c.py"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_module_parsed_for_its_facts_is_not_parsed_again_by_the_ast_gate(tmp_path, monkeypatch, jobs):
    """A module that spells ``pjit`` is parsed for its facts (``module_facts``); the lint's ast gate reads that tree
    instead of parsing the same text again (the runner hands it on)."""
    source = PJIT_STEP + "\nimport jax\n\nwith jax.make_mesh((2,), ('x',)):\n    step(1)\n"
    files = write(tmp_path / "p", {"step.py": source, **{f"m{i}.py": "x = 1\n" for i in range(16)}})
    expected = shown(check(files, None))
    parsed = []
    real = ast.parse

    def counting(text, *args, **kwargs):
        parsed.append(text.decode() if isinstance(text, bytes) else text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    from jaxlint.lint import ast_gate

    monkeypatch.setattr(ast_gate, "_LAST", None)  # the check above left its last parse: not this run's
    cold = check(files, tmp_path / "c", jobs)
    assert shown(cold) == expected and findings(cold["step.py"])  # the same finding, from one parse
    if jobs == 1:  # the workers' parses are not seen here
        assert parsed.count(source) == 1


def test_a_warm_run_after_a_cold_one_reads_and_processes_nothing(tmp_path, counted):
    files = write(tmp_path / "p", PROJECT)
    cold = check(files, tmp_path / "c")
    counted.clear()
    warm = check(files, tmp_path / "c")
    assert counted.processed == [] and counted.index_facts == 0  # the cold run cached the facts and the digest
    assert shown(warm) == shown(cold)
    entries = cache_entries(tmp_path / "c", "index")
    assert sorted(Path(path).name for path in entries) == ["__init__.py", "lonely.py", "main.py", "model.py",
                                                           "other.py"]
    digest = signed_json(cache_folder(tmp_path / "c", "index") / "digest.json", "index")
    assert digest["digest"] is not None


@pytest.mark.parametrize("jobs", [1, 2])
def test_cold_with_a_cache_equals_no_cache_and_warm(tmp_path, jobs):
    files = write(tmp_path / "p", {**PROJECT, **{f"m{i}.py": MAIN for i in range(20)}})
    without = check(files, None, jobs)
    cold = check(files, tmp_path / "c", jobs)
    warm = check(files, tmp_path / "c", jobs)
    assert shown(cold) == shown(without) == shown(warm)
    assert findings(cold["main.py"])[0].fix is None  # the other module's facts were seen


def test_a_module_whose_facts_change_invalidates_its_importers(tmp_path, counted):
    files = write(tmp_path / "p", PROJECT)
    (finding,) = findings(check(files, tmp_path / "c")["main.py"])
    assert finding.fix is None
    write(tmp_path / "p", {"pkg/model.py": HARMLESS_MODEL})
    counted.clear()
    results = check(files, tmp_path / "c")
    (finding,) = findings(results["main.py"])
    assert finding.fix is not None
    # The importers asked about the model; ``lonely.py``'s rules asked about no other module: its result holds
    assert sorted(counted.processed) == ["main.py", "model.py", "other.py"]


def test_a_module_edited_during_a_cold_run_caches_no_result_computed_from_its_old_facts(tmp_path, monkeypatch):
    """``main.py`` (linted first) reads the model's facts lazily; the model is then made harmless before its own
    worker reads it. A result cached under the final facts' digest would say the old thing on the next run."""
    files = write(tmp_path / "p", PROJECT)
    original = runner.process_file

    def edit_after_main(path, *args, **kwargs):
        result = original(path, *args, **kwargs)
        if Path(path).name == "main.py":
            (tmp_path / "p" / "pkg" / "model.py").write_text(HARMLESS_MODEL, encoding="utf-8")
        return result

    monkeypatch.setattr(runner, "process_file", edit_after_main)
    (finding,) = findings(check(files, tmp_path / "c")["main.py"])
    assert finding.fix is None  # it saw the model as it was
    monkeypatch.setattr(runner, "process_file", original)
    (finding,) = findings(check(files, tmp_path / "c")["main.py"])
    assert finding.fix is not None


def test_fix_keeps_the_serial_pass(tmp_path, counted):
    """--fix rewrites modules that other files' rules may read: its cached results need the facts from before."""
    files = write(tmp_path / "p", {"a.py": "import jax\n", "b.py": "x = 1\n"})
    check(files, tmp_path / "c", mode=Mode.FIX)
    assert counted.index_facts == 2


def test_a_partially_warm_run_keeps_the_serial_pass(tmp_path, counted):
    paths = make_project(tmp_path / "p")
    files = source_files(paths, tmp_path / "p")
    cold = run_files(files, Mode.CHECK, False, jobs=1, use_cache=True, cache_dir=tmp_path / "c")
    changed = next(path for path in paths if path.suffix == ".py")
    changed.write_text(changed.read_text() + "\n# edited\n")
    counted.clear()
    warm = run_files(files, Mode.CHECK, False, jobs=1, use_cache=True, cache_dir=tmp_path / "c")
    assert counted.processed == [changed.name]
    assert summary(warm) == summary(cold)


def project_files(root: Path, files: dict[str, str], linted: list[str]) -> list[SourceFile]:
    """``linted`` of a project whose root a configuration file marks (``files.index_root``), as pre-commit names
    them: the index covers every module of the root (``files.project_modules``), linted or not."""
    write(root, {"pyproject.toml": "[tool.jaxlint]\n", **files})
    settings = replace(settings_for(root), config_file=root / "pyproject.toml")
    return [SourceFile(root / name, settings) for name in linted]


def check_project(files: list[SourceFile], cache: Path) -> dict:
    from jaxlint.project.files import project_modules

    assert project_modules(files)  # the index covers modules that are not linted
    return check(files, cache)


def test_one_file_whose_rules_ask_about_no_other_module_reads_no_other_module(tmp_path, counted):
    """pre-commit's case, on a first run: a small file in a large project. Without the change, the cold run read
    every other module at the end for the project digest that keys the cached results (0.45 of 0.7 CPU-s for a
    22-line file of a 596-module project), though none of this file's findings can depend on them."""
    modules = {f"pkg/m{i}.py": THREAD_RESOURCES_MODEL for i in range(6)}
    files = project_files(tmp_path / "p", {**PROJECT, **modules}, ["lonely.py"])
    (result,) = check_project(files, tmp_path / "c").values()
    assert result.diagnostics == [] and counted.processed == ["lonely.py"]
    assert counted.index_facts == 0  # no other module read
    # the linted module's own facts are cached (in its shard: no other is read or written)
    assert [Path(path).name for path in cache_entries(tmp_path / "c", "index")] == ["lonely.py"]
    assert len(shard_files(tmp_path / "c", "index")) == 1
    counted.clear()
    check_project(files, tmp_path / "c")
    assert counted.processed == [] and counted.index_facts == 0  # its result is cached: a hit, reading nothing
    write(tmp_path / "p", {"pkg/model.py": HARMLESS_MODEL, "pkg/m0.py": HARMLESS_MODEL})  # the digest changes
    counted.clear()
    check_project(files, tmp_path / "c")
    assert counted.processed == [] and counted.index_facts == 0  # still a hit, and no serial pass


@pytest.mark.parametrize("cache", [True, False])
def test_the_project_is_walked_only_when_a_rule_asks_about_other_modules(tmp_path, monkeypatch, cache):
    """The walk that finds the project's other modules (``files.project_modules``) cost a one-file check of a
    29,700-module tree 0.2-0.3 CPU-s; a file whose rules ask about no other module never needs it. One that asks
    walks once, whatever it asks, and sees the module it asks about."""
    from jaxlint.project import files as files_module

    walks = []
    project_modules = files_module.project_modules

    def walking(*args, **kwargs):
        walks.append(1)
        return project_modules(*args, **kwargs)

    monkeypatch.setattr(files_module, "project_modules", walking)
    cache_dir = tmp_path / "c" if cache else None
    (result,) = check(project_files(tmp_path / "p", PROJECT, ["lonely.py"]), cache_dir).values()
    assert result.diagnostics == [] and walks == []
    (result,) = check(project_files(tmp_path / "p", PROJECT, ["main.py"]), cache_dir).values()
    (finding,) = findings(result)
    assert finding.fix is None and "`pkg/model.py`" in finding.fix_withheld.reason and walks == [1]


def test_one_file_whose_rules_ask_about_other_modules_is_keyed_by_their_facts(tmp_path, counted):
    files = project_files(tmp_path / "p", PROJECT, ["main.py"])
    (finding,) = findings(check_project(files, tmp_path / "c")["main.py"])
    assert finding.fix is None and counted.index_facts > 0  # the model reads ``thread_resources``
    counted.clear()
    assert findings(check_project(files, tmp_path / "c")["main.py"]) == [finding] and counted.processed == []
    write(tmp_path / "p", {"pkg/model.py": HARMLESS_MODEL})
    (finding,) = findings(check_project(files, tmp_path / "c")["main.py"])
    assert finding.fix is not None and counted.processed == ["main.py"]


def test_a_result_that_starts_asking_about_other_modules_is_keyed_by_their_facts(tmp_path, counted):
    """A file cached as depending on no other module, then edited to ask about one: its new result needs the digest,
    and a later change of that module is seen."""
    files = project_files(tmp_path / "p", PROJECT, ["lonely.py"])
    check_project(files, tmp_path / "c")
    write(tmp_path / "p", {"lonely.py": MAIN})
    (finding,) = findings(check_project(files, tmp_path / "c")["lonely.py"])
    assert finding.fix is None
    write(tmp_path / "p", {"pkg/model.py": HARMLESS_MODEL})
    counted.clear()
    (finding,) = findings(check_project(files, tmp_path / "c")["lonely.py"])
    assert finding.fix is not None and counted.processed == ["lonely.py"]


def test_asking_for_the_index_marks_the_file_and_the_runner_does_not():
    index = index_module.ProjectIndex(frozenset())
    with index_module.activated(index):
        assert index_module.running_index() is index and not index.take_consultation()
        assert index_module.active_index() is index
        assert index.take_consultation() and not index.take_consultation()
