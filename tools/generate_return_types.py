"""Write rules/return_types.toml: APIs whose result changed type, with what the old result had and the new lacks.

    JAXLINT_JAXENVS=/work/jaxenvs python tools/generate_return_types.py [--check]

Each entry of ``SPECS`` is a hand-written fact with its source (the wheels read and the changelog line); everything
else in a row is measured: the example runs in a venv with the last release before the change and in one with the
release that made it (``tests/support/jaxenv.named_env`` builds them), and each side reports its result's type,
``dir()``, whether ``result[0]`` works, whether it is a ``Mapping`` and what iterating it gives. The row's members are
the difference. A drop-in, where the spec names one, is run on both sides and must print the same value there.
``--check`` rewrites nothing and fails when the file differs from what the runs give; ``--only API...`` runs those
rows again and keeps the others as the file has them. A ``keys_example`` (binding ``keys``) runs on both sides too: a
``Class[key]`` row holds only for those keys, which must be the same on both sides.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "rules" / "return_types.toml"
sys.path.insert(0, str(REPO / "tests"))

# ``api``: the call chain whose result changed (``F()`` is what calling ``F`` returns; ``Class.method()`` what the
# method returns on an instance). ``example`` binds ``result``; ``drop_in`` (optional) is an expression of ``result``
# that gives the same value on both sides.
SPECS = [
    {
        "api": "jax.stages.Compiled.cost_analysis()",
        "library": "jax", "last_old": "0.4.38", "changed_in": "0.5.0",
        "old_env": "jax-0.4.38", "new_env": "jax-0.5.0",
        "example": "import jax, jax.numpy as jnp\n"
                   "result = jax.jit(lambda x: x @ x).lower(jnp.ones((4, 4))).compile().cost_analysis()\n",
        "source": "jax/_src/stages.py of the jax wheels: XlaExecutable.cost_analysis returns "
                  "`[xla_ext_exe.cost_analysis()]` up to 0.4.38 and the dict itself from 0.5.0; JAX's CHANGELOG.md "
                  "lists it under 0.4.38 ('XlaExecutable.cost_analysis now returns a dict[str, float]'), but the "
                  "0.4.38 wheel still returns the list (executed)",
        "advice": "from JAX 0.5.0 the result is the dict itself: where the range spans both, take `[0]` only when "
                  "it is a list (`r[0] if isinstance(r, list) else r`)",
    },
    {
        "api": "flax.nnx.State.flat_state()",
        "library": "flax", "last_old": "0.10.2", "changed_in": "0.10.3",
        "old_env": "flax-0.10.2-optax-0.2.4-jax-0.4.35", "new_env": "flax-0.10.3-optax-0.2.4-jax-0.4.35",
        "example": "from flax import nnx\n"
                   "result = nnx.state(nnx.Linear(2, 1, rngs=nnx.Rngs(0))).flat_state()\n",
        "drop_in": "sorted(dict(result))",
        "drop_in_spelling": "dict(...)",
        "source": "flax/nnx/statelib.py of the flax wheels: State.flat_state returns "
                  "`traversals.flatten_mapping(...)` (a dict) in 0.10.2 and `FlatState(...)` (a Sequence of "
                  "(path, value) pairs) from 0.10.3 (google/flax#4458)",
        "advice": "`dict(...)` of it is the old dict on both sides",
    },
    {
        "api": "optax.multi_transform().init()",
        "library": "optax", "last_old": "0.2.2", "changed_in": "0.2.3",
        "old_env": "flax-0.10.2-optax-0.2.2-jax-0.4.35", "new_env": "flax-0.10.2-optax-0.2.3-jax-0.4.35",
        "example": "import jax.numpy as jnp, optax\n"
                   "result = optax.multi_transform({'a': optax.sgd(0.1)}, {'w': 'a'}).init({'w': jnp.ones(1)})\n",
        "drop_in": "isinstance(result, optax.MultiTransformState)",
        "drop_in_spelling": "isinstance(..., optax.MultiTransformState)",
        "source": "optax/_src/combine.py of the optax wheels: multi_transform's init returns "
                  "`MultiTransformState(inner_states)` up to 0.2.2; from 0.2.3 it is `optax.transforms.partition`, "
                  "whose init returns `PartitionState`, and `MultiTransformState = _combining.PartitionState` "
                  "(google-deepmind/optax#1205)",
        "advice": "`optax.MultiTransformState` names the class on both sides (an alias of `PartitionState` from "
                  "0.2.3): test with `isinstance`",
    },
    {
        "api": "flax.nnx.State[key]",
        "library": "flax", "last_old": "0.10.7", "changed_in": "0.11.0",
        "old_env": "flax-0.10.7-optax-0.2.4-jax-0.6.0", "new_env": "flax-0.11.0-optax-0.2.4-jax-0.6.0",
        "example": "from flax import nnx\n"
                   "result = nnx.state(nnx.Linear(2, 1, rngs=nnx.Rngs(0)))['kernel']\n",
        # the keys under which a State of nnx's own layers holds a variable (not a nested State), on both sides
        "keys_example": "from flax import nnx\n"
                        "r = nnx.Rngs(0)\n"
                        "layers = [nnx.Linear(2, 1, rngs=r), nnx.LinearGeneral(2, 1, rngs=r), nnx.Conv(1, 1, (3,), "
                        "rngs=r), nnx.ConvTranspose(1, 1, (3,), rngs=r), nnx.Embed(3, 2, rngs=r), nnx.LayerNorm(2, "
                        "rngs=r), nnx.RMSNorm(2, rngs=r), nnx.BatchNorm(2, rngs=r), nnx.GroupNorm(2, num_groups=1, "
                        "rngs=r)]\n"
                        "keys = sorted({k for m in layers for k, v in nnx.state(m).items() "
                        "if not isinstance(v, nnx.State)})\n",
        "drop_in": "isinstance(result, (nnx.Variable, nnx.VariableState))",
        "drop_in_spelling": "isinstance(..., (nnx.Variable, nnx.VariableState))",
        "source": "flax/nnx/variablelib.py of the flax wheels: 0.10.7 defines `class VariableState` (with "
                  "`to_variable`), 0.11.0 has `VariableState = Variable`: `nnx.state` and "
                  "`nnx.split` return States whose leaves are the model's Variables themselves (google/flax#4800, "
                  "'[nnx] remove VariableState')",
        "advice": "the leaf is the model's own `Variable` there (a `VariableState` copy before): "
                  "`isinstance(leaf, (nnx.Variable, nnx.VariableState))` holds on both sides, `leaf.value` reads "
                  "the value on both, and writing to it now changes the model",
    },
]

PROBE = r"""
import collections.abc, importlib.metadata, json, sys
namespace = {}
exec(sys.argv[1], namespace)
result = namespace["result"]
def works(get):
    try:
        get()
        return True
    except (TypeError, KeyError, IndexError):
        return False
first = next(iter(result), None) if isinstance(result, collections.abc.Iterable) else None
drop_in = eval(sys.argv[2], namespace) if sys.argv[2] else None
print(json.dumps({
    "type": type(result).__module__ + "." + type(result).__qualname__,
    "name": type(result).__name__,
    "members": sorted(name for name in dir(result) if not name.startswith("_")),
    "index": works(lambda: result[0]),
    "key": isinstance(result, collections.abc.Mapping),
    "iterates": None if first is None else ("keys" if isinstance(result, collections.abc.Mapping)
                                           else type(first).__name__),
    "drop_in": repr(drop_in),
    "version": importlib.metadata.version(sys.argv[3]),
    "keys": (exec(sys.argv[4], keyspace := {}) or keyspace["keys"]) if sys.argv[4] else None,
}))
"""


def probe(env: str, spec: dict) -> dict:
    from support.jaxenv import named_env
    python = named_env(env)
    proc = subprocess.run([str(python), "-W", "ignore", "-c", PROBE, spec["example"], spec.get("drop_in", ""),
                           spec["library"], spec.get("keys_example", "")],
                          capture_output=True, text=True, env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"},
                          timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"{spec['api']} on {env} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def row(spec: dict) -> dict:
    old, new = probe(spec["old_env"], spec), probe(spec["new_env"], spec)
    # the two sides are the releases the row names, one each side of the change, and the results differ in type
    if (old["version"], new["version"]) != (spec["last_old"], spec["changed_in"]) or old["type"] == new["type"]:
        raise SystemExit(f"{spec['api']}: {spec['library']} {old['version']} gives {old['type']}, "
                         f"{new['version']} gives {new['type']}: not the change the spec names")
    missing = [m for m in old["members"] if m not in new["members"]]
    if old["index"] and not new["index"]:
        missing.append("[index]")
    if old["key"] and not new["key"]:
        missing.append("[key]")
    differs = []
    if old["iterates"] and old["iterates"] != new["iterates"]:  # old code cannot iterate what was not iterable
        differs.append("iteration")
    if old["name"] != new["name"]:
        differs.append("type-name")
    if "drop_in" in spec and old["drop_in"] != new["drop_in"]:
        raise SystemExit(f"{spec['api']}: the drop-in differs ({old['drop_in']} / {new['drop_in']})")
    out = {key: spec[key] for key in ("api", "library", "last_old", "changed_in", "old_env", "new_env")}
    out.update(old_type=old["type"], new_type=new["type"], old_name=old["name"], new_name=new["name"],
               old_iterates=old["iterates"] or "", new_iterates=new["iterates"] or "", missing=missing,
               differs=differs, drop_in=spec.get("drop_in_spelling", ""),
               drop_in_executed=old["drop_in"] if "drop_in" in spec else "", advice=spec["advice"],
               source=spec["source"])
    if "keys_example" in spec:
        if old["keys"] != new["keys"] or not old["keys"]:
            raise SystemExit(f"{spec['api']}: the variables' keys differ ({old['keys']} / {new['keys']})")
        out["keys"] = old["keys"]
    return out


def render(rows: list[dict]) -> str:
    lines = ["# Generated by tools/generate_return_types.py: do not edit. JAX207 reads it.",
             "# Each row: an API whose result changed type; `missing`: the members the old result had and the new",
             "# lacks (`[index]`: `r[0]`, `[key]`: a mapping's subscript), `differs`: same spelling, other meaning",
             "# (`iteration`, `type-name`). old/new: measured by running the example in `old_env` and `new_env`.", ""]
    for item in rows:
        lines.append("[[return_type]]")
        for key, value in item.items():
            lines.append(f"{key} = {json.dumps(value)}")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when rules/return_types.toml is out of date")
    parser.add_argument("--only", nargs="*", help="APIs to run again; the other rows are kept as the file has them")
    args = parser.parse_args(argv)
    kept = {}
    if args.only:
        import tomllib
        kept = {item["api"]: item for item in tomllib.loads(OUT.read_text(encoding="utf-8"))["return_type"]}
    text = render([row(spec) if not args.only or spec["api"] in args.only else kept[spec["api"]] for spec in SPECS])
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else "rules/return_types.toml differs from the runs")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(REPO)}: {len(SPECS)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
