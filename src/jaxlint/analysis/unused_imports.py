"""An import of a removed name that nothing uses any more: found from the file's tokens, removed keeping the rest.

Read from the whole file's text (``RuleContext.file_text``), not the tree: the tree may hold only some statements
(``lint.focus``). A name counts as used wherever it appears as a token other than an attribute (``x.name``), also
inside a string (``__all__``, ``getattr(m, "name")``, a string annotation): a use jaxlint cannot rewrite keeps the
import.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.rules.base import code_in_place

# The fixes' messages, for the libcst plan (``catalogue.symbols``) and its ``ast`` port (``catalogue.symbols_ast``).
REMOVE_STATEMENT = "Remove the import: nothing uses it"
REMOVE_NAMES = "Remove the unused names from the import"


def local_name(alias: cst.ImportAlias) -> str:
    """The name an ``import`` alias binds (``b`` for ``a as b``, ``a`` for ``a``)."""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return cst.helpers.get_full_name_for_node(alias.name) or ""


def is_unreferenced(file_text: str, name: str) -> bool:
    """``name`` occurs once in the file's code (the import that binds it): no other binding, use or string."""
    if not name or not name.isidentifier():
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    count = 0
    previous = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(file_text).readline):
            if token.type == tokenize.NAME and token.string == name:
                if previous is None or previous.string != ".":
                    count += 1
            elif token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", None):
                count += bool(word.search(token.string))
            if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                previous = token
            if count > 1:
                return False
    except (tokenize.TokenError, SyntaxError, ValueError):
        return False
    return count == 1


def without_names(module: cst.Module, node: cst.ImportFrom, dropped: set[int],
                  ancestors: Sequence[cst.CSTNode] = ()) -> str:
    """The code of ``node`` without the aliases whose ids are in ``dropped`` (at least one alias stays). A dropped
    alias goes with its comma and what follows it (its comment); a trailing comma stays only where there was one.
    ``ancestors``: the statement's, whose blocks indent its continuation lines."""
    names = list(node.names)
    kept = [alias for alias in names if id(alias) not in dropped]
    if kept[-1] is not names[-1]:
        kept[-1] = kept[-1].with_changes(comma=_last_comma(kept[-1].comma, names[-1].comma))
    return code_in_place(module, node.with_changes(names=kept, semicolon=cst.MaybeSentinel.DEFAULT), ancestors)


def _last_comma(own: cst.Comma, last: cst.Comma | cst.MaybeSentinel) -> cst.Comma | cst.MaybeSentinel:
    """The comma of an alias that becomes the last: none if the old last had none; else its own comma (its comment
    kept), with the old last one's indentation before the closing parenthesis."""
    if not isinstance(last, cst.Comma):
        return cst.MaybeSentinel.DEFAULT
    mine, theirs = own.whitespace_after, last.whitespace_after
    if isinstance(mine, cst.ParenthesizedWhitespace) and isinstance(theirs, cst.ParenthesizedWhitespace):
        return own.with_changes(whitespace_after=mine.with_changes(last_line=theirs.last_line,
                                                                   indent=theirs.indent))
    return own.with_changes(whitespace_after=theirs)
