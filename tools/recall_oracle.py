"""An oracle for jaxlint's recall that does not use jaxlint: which JAX names used in a corpus the newest JAX lacks.

    python tools/recall_oracle.py CORPUS NEW_JAX_PYTHON [--findings DIR] [--show-missed N]

1. Every ``.py`` file (and every code cell of every notebook, magics dropped) under CORPUS is read with ``ast``. The
   names bound by ``import jax...`` / ``from jax... import ...`` (any scope, no shadowing analysis: an
   over-approximation) give the JAX-rooted dotted names the code uses: each import itself and each attribute chain
   ``a.b.c`` whose root is such a name.
2. NEW_JAX_PYTHON (a venv's python with the newest JAX) resolves every distinct name the way Python would: the longest
   importable module prefix, then ``getattr`` for the rest. A name fails when a component is missing; a module that
   exists but needs a package the venv lacks (``jax.experimental.jax2tf`` needs tensorflow) does not fail.
3. With ``--findings DIR`` (one ``<project>.json`` per corpus project, jaxlint's ``--output-format json``), every
   failing site is matched to a jaxlint finding on the same file and line: the recall is reported/failing.

Sites inside ``try:`` blocks whose handler catches ImportError/AttributeError, under ``if hasattr(...)`` / version
tests or ``hasattr(...) and ...``, and uses of names bound in such places, are counted apart ("guarded"):
compatibility shims that jaxlint deliberately leaves alone.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import subprocess
import sys
import warnings
from pathlib import Path

from catalogue_gen.resolve import probe  # tools/ is this script's folder, first on sys.path

# Names are resolved as the catalogue generator and its execution test reach them (tools/catalogue_gen/resolve.py).
_RESOLVE = probe(r"""
import json, sys, warnings
warnings.simplefilter("ignore")
json.dump({name: missing(name) for name in json.load(sys.stdin)}, sys.stdout)
""")

GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception"}


def sources(root: Path):
    for path in sorted(root.rglob("*.py")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        try:
            yield path, None, path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    for path in sorted(root.rglob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError):
            continue
        for number, cell in enumerate(cells, 1):
            if cell.get("cell_type") != "code":
                continue
            text = cell.get("source", "")
            text = "".join(text) if isinstance(text, list) else text
            lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in text.splitlines()]
            yield path, number, "\n".join(lines)


def _is_guard(node: ast.AST) -> bool:
    if isinstance(node, ast.Try):
        for handler in node.handlers:
            names = []
            if handler.type is None:
                return True
            for t in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]):
                names.append(t.id if isinstance(t, ast.Name) else getattr(t, "attr", ""))
            if GUARD_EXCEPTIONS & set(names):
                return True
    if isinstance(node, (ast.If, ast.IfExp, ast.While)):
        test = ast.dump(node.test)
        return "hasattr" in test or "version" in test.lower()
    if isinstance(node, ast.BoolOp):  # hasattr(jax, "pxla") and jax.pxla.X
        return "hasattr" in ast.dump(node)
    return False


class Uses(ast.NodeVisitor):
    """JAX-rooted dotted names used in one module: (name, line, guarded)."""

    def __init__(self) -> None:
        self.bound: dict[str, str] = {}
        # Names bound inside a shim (try/except ImportError, hasattr or version tests): their uses are shims too.
        self.bound_in_guard: set[str] = set()
        self.found: list[tuple[str, int, bool]] = []
        self._guards = 0

    def generic_visit(self, node):
        guard = _is_guard(node)
        self._guards += guard
        super().generic_visit(node)
        self._guards -= guard

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name == "jax" or alias.name.startswith("jax."):
                self.found.append((alias.name, node.lineno, self._guards > 0))
                local = alias.asname or alias.name.split(".")[0]
                self.bound[local] = alias.name if alias.asname else local
                if self._guards:
                    self.bound_in_guard.add(local)

    def visit_ImportFrom(self, node):
        module = node.module or ""
        if node.level or not (module == "jax" or module.startswith("jax.")):
            return
        for alias in node.names:
            if alias.name == "*":
                continue
            full = f"{module}.{alias.name}"
            self.found.append((full, node.lineno, self._guards > 0))
            self.bound[alias.asname or alias.name] = full
            if self._guards:
                self.bound_in_guard.add(alias.asname or alias.name)

    def visit_Attribute(self, node):
        chain = []
        current = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if isinstance(current, ast.Name) and current.id in self.bound:
            name = ".".join([self.bound[current.id], *reversed(chain)])
            self.found.append((name, node.lineno, self._guards > 0 or current.id in self.bound_in_guard))
            return  # the whole chain is one use; its prefixes are not separate sites
        self.generic_visit(node)


def collect(corpus: Path):
    warnings.simplefilter("ignore", SyntaxWarning)  # old code's invalid escapes: not what this counts
    """(project, file, cell, line, name, guarded) for every use; the imports are read first in each module."""
    uses = []
    for project in sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for path, cell, text in sources(project):
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                continue
            visitor = Uses()
            # Bindings first (anywhere in the module), then the uses: an over-approximation of Python's scoping.
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    visitor.visit(node)
            visitor.found.clear()
            visitor.visit(tree)
            for name, line, guarded in visitor.found:
                uses.append((project.name, str(path.resolve()), cell, line, name, guarded))
    return uses


def resolve(names: set[str], python: str) -> dict[str, str | None]:
    proc = subprocess.run([python, "-c", _RESOLVE], input=json.dumps(sorted(names)), capture_output=True, text=True,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(proc.stdout)


def findings_by_site(folder: Path) -> set[tuple[str, int | None, int]]:
    sites = set()
    for report in folder.glob("*.json"):
        try:
            items = json.loads(report.read_text())
        except ValueError:
            continue
        for item in items:
            row = item["location"]["row"]
            sites.add((item["filename"], item.get("cell"), row))
    return sites


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("python", help="python of a venv with the newest JAX")
    parser.add_argument("--findings", type=Path, help="folder of jaxlint JSON reports, one per project")
    parser.add_argument("--show-missed", type=int, default=0, help="print up to N missed sites")
    parser.add_argument("--json", type=Path, help="write every failing site with its status to this file")
    args = parser.parse_args()

    uses = collect(args.corpus)
    failing = resolve({u[4] for u in uses}, args.python)
    reported = findings_by_site(args.findings) if args.findings else set()
    totals = collections.Counter()
    missed_names = collections.Counter()
    rows = []
    for project, file, cell, line, name, guarded in uses:
        broken = failing.get(name)
        if not broken:
            continue
        status = "guarded" if guarded else ("reported" if (file, cell, line) in reported else "missed")
        totals[status] += 1
        if status == "missed":
            missed_names[broken] += 1
        rows.append({"project": project, "file": file, "cell": cell, "line": line, "name": name,
                     "missing": broken, "status": status})
    print(f"{len(uses)} JAX-rooted uses, {len({u[4] for u in uses})} distinct names; "
          f"{sum(totals.values())} uses fail on the new JAX: "
          + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    if args.findings:
        unguarded = totals["reported"] + totals["missed"]
        print(f"recall (unguarded sites): {totals['reported']}/{unguarded}"
              f" = {totals['reported'] / unguarded:.1%}" if unguarded else "recall: no failing site")
    for name, count in missed_names.most_common(args.show_missed):
        print(f"  missed {count:4d}  {name}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
