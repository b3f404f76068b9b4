"""Mask IPython syntax in a notebook cell so that the rest of the cell parses as Python and is checked.

What IPython accepts and Python does not, and what each becomes here:

- line magics (``%time f(x)``, ``%load_ext autoreload``), shell escapes (``!pip install jax``), help
  (``?jnp.take``, ``jnp.take?``, ``jnp.take??``) and captured output (``files = !ls``, ``t = %timeit -o f()``):
  the whole logical line (with its ``\\`` continuation lines) becomes ``pass`` at the same indentation, with a tag
  comment, so indented blocks stay valid;
- a cell magic on the first line (``%%time``), or after comments and blank lines only (Colab's ``#@title`` and
  ``#@markdown`` form lines come before it): the magic line is masked and the body is checked when the magic runs
  its body as Python (``%%time``, ``%%timeit``, ``%%capture``...); any other cell magic (``%%writefile``,
  ``%%bash``, ``%%html``...) makes the cell not Python at all, and it is skipped.

A line is only taken for IPython syntax where a Python statement could start: not inside a triple-quoted string, not
inside brackets and not after a ``\\`` continuation (there ``% b`` is the modulo operator). Masked lines are never
reported on (``pass`` triggers no rule) and never edited by fixes: the notebook writer puts the original lines back by
their tag and refuses a fixed text whose tags are not all intact.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# Cell magics whose body is Python (ruff's list, plus the profilers people use with JAX).
PYTHON_CELL_MAGICS = frozenset({
    "capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit", "memit", "snakeviz", "px",
})
MASK_TAG = "#jaxlint-mask:"
# Every IPython line holds one of these (a magic, a shell escape, help, a capture ``= !``/``= %``).
_IPYTHON_CHARACTERS = "%!?"
_CAPTURE = re.compile(r"^[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
_MASK_LINE = re.compile(r"^(?P<indent>[ \t]*)pass  #jaxlint-mask:(?P<id>\d+)(?P<eol>\r?\n?)$")


@dataclass
class MaskedCell:
    """``text`` is what the linter sees; ``masked`` maps a tag number to the original line it stands for."""

    text: str
    masked: dict[int, str] = field(default_factory=dict)
    skipped: bool = False  # a cell magic whose body is not Python
    magic: str | None = None  # the cell magic's name, if any


class _Scanner:
    """Tracks, line by line, whether the next line starts a new statement (outside strings, brackets, ``\\``)."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # the open triple quote, if any
        self.continued = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> bool:
        """Consume one physical line; return whether a ``?`` ended the code part of it (help syntax)."""
        i, n = 0, len(line)
        last_code = ""
        self.continued = False
        while i < n:
            if self.quote is not None:
                end = line.find(self.quote, i)
                while end != -1 and _escaped(line, end):
                    end = line.find(self.quote, end + 1)
                if end == -1:
                    return False
                i = end + 3
                self.quote = None
                last_code = "'"
                continue
            c = line[i]
            if c == "#":
                break
            if c in "\"'":
                if line.startswith(c * 3, i):
                    self.quote = c * 3
                    i += 3
                    continue
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                i = j + 1
                last_code = c
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(self.depth - 1, 0)
            if not c.isspace():
                last_code = c
            i += 1
        stripped = line.rstrip("\r\n")
        if self.quote is None and stripped.endswith("\\") and "#" not in stripped:
            self.continued = True
        return last_code == "?"


def _escaped(line: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and line[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _is_ipython_line(code: str, help_suffix: bool) -> bool:
    if not code:
        return False
    if code[0] in "%!?":
        return not code.startswith("!=")
    if help_suffix:
        return True
    return bool(_CAPTURE.match(code))


def mask_cell(text: str) -> MaskedCell:
    if not any(char in text for char in _IPYTHON_CHARACTERS):
        return MaskedCell(text)  # most cells: no line can be IPython syntax, nothing to scan
    lines = text.splitlines(keepends=True)
    result = MaskedCell("")
    # The first line that is neither blank nor a comment: where a cell magic can be.
    first = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(None, 1)
        result.magic = name[0] if name else ""
        if result.magic not in PYTHON_CELL_MAGICS:
            result.skipped = True
            result.text = ""
            return result
    scanner = _Scanner()
    out: list[str] = []
    tag = 0
    masking_continuation = False
    mask_indent = ""
    for number, line in enumerate(lines):
        starts_statement = scanner.at_statement_start
        help_suffix = scanner.feed(line)
        body = line.rstrip("\r\n")
        eol = line[len(body):]
        indent = body[:len(body) - len(body.lstrip())]
        code = body.lstrip()
        if masking_continuation or (starts_statement and (
                (number == first and result.magic is not None) or _is_ipython_line(code, help_suffix))):
            if not masking_continuation:
                mask_indent = indent
            result.masked[tag] = line
            out.append(f"{mask_indent}pass  {MASK_TAG}{tag}{eol}")
            tag += 1
            # A magic's own ``\\`` continuation lines belong to it; reset the scanner's view of them.
            masking_continuation = body.endswith("\\")
            scanner.depth, scanner.quote, scanner.continued = 0, None, False
            continue
        out.append(line)
    result.text = "".join(out)
    return result


def unmask(text: str, masked: dict[int, str]) -> str | None:
    """Put the original lines back; None if any tag is missing, repeated or was edited (then do not write)."""
    seen: set[int] = set()
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if MASK_TAG in line:
            match = _MASK_LINE.match(line)
            if match is None:
                return None
            number = int(match.group("id"))
            if number in seen or number not in masked:
                return None
            seen.add(number)
            original = masked[number]
            # Keep the line ending the linter's text had only where the original had one.
            out.append(original)
            continue
        out.append(line)
    if seen != set(masked):
        return None
    return "".join(out)
