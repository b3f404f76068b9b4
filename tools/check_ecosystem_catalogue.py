"""Check the optax rows of ``jaxlint.catalogue.ecosystem`` against the released wheels (statically: nothing is
imported).

For each row: the name is public in the release before ``since``; a removed name is gone at ``since`` (or listed in
``_deprecations`` with no object); a deprecated one is in ``_deprecations`` at ``since`` (or, for ``global_norm``,
warns in its body); the replacement is public at ``replacement_since``.

Usage: ``python tools/check_ecosystem_catalogue.py WHEEL_DIR`` (wheels are downloaded there with
``pip download optax==V --no-deps`` when missing). Exit 1 when a row disagrees with a wheel.
"""
from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

from jaxlint.catalogue.ecosystem import OPTAX

RELEASES = ("0.0.9", "0.1.0", "0.1.4", "0.1.7", "0.1.8", "0.1.9", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6",
            "0.2.7", "0.2.8")


def wheel(folder: Path, version: str) -> zipfile.ZipFile:
    found = sorted(folder.glob(f"optax-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", f"optax=={version}", "--no-deps", "-d",
                        str(folder)], check=True)
        found = sorted(folder.glob(f"optax-{version}-*.whl"))
    return zipfile.ZipFile(found[0])


def public(archive: zipfile.ZipFile, module: str) -> tuple[set[str], dict[str, bool]]:
    """The names ``module/__init__.py`` binds, and its ``_deprecations`` keys (True: mapped to an object)."""
    try:
        tree = ast.parse(archive.read(module.replace(".", "/") + "/__init__.py"))
    except KeyError:
        return set(), {}
    names: set[str] = set()
    deprecations: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) \
                and any(isinstance(t, ast.Name) and t.id == "_deprecations" for t in node.targets):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple) and len(value.elts) == 2:
                    target = value.elts[1]
                    deprecations[key.value] = not (isinstance(target, ast.Constant) and target.value is None)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_")}, deprecations


def check(folder: Path) -> list[str]:
    problems = []
    for change in OPTAX.values():
        module, _, name = change.name.rpartition(".")
        before = RELEASES[RELEASES.index(change.since) - 1]
        names, _ = public(wheel(folder, before), module)
        if name not in names:
            problems.append(f"{change.name}: not public in optax {before}")
        names, deprecations = public(wheel(folder, change.since), module)
        if change.status == "removed" and name in names and deprecations.get(name, True):
            problems.append(f"{change.name}: still in optax {change.since}")
        if change.status == "deprecated" and name not in deprecations and change.name != "optax.global_norm":
            problems.append(f"{change.name}: not in optax {change.since}'s _deprecations")
        if change.replacement and change.replacement_since:
            rep_module, _, rep_name = change.replacement.rpartition(".")
            rep_names, _ = public(wheel(folder, change.replacement_since), rep_module)
            if rep_name not in rep_names:
                problems.append(f"{change.name}: {change.replacement} not in optax {change.replacement_since}")
    return problems


if __name__ == "__main__":
    problems = check(Path(sys.argv[1]))
    print("\n".join(problems) or f"{len(OPTAX)} optax rows agree with the wheels")
    sys.exit(1 if problems else 0)
