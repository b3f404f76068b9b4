"""The ``[[signature]]`` rows confirmed at run time: each callable read with ``inspect.signature`` (which follows
``__wrapped__``, ``__new__`` and dataclass ``__init__``s as the reader does statically) in a venv of a release
before the change and one from it (``tests/catalogue/test_library_signatures_exec.py`` runs it).

What a venv answers per row: ``{"params": {name: [kind, default repr or None]}}`` for the callable (the class for a
constructor, its method, the function), ``"absent"`` for a member the class lacks, or the error that kept it from
being read."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the package lives in tools/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalogue_gen.resolve import probe  # noqa: E402

SIGNATURE_PROBE = probe(r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
def read(owner, member):
    try:
        obj = get(owner)
    except Exception as exc:
        return repr(exc)
    if member not in ("", "__init__"):
        try:
            raw = inspect.getattr_static(obj, member)
        except AttributeError:
            return "absent"
        obj = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if isinstance(obj, property):
            return {"params": {}}
    try:
        sig = inspect.signature(obj)
    except Exception as exc:
        return repr(exc)
    params = list(sig.parameters.values())
    if member not in ("", "__init__") and not isinstance(raw, staticmethod) and params:
        params = params[1:]
    kinds = inspect.Parameter
    opaque = [q.kind for q in params] == [kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD]
    if member == "__init__" and opaque:
        # a metaclass ``__call__(cls, *args, **kwargs)`` (flax's nnx ``ObjectMeta``) hides ``__init__``
        try:
            params = list(inspect.signature(obj.__init__).parameters.values())[1:]
        except Exception as exc:
            return repr(exc)
    found = {"params": {p.name: [p.kind.name, None if p.default is p.empty else repr(p.default)] for p in params}}
    if member == "__init__":
        # the constructor called with no argument: what a call that omits a newly required parameter meets
        try:
            obj()
            found["bare_call"] = "ok"
        except Exception as exc:
            found["bare_call"] = f"{type(exc).__name__}: {exc}"
    return found
request = json.load(sys.stdin)
if isinstance(request, dict):
    # an overlay run: the library's version and file prove which copy answered
    lib = importlib.import_module(request["library"])
    print(json.dumps({"version": lib.__version__, "file": lib.__file__,
                      "answers": [read(owner, member) for owner, member in request["callables"]]}))
else:
    print(json.dumps([read(owner, member) for owner, member in request]))
""")


def observed(python: Path, callables: list[tuple[str, str]], library: str | None = None,
             path: Path | None = None):
    """The answers of ``python`` for ``callables``; with ``library``, ``{"version", "file", "answers"}`` read with
    ``path`` (an overlay) first on ``PYTHONPATH``."""
    env = {"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin", **({"PYTHONPATH": str(path)} if path else {})}
    request = {"library": library, "callables": callables} if library else callables
    proc = subprocess.run([str(python), "-c", SIGNATURE_PROBE], input=json.dumps(request), capture_output=True,
                          text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _value(text: str | None):
    try:
        return ast.literal_eval(text) if text is not None else None
    except Exception:
        return text


def predates(row: dict, old) -> bool:
    """The old venv's release is older than the parameter itself (``changed_in``/``last_seen`` bound the change,
    not the parameter's first release): it cannot show the old form."""
    return isinstance(old, dict) and row["change"] in ("removed", "renamed", "positional-only", "default-changed") \
        and row.get("parameter") not in old["params"]


def confirmed(row: dict, old, new) -> bool:
    """The old release shows the old form of ``row`` and the new release the new one."""
    change, name = row["change"], row.get("parameter", "")
    if change == "member-removed":
        return isinstance(old, dict) and new == "absent"
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    before, after = old["params"], new["params"]
    takes_any = any(kind == "VAR_KEYWORD" for kind, _ in after.values())
    if change == "removed":
        return name in before and name not in after and not takes_any
    if change == "renamed":
        return name in before and name not in after and row["replacement"] in after and not takes_any
    if change == "positional-only":
        return name in before and before[name][0] != "POSITIONAL_ONLY" and after.get(name, [""])[0] == \
            "POSITIONAL_ONLY"
    if change == "newly-required" and "bare_call" in old and old["bare_call"] == "ok":
        # the class takes no other required argument: called bare, it worked before and fails naming it after
        return new.get("bare_call", "").startswith("TypeError") and name in new["bare_call"]
    if change == "newly-required":
        return name in after and after[name][1] is None and after[name][0] not in ("VAR_POSITIONAL", "VAR_KEYWORD") \
            and (name not in before or before[name][1] is not None)
    if change == "default-changed":
        return name in before and name in after and _value(before[name][1]) == _value(row["old_default"]) \
            and _value(after[name][1]) == _value(row["new_default"])
    return False


# -- every jaxlib row, in the ``jax-<V>`` venvs (each holds the jaxlib of its release) -----------------------------
def check_jaxlib_rows(rows: list[dict], envs: Path) -> tuple[dict, list]:
    """Each jaxlib row read in ``envs/jax-<last_seen>`` and ``envs/jax-<changed_in>`` (one probe per release), or
    where such a venv is not built, in the wheel of that jaxlib release installed alone (``jaxlib_answers``):
    counts per (change, outcome) and the contradicted rows. A side with no venv (no Linux jaxlib wheel of that
    release on PyPI) is "no venv"; a class one side cannot import, or a release older than the parameter, is
    "unreadable"."""
    def answers_at(version: str, callables: list[tuple[str, str]]):
        python = envs / f"jax-{version}" / "bin" / "python"
        return observed(python, callables) if python.exists() else jaxlib_answers(envs, version, callables)

    return _judged_at_both_releases(rows, "jaxlib", answers_at)


def _judged_at_both_releases(rows: list[dict], library: str, answers_at) -> tuple[dict, list]:
    """``library``'s rows, each read at its ``last_seen`` and ``changed_in`` releases with one
    ``answers_at(version, callables)`` per release (None: that release cannot be read), judged by ``_outcomes``."""
    import collections

    rows = [row for row in rows if row.get("library") == library]
    wanted: dict[str, set[int]] = collections.defaultdict(set)
    for number, row in enumerate(rows):
        wanted[row["last_seen"]].add(number)
        wanted[row["changed_in"]].add(number)
    seen: dict[tuple[int, str], object] = {}
    for version, numbers in sorted(wanted.items()):
        numbers_sorted = sorted(numbers)
        answers = answers_at(version, [(rows[n]["owner"], rows[n].get("member", "")) for n in numbers_sorted])
        if answers is not None:
            seen.update(((n, version), answer) for n, answer in zip(numbers_sorted, answers))
    return _outcomes(rows, seen)


def jaxlib_answers(envs: Path, version: str, callables: list[tuple[str, str]]):
    """Where no ``jax-<V>`` venv is built: the jaxlib wheel of that release alone on a base venv
    (``object_check.jaxlib_overlay``), answering only as that release from that folder; None otherwise."""
    from catalogue_gen.object_check import jaxlib_overlay

    target, python = jaxlib_overlay(envs, version)
    if target is None or not python.exists():
        return None
    try:
        found = observed(python, callables, library="jaxlib", path=target)
    except RuntimeError as exc:
        print(f"  jaxlib {version}: {str(exc).strip().splitlines()[-1][:200]}", file=sys.stderr)
        return None
    if found["version"] != version or not found["file"].startswith(str(target)):
        return None
    print(f"  jaxlib {version} read from {found['file']}", file=sys.stderr)
    return found["answers"]


def _outcomes(rows: list[dict], seen: dict[tuple[int, str], object]) -> tuple[dict, list]:
    """Counts per (change, outcome) and the contradicted rows, from each row's answer at its two releases."""
    import collections

    counts: collections.Counter = collections.Counter()
    contradicted = []
    for number, row in enumerate(rows):
        old, new = seen.get((number, row["last_seen"]), None), seen.get((number, row["changed_in"]), None)
        if (number, row["last_seen"]) not in seen or (number, row["changed_in"]) not in seen:
            outcome = "no venv"
        elif not (isinstance(old, dict) and (isinstance(new, dict) or new == "absent")) or predates(row, old):
            outcome = "unreadable"
        elif confirmed(row, old, new):
            outcome = "confirmed"
        else:
            outcome = "contradicted"
            contradicted.append(row)
        counts[(row["change"], outcome)] += 1
    return dict(counts), contradicted


CONTRADICTED = Path(__file__).resolve().parents[2] / "rules" / "signatures_contradicted.toml"
HEADER = """# Written by tools/catalogue_gen/library_signature_check.py --write; do not edit by hand (docs/catalogue.md).
# The flax, optax and jaxlib [[signature]] rows of signatures_generated.toml that execution contradicted (the old
# release did not show the old form, or the new release not the new one): the JAX105 loader never reports them.
"""


def write_contradicted(library: str, contradicted: list[dict], path: Path = CONTRADICTED) -> None:
    """Replace ``library``'s rows of ``path`` with ``contradicted`` (the other libraries' rows are kept)."""
    import tomllib

    try:
        with open(path, "rb") as handle:
            kept = [r for r in tomllib.load(handle).get("row", ()) if r.get("library") != library]
    except FileNotFoundError:
        kept = []
    fields = ("library", "owner", "member", "parameter", "change", "last_seen", "changed_in")
    blocks = [HEADER]
    for row in kept + [{k: r[k] for k in fields if r.get(k)} for r in contradicted]:
        blocks.append("[[row]]\n" + "".join(f"{k} = {json.dumps(row[k])}\n" for k in fields if row.get(k)))
    path.write_text("\n".join(blocks), encoding="utf-8")


# -- every flax or optax row, in an overlay of its release on a base venv of its era ------------------------------
def release_answers(envs: Path, library: str, version: str, callables: list[tuple[str, str]]):
    """The answers of ``library==version`` (``overlays.py``): its overlay on the bases of ``bases_for`` (ordered by
    the release's own ``jax>=``), where the overlay itself is what imports (its ``__version__`` and file). The first
    base that reads every callable answers; where none does (a submodule such as ``flax.nnx`` that imports on one
    jax only), the one that reads the most; None where no base imports the release."""
    from catalogue_gen.overlays import base_python

    target, bases = _overlay_and_bases(envs, library, version)
    best = None  # (callables read, base, answers)
    for base in bases:
        python = base_python(envs, base)
        if python is None:
            continue
        try:
            found = observed(python, callables, library=library, path=target)
        except RuntimeError as exc:
            print(f"  {library} {version} on {base}: {str(exc).strip().splitlines()[-1][:200]}", file=sys.stderr)
            continue
        if found["version"] != version or not found["file"].startswith(str(target)):
            print(f"  {library} {version} on {base}: {found['version']} from {found['file']} answered", file=sys.stderr)
            continue
        read = sum(isinstance(answer, dict) or answer == "absent" for answer in found["answers"])
        if best is None or read > best[0]:
            best = (read, base, found["answers"])
        if read == len(callables):
            break
        print(f"  {library} {version} on {base}: {len(callables) - read} of {len(callables)} unreadable",
              file=sys.stderr)
    if best is None:
        return None
    print(f"  {library} {version} read on {best[1]} from {target}", file=sys.stderr)
    return best[2]


def _overlay_and_bases(envs: Path, library: str, version: str) -> tuple[Path | None, list[str]]:
    """The overlay of ``library==version`` (installed with the first base that builds) and the bases to read it on,
    ordered by the ``jax>=`` of its own metadata."""
    from catalogue_gen.overlays import base_python, bases_for, jax_floor, overlay

    for base in bases_for(library, version):
        python = base_python(envs, base)
        target = python and overlay(envs, library, version, python)
        if target:
            return target, bases_for(library, version, jax_floor(target, library))
    return None, []


def check_library_rows(rows: list[dict], envs: Path, library: str) -> tuple[dict, list]:
    """Each ``library`` row read in the overlays of ``last_seen`` and ``changed_in`` (one probe per release), judged
    as the jaxlib rows are; a release no base can import is "no venv"."""
    return _judged_at_both_releases(rows, library,
                                    lambda version, callables: release_answers(envs, library, version, callables))


def main() -> int:
    """``JAXLINT_JAXENVS=DIR python tools/catalogue_gen/library_signature_check.py [--library flax|optax]
    [--write]``: the rows' outcomes (jaxlib's by default)."""
    import os
    import tomllib

    repo = Path(__file__).resolve().parents[2]
    with open(repo / "rules" / "signatures_generated.toml", "rb") as handle:
        rows = tomllib.load(handle)["signature"]
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--library", choices=("jaxlib", "flax", "optax"), default="jaxlib")
    parser.add_argument("--write", action="store_true", help=f"record the contradicted rows in {CONTRADICTED.name}")
    args = parser.parse_args()
    envs = Path(os.environ.get("JAXLINT_JAXENVS", repo / ".jaxenvs"))
    if args.library == "jaxlib":
        counts, contradicted = check_jaxlib_rows(rows, envs)
    else:
        counts, contradicted = check_library_rows(rows, envs, args.library)
    if args.write:
        write_contradicted(args.library, contradicted)
    for (change, outcome), count in sorted(counts.items()):
        print(f"{change:16} {outcome:13} {count}")
    for row in contradicted:
        print("contradicted:", row["owner"], row.get("member"), row.get("parameter"), row["change"])
    return 1 if contradicted else 0


if __name__ == "__main__":
    raise SystemExit(main())
