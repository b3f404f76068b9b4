"""The text gate: the ast gate's question ("can this file refer to that qualified name?") answered from the text.

The word prefilter keeps every file that spells ``jax`` and ``tree_map``, so ``jax.tree_util.tree_map`` keeps the
file alive for the removed ``jax.tree_map``; the ast gate (``jaxlint.lint.ast_gate``) then throws it away, but only after
``ast.parse``. Most of those files can be thrown away from the text alone, by looking at what stands just before each
occurrence of the name's last component and at the file's import statements. This stage answers "maybe" or "no"; a
"maybe" goes on to the ast gate, which has the last word before libcst.

Why "no" is sound (a superset of ``AstFacts.referenced`` and ``AstFacts.import_names``; the tests check it on every
rule example, fixture and jaxlint's own source, and on hand-written line-break and comment cases):

- ``scan_imports`` reads every ``import``/``from ... import`` statement with regular expressions that allow
  whitespace, line continuations and comments between all tokens, so it sees every statement ``ast`` sees (and
  more: text in strings and comments counts too). Bindings, star imports and import names are built as the ast gate
  builds them.
- An attribute chain ``... X . last`` refers to ``P.last`` only if ``X`` is ``P``'s last component (an inner
  attribute, or a root bound through a star import) or ``X`` is a root bound to ``P``. ``X`` is read only when it
  stands on the dot's line with nothing but spaces between (a comment or a string cannot sit there). A ``]``,
  ``}``, quote or dot before the dot makes it an attribute of a subscript, display, string or constant (never a
  qualified name); ``(...)`` on the same line is a call unless a keyword stands before it; anything else (a line
  break, a backslash, brackets across lines) answers "maybe".
- A name ``last`` with no dot before it refers to ``P.last`` only through an import binding of ``last`` or a star
  import of ``P``. At the start of a line, the previous token might still be a dot (``jax.`` then a line break
  inside brackets); the occurrence answers "maybe" when the previous non-blank line ends in a dot or a backslash or
  holds a ``#`` (a comment may follow the dot).

- Once the line-by-line reading says "maybe" (or names a word that may be the parent), the occurrence is read
  again with the file's strings and comments known (``code_map``, checked against ``tokenize``): a word inside a
  string or a comment is no name (an f-string's fields are code: they keep the first answer); the token before a
  word is found across line breaks, continuations and comments, so a docstring sentence's final dot is no
  attribute access and ``(jax\n .numpy)`` still reads ``jax``; ``(...)`` is matched across lines, and a
  parenthesized expression that holds anything but a dotted name (``(a * b).sum``) is no chain. A file whose
  strings cannot be read with certainty keeps the line-by-line answers.

For JAX103 and JAX202, calls are read too (``read_call``): the top-level arguments of a call's parentheses give
``len(call.args)`` (a ``*starred`` one counts once, ``name=`` and ``**`` do not) and the keywords passed by name;
strings are skipped with the code map. A bracket between callee and ``(`` answers "maybe"; ``f(jnp.array)`` is no
call of ``jnp.array``.

A file the text gate cannot decide is never skipped. Names with a single component are never gated here.
"""
from __future__ import annotations

import keyword
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

from jaxlint.lint import code_map
from jaxlint.lint.code_map import is_word_char
from jaxlint.lint.import_bindings import record_from_import, record_import, with_prefixes
from jaxlint.lint.prefilter import Scan

# Between two tokens: whitespace, a line continuation or a whole comment (to the end of its line, so that the
# pattern can split a run of text in one way only: no catastrophic backtracking on long comments).
_SEP_ITEM = r"[ \t\f\r\n]|\\(?:\r\n?|\n)|#[^\r\n]*(?=[\r\n]|\Z)"
_SEP = rf"(?:{_SEP_ITEM})*"
_DOTTED = rf"\w+(?:{_SEP}\.{_SEP}\w+)*"
_ALIAS = rf"(?:{_SEP}\bas\b{_SEP}\w+)?"
# Each pattern starts with its keyword, so that the regex engine's fast literal search finds the candidates; the
# word boundary before the keyword is tested by hand.
_FROM_IMPORT = re.compile(
    rf"from\b{_SEP}(?P<module>{_DOTTED}){_SEP}\bimport\b{_SEP}"
    rf"(?P<names>\*|\(?{_SEP}\w+{_ALIAS}(?:{_SEP},{_SEP}\w+{_ALIAS})*)")
_IMPORT = re.compile(rf"import\b{_SEP}(?P<modules>{_DOTTED}{_ALIAS}(?:{_SEP},{_SEP}{_DOTTED}{_ALIAS})*)")
_SEP_RUN = re.compile(rf"(?:{_SEP_ITEM})+")
_ITEM = re.compile(r"([\w.]+)(?: as (\w+))?")
_BLANK = " \t\f"
_BLANK_OR_NEWLINE = " \t\f\r\n"
# What stands before an occurrence of a name, when it is not the word before a dot (none of them is a word).
MAYBE, BARE, NOT_A_NAME = "?", "", "!"
# Before ``(``, these make it a parenthesized expression, not a call: ``return (jnp).array`` is a chain.
_KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
# Bounds that keep every scan linear in the file (past them the answer is "maybe"): comment-only lines read back
# from a line start, and how far a bracket scan looks (a call's arguments, a parenthesized expression).
_MAX_COMMENT_LINES = 64
_MAX_SCAN = 4096


@dataclass
class TextImports:
    """What the file's import statements bind, read from the text (a superset of what ``ast`` reads)."""

    bindings: dict[str, set[str]] = field(default_factory=dict)
    star_modules: list[str] = field(default_factory=list)
    import_names: set[str] = field(default_factory=set)
    # the modules imported as modules, with their prefixes: ``import a.b``'s and ``from a.b import c``'s ``a.b`` (and
    # ``c``: the ``import c`` of that statement reads as one too, a harmless extra); ``import_names`` also holds
    # ``a.b.c``, which may be any attribute of ``a.b``
    module_names: set[str] = field(default_factory=set)


def _normalized(text: str) -> str:
    """``jax . numpy`` / ``a as b`` with comments and continuations, in one canonical spelling."""
    return _SEP_RUN.sub(" ", text).replace(" .", ".").replace(". ", ".").strip()


def _whole_word_starts(source: str, word: str):
    """Where ``word`` occurs as a whole word. A word of word characters (every name and keyword) is found by one
    pattern per word, in C; it starts with the word itself, which keeps the regex engine's fast literal search (a
    leading ``\b`` or look-behind turns it off): the character before is checked by a look-behind after the word."""
    if _WORD_ONLY.fullmatch(word) is not None:
        return [match.start() for match in _whole_word(word).finditer(source)]
    return _whole_word_starts_found(source, word)


_WORD_ONLY = re.compile(r"\w+")


@lru_cache(maxsize=4096)
def _whole_word(word: str) -> "re.Pattern[str]":
    escaped = re.escape(word)
    return re.compile(rf"{escaped}(?<!\w{escaped})(?!\w)")


def _whole_word_starts_found(source: str, word: str):
    """``_whole_word_starts`` with ``str.find`` and a boundary test (for a word that holds other characters)."""
    start = source.find(word)
    while start >= 0:
        end = start + len(word)
        if not (start and is_word_char(source[start - 1])) and not (end < len(source) and is_word_char(source[end])):
            yield start
        start = source.find(word, end)


def _keyword_matches(pattern: "re.Pattern[str]", keyword_text: str, source: str):
    """The pattern's match at every whole-word occurrence of its keyword. Each occurrence is tried on its own:
    a match that starts in a comment (``# read from a``) may run on into code, and must not hide what it covers."""
    for start in _whole_word_starts(source, keyword_text):
        match = pattern.match(source, start)
        if match is not None:
            yield match


def scan_imports(source: str) -> TextImports:
    found = TextImports()
    bindings = found.bindings
    for match in _keyword_matches(_FROM_IMPORT, "from", source):
        module, items = _from_import_items(match.group("module"), match.group("names"))
        found.import_names.update(with_prefixes(module))
        found.module_names.update(with_prefixes(module))
        if items is None:
            found.star_modules.append(module)
            continue
        for name, alias in items:
            record_from_import(bindings, found.import_names, module, name, alias)
    # Every ``import``, also the one in ``from m import n``: that reads ``n`` as a module too (harmless extra).
    for match in _keyword_matches(_IMPORT, "import", source):
        for name, alias in _import_items(match.group("modules")):
            record_import(bindings, found.import_names, name, alias)
            found.module_names.update(with_prefixes(name))
    return found


# A statement's text read once per run: the same import lines recur in most files of a project (a quarter of the
# corpus's import statements are distinct).
@lru_cache(maxsize=16384)
def _from_import_items(module_text: str, names_text: str) -> tuple[str, tuple[tuple[str, str], ...] | None]:
    """``from <module_text> import <names_text>``: the module and its (name, alias) items; None for ``*``."""
    module = _normalized(module_text)
    if names_text == "*":
        return module, None
    return module, tuple(_ITEM.findall(_normalized(names_text.lstrip("("))))


@lru_cache(maxsize=16384)
def _import_items(modules_text: str) -> tuple[tuple[str, str | None], ...]:
    """``import <modules_text>``: its (name, alias) items."""
    items = []
    for item in _normalized(modules_text).split(","):
        item_match = _ITEM.fullmatch(item.strip())
        if item_match is not None:  # always, for text the pattern matched; be safe rather than sorry
            items.append(item_match.groups())
    return tuple(items)


def context_before(source: str, start: int) -> str:
    """What stands before the word at ``start``: ``MAYBE``, ``BARE`` (no dot) or the word before its dot."""
    i = start
    while i and source[i - 1] in _BLANK:
        i -= 1
    if not i:
        return BARE
    char = source[i - 1]
    if char == ".":
        word, i = _word_before(source, i - 1)
        if word:
            return word
        before = source[i - 1] if i else ""
        # A subscript, a display, a string, ``...`` or a float: an attribute of those is no qualified name.
        if before in "]}'\".":
            return NOT_A_NAME
        if before == ")":
            return _context_of_parenthesis(source, i - 1)
        return MAYBE  # a line break before the dot (or a backslash): the chain's root is on another line
    if char not in "\r\n":
        return BARE
    # The start of a line: inside brackets the previous token may be a dot at the end of an earlier line, before
    # a comment or a few comment-only lines.
    for _ in range(_MAX_COMMENT_LINES):
        while i and source[i - 1] in _BLANK_OR_NEWLINE:
            i -= 1
        if not i:
            return BARE
        line_start = max(source.rfind("\n", 0, i), source.rfind("\r", 0, i)) + 1  # inline: a hot path
        line = source[line_start:i]
        hash_at = line.find("#")
        if hash_at < 0:
            code = line
        elif "'" in line[:hash_at] or '"' in line[:hash_at]:
            return MAYBE  # the ``#`` may be in a string: where the comment starts is unknown
        else:
            code = line[:hash_at].rstrip(_BLANK)
            if not code.strip(_BLANK):
                i = line_start  # a comment-only line holds no token: look at the line before
                continue
        return MAYBE if code.endswith((".", "\\")) else BARE
    return MAYBE  # a long run of comment lines: not worth reading back further


def _context_in_code(source: str, start: int, context: str, strings: code_map.CodeMap) -> str:
    """``context_before`` with the strings and comments known, which lets it read across lines: a word in a
    string or a comment is no name; a dot that ends a docstring's sentence is no attribute access; the word
    before a dot may stand on an earlier line (inside brackets or after a backslash); ``(...)`` is matched across
    lines with strings and comments skipped."""
    span = strings.at(start)
    if span is not None:
        # An f-string's fields hold code; its prefix (``f"``, ``rf"``) does not.
        return context if span.kind == code_map.FSTRING and start != span.start else NOT_A_NAME
    if context != MAYBE:
        return context
    dot = _previous_token(source, start, strings)
    if dot < 0 or strings.at(dot) is not None or source[dot] != ".":
        return BARE  # the file's start, a string or any other token: no dot stands before the word
    before = _previous_token(source, dot, strings)
    if before < 0:
        return MAYBE
    if strings.at(before) is not None:
        return NOT_A_NAME  # an attribute of a string
    char = source[before]
    if is_word_char(char):
        return _word_before(source, before + 1)[0]
    if char == ")":
        return _context_of_parenthesis_in_code(source, before, strings)
    if char in "]}.":
        return NOT_A_NAME  # a subscript, a display, ``...`` or a float
    return MAYBE


def _previous_token(source: str, end: int, strings: code_map.CodeMap) -> int:
    """The offset of the last character of the token before ``end`` (blanks, line breaks, line continuations and
    comments skipped); -1 at the file's start."""
    i = end
    while i:
        char = source[i - 1]
        if char in _BLANK_OR_NEWLINE:
            i -= 1
            continue
        span = strings.at(i - 1)
        if span is not None and span.kind == code_map.COMMENT:
            i = span.start
            continue
        if char == "\\" and span is None:
            i -= 1  # a line continuation
            continue
        return i - 1
    return -1


def _context_of_parenthesis_in_code(source: str, close: int, strings: code_map.CodeMap) -> str:
    """``_context_of_parenthesis`` across lines, jumping over strings and comments (bounded like it)."""
    opening = _matching_opening(source, close, strings)
    if opening is None:
        return MAYBE
    if _opens_call(source, opening):
        return NOT_A_NAME  # ``f(...).T``, ``f(a)(b).T``, ``x[0](b).T``: calls
    # A parenthesized expression: a chain only when it holds a dotted name (``(jax.numpy).sum``); ``(a * b).sum``
    # or ``(x == y).all`` are attributes of other expressions.
    inside = _PARENTHESIZED_NAME.fullmatch(source, opening + 1, close)
    if inside is not None:
        return inside.group("last")
    # ``((jax)).x``, ``((a).b).c``: words, dots and brackets only may still be a chain
    return MAYBE if _NESTED_PARENTHESES.fullmatch(source, opening + 1, close) else NOT_A_NAME


_NESTED_PARENTHESES = re.compile(r"(?:[\w.() \t\f\r\n\\]|#[^\r\n]*)*")
_PARENTHESIZED_NAME = re.compile(rf"{_SEP}(?:\w+{_SEP}\.{_SEP})*(?P<last>\w+){_SEP}")


class TextFacts:
    """The text gate's view of one file; imports and contexts are computed on first use."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._imports: TextImports | None = None
        self._occurrences: dict[str, list[tuple[int, str]]] = {}
        self._code_map: code_map.CodeMap | None | bool = False  # False: not scanned yet; None: not readable
        self._refined: dict[int, str] = {}
        # Answers per name table and per module set: JAX101 and JAX402 ask the same questions of every file.
        self._refers: dict[int, tuple[NamesByLast, set[str], bool]] = {}
        self._may_import: dict[frozenset[str], bool] = {}
        self._bound: set[str] | None = None  # every qualified name an import binds (``may_qualify``)
        self._code_bindings: dict[str, set[str]] | None | bool = False  # ``code_import_bindings``, once read
        self._masked: str | None | bool = False  # ``masked_code``, once read

    @property
    def imports(self) -> TextImports:
        if self._imports is None:
            self._imports = scan_imports(self.source)
        return self._imports

    def occurrences(self, word: str) -> list[tuple[int, str]]:
        """(end offset, context) of every whole-word occurrence of ``word``."""
        try:
            return self._occurrences[word]
        except KeyError:
            pass
        source = self.source
        found = self._occurrences[word] = [(start + len(word), context_before(source, start))
                                           for start in _whole_word_starts(source, word)]
        return found

    def may_import(self, modules: frozenset[str], words: set[str] | None = None) -> bool:
        """Whether an import statement may mention one of ``modules`` (or a module under it). ``words``: the file's
        ASCII words (``prefilter.Scan.words``); a module whose dotted parts are not all among them cannot be among
        the imports (each part is a whole word of an import statement), so a file that spells no module's parts
        is answered without reading its imports."""
        if words is not None:
            keys, by_key = _module_parts_index(modules)
            if not any(parts <= words for key in words & keys for parts in by_key[key]):
                return False
        try:
            return self._may_import[modules]
        except KeyError:
            pass
        answer = self._may_import[modules] = not self.imports.import_names.isdisjoint(modules)
        return answer

    def may_refer(self, qualified: str) -> bool:
        """Whether the ast gate could count ``qualified`` as referenced (False only when it cannot)."""
        parent_name, _, last = qualified.rpartition(".")
        if not parent_name or qualified in self.imports.import_names:
            return True
        if not self.may_qualify(qualified):
            return False
        return any(self._may_be_at(qualified, end - len(last), context) for end, context in self.occurrences(last))

    def may_qualify(self, qualified: str) -> bool:
        """Whether ``ast`` could give some name or attribute chain the qualified name ``qualified`` (a dotted one).
        It qualifies a chain's root only through an import binding (``bindings``) or a star import (``m.root``), and
        the chain's attributes only extend that base: so some binding holds a prefix of ``qualified`` (itself
        included), or a star-imported module is a proper prefix of it. The text's bindings and star imports hold
        the ast's; a file that binds only ``numpy`` and ``optax`` is answered without finding a single occurrence."""
        imports = self.imports
        if imports.star_modules and any(qualified.startswith(module + ".") for module in imports.star_modules):
            return True
        if self._bound is None:
            self._bound = set().union(*imports.bindings.values())
        bound = self._bound
        return any(prefix in bound for prefix in with_prefixes(qualified))

    def starts_a_line_in_code(self, word: str) -> bool:
        """Whether ``word`` stands first on a line (blanks before it only), outside strings and comments (True where
        they cannot be read): where the keyword of a compound statement stands (``with``: never after ``;``,
        ``:`` or ``async`` on its line), unlike prose or a word inside an f-string's text."""
        return bool(self.line_starts_in_code(word))

    def line_starts_in_code(self, word: str) -> list[int]:
        """The offsets where ``word`` stands first on a line, outside strings and comments (every such offset
        where they cannot be read): ``starts_a_line_in_code``'s places, for a rule that reads the statements."""
        source = self.source
        starts = [end - len(word) for end, _ in self.occurrences(word)]
        starts = [start for start in starts
                  if not source[code_map.line_start(source, start):start].strip(_BLANK)]
        if not starts:
            return starts
        strings = self._strings()
        return starts if strings is None else [start for start in starts if strings.at(start) is None]

    def may_call_such(self, qualified: str, accepts) -> bool:
        """Whether one call of ``qualified`` may be read so that ``accepts(call)`` (a ``CallText``) holds: the
        questions below are of this shape, and a rule may ask several of one and the same call (a call that cannot
        be read is a "maybe")."""
        for call in self._calls_of(qualified, lambda call: not accepts(call)):
            if call is None or accepts(call):
                return True
        return False

    def may_call_with_more_than(self, qualified: str, arguments: int) -> bool:
        """Whether a call of ``qualified`` may have more than ``arguments`` positional arguments (the ast gate's
        ``len(call.args)``: a ``*starred`` one counts once)."""
        return self.may_call_such(qualified, lambda call: call.positional > arguments)

    def may_call_with_keyword(self, qualified: str, keywords: frozenset[str]) -> bool:
        """Whether a call of ``qualified`` may pass one of ``keywords`` by name (the ast gate's ``call.keywords``;
        ``**kwargs`` names none)."""
        return self.may_call_such(qualified, lambda call: not call.keywords.isdisjoint(keywords))

    def may_call_with_at_most(self, qualified: str, arguments: int, without: frozenset[str]) -> bool:
        """Whether a call of ``qualified`` may have at most ``arguments`` positional arguments, none of ``without``
        passed by name and no ``**kwargs`` (what ``ast`` reads of a call that omits a parameter). A call with a
        ``lambda`` in it is a "maybe": its parameters read as arguments (``lambda a, b=1, **k: 0``)."""
        return self.may_call_such(qualified, lambda call: call.positional >= 0 and (
            call.lambdas or call.positional <= arguments and without.isdisjoint(call.keywords)
            and not call.double_star))

    def may_call_method(self, name: str, accepts, *, not_on: Callable[[str], bool] | None = None) -> bool:
        """Whether some call of a method ``name`` (the word after a dot: an attribute of any value, as the ast gate
        reads ``call.func.attr``) may be read so that ``accepts(call)`` holds (a call that cannot be read is a
        "maybe"). Each call is read first without the strings known (``_calls_of``' shortcut); one that may be
        accepted is then looked up among the strings and comments (a docstring's example is no call). ``not_on``:
        whether to pass over a call whose callee's attribute chain starts at this name, read for sure
        (``copy.copy(x)`` where ``copy`` is a module: ``bound_by_code_import``)."""
        source = self.source
        for end, context in self.occurrences(name):
            if context == BARE:
                continue  # no dot before it: a name, not an attribute
            start = end - len(name)
            if not_on is not None:
                root = chain_start(source, start)
                if root != start and not_on(_word_at(source, root)):
                    continue
            quick = read_call(source, end, None, start)
            if quick is not None and not accepts(quick):
                continue
            strings = self._strings()
            if strings is not None and strings.at(start) is not None:
                continue  # in a string or a comment (a docstring's example): no call ``ast`` reads
            call = quick if quick is not None else self._call_at(start, end)
            if call is None or accepts(call):
                return True
        return False

    def may_pass_keyword(self, qualified: str, keywords: frozenset[str]) -> bool:
        """``may_call_with_keyword``, or ``qualified`` passed ``**kwargs`` (a helper's), or named where it is not
        called but may be bound or handed on (``fn = jnp.clip``, ``partial(jnp.clip, a_min=0)``: what the ast gate
        follows): the keywords may reach it from another call."""
        for start, call in self._call_sites(qualified):
            if call is None or call.double_star or not call.keywords.isdisjoint(keywords):
                return True
            if call.positional < 0 and self._may_be_bound_or_partial(start, keywords):
                return True
        return False

    def may_pass_a_listed_keyword(self, table: "KeywordsByLast", words: set[str]) -> bool:
        """Whether some function of ``table`` may be passed one of its keywords (``may_pass_keyword``): only
        functions the file spells (their last name: also in an ``import ... as`` of them) one of whose keywords it
        spells as ``name=`` can be (``x``, ``axis`` are words of nearly every file, so the functions are looked at
        first)."""
        functions = [entry for last in words & table.lasts for entry in table.index[last]]
        keywords = {keyword for _, rows in functions for keyword in rows if keyword in words}
        spelled = passed_keywords(self.source, keywords) if keywords else set()
        return bool(spelled) and any(self.may_pass_keyword(function, rows)
                                     for function, rows in functions if not spelled.isdisjoint(rows))

    def _may_be_bound_or_partial(self, start: int, keywords: frozenset[str]) -> bool:
        """Whether the name or attribute chain whose last word starts at ``start`` may be the value of an assignment
        or the first argument of a ``functools.partial`` call that passes one of ``keywords``: the code before the
        chain (across line breaks and comments once the strings and comments are known) is ``=``, a ``(`` that
        opens no call or a call of a name that may be ``partial``, or nothing that can be read for sure."""
        source = self.source
        i = self._code_before(chain_start(source, start))
        if i < 0 or source[i - 1] not in ",([{:@;+-*/%&|^~<>!" and not is_word_char(source[i - 1]):
            return True  # ``=``, the file's start, or what cannot be read: unclear
        if source[i - 1] != "(":
            return False  # ``tree_map(f, jnp.clip)``, ``[jnp.clip]``, ``return jnp.clip``, ``@jax.jit``
        callee, callee_start = _word_before(source, i - 1)
        if not callee or keyword.iskeyword(callee) or not callee.isascii():
            return True  # ``fn = (jnp.clip)``, ``return (jnp.clip)``: no call's ``(``
        if not (callee == "partial" or self.imports.star_modules or _PARTIAL in self.imports.bindings.get(callee, ())):
            return False
        # the ``partial(...)`` call itself
        call = read_call(source, callee_start + len(callee), self._strings(), callee_start)
        return call is None or call.double_star or not call.keywords.isdisjoint(keywords)

    def _code_before(self, i: int) -> int:
        """The offset after the code character before offset ``i``, read back over blanks, line breaks, line
        continuations and comments (``_previous_token``); -1 when there is none, or a line break must be crossed and
        the strings and comments cannot be read."""
        source = self.source
        while i and source[i - 1] in " \t":
            i -= 1
        if not i or source[i - 1] not in "\r\n\\":
            return i if i else -1
        strings = self._strings()
        if strings is None:
            return -1
        before = _previous_token(source, i, strings)
        return before + 1 if before >= 0 else -1

    def _calls_of(self, qualified: str, harmless=None):
        """The calls (``CallText``, or None where one cannot be read) of every occurrence that may be
        ``qualified``: its last component after what may be its parent, or a name an import binds to it.
        ``harmless``: a call the caller's answer does not depend on; an occurrence whose call, read without the
        strings and comments known, is one is left out (in code the strings change nothing that read sees, and
        in a string or comment it is no call), which spares most files the ``code_map`` scan."""
        for _, call in self._call_sites(qualified, harmless):
            yield call

    def _call_sites(self, qualified: str, harmless=None):
        """``_calls_of`` with where each occurrence's last word starts (-1 when ``qualified`` has no parent)."""
        parent_name, _, last = qualified.rpartition(".")
        if not parent_name:
            yield -1, None
            return
        if not self.may_qualify(qualified):
            return  # no callee, alias or ``partial`` argument ``ast`` reads can be ``qualified``
        for end, context in self.occurrences(last):
            start = end - len(last)
            if harmless is not None and self._may_be(qualified, context):
                quick = read_call(self.source, end, None, start)
                if quick is not None and harmless(quick):
                    continue
            if self._may_be_at(qualified, start, context):
                yield start, self._call_at(start, end)
        # ``from jax.numpy import array as arr``: calls of the alias, a bare name (or one we cannot see around)
        aliases = [name for name, bound in self.imports.bindings.items() if qualified in bound and name != last]
        for alias in aliases:
            for end, context in self.occurrences(alias):
                if context in (BARE, MAYBE) and self._code_context(end - len(alias), context) in (BARE, MAYBE):
                    yield end - len(alias), self._call_at(end - len(alias), end)

    def _call_at(self, start: int, end: int) -> "CallText | None":
        return read_call(self.source, end, self._strings(), start)

    def _may_be_at(self, qualified: str, start: int, context: str) -> bool:
        """``_may_be`` for the occurrence at ``start``, read again with the strings and comments known when the
        line-by-line context alone says it may be, and read back to its chain's root where the chain is on one line."""
        return (self._may_be(qualified, context) and self._root_may_be(qualified, start, context)
                and self._may_be(qualified, self._code_context(start, context)))

    def _root_may_be(self, qualified: str, start: int, context: str) -> bool:
        """For an occurrence after a dot (``np.random.randint``, ``context`` the word before the dot): whether the
        chain's root may qualify it as ``qualified``. The ast gate qualifies a chain from its root name only (what an
        import binds it to, or a star import's module before it), so an inner attribute that merely spells the
        parent's last component (``random``) is no reference of ``jax.random.randint`` when the root is ``np``.
        Read only where the whole chain stands on the occurrence's line with nothing but blanks around its dots
        and nothing but a non-dot before its root (``context_before`` says ``BARE``); else "maybe"."""
        if context in (MAYBE, BARE, NOT_A_NAME):
            return True
        source = self.source
        root_start = chain_start(source, start)
        if root_start == start or context_before(source, root_start) != BARE:
            return True
        words = [word.strip(_BLANK) for word in source[root_start:start].split(".")]
        if words[-1] or not all(words[:-1]):
            return True  # not a chain of words and dots: be careful
        root, middle = words[0], ".".join(words[1:-1])
        parent_name = qualified.rpartition(".")[0]
        imports = self.imports
        bases = set(imports.bindings.get(root, ()))
        bases.update(f"{module}.{root}" for module in imports.star_modules)
        return any((f"{base}.{middle}" if middle else base) == parent_name for base in bases)

    def _code_context(self, start: int, context: str) -> str:
        """The context of the occurrence at ``start`` once strings and comments are known (``code_map``)."""
        if context == NOT_A_NAME:
            return context
        try:
            return self._refined[start]
        except KeyError:
            pass
        strings = self._strings()
        refined = context if strings is None else _context_in_code(self.source, start, context, strings)
        self._refined[start] = refined
        return refined

    def code_import_bindings(self) -> dict[str, set[str]] | None:
        """What the import statements in code bind (imports in strings and comments left out, so that a binding
        listed here is one ``ast`` reads): name -> the qualified names it may stand for; None where the strings and
        comments cannot be read."""
        if self._code_bindings is False:
            code = self.masked_code()
            self._code_bindings = None if code is None else scan_imports(code).bindings
        return self._code_bindings  # type: ignore[return-value]

    def bound_by_code_import(self, name: str, bound_to: Callable[[str], bool] | None = None) -> bool:
        """Whether an import statement in code binds ``name`` (to a module ``bound_to`` accepts; any, without it):
        ``may_call_method``'s ``not_on``. The strings and comments are scanned only for a name some import of the
        text binds (a superset of the code's): most receivers, ``variables.copy``, are no import's."""
        if name not in self.imports.bindings:
            return False
        bound = (self.code_import_bindings() or {}).get(name)
        return bound is not None and (bound_to is None or any(map(bound_to, bound)))

    def masked_code(self) -> str | None:
        """``code_map.masked_code`` of the file (once per file: several gates read it); None where the strings and
        comments cannot be read."""
        if self._masked is False:
            strings = self._strings()
            self._masked = None if strings is None else code_map.masked_code(self.source, strings)
        return self._masked  # type: ignore[return-value]

    def strings(self) -> code_map.CodeMap | None:
        """The file's strings and comments (``code_map.scan``, once per file: a rule's gate that reads the text
        itself shares the scan with the gate's own questions); None when they cannot be read with certainty."""
        return self._strings()

    def _strings(self) -> code_map.CodeMap | None:
        if self._code_map is False:
            self._code_map = code_map.scan(self.source)
        return self._code_map  # type: ignore[return-value]

    def _may_be(self, qualified: str, context: str) -> bool:
        """Whether an occurrence of ``qualified``'s last component, in ``context``, may refer to it."""
        if context == MAYBE:
            return True
        if context == NOT_A_NAME:
            return False
        parent_name, _, last = qualified.rpartition(".")
        imports = self.imports
        if context == BARE:
            return qualified in imports.bindings.get(last, ()) or parent_name in imports.star_modules
        return context == parent_name.rpartition(".")[2] or parent_name in imports.bindings.get(context, ())

    def refers_to_any(self, by_last: "NamesByLast", words: set[str]) -> bool:
        """``may_refer`` for any of the names (indexed by last component), looking only at words the file has.
        A common last word (``sum``) stands for dozens of names: each is first tried against the distinct contexts
        of the word, and read occurrence by occurrence only when one of them lets it through."""
        cached = self._refers.get(id(by_last))
        # the entry holds ``by_last`` and ``words`` themselves: their ids cannot be reused while it lives
        if cached is not None and cached[0] is by_last and cached[1] is words:
            return cached[2]
        answer = self._refers_to_any(by_last, words)
        self._refers[id(by_last)] = (by_last, words, answer)
        return answer

    def _refers_to_any(self, by_last: "NamesByLast", words: set[str]) -> bool:
        for last in words & by_last.lasts:
            # A qualified name is only ever built from what imports and attribute chains spell: a name one of whose
            # components the file never spells (``jax.experimental.ode.f`` without ``ode``) cannot be referenced.
            names = [name for name in by_last.index[last] if by_last.parts[name] <= words]
            if not names:
                continue
            # the imports are read only once a name survives: most files are answered from their words alone
            import_names = self.imports.import_names
            if any(not name.rpartition(".")[0] or name in import_names for name in names):
                return True
            names = [name for name in names if self.may_qualify(name)]
            if not names:
                continue  # no import binds a prefix of any: the occurrences need not be looked for
            contexts = {context for _, context in self.occurrences(last)}
            contexts.discard(NOT_A_NAME)
            for name in names:
                if any(self._may_be(name, context) for context in contexts) and self.may_refer(name):
                    return True
        return False


def reading(source: str) -> "tuple[Scan, TextFacts]":
    """``source``'s word split and text facts, those of the last text read when it is this very string: a worker's
    effective-floor note (``run.effective_floor``) asks its questions of the text the lint has just read (its words
    split, its imports scanned), one file at a time."""
    global _LAST_READING
    if _LAST_READING is not None and _LAST_READING[0] is source:
        return _LAST_READING[1], _LAST_READING[2]
    scan, facts = Scan(source), TextFacts(source)
    _LAST_READING = (source, scan, facts)
    return scan, facts


_LAST_READING: "tuple[str, Scan, TextFacts] | None" = None


_NEWLINE = re.compile(r"[\r\n]")
_CALL_TOKEN = re.compile(r"""[()\[\]{},'"#\\]""")


_PARTIAL = "functools.partial"


def _word_at(source: str, start: int) -> str:
    """The word (of word characters) that starts at ``start``."""
    end = start
    while end < len(source) and is_word_char(source[end]):
        end += 1
    return source[start:end]


def chain_start(source: str, start: int) -> int:
    """Where the attribute chain whose last word starts at ``start`` begins (blanks around its dots allowed); at a
    dot with no word before it (``(x).clip``), the word after that dot."""
    i = start
    while True:
        j = i
        while j and source[j - 1] in " \t":
            j -= 1
        if not j or source[j - 1] != ".":
            return i
        word, word_start = _word_before(source, j - 1)
        if not word:
            return i
        i = word_start


def a_call(call: "CallText") -> bool:
    """``TextFacts.may_call_method``'s and ``may_call_such``'s test of a plain call: the name is followed by its
    arguments (``NO_CALL`` reads ``positional`` -1)."""
    return call.positional >= 0


@dataclass(frozen=True)
class CallText:
    """What the text says of one call's arguments (as ``ast`` counts them)."""

    positional: int  # ``len(call.args)``: a ``*starred`` argument counts once; -1 when no call follows
    keywords: frozenset[str]  # the ``name=`` arguments (``**kwargs`` names none)
    double_star: bool = False  # a ``**kwargs`` argument is passed
    # the first argument's text when it is positional, without blanks, line breaks, comments and parentheses
    # (``( None  # c\n)`` is ``None``, as ``ast`` reads it); "" when there is none or it is ``*``/``**``/``name=``
    first: str = ""
    # a ``lambda`` in an argument: its parameters' commas read as arguments' (``positional`` is then an upper bound)
    lambdas: bool = False
    end: int = -1  # the offset after the call's closing parenthesis (-1: no call)
    start: int = -1  # the offset after its opening parenthesis: ``source[start:end - 1]`` holds the arguments


NO_CALL = CallText(-1, frozenset())
_LAMBDA = re.compile(r"\blambda\b")
# An argument's head: ``**``, ``*`` or ``name =`` (not ``==``), after blanks, line breaks and comments.
_ARGUMENT_HEAD = re.compile(rf"{_SEP}(?:(\*\*)|\*|(\w+){_SEP}=(?!=))")


def read_call(source: str, end: int, strings: code_map.CodeMap | None = None,
              callee_start: int | None = None) -> CallText | None:
    """The arguments of the call whose callee ends at ``end`` (its last word starts at ``callee_start``);
    ``NO_CALL`` when no call follows; None when the text cannot be read with certainty: a bracket between callee and
    ``(``, or (without ``strings``, the file's ``code_map``) a line break there or a triple-quoted or f-string
    inside."""
    if callee_start is None:
        callee_start = end
    i = end
    while i < len(source) and source[i] in _BLANK:
        i += 1
    if strings is not None and i < len(source) and source[i] in "\r\n#\\":
        i = _next_token(source, i, strings)  # the ``(`` on another line inside brackets (or none)
    if i == len(source):
        return NO_CALL
    if source[i] != "(":
        if source[i] == ")" and strings is not None and not _parenthesized(source, callee_start, strings):
            return NO_CALL  # ``f(jnp.array)``: the bracket closes another call
        # ``(jnp.array)(...)``, or (without ``strings``) the ``(`` on another line: a call we cannot see
        return None if source[i] in ")\r\n#\\" else NO_CALL
    depth, i = 0, i + 1
    opened = i
    positional, keywords, argument_start = 0, set(), i
    double_star = False
    first = ""
    lambdas = False
    stop = min(len(source), i + _MAX_SCAN)  # bounded: many unclosed calls in a broken file must stay linear

    def argument_ends(at: int) -> None:
        nonlocal positional, double_star, first, lambdas
        if not lambdas and _LAMBDA.search(source, argument_start, at) is not None:
            lambdas = True
        head = _ARGUMENT_HEAD.match(source, argument_start, at)
        if head is not None and head.group(1):
            double_star = True  # ``**kwargs``
            return
        if head is not None and head.group(2):
            name = head.group(2)
            # Python reads names in NFKC: ``ｍode=`` passes ``mode``
            keywords.add(name if name.isascii() else unicodedata.normalize("NFKC", name))
        elif _SEP_RUN.fullmatch(source, argument_start, at) is None and at > argument_start:
            if not positional and head is None:  # not ``*args``
                first = _SEP_RUN.sub("", source[argument_start:at]).replace("(", "").replace(")", "")
            positional += 1  # anything but blanks and comments (``*args`` included)

    while True:
        match = _CALL_TOKEN.search(source, i, stop)
        if match is None:
            return None
        char, j = match.group(), match.start()
        i = j + 1
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if not depth:
                argument_ends(j)
                return CallText(positional, frozenset(keywords), double_star, first, lambdas, j + 1, opened)
            depth -= 1
        elif char == ",":
            if not depth:
                argument_ends(j)
                argument_start = i
        elif char == "#":
            newline = _NEWLINE.search(source, i)
            if newline is None:
                return None
            i = newline.end()
        elif char == "\\":
            i += 1  # a line continuation
        elif strings is not None:
            span = strings.at(j)
            if span is None or span.kind == code_map.COMMENT:
                return None  # cannot happen with a map of this text; be safe
            i = span.end
        else:  # a string: only plain one-line ones are skipped; an f-string may nest quotes (3.12)
            if source.startswith(char * 3, j) or _string_prefix(source, j) & {"f", "F"}:
                return None
            i = _string_end(source, j + 1, char, stop)
            if i < 0:
                return None


def call_of_result(source: str, call: CallText, strings: code_map.CodeMap | None) -> CallText | None:
    """The call of what ``call`` returns (``Cls(8)(q, kv)``: its second parentheses, across blanks, line breaks and
    comments), ``NO_CALL`` when none follows it, None when the text cannot say: the strings unknown, or a
    parenthesis closing after it (``(Cls(8))(q, kv)``)."""
    if call.end < 0:
        return NO_CALL
    if strings is None:
        return None
    i = _next_token(source, call.end, strings)
    if i == len(source) or source[i] not in "()":
        return NO_CALL
    return read_call(source, call.end, strings) if source[i] == "(" else None


def _next_token(source: str, i: int, strings: code_map.CodeMap) -> int:
    """The offset of the first character of the token at or after ``i`` (blanks, line breaks, line continuations
    and comments skipped); ``len(source)`` at the end."""
    while i < len(source):
        char = source[i]
        if char in _BLANK_OR_NEWLINE or char == "\\":
            i += 1
        elif char == "#":
            span = strings.at(i)
            i = span.end if span is not None else len(source)
        else:
            return i
    return i


def _parenthesized(source: str, word_start: int, strings: code_map.CodeMap) -> bool:
    """Whether the dotted chain whose last word starts at ``word_start`` may stand right after a ``(``:
    ``(jnp.array)(x)`` calls it, ``f(jnp.array)`` does not; nor does ``f(m.init(r).unfreeze)``, but
    ``(m.init(r).unfreeze)()`` does (a call or subscript in the chain is stepped over)."""
    i = _previous_token(source, word_start, strings)
    while i >= 0:
        if source[i] == "." or is_word_char(source[i]):
            i = _previous_token(source, i, strings)
            continue
        if source[i] in ")]":
            opening = _matching_opening(source, i, strings, "([")
            if opening is None:
                return True  # cannot tell: a "maybe"
            i = _previous_token(source, opening, strings)
            continue
        # ``f(jnp.array)``, ``g()(jnp.array)``: the ``(`` opens a call's arguments, not a parenthesized expression
        return source[i] == "(" and strings.at(i) is None and not _opens_call(source, i)
    return False


def argument_count(source: str, end: int) -> int | None:
    """``len(call.args)`` of the call whose callee ends at ``end`` as ``read_call`` reads it (-1: no call)."""
    call = read_call(source, end)
    return None if call is None else call.positional


def _string_prefix(source: str, quote: int) -> set[str]:
    start = quote
    while start and source[start - 1] in "rRbBuUfF":
        start -= 1
    return set(source[start:quote])


def _string_end(source: str, i: int, quote: str, stop: int) -> int:
    """The offset after the closing ``quote`` of a one-line string starting at ``i``; -1 if none on the line
    (or before ``stop``)."""
    while i < stop:
        char = source[i]
        if char == "\\":
            i += 2
        elif char == quote:
            return i + 1
        elif char in "\r\n":
            return -1
        else:
            i += 1
    return -1


def _context_of_parenthesis(source: str, close: int) -> str:
    """``(...).name``: a call's or subscript's result (``f(x).T``: never a qualified name) or a parenthesized
    expression (``(jax).numpy``: maybe). The matching ``(`` is looked for on the same line only, where no comment
    can hide a bracket; a quote on the way makes the brackets unreliable."""
    opening = _matching_opening(source, close)
    if opening is None:
        return MAYBE
    return NOT_A_NAME if _opens_call(source, opening) else MAYBE


def _matching_opening(source: str, close: int, strings: code_map.CodeMap | None = None,
                      openings: str = "(") -> int | None:
    """The ``(`` (one of ``openings``) that the bracket at ``close`` closes; None when it cannot be told, or when
    another bracket opens it. Without ``strings`` (the file's
    code map) the search stays on the line and gives up at a quote or a backslash; with it, it jumps over strings
    and comments across lines. Bounded: a huge one-line file with many ``).x`` must stay linear."""
    depth, i = 0, close
    stop = max(-1, close - _MAX_SCAN)
    while i > stop:
        char = source[i]
        if char == ")" or char == "]" or char == "}":
            depth += 1
        elif char == "(" or char == "[" or char == "{":
            depth -= 1
            if not depth:
                break
        elif char in "'\"\r\n\\":
            if strings is None:
                return None
            if char != "\\":
                span = strings.at(i - 1 if char in "\r\n" else i)
                if span is not None and (char not in "\r\n" or span.kind == code_map.COMMENT):
                    i = span.start - 1
                    continue
        i -= 1
    if i <= stop or source[i] not in openings:
        return None
    return i


def _opens_call(source: str, opening: int) -> bool:
    """Whether the ``(`` at ``opening`` starts a call's arguments (``f(``, ``f(a)(``, ``x[0](``) rather than a
    parenthesized expression (``(``, ``return (``)."""
    word, i = _word_before(source, opening)
    if word:
        return word not in _KEYWORDS
    return bool(i) and source[i - 1] in ")]"


def _word_before(source: str, i: int) -> tuple[str, int]:
    """The word that ends at ``i`` after skipping blanks back (``""`` if none), and where it (or the blanks) start."""
    while i and source[i - 1] in _BLANK:
        i -= 1
    end = i
    while i and is_word_char(source[i - 1]):
        i -= 1
    return source[i:end], i


@dataclass(frozen=True)
class NamesByLast:
    index: dict[str, list[str]]  # last component -> the names that end in it
    lasts: frozenset[str]  # the index's keys, as a set: ``words & lasts`` walks the smaller of the two
    parts: dict[str, frozenset[str]]  # name -> its components


@dataclass(frozen=True)
class KeywordsByLast:
    """Functions with keywords they stopped accepting, indexed by the functions' last component (JAX103's and
    JAX507's rows): what ``TextFacts.may_pass_a_listed_keyword`` looks up."""

    index: dict[str, list[tuple[str, frozenset[str]]]]  # last component -> (function, its keywords)
    lasts: frozenset[str]  # the index's keys, as a set: ``words & lasts`` walks the smaller of the two


def keywords_by_last(rows) -> KeywordsByLast:
    """``rows`` (function -> its keywords: any mapping whose values iterate over keyword names) as a table."""
    index: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for function, keywords in rows.items():
        index.setdefault(function.rpartition(".")[2], []).append((function, frozenset(keywords)))
    return KeywordsByLast(index, frozenset(index))


@lru_cache(maxsize=None)
def names_by_last(names: frozenset[str]) -> NamesByLast:
    """A rule's gate names indexed by their last component (built once per rule)."""
    index: dict[str, list[str]] = {}
    for name in names:
        index.setdefault(name.rpartition(".")[2], []).append(name)
    return NamesByLast(index, frozenset(index), {name: frozenset(name.split(".")) for name in names})


@lru_cache(maxsize=None)
def module_parts(modules: frozenset[str]) -> tuple[frozenset[str], ...]:
    """The dotted parts of each of ``modules``, without a set that holds another one (``may_import`` asks whether
    any of them lies within the file's words, which a smaller set answers for every larger one)."""
    sets = sorted({frozenset(module.split(".")) for module in modules}, key=len)
    minimal: list[frozenset[str]] = []
    for parts in sets:
        if not any(kept <= parts for kept in minimal):
            minimal.append(parts)
    return tuple(minimal)


@lru_cache(maxsize=None)
def _module_parts_index(modules: frozenset[str]) -> tuple[frozenset[str], dict[str, tuple[frozenset[str], ...]]]:
    """``module_parts`` indexed by each set's longest word (the rare one; ties: the greatest): a file's words are
    intersected with the keys, and only the sets under the keys found are tested (``may_import`` asked each of the
    catalogue's module sets of every file)."""
    by_key: dict[str, list[frozenset[str]]] = {}
    for parts in module_parts(modules):
        by_key.setdefault(max(sorted(parts, reverse=True), key=len), []).append(parts)
    return frozenset(by_key), {key: tuple(sets) for key, sets in by_key.items()}


def passed_keywords(source: str, names: Iterable[str]) -> set[str]:
    """The ``names`` (identifiers) the text spells as ``name=`` (not ``name ==``) after no word character: an
    over-estimate of the keywords its calls pass. One search per name, each starting with the name itself (the
    regex engine's fast literal search): a leading word boundary would make it try every position of the file."""
    found = set()
    for name in names:
        for match in _name_equals(name).finditer(source):
            start = match.start()
            if not start or not is_word_char(source[start - 1]):
                found.add(name)
                break
    return found


@lru_cache(maxsize=None)
def _name_equals(name: str) -> "re.Pattern[str]":
    return re.compile(rf"{re.escape(name)}\s*=(?!=)")
