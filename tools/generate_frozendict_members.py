#!/usr/bin/env python3
"""Generate ``rules/flax_frozendict.toml``: what ``FrozenDict`` had that the plain ``dict`` of flax 0.7.1 lacks.

From flax 0.7.1 ``Module.init``/``apply`` return a ``dict`` (a ``FrozenDict`` before). JAX508 reports the members of
the old type that the new one lacks, or whose meaning differs, on such results. The lists are read, not typed:

- ``FrozenDict``'s members: the methods and attributes of ``class FrozenDict`` in ``flax/core/frozen_dict.py`` of
  each flax wheel up to the last one whose ``init`` returned it (read with ``ast``: nothing is imported), with what
  its ``collections.abc`` bases give it (read from this interpreter);
- ``dict``'s members: ``dir(dict)`` in this interpreter;
- the module functions that replace the methods on both types (``flax.core.unfreeze``, ``copy``, ``pop``,
  ``pretty_repr``): the first wheel read whose ``flax/core/__init__.py`` imports each from ``frozen_dict``.

The names on both types whose meaning differs (``pop``, ``copy``) cannot be read from a signature alone: they are the
``DIFFERS`` table below, each with the reason, and the tool checks that both types have them.

Usage: ``python tools/generate_frozendict_members.py [--versions 0.3.0,0.6.0,...] [--out FILE]``. Wheels are
downloaded once into ``tools/.wheels/ecosystem`` (gitignored), shared with ``generate_ecosystem_catalogue.py``.
"""
from __future__ import annotations

import argparse
import ast
import collections.abc
import os
import platform
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogue_gen import ecosystem  # noqa: E402
from catalogue_gen.releases import vkey  # noqa: E402
from catalogue_gen.toml_writer import toml_value  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "rules" / "flax_frozendict.toml"
# 0.7.0 is the last release whose ``init`` returned a FrozenDict (``flax/configurations.py``: ``return_frozendict``
# is True in 0.7.0, False in 0.7.1); the older ones show the members that came and went (``tree_flatten``).
DEFAULT_VERSIONS = ("0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.6.1", "0.6.2", "0.6.3", "0.6.4", "0.6.5", "0.6.6", "0.6.7",
                    "0.6.8", "0.6.9", "0.6.10", "0.6.11", "0.7.0", "0.7.1")
LAST_FROZEN = "0.7.0"
FUNCTIONS = ("unfreeze", "copy", "pop", "pretty_repr")
# The names both types have, with another meaning on the dict (not readable from the signatures).
DIFFERS = {
    "pop": "FrozenDict.pop(key) returns the pair (rest, value) and leaves the receiver as it was; dict.pop(key) "
           "returns the value alone and removes the key in place",
    "copy": "FrozenDict.copy(add_or_replace) returns a copy with entries added or replaced; dict.copy() takes no "
            "argument (TypeError with one)",
}


def frozendict_class(wheel: Path) -> ast.ClassDef | None:
    with zipfile.ZipFile(wheel) as archive:
        try:
            text = archive.read("flax/core/frozen_dict.py").decode()
        except KeyError:
            return None
    return next((node for node in ast.parse(text).body if type(node) is ast.ClassDef and node.name == "FrozenDict"),
                None)


def class_members(cls: ast.ClassDef) -> dict[str, str]:
    """The names the class body defines: ``method`` (with its parameters), ``attribute`` (an assignment)."""
    members: dict[str, str] = {}
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members[node.name] = f"({ast.unparse(node.args)})"
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if type(target) is ast.Name:
                    members[target.id] = "attribute"
    return members


def base_members(cls: ast.ClassDef) -> set[str]:
    """What the ``collections.abc`` bases (``Mapping[K, V]``) give the class, read from this interpreter."""
    names: set[str] = set()
    for base in cls.bases:
        node = base.value if type(base) is ast.Subscript else base
        name = node.attr if type(node) is ast.Attribute else getattr(node, "id", "")
        abc = getattr(collections.abc, name, None)
        if isinstance(abc, type):
            names |= set(dir(abc))
    return names


def core_functions(wheel: Path) -> set[str]:
    """The names ``flax/core/__init__.py`` imports from ``.frozen_dict``."""
    with zipfile.ZipFile(wheel) as archive:
        tree = ast.parse(archive.read("flax/core/__init__.py").decode())
    return {alias.asname or alias.name for node in ast.walk(tree) if type(node) is ast.ImportFrom
            and (node.module or "").endswith("frozen_dict") for alias in node.names}


def generate(wheels: dict[str, Path]) -> str:
    versions = sorted(wheels, key=vkey)
    frozen_versions = [v for v in versions if vkey(v) <= vkey(LAST_FROZEN)]
    members: dict[str, dict[str, str]] = {}  # name -> {version: signature}
    inherited: set[str] = set()
    for version in frozen_versions:
        cls = frozendict_class(wheels[version])
        if cls is None:
            continue
        for name, signature in class_members(cls).items():
            members.setdefault(name, {})[version] = signature
        inherited |= base_members(cls)
    dict_members = set(dir(dict))
    functions = {version: core_functions(wheels[version]) for version in versions}
    for name in DIFFERS:
        assert name in members and name in dict_members, f"{name} is not on both types: update DIFFERS"
    frozen_source = (f"class FrozenDict in flax/core/frozen_dict.py of the flax wheels {frozen_versions[0]} ... "
                     f"{frozen_versions[-1]} (read with ast), with the collections.abc members of its bases")
    functions_source = (f"the names flax/core/__init__.py imports from frozen_dict in the wheels {versions[0]} ... "
                        f"{versions[-1]}")
    lines = [
        "# Generated by tools/generate_frozendict_members.py from the flax wheels and this interpreter: do not edit.",
        "# JAX508 reads it: the members of flax's FrozenDict (what `init`/`apply` returned up to flax 0.7.0) that the",
        "# plain dict they return from flax 0.7.1 lacks (`missing`) or has with another meaning (`differs`).",
        f"frozendict_source = {toml_value(frozen_source)}",
        f"dict_source = {toml_value(f'dir(dict) on Python {platform.python_version()}')}",
        f"functions_source = {toml_value(functions_source)}",
        f"frozendict_members = {toml_value(sorted(set(members) | inherited))}",
        f"dict_members = {toml_value(sorted(dict_members))}",
        "",
    ]
    for name in sorted(members):
        change = "differs" if name in DIFFERS else "missing" if name not in dict_members else None
        if change is None or name.startswith("_"):  # ``__slots__``: an implementation detail, no use to report
            continue
        seen = sorted(members[name], key=vkey)
        first = next((v for v in versions if name in functions[v]), None)
        row = {"name": name, "change": change, "signature": members[name][seen[-1]],
               "first_seen": seen[0], "last_seen": seen[-1]}
        if change == "differs":
            row["meaning"] = DIFFERS[name]
        if first is not None:
            row["function"] = f"flax.core.{name}"
            row["function_since"] = first
            row["function_since_is_oldest_read"] = first == versions[0]
        lines.append("[[member]]")
        lines.extend(f"{key} = {toml_value(value)}" for key, value in row.items())
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=os.environ.get("JAXLINT_PIP_PYTHON", sys.executable),
                    help="interpreter whose pip downloads the releases")
    ap.add_argument("--cache", type=Path, default=ecosystem.DEFAULT_CACHE)
    ap.add_argument("--versions", default=",".join(DEFAULT_VERSIONS))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    wheels = {v: ecosystem.download(args.python, args.cache, "flax", v) for v in args.versions.split(",")}
    missing = sorted(v for v, path in wheels.items() if path is None)
    if missing:
        print(f"no wheel for flax {', '.join(missing)}", file=sys.stderr)
        return 1
    text = generate(wheels)
    args.out.write_text(text)
    print(f"{text.count('[[member]]')} members -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
