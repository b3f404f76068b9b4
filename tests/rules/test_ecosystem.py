"""The ecosystem rules (JAX5xx) read the project's own flax/optax pins: the lowest lower bound decides which fixes
are offered, an upper bound below a change silences the rule about it; the pins are read as jax's are."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jaxlint.project.pins import library_of, lower_bound, upper_bound
from jaxlint.project.version_pins import ProjectPins
from jaxlint.project.versions import Version
from tests.cli.test_cli import run

POP = "import flax\nvariables = model.init(rng, x)\nstate, params = variables.pop('params')\n"
POP_FIXED = "import flax\nvariables = model.init(rng, x)\nstate, params = flax.core.pop(variables, 'params')\n"
AWD = "import optax\ntx = optax.additive_weight_decay(1e-4)\n"
AWD_FIXED = "import optax\ntx = optax.add_decayed_weights(1e-4)\n"
DPSGD = "import optax\ntx = optax.dpsgd(0.1, 1.0, 1.1, 0)\n"
DPSGD_FIXED = "import optax\ntx = optax.contrib.dpsgd(0.1, 1.0, 1.1, 0)\n"


def project(root: Path, requirements: str, source: str) -> Path:
    (root / "requirements.txt").write_text("jax>=0.4.30\n" + requirements)  # jax's pins make the folder a package
    (root / "a.py").write_text(source)
    return root / "a.py"


def findings(root: Path, *args: str) -> list[dict]:
    result = run(["--output-format", "json", "--no-cache", *args], root)
    return json.loads(result.output)


# -- the pins --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line,package,lower,upper", [
    ("flax>=0.6.3,<0.8", "flax", "0.6.3", "0.8"),
    ("optax==0.1.4", "optax", "0.1.4", "0.1.4"),
    ("flax[all] ~= 0.7.5", "flax", "0.7.5", "0.8"),
    ("flaxmodels>=1.0", "flax", None, None),
    ("jax>=0.4.6", "flax", None, None),
])
def test_library_bounds(line, package, lower, upper):
    assert lower_bound(line, package) == (Version(lower) if lower else None)
    assert upper_bound(line, package) == (Version(upper) if upper else None)


def test_library_of_tells_jax_flax_and_optax_apart():
    assert [library_of(line) for line in ("flax>=0.7", "optax", "jax>=0.4", "flaxmodels")] == \
        ["flax", "optax", None, None]


def test_a_package_range_carries_the_libraries_lowest_bounds(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["jax>=0.4.30", "flax>=0.7.5", "optax"]\n')
    (tmp_path / "requirements-min.txt").write_text("flax==0.6.11\noptax>=0.1.7,<0.2\n")
    pinned = ProjectPins(tmp_path).for_directory(tmp_path)
    flax_lower, flax_upper = pinned.library("flax")
    optax_lower, optax_upper = pinned.library("optax")
    assert (flax_lower.version, flax_lower.where, flax_upper) == (Version("0.6.11"), "requirements-min.txt:1", None)
    assert (optax_lower.version, optax_upper) == (Version("0.1.7"), None)  # pyproject leaves optax open above
    assert pinned.lower.version == Version("0.4.30")


def test_a_folder_pinning_only_flax_is_not_a_package(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("jax>=0.4.30\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "requirements.txt").write_text("flax>=0.8\n")
    assert ProjectPins(tmp_path).for_directory(tmp_path / "docs").package == tmp_path


def test_show_settings_names_the_library_pins(tmp_path):
    project(tmp_path, "flax>=0.6.11,<0.8\n", "")
    output = run(["--show-settings"], tmp_path).output
    assert "library pins:   flax >=0.6.11 (requirements.txt:2), <0.8 (requirements.txt:2); " \
           "optax not pinned: assuming 0.2.8" in output


# -- JAX503 by the flax range ------------------------------------------------------------------------------------
def test_pop_is_fixed_when_flax_core_pop_exists_at_the_min(tmp_path):
    path = project(tmp_path, "flax>=0.7.5\n", POP)
    run(["--fix", "--no-cache", "--select", "JAX503"], tmp_path)
    assert path.read_text() == POP_FIXED


def test_pop_fix_is_withheld_below_flax_core_pop(tmp_path):
    path = project(tmp_path, "flax>=0.6.0\n", POP)
    (found,) = findings(tmp_path, "--select", "JAX503")
    assert found["fix"] is None and "0.6.11" in found["fix_withheld"]["reason"]
    run(["--fix", "--no-cache", "--select", "JAX503"], tmp_path)
    assert path.read_text() == POP


def test_pop_is_not_reported_when_flax_stays_below_0_7_1(tmp_path):
    project(tmp_path, "flax>=0.6.11,<0.7.1\n", POP)
    assert findings(tmp_path, "--select", "JAX503") == []


# -- JAX502 by the optax range -----------------------------------------------------------------------------------
def test_optax_rename_offered_from_the_replacements_release(tmp_path):
    path = project(tmp_path, "optax>=0.1.8\n", DPSGD)
    run(["--fix", "--no-cache", "--select", "JAX502"], tmp_path)
    assert path.read_text() == DPSGD_FIXED


def test_optax_rename_withheld_below_the_replacements_release(tmp_path):
    path = project(tmp_path, "optax>=0.1.7\n", DPSGD)
    (found,) = findings(tmp_path, "--select", "JAX502")
    assert found["fix"] is None and "0.1.8" in found["fix_withheld"]["reason"]
    run(["--fix", "--no-cache", "--select", "JAX502"], tmp_path)
    assert path.read_text() == DPSGD


def test_optax_alias_fixed_on_every_pinned_release(tmp_path):
    path = project(tmp_path, "optax>=0.0.9\n", AWD)
    run(["--fix", "--no-cache", "--select", "JAX502"], tmp_path)
    assert path.read_text() == AWD_FIXED
    assert run(["--fix", "--no-cache", "--select", "JAX502"], tmp_path).exit_code == 0  # idempotent
    assert path.read_text() == AWD_FIXED


@pytest.mark.parametrize("pin,source,fixed,words", [
    # rows generated from the wheels (rules/ecosystem_generated.toml), not in the hand-written table
    ("optax>=0.0.3", "import optax\nT = optax.InitUpdate\n", "import optax\nT = optax.GradientTransformation\n",
     "removed in optax 0.0.3"),
    ("optax>=0.1.0", "import optax\ntx = optax.scale_by_fromage()\n", None, "removed in optax 0.0.3"),
    ("optax>=0.2.5", "import optax\ntx = optax.optimistic_adam(1e-3)\n", None, "optax.optimistic_adam_v2"),
])
def test_generated_optax_rows_are_reported(tmp_path, pin, source, fixed, words):
    path = project(tmp_path, pin + "\n", source)
    (found,) = findings(tmp_path, "--select", "JAX502")
    assert words in found["message"] + (found.get("fix", {}) or {}).get("message", "")
    run(["--fix", "--no-cache", "--select", "JAX502"], tmp_path)
    assert path.read_text() == (fixed or source)


# -- on by default, only where the project uses the library -------------------------------------------------
def test_ecosystem_rules_are_on_by_default(tmp_path):
    (tmp_path / "a.py").write_text("from flax import optim\n" + AWD)
    assert sorted(f["code"] for f in findings(tmp_path)) == ["JAX501", "JAX502"]


def test_files_without_flax_or_optax_are_not_reported(tmp_path):
    (tmp_path / "a.py").write_text("import mylib as optax\ntx = optax.additive_weight_decay(1)\n"
                                   "variables = model.init(rng, x)\nstate, params = variables.pop('params')\n")
    assert findings(tmp_path) == []


@pytest.mark.parametrize("code,source,kept", [
    ("JAX503", "import flax\nx = flax.linen.Dense(3)\n", False),  # flax, but no `.pop` and no `.init`
    ("JAX503", "import flax\nvariables = model.init(rng, x)\n", False),  # no `.pop`
    ("JAX503", "import flax\nrest, params = variables.pop('params')\n", False),  # no `.init`
    ("JAX503", "import flax\nv = m.init(r, x)\nrest, params = v.pop('params')\n", True),
    ("JAX503", "import flax\n_, v = m.init_with_output(r, x)\nrest, params = v . pop ('params')\n", True),
    # the words are there, but as flax's own function (the fix's spelling), which the ast gate passes over too
    ("JAX504", "import flax\nv = m.init(r, x)\nx = flax.core.unfreeze(v)\n", False),
    ("JAX504", "import flax\nv = m.init(r, x)\nx = flax.core.unfreeze(v)\ny = v.unfreeze()\n", True),
    ("JAX504", "import flax\nv = frozen.unfreeze()\n", False),  # no `.init`
])
def test_flax_init_rules_text_gate(code, source, kept):
    """JAX503/JAX504's text gate: the method and `init` (or `init_with_output`) are words of the file, or the file
    does not reach the ast gate (before it, every file that spelled `flax` did: 378 of 661 corpus files)."""
    from jaxlint.lint.text_gate import TextFacts
    from jaxlint.rules import rule_by_code

    words = set(re.findall(r"\w+", source))
    assert rule_by_code(code).may_match_text(TextFacts(source), words) is kept
