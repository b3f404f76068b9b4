#!/usr/bin/env python3
"""Run every flax/optax name the catalogue calls deprecated, and record whether the release warns by default.

A name is deprecated for JAX502/JAX506 only where the release really warns when a program uses it under default
settings (issue 35: ``flax.training.checkpoints.save_checkpoint`` warns only when ``flax_use_orbax_checkpointing`` is
off, and that flag is on by default in flax 0.6.7 and from 0.6.11). For each deprecated row of
``rules/ecosystem_generated.toml`` and of the hand-written optax table, this tool runs the name's minimal use
(``CHECKS``: an access for a ``_deprecations`` table row, a call for a function whose body warns) in a fresh
interpreter of each environment in ``ENVIRONMENTS`` that has the library, with ``warnings.simplefilter("default")``
and the library's default configuration, and records whether a ``DeprecationWarning``, ``PendingDeprecationWarning``
or ``FutureWarning`` was emitted during the use (imports happen before, so their own warnings do not count). A row
with a ``condition`` is run a second time under it, to prove the warning exists there.

The results go to ``rules/ecosystem_warnings.toml`` (``--write``), which the rules read: ``warns_by_default`` is the
answer on the newest release (``checked_on``), ``checked`` the answer per release that ran. Without ``--write`` the
tool compares with the recorded file and exits 1 on a difference.

Usage: ``JAXLINT_JAXENVS=/work/jaxenvs-shared python tools/check_deprecation_warnings.py [--write]``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
DEFAULT_FILE = REPO / "rules" / "ecosystem_warnings.toml"
WARNING_CATEGORIES = ("DeprecationWarning", "PendingDeprecationWarning", "FutureWarning")


@dataclass(frozen=True)
class Check:
    """How to use one deprecated name minimally: ``setup`` imports (its warnings do not count), ``use`` touches the
    name. ``condition`` is the setting under which the release warns when it does not by default, and
    ``condition_setup`` the code that turns it on (run after ``setup``)."""

    setup: str
    use: str
    condition: str = ""
    condition_setup: str = ""


_CHECKPOINT_SETUP = "import tempfile, numpy as np, flax\nfrom flax.training import checkpoints\nd = tempfile.mkdtemp()"
_ORBAX_OFF = ("only when flax_use_orbax_checkpointing is False (the default is True in flax 0.6.7 and from 0.6.11; "
              "the legacy msgpack writer warns, the Orbax one does not)")
_OPTAX = "import jax.numpy as jnp, optax"

CHECKS: dict[str, Check] = {
    "flax.jax_utils.pmean": Check(
        "import jax, jax.numpy as jnp\nfrom flax import jax_utils",
        "jax.vmap(lambda x: jax_utils.pmean(x, 'i'), axis_name='i')(jnp.ones((2,)))"),
    "flax.nnx.VariableState": Check("from flax import nnx", "nnx.VariableState"),
    "flax.training.checkpoints.save_checkpoint": Check(
        _CHECKPOINT_SETUP, "checkpoints.save_checkpoint(d, {'a': np.ones(2)}, 0)",
        _ORBAX_OFF, "flax.config.update('flax_use_orbax_checkpointing', False)"),
    "flax.training.checkpoints.save_checkpoint_multiprocess": Check(
        _CHECKPOINT_SETUP, "checkpoints.save_checkpoint_multiprocess(d, {'a': np.ones(2)}, 0)",
        _ORBAX_OFF, "flax.config.update('flax_use_orbax_checkpointing', False)"),
    "flax.training.prefetch_iterator.PrefetchIterator": Check(
        "from flax.training.prefetch_iterator import PrefetchIterator",
        "it = PrefetchIterator(iter([1, 2]), 1); next(it); it.close()"),
    "optax.DifferentiallyPrivateAggregateState": Check(_OPTAX, "optax.DifferentiallyPrivateAggregateState"),
    "optax.differentially_private_aggregate": Check(_OPTAX, "optax.differentially_private_aggregate"),
    "optax.dpsgd": Check(_OPTAX, "optax.dpsgd"),
    "optax.global_norm": Check(_OPTAX, "optax.global_norm({'a': jnp.ones(2)})"),
    "optax.inject_stateful_hyperparams": Check(_OPTAX, "optax.inject_stateful_hyperparams(optax.sgd)(0.1)"),
    "optax.optimistic_adam": Check(_OPTAX, "optax.optimistic_adam(0.1)"),
    "optax.schedules.inject_stateful_hyperparams": Check(
        _OPTAX, "optax.schedules.inject_stateful_hyperparams(optax.sgd)(0.1)"),
    **{f"optax.tree_utils.{name}": Check(_OPTAX, f"optax.tree_utils.{name}")
       for name in ("tree_add_scalar_mul", "tree_l1_norm", "tree_l2_norm", "tree_linf_norm", "tree_scalar_mul")},
}


@dataclass(frozen=True)
class Environment:
    """A folder under ``$JAXLINT_JAXENVS`` (its ``bin/python``), optionally with ``overlay``, folders (``a:b``) of
    ``pip install --no-deps --target`` packages put first on ``sys.path`` (another flax or optax on the same JAX)."""

    folder: str
    libraries: dict[str, str]  # library -> its release in this environment
    overlay: str = ""


# The newest releases (the answer the rules read) and, for each ``since`` release, the release itself where it
# installs (flax 0.6.7 and 0.6.8 on the shared JAX 0.4.13, Python 3.10, with orbax-checkpoint 0.2.7: the flax of
# that time imports ``jax.ShapedArray``, gone from JAX 0.4.14; the older ``since`` of pmean (0.1.0) and
# PrefetchIterator (0.3.0) do not install: flax 0.6.7 is their oldest check). A name runs on the releases from its
# ``since`` up. The overlays: ``pip install --no-deps --only-binary=:all: --target`` of the library (and, for flax
# 0.6.8, orbax-checkpoint==0.2.7, protobuf<5, msgpack, rich, pyyaml, typing_extensions, absl-py, etils, ...).
NEWEST = Environment("warns-flax-0.12.12-optax-0.2.8-jax-0.12.0.1", {"flax": "0.12.12", "optax": "0.2.8"})
OLD_FLAX = Environment("jax-0.4.13", {"flax": "0.6.8"}, overlay="warns-overlays/flax-0.6.8-py310")
# optax 0.1.9 and 0.2.3 on JAX 0.4.20 (that folder's flax 0.6.8 does not import there: only its optax is used).
OLD_OPTAX = Environment("warns-flax-0.6.8-jax-0.4.20", {"optax": "0.1.9"})
MIDDLE = Environment("warns-flax-0.12.1-optax-0.2.7", {"flax": "0.12.1", "optax": "0.2.7"})
ENVIRONMENTS = (
    Environment(OLD_FLAX.folder, {"flax": "0.6.7"}, overlay=f"warns-overlays/flax-0.6.7:{OLD_FLAX.overlay}"),
    OLD_FLAX,
    OLD_OPTAX,
    Environment(OLD_OPTAX.folder, {"optax": "0.2.3"}, overlay="warns-overlays/optax-0.2.3"),
    Environment(MIDDLE.folder, {"optax": "0.2.5"}, overlay="warns-overlays/optax-0.2.5"),
    MIDDLE,
    NEWEST,
)

# Runs in the environment: the setup, then the use under catch_warnings; prints one JSON line.
_RUNNER = r'''
import json, sys, warnings
setup, use = sys.argv[1], sys.argv[2]
namespace = {}
warnings.simplefilter("default")
try:
    exec(setup, namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        exec(use, namespace)
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"[:300]}))
    raise SystemExit(0)
print(json.dumps({"warnings": [[w.category.__name__, str(w.message)[:200]] for w in caught]}))
'''


def run(env_root: Path, environment: Environment, setup: str, use: str) -> dict:
    """What the use emitted (``{"warnings": [[category, message], ...]}``) or why it could not run
    (``{"error": ...}``)."""
    env = {"JAX_PLATFORMS": "cpu", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    if environment.overlay:
        env["PYTHONPATH"] = ":".join(str(env_root / part) for part in environment.overlay.split(":"))
    python = env_root / environment.folder / "bin" / "python"
    proc = subprocess.run([str(python), "-c", _RUNNER, setup, use], capture_output=True, text=True, env=env,
                          timeout=300)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": ((proc.stderr.strip().splitlines() or ["?"])[-1])[:300]}
    return json.loads(lines[-1])


def deprecation_warned(result: dict) -> bool | None:
    """Whether a deprecation-like warning was emitted; None when the use failed."""
    if "error" in result:
        return None
    return any(category in WARNING_CATEGORIES for category, _ in result["warnings"])


def deprecated_names() -> dict[str, tuple[str, str]]:
    """Every name JAX502/JAX506 would read as deprecated (generated and hand-written rows, before the warning data
    filters them): name -> (library, the release it is deprecated since)."""
    from jaxlint.catalogue.ecosystem_generated import rows
    from jaxlint.catalogue.ecosystem import HAND_WRITTEN_OPTAX

    names = {row.name: (row.library, row.since) for row in rows()
             if row.kind == "symbol" and row.status == "deprecated"}
    names.update({name: ("optax", change.since) for name, change in HAND_WRITTEN_OPTAX.items()
                  if change.status == "deprecated"})
    return names


def check_all(env_root: Path) -> tuple[list[dict], list[str]]:
    """One record per deprecated name, and the problems (a name without a ``Check``, a use that failed)."""
    records, problems = [], []
    from jaxlint.project.versions import Version

    for name, (library, since) in sorted(deprecated_names().items()):
        check = CHECKS.get(name)
        if check is None:
            problems.append(f"{name}: no Check: add its minimal use to CHECKS")
            continue
        checked: dict[str, bool] = {}
        messages: list[str] = []
        for environment in ENVIRONMENTS:
            release = environment.libraries.get(library)
            built = env_root / environment.folder / ".complete"  # written once pip finished
            if release is None or Version(release) < Version(since) or not built.exists() or \
                    not all((env_root / part).is_dir() for part in environment.overlay.split(":") if part):
                continue
            result = run(env_root, environment, check.setup, check.use)
            warned = deprecation_warned(result)
            print(f"{name} on {library} {release}: {result}")
            if warned is None:
                problems.append(f"{name} on {library} {release}: {result['error']}")
                continue
            checked[release] = warned
            if environment is NEWEST:
                messages = [message for category, message in result["warnings"] if category in WARNING_CATEGORIES]
        newest = NEWEST.libraries[library]
        if newest not in checked:
            problems.append(f"{name}: not checked on {library} {newest}")
            continue
        record = {"name": name, "library": library, "warns_by_default": checked[newest],
                  "checked_on": f"{library} {newest}", "checked": checked, "use": check.use}
        if messages:
            record["message"] = messages[0]
        if check.condition:
            result = run(env_root, NEWEST, check.setup + "\n" + check.condition_setup, check.use)
            record["condition"] = check.condition
            record["warns_under_condition"] = bool(deprecation_warned(result))
            print(f"{name} on {library} {newest} under the condition: {result}")
        records.append(record)
    return records, problems


def _value(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def render(records: list[dict]) -> str:
    lines = ["# Written by tools/check_deprecation_warnings.py --write: whether each deprecated flax/optax name warns",
             "# under default settings, by execution. Read by jaxlint.catalogue.ecosystem_warnings; do not edit.",
             "# Runner: warnings.simplefilter('default'), the library's default config; "
             + ", ".join(WARNING_CATEGORIES),
             "# emitted by `use` count. `checked`: release -> warned."]
    for record in records:
        lines += ["", "[[deprecation]]"] + [f"{key} = {_value(value)}" for key, value in record.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--envs", type=Path, default=Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs")))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    records, problems = check_all(args.envs)
    warns = sum(record["warns_by_default"] for record in records)
    print(f"{len(records)} rows checked: {warns} warn by default, {len(records) - warns} do not")
    if args.write:
        args.file.write_text(render(records))
    elif args.file.is_file():
        recorded = tomllib.loads(args.file.read_text()).get("deprecation", [])
        if recorded != records:
            problems.append(f"{args.file} differs from this run (rerun with --write)")
    print("\n".join(problems) or "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
