"""Every fix proven at the bottom of its range, by execution: one generated check over every fix kind.

For each fix (a catalogue rename row, a keyword rename row, a hand-written rewrite's ``FLOORS`` entry, a
``CALL_LIMITS`` entry) the replacement must exist, or the keyword be accepted, at the oldest release the fix claims.
That is run on the oldest installed release at or above the claim (``PROBE_RELEASES``: 0.4.13 is the oldest with a
wheel that installs here, on Python 3.10); a claim below 0.4.13 comes from JAX's wheels and changelog (the fix is
withheld below it) and is executed at 0.4.13. All probes of one release run in one subprocess. The runnable rule
examples' fixed files also import and run at the bottom of their range.
"""
from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

from jaxlint.catalogue import load
from jaxlint.catalogue.floors import CALL_LIMITS, FLOORS, POSITIONS
from jaxlint.project.versions import Version
from jaxlint.verify.rule_examples import COMMON, INPUTS, runnable_examples
from support.jaxenv import GET_DOTTED, jax_python, old_jax_python

pytestmark = pytest.mark.jax

CAT = load()
# The releases probed, oldest first: (version, the Python minor an old release needs, or None for 3.12).
PROBE_RELEASES = (("0.4.13", "3.10"), ("0.4.20", "3.12"), ("0.10.2", None), (CAT.newest_version, None))
OLDEST_INSTALLABLE = PROBE_RELEASES[0][0]
# Replacements in modules that need hardware-specific extras (as tests/catalogue/test_execution.py).
OPTIONAL_PREFIXES = ("jax.experimental.mosaic", "jax.experimental.pallas")
# Keyword rows that execution here cannot reach, each with why (not counted as proven):
NOT_PROBED = {
    # modules that import an optional dependency (TensorFlow, tensorstore, xprof)
    "jax.experimental.jax2tf.convert": "needs tensorflow",
    "jax.experimental.jax2tf.jax2tf.convert": "needs tensorflow",
    "jax.experimental.array_serialization.tensorstore_impl.get_tensorstore_spec": "needs tensorstore",
    "jax.collect_profile.main": "needs tensorflow/xprof",
    # ``lu.transformation`` wrappers: inspect.signature shows the wrapper's (fun, gen_static_args, ...)
    "jax.api_util.flatten_fun": "a linear_util transformation",
    "jax.interpreters.batching.batch_subtrace": "a linear_util transformation",
}

PROBE = r"""
import importlib, inspect, json, sys, traceback, warnings
warnings.simplefilter("ignore")
""" + GET_DOTTED + r"""def accepts(function, keyword):
    params = inspect.signature(get(function)).parameters
    assert keyword in params or any(p.kind is p.VAR_KEYWORD for p in params.values()), sorted(params)
failed = {}
for key, kind, payload in json.load(sys.stdin):
    try:
        if kind == "name":
            get(payload)
        elif kind == "keyword":
            accepts(*payload)
        else:
            exec(payload, {})
    except BaseException as exc:
        failed[key] = repr(exc)[:300]
print(json.dumps(failed))
"""


def python_for(version: str, minor: str | None):
    return old_jax_python(version, minor) if minor else jax_python(version)


def fixes() -> list[tuple[str, str, str, object]]:
    """(key, claimed first release, probe kind, payload) for every fix jaxlint can write."""
    out = []
    for entry in CAT.entries:
        if entry.kind == "config":
            continue
        for name, since in entry.fix_candidates():
            if not name.startswith(OPTIONAL_PREFIXES):
                out.append((f"{entry.kind} {entry.name} -> {name}", since, "name", name))
    for row in CAT.parameters:
        if row.change == "renamed" and row.replacement and row.replacement_since and row.name not in NOT_PROBED \
                and not row.name.startswith(OPTIONAL_PREFIXES):
            out.append((f"keyword {row.name}({row.parameter}=) -> {row.replacement}=", row.replacement_since,
                        "keyword", [row.name, row.replacement]))
    for key, floor in FLOORS.items():
        out.append((f"rewrite {key}", floor.since, "code", floor.probe))
    for name, limit in CALL_LIMITS.items():
        out.append((f"call {name}", limit.since, "code", limit.probe))
    for name, positions in POSITIONS.items():
        out.append((f"by position {name}", positions.since, "code", positions.probe))
    return out


def probe_release(since: str) -> tuple[str, str | None]:
    """The oldest probed release at or above ``since`` (0.4.13 for a claim below every installable release)."""
    return next((v, m) for v, m in PROBE_RELEASES if Version(v) >= Version(since))


def counts() -> dict[str, int]:
    """How many fixes; proven at exactly their claimed release; at the next installed one; claims below 0.4.13."""
    result = {"fixes": 0, "exact": 0, "above": 0, "below_installable": 0}
    for _, since, _, _ in fixes():
        result["fixes"] += 1
        version, _ = probe_release(since)
        if Version(since) < Version(OLDEST_INSTALLABLE):
            result["below_installable"] += 1
        elif Version(version) == Version(since):
            result["exact"] += 1
        else:
            result["above"] += 1
    return result


def run_probes(version: str, minor: str | None, probes: list) -> dict[str, str]:
    proc = subprocess.run([str(python_for(version, minor)), "-c", PROBE], input=json.dumps(probes),
                          capture_output=True, text=True, timeout=600, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_fixes_are_counted():
    numbers = counts()
    assert numbers["fixes"] == numbers["exact"] + numbers["above"] + numbers["below_installable"] > 150


@pytest.mark.parametrize("version,minor", PROBE_RELEASES)
def test_every_fix_exists_at_the_bottom_of_its_claimed_range(version, minor):
    probes = [[key, kind, payload] for key, since, kind, payload in fixes() if probe_release(since)[0] == version]
    if not probes:
        pytest.skip(f"no fix claims {version} as the bottom of its range")
    assert run_probes(version, minor, probes) == {}


def test_the_claims_below_the_oldest_installable_release_come_from_the_release_data():
    # Below 0.4.13 nothing installs: every such claim is a release JAX published, read in its wheels or changelog.
    for key, since, _, _ in fixes():
        if Version(since) < Version(OLDEST_INSTALLABLE):
            assert since in CAT.versions, key


DRIVER = """
import importlib, sys, traceback
sys.path.insert(0, sys.argv[1])
failed = []
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
    except BaseException:
        failed.append(name + ": " + traceback.format_exc(limit=1)[-300:])
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


@pytest.mark.parametrize("version,minor", PROBE_RELEASES)
def test_runnable_examples_fixed_run_at_the_bottom_of_their_range(version, minor, tmp_path):
    names = []
    for item in runnable_examples():
        example = item.example
        bottom = example.min_version or example.target_version or CAT.newest_version
        if probe_release(bottom)[0] != version or Version(bottom) < Version(OLDEST_INSTALLABLE):
            continue
        source = example.fixed if example.fixed is not None else example.unsafe_fixed
        (tmp_path / f"{item.module}.py").write_text(COMMON + INPUTS.get(item.rule.code, "") + textwrap.dedent(source))
        names.append(item.module)
    if not names:
        pytest.skip(f"no runnable example has {version} at the bottom of its range")
    proc = subprocess.run([str(python_for(version, minor)), "-W", "ignore", "-c", DRIVER, str(tmp_path), *names],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
