"""The strings and comments ``code_map`` finds are the ones ``tokenize`` finds, and no name lies inside one."""
from __future__ import annotations

import io
import random
import re
import tokenize

import pytest
from hypothesis import HealthCheck, given, settings as hsettings
import hypothesmith

from jaxlint.lint import code_map
from support import dev_corpus, old_text_scans
from support.dev_corpus import needs_dev_corpus
from support.gate_cases import SOURCES

TRICKY = [
    "x = 'a' \"b\" '''c\n'd'\n''' \"\"\"e\"\"\"  # f 'g\n",
    "x = r'\\'' + b\"\\\\\" + rb'''\\''' '''  # '\n",
    "x = 'a\\\nb'  # continued\ny = 1\n",
    "s = '#' + \"#\"  # '\n# \"\nz = 2\n",
    "f(f'{a!r:>{w}}', F\"{{x}}\", fr'{b}\\d', rf\"\"\"{c}\n\"\"\")\n",
    "d = {'a': 1}['a']\n",
    "if'x':pass\n",
    'x = f"{x:{"}"}"\n',  # 3.12: a field reuses the quote
    'x = f"{d["k"]}"\n',
    "x = '''unterminated\n",
    "x = 'unterminated\n",
    "x = f'{a\n}'\n",
]


def _tokens(source: str):
    """(start offset, end offset, kind) of every string and comment ``tokenize`` reads; None if it cannot."""
    # A lone "\r" ends a line for the compiler (and for the scan) but not for tokenize: make it a "\n" (same length).
    source = re.sub(r"\r(?!\n)", "\n", source)
    lines = io.StringIO(source).readlines()  # the lines tokenize reads (split at "\n" only)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(row_col):
        return starts[row_col[0] - 1] + row_col[1]

    spans, names, fstring_start = [], [], []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind = tokenize.tok_name[token.type]
            if kind == "STRING":
                # start + length: 3.12's tokenize gives byte columns at the end of some multi-line strings
                spans.append((offset(token.start), offset(token.start) + len(token.string), code_map.STRING))
            elif kind == "COMMENT":
                spans.append((offset(token.start), offset(token.start) + len(token.string), code_map.COMMENT))
            elif kind == "FSTRING_START":
                fstring_start.append(offset(token.start))
            elif kind == "FSTRING_END":
                start = fstring_start.pop()
                if not fstring_start:
                    spans.append((start, offset(token.start) + len(token.string), code_map.FSTRING))
            elif kind == "NAME":
                names.append(offset(token.start))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    inside_fstring = [s for s in spans for f in spans
                      if f[2] == code_map.FSTRING and s is not f and f[0] <= s[0] < f[1]]
    return [s for s in spans if s not in inside_fstring], names


def _check(source: str) -> None:
    found = code_map.scan(source)
    expected = _tokens(source)
    if found is None:
        # Only text the scan cannot be sure of: a broken file, or an f-string whose field holds its own quote.
        assert expected is None or any(kind == code_map.FSTRING for _, _, kind in expected[0]), source
        return
    assert expected is not None, source
    spans, names = expected
    assert [(s.start, s.end, s.kind) for s in found.spans] == spans, source
    assert not [name for name in names if (span := found.at(name)) is not None and span.kind != code_map.FSTRING]


@pytest.mark.parametrize("source", TRICKY)
def test_tricky_strings_and_comments(source):
    _check(source)


def test_unreadable_texts_give_no_map():
    assert code_map.scan("x = '''unterminated\n") is None
    assert code_map.scan("x = 'unterminated\n") is None
    assert code_map.scan('x = f"{d["k"]}"\n') is None


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_every_gate_source(name, source):
    _check(source)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # generated programs such as ``0()``
@hsettings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_programs(program):
    _check(program)


# Differential tests: the scan is driven by one regular expression (issue 27); the character-by-character scan it
# replaced (tests/support/old_text_scans.py) must give the same spans, kinds and Nones on every text.
PIECES = ["'", '"', "'''", '"""', "\\", "\n", "\r", "\r\n", "#", "{", "}", "{{", "}}", " ", "x", "_", "1", ".", "é",
          "(", ")", ":", "!r", "r", "b", "f", "u", "R", "B", "F", "U", "rb", "Rb", "bR", "fr", "rf", "Fr", "for", "if",
          "of", "rbf", "f'", 'f"', "\\\n", "\\\r\n", "\\'", '\\"', "\\\\"]


def _spans(found):
    return None if found is None else [(span.start, span.end, span.kind) for span in found.spans]


def _same_as_before(source: str) -> None:
    assert _spans(code_map.scan(source)) == _spans(old_text_scans.scan(source)), repr(source)


ADVERSARIAL = [
    "for\"x\"", "if'x'", "xr'a'", "abr'a'", "rbr'a'", "(rb'a')", "Rb'''a'''", "bR\"\"\"a\"\"\"", "fr'{a}'",
    "f'{'", "f'}'", "f'{{'", "f'{x}}'", "uf'{'", "'''a\\''''", "'''a''''", "'a\\\nb'", "'a\\\r\nb'", "'a\\\rb'",
    "'a\rb'", "'a", "'''a", "\"\"\"a\"\"", "''", "''''", "'''''", "''''''", "\"\"\"\"\"\"\"", "'\\", "'''\\",
    "# c\r\n'x'", "#", "x # c", "é'a'", "éf'{'", "_f'{'", "1f'{'", ".f'{'", "'a\\\\'b'", "'\\\\\\'", "\r\n'''\r\n'''",
]


@pytest.mark.parametrize("source", ADVERSARIAL + TRICKY)
def test_same_as_before_on_adversarial_texts(source):
    _same_as_before(source)
    _same_as_before(source + "\n")
    _same_as_before("x = " + source + " # done\n")


def test_same_as_before_on_random_texts():
    generator = random.Random(27)
    for _ in range(30_000):
        _same_as_before("".join(generator.choices(PIECES, k=generator.randint(1, 24))))


@pytest.mark.parametrize("name, source", SOURCES, ids=[name for name, _ in SOURCES])
def test_same_as_before_on_every_gate_source(name, source):
    _same_as_before(source)
    _same_as_before(source.replace("\n", "\r\n"))


@needs_dev_corpus
def test_same_as_before_on_the_dev_corpus():
    """Every .py file and every notebook cell of the projects under $JAXLINT_DEV_CORPUS."""
    for text in dev_corpus.python_texts():
        _same_as_before(text)
    for cells in dev_corpus.notebook_cells():
        for source in cells:
            _same_as_before(source)

