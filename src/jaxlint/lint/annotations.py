"""Whether a finding sits where Python never evaluates the code: an annotation that is only text at run time.

Decided once, by the engine, from a report's ancestors (``Diagnostic.unevaluated_annotation``):

- anything in the body of ``if TYPE_CHECKING:`` (``typing``'s or ``typing_extensions``' flag, or a name
  ``TYPE_CHECKING``): the block never runs;
- an annotation (a parameter's, a return's, ``x: T``) in a module with ``from __future__ import annotations``
  (PEP 563: every annotation is kept as a string);
- the annotation of a local variable (``x: T = ...`` in a function body): never evaluated (PEP 526), with or without
  the future import. At module and class level ``x: T`` is evaluated (it fills ``__annotations__``), as are parameter
  and return annotations when the def runs.

A string annotation (``x: "jnp.DeviceArray"``) is not parsed: no rule reports inside it. ``typing.get_type_hints``
(pydantic, some dataclass libraries) may still evaluate an annotation later; the flag says what Python itself does.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.lint.names import NameResolver

_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})
# The future import is the first statement(s) of a module, unindented; names may be parenthesized over lines.
_FUTURE_ANNOTATIONS = re.compile(r"^from[ \t]+__future__[ \t]+import[ \t]+\(?[^)#\n]*(?:\n[^)#\n]*)*?\bannotations\b",
                                 re.M)


def has_future_annotations(file_text: str) -> bool:
    """``from __future__ import annotations`` in the file (read from the text: the module linted may be a part)."""
    return "__future__" in file_text and _FUTURE_ANNOTATIONS.search(file_text) is not None


def is_unevaluated(ancestors: Sequence[cst.CSTNode], resolver: NameResolver, future_annotations: bool) -> bool:
    """Whether the node whose ancestors (module first, the node last) these are is never evaluated at run time."""
    for index, node in enumerate(ancestors):
        below = ancestors[index + 1] if index + 1 < len(ancestors) else None
        if type(node) is cst.If and below is node.body and _is_type_checking(node.test, resolver):
            return True
        if type(node) is cst.Annotation:
            if future_annotations:
                return True
            parent = ancestors[index - 1] if index else None
            return type(parent) is cst.AnnAssign and _in_function_body(ancestors[:index - 1])
    return False


def _is_type_checking(test: cst.BaseExpression, resolver: NameResolver) -> bool:
    if isinstance(test, cst.Name) and test.value == "TYPE_CHECKING":
        return True
    return isinstance(test, cst.Attribute) and resolver.qualified_name(test) in _TYPE_CHECKING


def _in_function_body(ancestors: Sequence[cst.CSTNode]) -> bool:
    """The innermost scope around a statement is a function (a class body or the module evaluate ``x: T``)."""
    for node in reversed(ancestors):
        if type(node) is cst.FunctionDef:
            return True
        if type(node) is cst.ClassDef:
            return False
    return False
