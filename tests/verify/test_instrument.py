"""Instrumentation and planning, without JAX: probes keep line numbers, nest, and leave the code's meaning alone."""
from __future__ import annotations

import ast
import os
import pickle
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path


from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.verify.instrument import instrument_file, prepare_trees, statement_offset, wrap_spans
from jaxlint.verify.plan import make_plan
from jaxlint.verify.run import resolve_argv, traceback_locations, RunResult

SAMPLE = Path(__file__).resolve().parents[1] / "verify_sample"


def _plan(tmp_path, code: str, **kwargs):
    (tmp_path / "m.py").write_text(textwrap.dedent(code))
    return make_plan([tmp_path / "m.py"], SettingsResolver(Overrides(isolated=True)), tmp_path, **kwargs)


def test_wrap_spans_nested_and_adjacent():
    text = "y = f(g(x), h)\n"
    outer = (text.index("f"), text.index("\n"))
    inner = (text.index("g"), text.index(","))
    out = wrap_spans(text, [("a", *outer), ("b", *inner)])
    assert out == ('y = __import__("_jaxlint_probe").record(\'a\', f(__import__("_jaxlint_probe").record(\'b\', '
                   'g(x)), h))\n')
    ast.parse(out)


def test_statement_offset():
    text = "import jax\nif True: jax.x()\ndef f():\n    y = 1\nz = f(jax.x())\nfor i in jax.x(): pass\n"
    assert statement_offset(text, 1, 1) == 0
    assert statement_offset(text, 2, 10) == text.index("jax.x()")
    assert statement_offset(text, 4, 5) == text.index("y = 1")
    # Inside an expression: the statement holding it (a marker goes in front of it)...
    assert statement_offset(text, 5, 7) == text.index("z = f")
    # ...but not in front of a compound statement's header, and not in a file that does not parse.
    assert statement_offset(text, 6, 10) is None
    assert statement_offset(text, 3, 1) is None
    assert statement_offset("x = (\n", 1, 1) is None


def test_sample_plan_sites_and_line_numbers(tmp_path):
    plan = make_plan([SAMPLE / "sample"], SettingsResolver(Overrides()), SAMPLE)
    ids = [site.id for site in plan.sites]
    assert ids == ["sample/model.py:6:JAX102:1", "sample/model.py:14:JAX201:1", "sample/model.py:20:JAX202:1",
                   "sample/model.py:25:JAX202:1", "sample/model.py:30:JAX202:1", "sample/model.py:37:JAX202:1"]
    assert [site.kind for site in plan.sites] == ["reach"] + ["value"] * 5
    file_plan = plan.files[0]
    result = instrument_file(file_plan.source.text, file_plan.fixed, file_plan.sites)
    # Line numbers unchanged by the probes, in both copies.
    assert result.before.count("\n") == file_plan.source.text.count("\n")
    assert result.after.count("\n") == file_plan.fixed.count("\n")
    before_lines, after_lines = result.before.splitlines(), result.after.splitlines()
    assert before_lines[5].startswith('__import__("_jaxlint_probe").reach(\'sample/model.py:6:JAX102:1\'); jax.config')
    assert 'record(\'sample/model.py:14:JAX201:1\', jnp.meshgrid(xs, ys))' in before_lines[13]
    assert 'record(\'sample/model.py:14:JAX201:1\', list(jnp.meshgrid(xs, ys)))' in after_lines[12]
    for text in (result.before, result.after):
        ast.parse(text)
    trees = prepare_trees(plan, tmp_path)
    assert (trees.before / "run.py").read_text() == (SAMPLE / "run.py").read_text()
    assert (trees.before / "sample" / "model.py").read_text() == result.before
    assert (trees.probe_dir / "_jaxlint_probe.py").exists() and (trees.probe_dir / "sitecustomize.py").exists()


def test_a_site_without_a_value_is_marked_at_its_statement_or_left_unmarked_in_a_header():
    from jaxlint.lint.diagnostics import Applicability
    from jaxlint.lint.engine import AppliedFix
    from jaxlint.verify.plan import Site

    text = 'f = jax.jit(g, compiler_options={"jax_memory_fitting_effort": 0.0})\n'
    fix = AppliedFix("JAX102", "m", 1, 34, Applicability.SAFE, "delete", None, None)
    site = Site("m.py:1:JAX102:1", Path("m.py"), "m.py", 1, 34, "JAX102", "m", fix)
    result = instrument_file(text, "f = jax.jit(g)\n", [site])
    assert site.kind == "reach" and result.unmarked == []
    assert result.before == '__import__("_jaxlint_probe").reach(\'m.py:1:JAX102:1\'); ' + text
    header = 'with jax.jit(g, compiler_options={"jax_memory_fitting_effort": 0.0}):\n    pass\n'
    fix = AppliedFix("JAX102", "m", 1, 39, Applicability.SAFE, "delete", None, None)
    site = Site("m.py:1:JAX102:1", Path("m.py"), "m.py", 1, 39, "JAX102", "m", fix)
    result = instrument_file(header, header, [site])
    assert result.unmarked == [site.id] and result.before == header


def test_injected_rules_replace_the_registry(tmp_path):
    from tests.verify.wrong_rules import TakeAlongAxisWrongBool

    plan = _plan(tmp_path, """
        import jax.numpy as jnp
        y = jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)
    """, rules=[TakeAlongAxisWrongBool])
    assert "wrap_negative_indices=False" in plan.files[0].fixed
    from jaxlint.rules import all_rules

    assert TakeAlongAxisWrongBool not in all_rules()


def _run_probe(tmp_path, code: str) -> dict:
    records = tmp_path / "records"
    records.mkdir()
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "probe"), JAXLINT_PROBE_DIR=str(records),
               JAXLINT_PROBE_MAX_CALLS="2")
    from jaxlint.verify.instrument import install_runtime

    install_runtime(tmp_path / "probe")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True)
    files = list(records.glob("records-*.pkl"))
    assert len(files) == 1, proc.stderr
    with open(files[0], "rb") as handle:
        return {"proc": proc, **pickle.load(handle)}


def test_probe_runtime_records_containers_exactly_and_survives_a_crash(tmp_path):
    data = _run_probe(tmp_path, """
        import collections
        p = __import__("_jaxlint_probe")
        P = collections.namedtuple("P", "a b")
        assert p.record("s1", [1, 2.5]) == [1, 2.5]
        p.record("s2", (1, 2))
        p.record("s3", P(1, None))
        p.record("s4", {"k": True})
        for i in range(5):
            p.record("loop", i)
        p.reach("r")
        raise SystemExit(3)
    """)
    assert data["proc"].returncode == 3
    sites = data["sites"]
    assert sites["s1"]["calls"] == [("seq", "builtins.list", None, [("py", "int", 1), ("py", "float", 2.5)], "list")]
    assert sites["s2"]["calls"][0][1] == "builtins.tuple"
    assert sites["s3"]["calls"][0][1:3] == ("__main__.P", ("a", "b")) and sites["s3"]["calls"][0][4] == "P"
    assert sites["s4"]["calls"][0] == ("map", "builtins.dict", ["'k'"], [("py", "bool", True)], "dict")
    assert sites["loop"]["count"] == 5 and len(sites["loop"]["calls"]) == 2  # --max-calls 2
    assert sites["r"]["count"] == 1
    assert data["meta"]["jax_version"] is None


def test_probe_never_breaks_the_program(tmp_path):
    data = _run_probe(tmp_path, """
        p = __import__("_jaxlint_probe")
        class Weird:
            shape = (2,)
            dtype = "float32"
            def __repr__(self):
                raise RuntimeError("no repr")
        w = Weird()
        assert p.record("w", w) is w
    """)
    assert data["proc"].returncode == 0, data["proc"].stderr
    assert data["sites"]["w"]["errors"] or data["sites"]["w"]["calls"]


def test_sitecustomize_chains_to_the_environments_own(tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import builtins\nbuiltins.OWN_SITECUSTOMIZE = True\n")
    from jaxlint.verify.instrument import install_runtime

    probe = install_runtime(tmp_path / "probe")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(probe), str(own)]))
    out = subprocess.run([sys.executable, "-c", "import builtins, sys; print(builtins.OWN_SITECUSTOMIZE, "
                          "'_jaxlint_probe' in sys.modules)"], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_resolve_argv(tmp_path):
    python = "/envs/old/bin/python"
    assert resolve_argv(["python", "run.py"], python) == [python, "run.py"]
    assert resolve_argv(["python3.12", "-m", "pytest"], python) == [python, "-m", "pytest"]
    assert resolve_argv(["pytest", "-x"], python) == [python, "-m", "pytest", "-x"]
    assert resolve_argv(["./run.sh"], python) == ["./run.sh"]


def test_traceback_locations(tmp_path):
    run = RunResult("AFTER", "py", [], 1, 1.0, tmp_path, tmp_path, [], [
        "Traceback (most recent call last):",
        f'  File "{tmp_path}/sample/model.py", line 15, in grid_features',
        '  File "/usr/lib/python3.12/runpy.py", line 3, in x',
        "AttributeError: 'tuple' object has no attribute 'append'",
    ])
    assert traceback_locations(run) == [("sample/model.py", 15)]
    assert run.last_error_line() == "AttributeError: 'tuple' object has no attribute 'append'"


def test_jax202_sites_watch_their_indices_argument():
    from jaxlint.verify.witnesses import describe, witness_span

    text = "y = jnp.take_along_axis(x, idx[::-1], axis=0, wrap_negative_indices=None)\n"
    span = (text.index("jnp"), text.index("\n"))
    start, end = witness_span(text, "JAX202", span)
    assert text[start:end] == "idx[::-1]"
    by_keyword = "y = jnp.take_along_axis(x, axis=0, indices=jnp.stack([i - 2,\n    i]))\n"
    span = (by_keyword.index("jnp"), len(by_keyword) - 1)
    start, end = witness_span(by_keyword, "JAX202", span)
    assert by_keyword[start:end] == "jnp.stack([i - 2,\n    i])"
    assert witness_span(text, "JAX101", span) is None
    assert describe("JAX202", {"seen": True, "checked": 2}, True).endswith("yes (a negative index reached the call)")
    assert "NO (no negative index reached the call in 3 call(s)" in describe("JAX202", {"seen": False, "checked": 3},
                                                                             True)
    assert describe("JAX204", None, True) == "behaviour-relevant inputs seen: yes (the None argument is written in " \
                                              "the call)"
    assert describe("JAX201", None, True) is None


def test_a_read_only_project_is_instrumented_in_writable_copies(tmp_path):
    # The user's files may be read-only (a vendored tree, a checkout owned by CI); the copies are jaxlint's own.
    project = tmp_path / "project"
    shutil.copytree(SAMPLE, project)
    for folder, _, names in os.walk(project):
        for path in [folder, *(os.path.join(folder, name) for name in names)]:
            os.chmod(path, os.stat(path).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        plan = make_plan([project / "sample"], SettingsResolver(Overrides()), project)
        trees = prepare_trees(plan, tmp_path / "work")
        instrumented = (trees.before / "sample" / "model.py").read_text()
        assert "_jaxlint_probe" in instrumented
        assert os.access(trees.after / "sample" / "model.py", os.W_OK)
    finally:
        for folder, _, names in os.walk(project):
            for path in [folder, *(os.path.join(folder, name) for name in names)]:
                os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)
