"""Suppression hygiene: ``--add-noqa`` and JAX001 unused-noqa.

JAX001 is reported here, after the engine, and not by a rule module: whether ``# noqa: JAX202`` is used depends on
what *all the other rules* find on that line once suppressions are ignored, which a rule visiting the syntax tree
cannot know (and the rule harness requires each rule's examples to be found by its own visit). The check lints the
text once more with the ``# noqa`` comments blanked out (same length, so rows and columns stay), and only for files
whose text contains ``noqa: JAX``. Only ``JAX`` codes of enabled rules are judged: other tools' codes (``E501``)
and blanket ``# noqa`` belong to other linters. ``# noqa: JAX001`` on a line keeps the line quiet.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from jaxlint.lint.diagnostics import Applicability, Diagnostic, Edit, Fix, LineIndex
from jaxlint.project.settings import Settings

UNUSED_NOQA = "JAX001"
UNUSED_NOQA_NAME = "unused-noqa"
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


@dataclass
class NoqaComment:
    row: int
    start: int  # offsets of the ``# noqa...`` match in the source
    end: int
    codes: list[tuple[str, int, int]]  # (code, start, end) offsets; empty for a blanket noqa
    comment_start: int  # offset of the comment token's ``#``
    comment_end: int


def _comments(source: str) -> list[tuple[int, int, str]]:
    """(row, offset, text) of every real comment (not ``#`` inside strings); [] if the text does not tokenize."""
    index = LineIndex(source)
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start[0], index.offset(token.start[0], token.start[1]), token.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return found


def noqa_comments(source: str) -> list[NoqaComment]:
    if "noqa" not in source.lower():
        return []
    result = []
    for row, offset, text in _comments(source):
        match = _NOQA.search(text)
        if match is None:
            continue
        codes = []
        if match.group("codes"):
            base = offset + match.start("codes")
            codes = [(m.group().upper(), base + m.start(), base + m.end()) for m in _CODE.finditer(match.group("codes"))]
        result.append(NoqaComment(row, offset + match.start(), offset + match.end(), codes, offset,
                                  offset + len(text)))
    return result


def _blank(source: str, comments: Iterable[NoqaComment]) -> str:
    chars = list(source)
    for comment in comments:
        for i in range(comment.start, comment.end):
            chars[i] = " "
    return "".join(chars)


def _removal_edit(source: str, comment: NoqaComment, unused: set[str], index: LineIndex) -> Edit:
    kept = [code for code, _, _ in comment.codes if code not in unused]
    if kept:
        start, end = comment.codes[0][1], comment.codes[-1][2]
        content = ", ".join(kept)
    elif comment.start == comment.comment_start and comment.end == comment.comment_end:
        # The whole comment was the noqa: remove it with the spaces before it.
        start, end, content = comment.start, comment.end, ""
        while start > 0 and source[start - 1] in " \t":
            start -= 1
    else:
        start, end, content = comment.start, comment.end, ""
        while end < len(source) and source[end] in " \t" and end < comment.comment_end:
            end += 1
    return Edit(start, end, content, index.location(start), index.location(end))


def unused_noqa(source: str, path: str, settings: Settings) -> list[Diagnostic]:
    """JAX001 findings for ``# noqa: JAX...`` codes that suppress nothing on their line."""
    if "noqa" not in source.lower() or not settings.is_selected(UNUSED_NOQA, opt_in=True):
        return []
    if UNUSED_NOQA in settings.ignored_codes_for(Path(path)):
        return []
    comments = [c for c in noqa_comments(source) if any(code.startswith("JAX") for code, _, _ in c.codes)]
    if not comments:
        return []
    # The rules (and libcst with them) only when a file is really linted: a run without JAX001 imports neither
    # here (the check command imports this module after its workers are done).
    from jaxlint.lint.engine import lint_source
    from jaxlint.rules import enabled_rules

    rules = enabled_rules(settings, settings.ignored_codes_for(Path(path)))
    enabled = {rule.code for rule in rules} | {"JAX000"}

    found = {(d.start.row, d.code) for d in lint_source(_blank(source, comments), path, settings, rules=rules,
                                                         prefilter=True).diagnostics}
    index = LineIndex(source)
    diagnostics = []
    for comment in comments:
        codes = {code for code, _, _ in comment.codes}
        if UNUSED_NOQA in codes:
            continue
        unused = [code for code in dict.fromkeys(code for code, _, _ in comment.codes)
                  if code.startswith("JAX") and code in enabled and (comment.row, code) not in found]
        if not unused:
            continue
        edit = _removal_edit(source, comment, set(unused), index)
        listed = ", ".join(f"`{code}`" for code in unused)
        diagnostics.append(Diagnostic(
            UNUSED_NOQA, f"unused `noqa` directive (nothing to suppress: {listed})", path,
            index.location(comment.start), index.location(comment.end), comment.start, comment.end,
            fix=Fix(Applicability.SAFE, "Remove the unused `noqa` code" + ("s" if len(unused) > 1 else ""),
                    (edit,)),
            noqa_row=comment.row, url=None,
        ))
    return diagnostics


def remove_unused_noqa(source: str, diagnostics: Sequence[Diagnostic]) -> str:
    edits = sorted((e for d in diagnostics if d.code == UNUSED_NOQA and d.fix for e in d.fix.edits),
                   key=lambda e: e.start, reverse=True)
    for edit in edits:
        source = source[:edit.start] + edit.content + source[edit.end:]
    return source


# -- --add-noqa -----------------------------------------------------------------------------------------------
def _unsafe_rows(source: str) -> set[int]:
    """Rows where a comment cannot go at the end: inside a multi-line string, or ending with a ``\\``."""
    rows: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                rows.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return set(range(1, source.count("\n") + 2))
    for number, line in enumerate(source.splitlines(), start=1):
        if line.rstrip().endswith("\\"):
            rows.add(number)
    return rows


def add_noqa_to_source(source: str, diagnostics: Sequence[Diagnostic]) -> tuple[str, int, list[int]]:
    """The source with ``# noqa: CODES`` on each flagged line; (text, directives added, rows skipped)."""
    wanted: dict[int, list[str]] = {}
    for d in diagnostics:
        if d.code == "JAX000":
            continue
        row = d.noqa_row or d.start.row
        wanted.setdefault(row, [])
        if d.code not in wanted[row]:
            wanted[row].append(d.code)
    if not wanted:
        return source, 0, []
    unsafe = _unsafe_rows(source)
    existing = {c.row: c for c in noqa_comments(source)}
    comment_rows = {row for row, _, _ in _comments(source)}
    index = LineIndex(source)
    edits: list[tuple[int, int, str]] = []
    skipped: list[int] = []
    for row, codes in sorted(wanted.items()):
        if row in unsafe:
            skipped.append(row)
            continue
        comment = existing.get(row)
        if comment is not None and comment.codes:
            have = [code for code, _, _ in comment.codes]
            new = have + [code for code in codes if code not in have]
            edits.append((comment.codes[0][1], comment.codes[-1][2], ", ".join(new)))
        elif comment is not None:
            continue  # a blanket noqa already covers everything
        else:
            line = index.line_text(row)
            end = index.starts[row - 1] + len(line)
            stripped = len(line.rstrip(" \t"))
            start = index.starts[row - 1] + stripped
            separator = "  " if row in comment_rows or stripped else ""
            edits.append((start, end, f"{separator}# noqa: {', '.join(codes)}"))
    for start, end, content in sorted(edits, reverse=True):
        source = source[:start] + content + source[end:]
    return source, len(edits), skipped


def add_noqa(files: Sequence, echo=print) -> int:
    """``--add-noqa`` over discovered files (``SourceFile``s); returns the number of directives added."""
    from jaxlint.lint.engine import lint_source
    from jaxlint.run.sources import DecodeError, read_source

    total = 0
    for file in files:
        if file.path.suffix == ".ipynb":
            total += _add_noqa_to_notebook_file(file, echo)
            continue
        try:
            source = read_source(file.path)
        except (OSError, DecodeError):
            continue
        diagnostics = lint_source(source.text, str(file.path), file.settings).diagnostics
        text, added, skipped = add_noqa_to_source(source.text, diagnostics)
        for row in skipped:
            echo(f"jaxlint: warning: {file.path}:{row}: no `# noqa` added (the line ends inside a multi-line "
                 "string or with a `\\`)")
        if added and _write(file.path, source.encode(text), echo):
            total += added
    return total


def _add_noqa_to_notebook_file(file, echo) -> int:
    from jaxlint.run.notebook_json import NotebookError

    try:
        data = file.path.read_bytes()
        bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
        raw = data[len(bom):].decode("utf-8")
        text, added, skipped = add_noqa_to_notebook(raw, str(file.path), file.settings)
    except (OSError, UnicodeDecodeError, NotebookError):
        return 0
    for cell, row in skipped:
        echo(f"jaxlint: warning: {file.path}:cell {cell}:{row}: no `# noqa` added (the line ends inside a "
             "multi-line string or with a `\\`)")
    return added if added and _write(file.path, bom + text.encode("utf-8"), echo) else 0


def add_noqa_to_notebook(raw: str, display: str, settings: Settings) -> tuple[str, int, list[tuple[int, int]]]:
    """``--add-noqa`` in the code cells: (new notebook text, directives added, (cell, row) pairs skipped).

    Each cell gets its directives in its masked text (IPython lines stand for ``pass`` there, so a comment never
    lands on a magic), then the original lines are put back and only the changed cells' sources are rewritten."""
    from jaxlint.run.ipython_masking import unmask
    from jaxlint.run.notebook_json import rewrite_sources
    from jaxlint.run.notebooks import lint_notebook_text, load_notebook
    from jaxlint.run.results import Mode

    result, _ = lint_notebook_text(raw, display, settings, Mode.CHECK, False)
    by_cell: dict[int, list[Diagnostic]] = {}
    for diagnostic in result.diagnostics:
        if diagnostic.cell is not None:
            by_cell.setdefault(diagnostic.cell, []).append(diagnostic)
    if not by_cell:
        return raw, 0, []
    cells = {cell.number: cell for cell in load_notebook(raw).cells}
    changed: dict[int, str] = {}
    total, skipped = 0, []
    for number, diagnostics in sorted(by_cell.items()):
        cell = cells[number]
        text, added, rows = add_noqa_to_source(cell.masked.text, diagnostics)
        skipped.extend((number, row) for row in rows)
        restored = unmask(text, cell.masked.masked) if added else None
        if restored is not None and restored != cell.text:
            changed[number - 1] = restored
            total += added
    return (rewrite_sources(raw, changed) if changed else raw), total, skipped


def _write(path: Path, data: bytes, echo) -> bool:
    from jaxlint.run.sources import write_atomic

    try:
        write_atomic(path, data)
    except OSError as error:
        echo(f"jaxlint: error: cannot write {path}: {error.strerror or error}; no `# noqa` added there")
        return False
    return True


def report_unused_noqa(files: Sequence, results: list, *, fix: bool = False) -> list:
    """Add JAX001 findings to ``results`` (``FileResult``s, matched to ``files`` by path); with ``fix``, remove
    the unused codes from the files (a safe fix, as ``--fix`` does for the other rules)."""
    from jaxlint.run.sources import DecodeError, read_source, write_atomic

    by_path = {str(file.path): file for file in files}
    for result in results:
        file = by_path.get(result.path)
        if file is None or file.path.suffix == ".ipynb" or result.internal_error:
            continue
        if not file.settings.is_selected(UNUSED_NOQA, opt_in=True):
            continue  # opt-in: most runs never read a file twice
        try:
            source = read_source(file.path)
        except (OSError, DecodeError):
            continue
        text = result.fixed_source if result.fixed_source is not None else source.text
        found = unused_noqa(text, result.path, file.settings)
        if not found:
            continue
        if fix:  # the file on disk is ``text`` (already fixed by the runner, if at all)
            try:
                write_atomic(file.path, source.encode(remove_unused_noqa(text, found)))
            except OSError as error:
                result.write_error = f"{error.strerror or error}"
                result.diagnostics = sorted(result.diagnostics + found, key=Diagnostic.sort_key)
                continue
            from jaxlint.lint.engine import AppliedFix

            result.applied.extend(AppliedFix(d.code, d.message, d.start.row, d.start.column, d.fix.applicability,
                                             d.fix.message, None, None) for d in found)
            continue
        result.diagnostics = sorted(result.diagnostics + found, key=Diagnostic.sort_key)
    return results
