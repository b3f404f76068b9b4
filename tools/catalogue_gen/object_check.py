"""The rows of ``rules/objects_generated.toml`` executed on both sides of their removal: each name read in a release
where the wheels say it was there (``last_seen``) and in the release that removed it (``removed_in``).

- a ``jax.config`` member: ``getattr(jax.config, member)`` in the venv ``<envs>/jax-<V>`` of that release (jax and
  its jaxlib, as ``tests/support/jaxenv.py`` builds them);
- a jaxlib module (found by ``importlib.util.find_spec``, not run: ``jaxlib.triton.compat`` imports triton) or name
  (its module imported, then ``getattr``): in ``<envs>/jaxlib-overlays/<V>``, the jaxlib wheel of that release
  installed alone (``pip install --no-deps --target``), read first on ``PYTHONPATH`` by a base venv that holds
  jaxlib's dependencies (NumPy 1 below jaxlib 0.4.31, whose wheels are the first built for NumPy 2), or in the
  venv ``jax-<V>`` where one is built (0.4.13 has no Python 3.12 wheel: its venv is on 3.10). Each answer carries
  ``jaxlib.version.__version__`` and the file it came from: a base's own jaxlib never answers for another release.

    JAXLINT_JAXENVS=DIR python tools/catalogue_gen/object_check.py [--write]

writes ``rules/objects_confirmed.toml``: one ``[[row]]`` per row (``name``, ``kind``, ``last_seen``,
``removed_in``), its ``outcome`` (``confirmed``: there, then gone; ``contradicted``; ``unreadable``: a side
where reading it raised something other than a missing module or attribute; ``no venv``: a side whose release
could not be installed) and the ``evidence``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OBJECTS = REPO / "rules" / "objects_generated.toml"
CONFIRMED = REPO / "rules" / "objects_confirmed.toml"
# The first jaxlib built for NumPy 2 (its changelog: "jaxlib 0.4.31 ... built against NumPy 2.0"); older ones need 1.x.
NUMPY2_JAXLIB = (0, 4, 31)
BASES = {"numpy1": "jax-0.4.20", "numpy2": "jax-0.12.0.1"}

PROBE = r"""
import importlib, importlib.util, json, sys, warnings
warnings.simplefilter("ignore")
class Gone(Exception):
    pass
def get(dotted):
    # the longest importable prefix, then getattr; a prefix is skipped only when the module itself is missing
    # (a failing import of something else, ``triton`` under ``jaxlib.triton.compat``, is an error, not an absence)
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        try:
            obj = importlib.import_module(prefix)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (prefix == exc.name or prefix.startswith(exc.name + ".")):
                raise
            continue
        except ImportError as exc:
            if "No module named" not in str(exc) and "is not a package" not in str(exc):
                raise
            continue
        for p in parts[i:]:
            if not hasattr(obj, p):
                raise Gone(f"{type(obj).__name__} {getattr(obj, '__name__', '?')} has no attribute {p}")
            obj = getattr(obj, p)
        return obj
    raise Gone(f"no module of {dotted} imports")
def there(name, kind):
    try:
        if name.startswith("jax.config."):
            import jax
            member = name[len("jax.config."):]
            if not hasattr(jax.config, member):
                return f"absent: jax.config has no attribute {member}"
        elif kind == "module":
            try:
                if importlib.util.find_spec(name) is None:
                    return "absent: no module"
            except (ImportError, ValueError):  # a submodule of an extension (``xla_extension.pytree``): no spec
                get(name)
        else:
            get(name)
        return "present"
    except Gone as exc:
        return f"absent: {exc}"
    except Exception as exc:
        return f"error: {type(exc).__name__}: {str(exc)[:120]}"
request = json.load(sys.stdin)
answers = {name: there(name, kind) for name, kind in request}
import jaxlib
try:
    from jaxlib import version as jaxlib_version
    release = jaxlib_version.__version__
except Exception:
    release = getattr(jaxlib, "__version__", "?")
try:
    import jax
    jax_release = jax.__version__
except Exception:
    jax_release = None
print(json.dumps({"jaxlib": release, "jaxlib_file": jaxlib.__file__, "jax": jax_release, "answers": answers}))
"""


def vkey(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def rows(path: Path = OBJECTS) -> list[dict]:
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    return [dict(row, kind=kind) for kind in ("symbol", "module") for row in data.get(kind, [])]


def overlay(envs: Path, version: str) -> Path | None:
    """``envs/jaxlib-overlays/<version>``: the jaxlib wheel of that release alone (installed once)."""
    target = envs / "jaxlib-overlays" / version
    if (target / ".complete").exists():
        return target
    wheels = sorted((envs / "jaxlib-wheels").glob(f"jaxlib-{version}-*.whl"))
    source = [str(wheels[0])] if wheels else [f"jaxlib=={version}"]
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           *source], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"jaxlib {version}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    (target / ".complete").write_text(version)
    return target


def jaxlib_overlay(envs: Path, version: str) -> tuple[Path | None, Path]:
    """The overlay of jaxlib ``version`` (None: no wheel) and the python of the base venv that reads it."""
    base = BASES["numpy2" if vkey(version)[:3] >= NUMPY2_JAXLIB else "numpy1"]
    return overlay(envs, version), envs / base / "bin" / "python"


def ask(python: Path, request: list[tuple[str, str]], path: Path | None = None) -> dict | None:
    env = {"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin", **({"PYTHONPATH": str(path)} if path else {})}
    done = subprocess.run([str(python), "-c", PROBE], input=json.dumps(request), capture_output=True, text=True,
                          env=env, timeout=600)
    if done.returncode != 0:
        print(f"{python} {path}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def answers_at(envs: Path, version: str, request: list[tuple[str, str]], config: bool) -> tuple[dict | None, str]:
    """The answers of ``version`` (a jax venv for config members, a jaxlib overlay otherwise) and where they came
    from; None when no environment of that release answers as that release."""
    if config:
        python = envs / f"jax-{version}" / "bin" / "python"
        if not (envs / f"jax-{version}" / ".complete").exists():
            oldest = " (PyPI lists no jaxlib wheel older than 0.4.13)" if vkey(version) < (0, 4, 13) else ""
            return None, f"no venv jax-{version}{oldest}"
        found = ask(python, request)
        if found is None or found["jax"] != version:
            return None, f"jax-{version} did not answer as jax {version}"
        return found["answers"], f"jax {version} (venv jax-{version})"
    own = envs / f"jax-{version}"
    if (own / ".complete").exists():  # a jax venv of that release holds its jaxlib (0.4.13: Python 3.10 only)
        found = ask(own / "bin" / "python", request)
        if found is not None and found["jaxlib"] == version:
            return found["answers"], f"jaxlib {version} (venv jax-{version})"
    target, python = jaxlib_overlay(envs, version)
    if target is None:
        return None, f"no jaxlib {version} wheel"
    base = python.parent.parent.name
    found = ask(python, request, target) if python.exists() else None
    if found is None or found["jaxlib"] != version or not found["jaxlib_file"].startswith(str(target)):
        return None, f"jaxlib {version} could not be imported on {base}"
    return found["answers"], f"jaxlib {version} (its wheel alone on {base})"


def check(all_rows: list[dict], envs: Path, only: str | None = None) -> list[dict]:
    """One record per row: outcome and evidence."""
    wanted: dict[tuple[str, bool], list[tuple[str, str]]] = {}
    for row in all_rows:
        if only and not row["name"].startswith(only):
            continue
        config = row["name"].startswith("jax.config.")
        for version in (row["last_seen"], row["removed_in"]):
            wanted.setdefault((version, config), []).append((row["name"], row["kind"]))
    seen: dict[tuple[str, bool], tuple[dict | None, str]] = {}
    for (version, config), request in sorted(wanted.items(), key=lambda item: vkey(item[0][0])):
        seen[(version, config)] = answers_at(envs, version, sorted(set(request)), config)
        print(f"{version} {'jax.config' if config else 'jaxlib'}: {seen[(version, config)][1]}", file=sys.stderr,
              flush=True)
    records = []
    for row in all_rows:
        if only and not row["name"].startswith(only):
            continue
        config = row["name"].startswith("jax.config.")
        (old, old_where), (new, new_where) = seen[(row["last_seen"], config)], seen[(row["removed_in"], config)]
        record = {"name": row["name"], "kind": row["kind"], "last_seen": row["last_seen"],
                  "removed_in": row["removed_in"]}
        if old is None or new is None:
            record["outcome"] = "no venv"
            record["evidence"] = "; ".join(where for answers, where in ((old, old_where), (new, new_where))
                                           if answers is None)
        else:
            before, after = old[row["name"]], new[row["name"]]
            if before.startswith("error") or after.startswith("error"):
                record["outcome"] = "unreadable"
            elif before == "present" and after.startswith("absent"):
                record["outcome"] = "confirmed"
            else:
                record["outcome"] = "contradicted"
            record["evidence"] = f"{old_where}: {before}; {new_where}: {after}"
        records.append(record)
    return records


HEADER = """# Written by tools/catalogue_gen/object_check.py --write; do not edit by hand (docs/catalogue.md).
# One [[row]] per row of objects_generated.toml: the name read in its last release (last_seen) and in the release
# that removed it (removed_in); outcome: confirmed (there, then gone) | contradicted | unreadable | no venv
# (evidence says why).
"""


def summary(records: list[dict]) -> list[str]:
    """One line per kind of row (jax.config members, jaxlib modules, jaxlib names) and outcome."""
    import collections

    counts: collections.Counter = collections.Counter()
    for record in records:
        what = "jax.config" if record["name"].startswith("jax.config.") else f"jaxlib {record['kind']}"
        counts[(what, record["outcome"])] += 1
    return [f"{what}: {count} {outcome}" for (what, outcome), count in sorted(counts.items())]


def write(records: list[dict], path: Path = CONFIRMED) -> None:
    fields = ("name", "kind", "last_seen", "removed_in", "outcome", "evidence")
    header = HEADER + "".join(f"# {line}\n" for line in summary(records))
    blocks = [header] + ["[[row]]\n" + "".join(f"{key} = {json.dumps(record[key])}\n" for key in fields)
                         for record in records]
    path.write_text("\n".join(blocks), encoding="utf-8")


def main() -> int:
    import argparse
    import os

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {CONFIRMED.relative_to(REPO)}")
    parser.add_argument("--only", help="only the rows whose name starts with this (jax.config., jaxlib.)")
    args = parser.parse_args()
    if args.write and args.only:
        parser.error("--write records every row: leave out --only")
    envs = Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs"))
    records = check(rows(), envs, args.only)
    if args.write:
        write(records)
    print("\n".join(summary(records)))
    for record in records:
        if record["outcome"] == "contradicted":
            print("contradicted:", record["name"], record["evidence"])
    return 1 if any(r["outcome"] == "contradicted" for r in records) else 0


if __name__ == "__main__":
    raise SystemExit(main())
