"""The removed members of the ``jax.config`` object (rules/objects_generated.toml), reported by JAX101 through every
path to the object, and their execution records (rules/objects_confirmed.toml, tools/catalogue_gen/object_check.py).

What still works at 0.12.0.1 (executed in the jax-0.4.20 and jax-0.12.0.1 venvs, 2026-12-06: ``read``, ``_read``,
``values[...]``, ``x64_enabled``, ``jax_enable_x64``, ``update``, ``config_with_absl``, ``parse_flags_with_absl``,
``complete_absl_config``, ``add_option`` are attributes of both releases' ``Config``) stays silent."""
from __future__ import annotations

import json
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from jaxlint.catalogue import OBJECTS
from tests.cli.test_cli import run

ROOT = Path(__file__).resolve().parents[2]
CONFIRMED = ROOT / "rules" / "objects_confirmed.toml"
RANGE = ["--min-version", "0.4.13", "--target-version", "0.12.0.1"]


def findings(tmp_path: Path, source: str) -> list[tuple[int, int, str]]:
    (tmp_path / "a.py").write_text(textwrap.dedent(source))
    result = run(["--output-format", "json", "--no-cache", "--select", "JAX101,JAX102", *RANGE], tmp_path)
    return [(f["location"]["row"], f["location"]["column"], f["message"]) for f in json.loads(result.output)
            if f["filename"].endswith("a.py")]


DEFINE = "`jax.config.define_bool_state` was removed in JAX 0.4.25"
FLAGS = "`jax.config.FLAGS` was removed in JAX 0.4.20"


@pytest.mark.parametrize("source,expected", [
    ("import jax\njax.config.define_bool_state('jax_x', True, 'h')\n", [(2, 1, DEFINE)]),
    ("import jax as j\nx = j.config.FLAGS\n", [(2, 5, FLAGS)]),
    ("from jax import config\nconfig.define_bool_state('jax_x', True, 'h')\n", [(2, 1, DEFINE)]),
    ("from jax import config as c\nc.FLAGS.jax_enable_x64\n", [(2, 1, FLAGS)]),
    # the old home of the object: the import is reported (with its fix) and so is the member
    ("from jax.config import config as cfg\ncfg.define_bool_state('jax_x', True, 'h')\n",
     [(1, 1, "`jax.config.config` was removed in JAX 0.4.25; use `jax.config`"), (2, 1, DEFINE)]),
    ("from jax._src.config import config as cfg\ncfg.FLAGS\n", [(2, 1, FLAGS)]),
    ("import jax.config\njax.config.config.define_bool_state('jax_x', True, 'h')\n",
     [(1, 1, "`jax.config` was removed in JAX 0.4.29"), (2, 1, DEFINE)]),
])
def test_removed_members_are_reported_through_every_path_to_the_object(tmp_path, source, expected):
    assert findings(tmp_path, source) == expected


@pytest.mark.parametrize("source", [
    "import jax\njax.config.update('jax_enable_x64', True)\n",
    "import jax\nx = jax.config.jax_enable_x64\n",
    "import jax\nx = jax.config.read('jax_enable_x64')\n",
    "import jax\nx = jax.config._read('jax_enable_x64')\n",
    "import jax\nx = jax.config.values['jax_enable_x64']\n",
    "import jax\nx = jax.config.x64_enabled\n",
    "from jax import config\nconfig.config_with_absl()\n",
    "import jax\njax.config.parse_flags_with_absl()\n",
    "from jax._src.config import config as cfg\ncfg.update('jax_enable_x64', True)\nx = cfg.read('jax_enable_x64')\n",
    "from mylib.config import config\nconfig.define_bool_state('x', True, 'h')\nconfig.FLAGS\n",
])
def test_members_the_newest_release_still_has_stay_silent(tmp_path, source):
    assert findings(tmp_path, source) == []


# -- the execution records -----------------------------------------------------------------------------------------
def _records() -> dict[str, dict]:
    with open(CONFIRMED, "rb") as handle:
        return {row["name"]: row for row in tomllib.load(handle)["row"]}


def _rows() -> list[dict]:
    with open(OBJECTS, "rb") as handle:
        data = tomllib.load(handle)
    return [row for kind in ("symbol", "module") for row in data.get(kind, [])]


def test_every_object_row_has_an_execution_record_and_none_is_contradicted():
    records = _records()
    rows = _rows()
    assert sorted(records) == sorted(row["name"] for row in rows)
    for row in rows:
        record = records[row["name"]]
        assert (record["last_seen"], record["removed_in"]) == (row["last_seen"], row["removed_in"]), row["name"]
        assert record["outcome"] in ("confirmed", "unreadable", "no venv"), record
        if record["outcome"] == "confirmed":
            assert record["evidence"].count(": present;") == 1 and ": absent: " in record["evidence"], record


def test_the_config_rows_of_the_wheel_era_are_confirmed_on_both_sides():
    # 0.4.19/0.4.20 (FLAGS) and 0.4.24/0.4.25 (define_*_state, DEFINE_*, check_exists): both sides installable
    records = _records()
    wheel_era = [name for name, record in records.items()
                 if name.startswith("jax.config.") and record["removed_in"] in ("0.4.20", "0.4.25")]
    assert len(wheel_era) == 13
    assert all(records[name]["outcome"] == "confirmed" for name in wheel_era), wheel_era


# -- executed here, in the venvs of both sides ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["jax.config.FLAGS", "jax.config.define_bool_state", "jax.config.check_exists"])
def test_config_rows_hold_on_both_sides(name):
    from tests.support.jaxenv import ENVS, jax_python

    sys.path.insert(0, str(ROOT / "tools"))
    from catalogue_gen.object_check import check

    row = next(row for row in _rows() if row["name"] == name)
    for version in (row["last_seen"], row["removed_in"]):
        jax_python(version)  # built on first use
    (record,) = check([dict(row, kind="symbol")], ENVS)
    assert record["outcome"] == "confirmed", record


@pytest.mark.slow
@pytest.mark.parametrize("name", ["jaxlib.xla_extension", "jaxlib.xla_client.ops"])
def test_jaxlib_rows_hold_on_both_sides(name):
    from tests.support.jaxenv import ENVS, jax_python

    sys.path.insert(0, str(ROOT / "tools"))
    from catalogue_gen.object_check import BASES, check

    for base in BASES.values():  # the venvs the jaxlib wheels are read on
        jax_python(base.removeprefix("jax-"))
    row = next(dict(row, kind=kind) for kind in ("symbol", "module")
               for row in tomllib.load(open(OBJECTS, "rb")).get(kind, []) if row["name"] == name)
    (record,) = check([row], ENVS)
    assert record["outcome"] == "confirmed", record


def test_the_checker_judges_each_row_by_its_two_sides(monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    import catalogue_gen.object_check as object_check

    answers = {("0.4.24", True): {"jax.config.a": "present", "jax.config.b": "present"},
               ("0.4.25", True): {"jax.config.a": "absent: jax.config has no attribute a", "jax.config.b": "present"},
               ("0.6.0", False): {"jaxlib.m": "present", "jaxlib.t": "error: ImportError: triton"},
               ("0.6.1", False): {"jaxlib.m": "absent: no module", "jaxlib.t": "absent: no module"}}
    monkeypatch.setattr(object_check, "answers_at", lambda envs, version, request, config: (
        (answers[(version, config)], f"at {version}") if (version, config) in answers else (None, f"none {version}")))
    rows = [{"name": "jax.config.a", "kind": "symbol", "last_seen": "0.4.24", "removed_in": "0.4.25"},
            {"name": "jax.config.b", "kind": "symbol", "last_seen": "0.4.24", "removed_in": "0.4.25"},
            {"name": "jaxlib.m", "kind": "module", "last_seen": "0.6.0", "removed_in": "0.6.1"},
            {"name": "jaxlib.t", "kind": "module", "last_seen": "0.6.0", "removed_in": "0.6.1"},
            {"name": "jax.config.c", "kind": "symbol", "last_seen": "0.2.11", "removed_in": "0.2.12"}]
    records = object_check.check(rows, Path("/nowhere"))
    assert [r["outcome"] for r in records] == ["confirmed", "contradicted", "confirmed", "unreadable", "no venv"]
    assert records[0]["evidence"] == "at 0.4.24: present; at 0.4.25: absent: jax.config has no attribute a"
    assert records[4]["evidence"] == "none 0.2.11; none 0.2.12"
    assert object_check.summary(records) == ["jax.config: 1 confirmed", "jax.config: 1 contradicted",
                                             "jax.config: 1 no venv", "jaxlib module: 1 confirmed",
                                             "jaxlib module: 1 unreadable"]


def test_a_member_deprecated_at_the_target_is_reported_by_jax402_through_the_old_home(tmp_path):
    (tmp_path / "a.py").write_text("from jax.config import config as cfg\ncfg.define_bool_state('jax_x', True, 'h')\n")
    result = run(["--output-format", "json", "--no-cache", "--select", "JAX402", "--min-version", "0.4.13",
                  "--target-version", "0.4.22"], tmp_path)
    found = [(f["location"]["row"], f["code"], f["message"].split(":")[0]) for f in json.loads(result.output)]
    assert found == [(1, "JAX402", "`jax.config.config` is deprecated since JAX 0.4.20; use `jax.config`"),
                     (2, "JAX402", "`jax.config.define_bool_state` is deprecated since JAX 0.4.20")]
