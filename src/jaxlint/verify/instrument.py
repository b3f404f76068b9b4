"""Two copies of the project, BEFORE (original code) and AFTER (fixed code), every site wrapped in a probe.

A probe is ``__import__("_jaxlint_probe").record("<site id>", <expr>)``, inserted on the same lines as the
expression, so line numbers (and tracebacks) stay as they are; ``__import__`` needs no import statement, so
``from __future__`` imports and docstrings stay first. A statement the fix deletes gets
``__import__("_jaxlint_probe").reach("<site id>"); `` in front of it in BEFORE (only whether it ran is known).
A watched site (``verify.watch``: no fix, a value that changed silently) is probed in both texts alike.
"""
from __future__ import annotations

import ast
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.lint.diagnostics import LineIndex
from jaxlint.project.files import DEFAULT_EXCLUDES
from jaxlint.run.sources import write_atomic

from jaxlint.verify.inputs import argument_pairs
from jaxlint.verify.plan import Plan, Site
from jaxlint.verify.watch import WatchedSite
from jaxlint.verify.witnesses import witness_span

PROBE_MODULE = "_jaxlint_probe"
RUNTIME_DIR = Path(__file__).resolve().parent
EXTRA_EXCLUDES = frozenset(DEFAULT_EXCLUDES) | {".jaxenvs", ".tox", ".nox"}


def probe_prefix(site_id: str, function: str = "record") -> str:
    return f'__import__("{PROBE_MODULE}").{function}({site_id!r}, '


def reach_marker(site_id: str) -> str:
    return f'__import__("{PROBE_MODULE}").reach({site_id!r}); '


def wrap_spans(text: str, wraps: list[tuple[str, int, int]], marks: list[tuple[str, int]] = (),
               witnesses: list[tuple[str, int, int]] = ()) -> str:
    """Insert probes around ``[start, end)`` spans (which may nest) and reach markers at statement offsets;
    ``witnesses`` wrap an argument inside a probed call (``witness``: was a negative value passed?)."""
    insertions: list[tuple[int, int, int, str]] = []
    for function, spans in (("record", wraps), ("witness", witnesses)):
        for site_id, start, end in spans:
            if not (0 <= start <= end <= len(text)):
                raise ValueError(f"probe span {start}:{end} outside the text for {site_id}")
            # At one offset: closings first, then openings, outer (longer) spans before inner ones.
            insertions.append((end, 0, 0, ")"))
            insertions.append((start, 1, -end, probe_prefix(site_id, function)))
    for site_id, offset in marks:
        insertions.append((offset, 2, 0, reach_marker(site_id)))
    insertions.sort(key=lambda item: (item[0], item[1], item[2]))
    pieces, cursor = [], 0
    for offset, _, _, content in insertions:
        pieces.append(text[cursor:offset])
        pieces.append(content)
        cursor = offset
    pieces.append(text[cursor:])
    return "".join(pieces)


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ()) + \
            ((ast.Match,) if hasattr(ast, "Match") else ())


def statement_offset(text: str, row: int, column: int) -> int | None:
    """The offset where the simple statement holding (row, 1-based column) starts, if a marker can go there.

    A marker ``reach(...); `` goes in front of the statement on its own line; a statement that is a compound
    header (``def``, ``if``...) cannot take one, nor a file that does not parse.
    """
    index = LineIndex(text)
    if row < 1 or row > len(index.starts):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    found = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or node.end_lineno is None:
            continue
        start_col = len(lines[node.lineno - 1].encode("utf-8")[:node.col_offset].decode("utf-8", "replace"))
        end_col = len(lines[node.end_lineno - 1].encode("utf-8")[:node.end_col_offset].decode("utf-8", "replace"))
        if (node.lineno, start_col) <= (row, column - 1) < (node.end_lineno, end_col + 1):
            if found is None or (node.lineno, start_col) >= found[0]:
                found = ((node.lineno, start_col), node)
    if found is None or isinstance(found[1], _COMPOUND):
        return None
    (line, col), _ = found
    return index.offset(line, col)


@dataclass
class Instrumented:
    before: str
    after: str
    # Sites whose statement could not be marked (a deleted expression part): their reach is unknown.
    unmarked: list[str]
    # Site id -> (record id, text) of each argument recorded where it enters the site (``verify.inputs``).
    inputs: dict[str, list[tuple[str, str]]]


def instrument_file(original: str, fixed: str, sites: list[Site], watched: list[WatchedSite] = ()) -> Instrumented:
    """BEFORE and AFTER texts of one file: fix sites probed (or marked), and watched sites probed the same way on
    the expression they share."""
    before_wraps, after_wraps, marks, unmarked, witnesses = [], [], [], [], []
    inputs: dict[str, list[tuple[str, str]]] = {}
    for site in watched:
        before_wraps.append((site.id, *site.span_original))
        after_wraps.append((site.id, *site.span_fixed))
    for site in sites:
        if site.kind == "value":
            before_wraps.append((site.id, *site.fix.probe_original))
            after_wraps.append((site.id, *site.fix.probe_fixed))
            pairs = argument_pairs(original, site.fix.probe_original, fixed, site.fix.probe_fixed)
            for index, (span_before, span_after, text) in enumerate(pairs, 1):
                record_id = f"{site.id}::input:{index}"
                before_wraps.append((record_id, *span_before))
                after_wraps.append((record_id, *span_after))
                inputs.setdefault(site.id, []).append((record_id, text))
            watched = witness_span(original, site.code, site.fix.probe_original)
            if watched is not None:
                witnesses.append((site.id, *watched))
        else:
            offset = statement_offset(original, site.row, site.column)
            if offset is None:
                unmarked.append(site.id)
            else:
                marks.append((site.id, offset))
    return Instrumented(wrap_spans(original, before_wraps, marks, witnesses), wrap_spans(fixed, after_wraps),
                        unmarked, inputs)


def _ignore(directory: str, names: list[str]) -> set[str]:
    ignored = set()
    for name in names:
        if name in EXTRA_EXCLUDES:
            ignored.add(name)
        elif os.path.isfile(os.path.join(directory, name, "pyvenv.cfg")):
            ignored.add(name)  # a virtual environment inside the project
    return ignored


def copy_project(root: Path, destination: Path) -> None:
    """Copy the project; the copies are the verifier's scratch files, so they are made writable by their owner
    (a read-only source file or folder would otherwise refuse the instrumented text)."""
    shutil.copytree(root, destination, symlinks=True, ignore=_ignore)
    for folder, _, names in os.walk(destination):
        for path in [folder, *(os.path.join(folder, name) for name in names)]:
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)


def install_runtime(directory: Path) -> Path:
    """The probe directory that goes first on PYTHONPATH: the probe runtime and a chaining sitecustomize."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(RUNTIME_DIR / "_jaxlint_probe.py", directory / "_jaxlint_probe.py")
    shutil.copyfile(RUNTIME_DIR / "_sitecustomize.py", directory / "sitecustomize.py")
    return directory


@dataclass
class Trees:
    before: Path
    after: Path
    probe_dir: Path
    unmarked: list[str]
    inputs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # see ``Instrumented.inputs``


def prepare_trees(plan: Plan, workdir: Path, *, probes: bool = True) -> Trees:
    """Copy the project twice and write the instrumented BEFORE and AFTER sources into the copies."""
    before, after = workdir / "before", workdir / "after"
    copy_project(plan.root, before)
    copy_project(plan.root, after)
    unmarked: list[str] = []
    inputs: dict[str, list[tuple[str, str]]] = {}
    for file_plan in plan.files:
        if probes:
            result = instrument_file(file_plan.source.text, file_plan.fixed, file_plan.sites, file_plan.watched)
            before_text, after_text = result.before, result.after
            unmarked.extend(result.unmarked)
            inputs.update(result.inputs)
        else:
            before_text, after_text = file_plan.source.text, file_plan.fixed
        for tree, text in ((before, before_text), (after, after_text)):
            target = tree / file_plan.relative
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, file_plan.source.encode(text))
    return Trees(before, after, install_runtime(workdir / "probe"), unmarked, inputs)
