"""What a call leaves out of a signature row (``jaxlint.catalogue.signatures``): a parameter it does not pass, and the
sentence saying what omitting it does (JAX103 for functions, JAX105 for methods and constructors)."""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.catalogue.signatures import SignatureRow


def omits(node: cst.Call, row: SignatureRow) -> bool:
    """The call passes ``row.parameter`` by no keyword, by no ``*``/``**`` argument, and has no more positional
    arguments than the parameter's position (``position`` -1: keyword-only)."""
    if any(arg.star for arg in node.args):
        return False
    if any(arg.keyword is not None and arg.keyword.value == row.parameter for arg in node.args):
        return False
    positional = sum(1 for arg in node.args if arg.keyword is None)
    return row.position is None or row.position < 0 or positional <= row.position


def omitted_clause(row: SignatureRow) -> str:
    if row.change == "newly-required":
        return (f"`{row.parameter}` is required from {row.release} (`TypeError` without it; optional up to "
                f"{row.last_seen})")
    return (f"the default of `{row.parameter}` changed from `{row.old_default}` to `{row.new_default}` in "
            f"{row.release}, inside the project's range: the same call behaves otherwise on either side (pass "
            f"`{row.parameter}=` explicitly where every release of the range takes it)")
