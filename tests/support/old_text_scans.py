"""The text scanners as they were before issue 27 made them faster: the oracles of the differential tests
(tests/test_code_map.py, tests/test_list_arguments.py). The code is kept as it was; only the imports differ."""
from __future__ import annotations

import re

from jaxlint.analysis.list_arguments import REJECTING
from jaxlint.lint.code_map import COMMENT, FSTRING, STRING, CodeMap, Span

_START = re.compile(r"#|'''|\"\"\"|'|\"")
_LINE_END = re.compile(r"[\r\n]")
_BRACE = re.compile(r"[{}]")
_PREFIX_LETTERS = frozenset("rRbBuUfF")


def scan(source: str) -> CodeMap | None:
    """The strings and comments of ``source``; None where the text cannot be read with certainty."""
    spans: list[Span] = []
    position = 0
    length = len(source)
    while position < length:
        match = _START.search(source, position)
        if match is None:
            break
        start, token = match.start(), match.group()
        if token == "#":
            line_end = _LINE_END.search(source, start)
            end = line_end.start() if line_end is not None else length
            spans.append(Span(start, end, COMMENT))
            position = end
            continue
        prefix_start = start
        while prefix_start and source[prefix_start - 1] in _PREFIX_LETTERS and start - prefix_start < 2:
            prefix_start -= 1
        if prefix_start and is_word_char(source[prefix_start - 1]):
            prefix_start = start  # ``if"x"``: the letters end a name or keyword, the string has no prefix
        is_f = "f" in source[prefix_start:start].lower()
        end = _string_end(source, match.end(), token)
        if end < 0:
            return None
        if is_f and not _balanced(source[match.end():end - len(token)]):
            return None
        spans.append(Span(prefix_start, end, FSTRING if is_f else STRING))
        position = end
    return CodeMap(spans)


def _string_end(source: str, i: int, quote: str) -> int:
    """The offset after the closing ``quote`` (a one-line string ends at its line's end: -1 there)."""
    triple = len(quote) == 3
    while True:
        if triple:
            j = source.find(quote, i)
        else:
            j = _first_of(source, i, quote)
        if j < 0:
            return -1
        if source[j] in "\r\n":
            if not _escaped(source, j):
                return -1  # an unterminated one-line string
            i = j + 1
            continue
        if _escaped(source, j):
            i = j + 1
            continue
        return j + len(quote)


def _first_of(source: str, i: int, quote: str) -> int:
    found = [j for j in (source.find(quote, i), source.find("\n", i), source.find("\r", i)) if j >= 0]
    return min(found) if found else -1


def _escaped(source: str, j: int) -> bool:
    backslashes = 0
    while j - backslashes - 1 >= 0 and source[j - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _balanced(body: str) -> bool:
    """Whether an f-string's replacement fields close inside ``body`` (``{{``/``}}`` outside a field are literal
    braces; inside one, braces nest)."""
    depth = 0
    skip_to = -1
    for match in _BRACE.finditer(body):
        i = match.start()
        if i < skip_to:
            continue
        if body[i] == "{":
            if not depth and body.startswith("{{", i):
                skip_to = i + 2
                continue
            depth += 1
        else:
            if not depth:
                if body.startswith("}}", i):
                    skip_to = i + 2
                    continue
                return False
            depth -= 1
    return depth == 0


def is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches


_LASTS = frozenset(name.rpartition(".")[2] for name in REJECTING)
# An opening parenthesis whose first argument opens a bracket (blanks and comments between); the callee's last word
# is read backwards from the parenthesis only for those (a regex that starts with the callee's word tries every
# position of the file: ~30x slower).
_OPEN_LITERAL = re.compile(r"\((?:\s|#[^\n]*)*[\[(]")
# ``name = [`` / ``name: T = [``: a name that may be bound to a list literal (found from the ``= [``).
_EQUALS_LIST = re.compile(r"=[ \t]*\[")
_ANNOTATED = re.compile(r"[ \t]*([^\W\d]\w*)[ \t]*:")


def may_pass_sequence_text(source: str, bare: frozenset[str] | None = None,
                           owners: frozenset[str] | None = None) -> bool:
    """Whether ``source`` may call a listed function with a list or tuple literal, or a name some assignment binds
    to a list, as first argument (the text gate's over-estimate of ``literal_sequence``). A callee not written after
    a ``.`` counts only when it is in ``bare`` (what the imports bind to a listed function; None: any), so that the
    builtins ``sum([...])``, ``max((a, b))``, ``any([...])`` do not keep a file; one written after a ``.`` only when
    the word before the dot is in ``owners`` (``jnp``, ``numpy``, ``linalg``...; None: any), so that
    ``data.append((...))`` and numpy's ``np.sum([...])`` do not."""
    openings = [match.start() for match in _OPEN_LITERAL.finditer(source)]
    bound = _list_bound_names(source)
    if bound:  # ``jnp.mean(weights)`` after ``weights = [...]``
        names = "|".join(re.escape(name) for name in sorted(bound))
        openings += [match.start() for match in re.finditer(rf"\((?:\s|#[^\n]*)*(?:{names})\b", source)]
    for start in openings:
        callee, callee_start = _word_before(source, start)
        if callee not in _LASTS:
            continue
        dot = _dot_before(source, callee_start)
        if dot < 0:
            if bare is None or callee in bare:
                return True
            continue
        if owners is None or _word_before(source, dot)[0] in owners:
            return True
    return False


def _word_before(source: str, end: int) -> tuple[str, int]:
    """The word that ends at ``end`` (blanks between), and where it starts; "" if none."""
    i = end - 1
    while i >= 0 and source[i] in " \t":
        i -= 1
    stop = i + 1
    while i >= 0 and (source[i].isalnum() or source[i] == "_"):
        i -= 1
    return source[i + 1:stop], i + 1


def _dot_before(source: str, start: int) -> int:
    """The offset of the ``.`` the word at ``start`` follows (blanks and line continuations between), or -1."""
    i = start - 1
    while i >= 0 and source[i] in " \t\\\r\n":
        i -= 1
    return i if i >= 0 and source[i] == "." else -1


def _list_bound_names(source: str) -> set[str]:
    found = set()
    for match in _EQUALS_LIST.finditer(source):
        start = match.start()
        if start and source[start - 1] in "=!<>":
            continue  # ``==`` and friends
        word, _ = _word_before(source, start)
        if word:
            found.add(word)
        else:  # ``name: T = [``
            line = source.rfind("\n", 0, start) + 1
            annotated = _ANNOTATED.match(source, line, start)
            if annotated is not None:
                found.add(annotated.group(1))
    return found


def whole_word_starts(source: str, word: str):
    """``text_gate._whole_word_starts`` before issue 27: ``str.find`` and a boundary test per occurrence."""
    start = source.find(word)
    while start >= 0:
        end = start + len(word)
        if not (start and is_word_char(source[start - 1])) and not (end < len(source) and is_word_char(source[end])):
            yield start
        start = source.find(word, end)
