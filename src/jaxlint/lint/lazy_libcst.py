"""libcst, imported on first use. Most files are decided on ``ast`` (``ast_gate``, ``ast_findings``) and a check
of them never needs libcst, whose import is about a third of a one-file run's start-up (issue 38); yet the rules
and the modules they build on name it everywhere. They import ``cst`` from here (``libcst`` itself for type
checkers, under ``TYPE_CHECKING``): the first attribute read imports libcst and copies its namespace into this
object, so every later read is a plain attribute lookup, as on the module."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar


# Read from the module at every use, never copied: they run once a file, and a test (or a user's tool) that patches
# ``libcst.parse_module`` must see every parse jaxlint makes.
_FORWARDED = frozenset({"parse_module", "parse_expression", "parse_statement"})


class _Libcst:
    def __getattr__(self, name: str) -> Any:  # called for names not copied yet (the first read) and the forwarded
        import libcst

        if "CSTNode" not in self.__dict__:
            import libcst.helpers  # noqa: F401  (``cst.helpers``, as the rules read it)

            self.__dict__.update((key, value) for key, value in vars(libcst).items() if key not in _FORWARDED)
        return getattr(libcst, name)


cst: Any = _Libcst()


if TYPE_CHECKING:
    from libcst import CSTVisitor as Visits
else:
    Visits = object  # a visitor's methods: ``visitor`` puts libcst's ``CSTVisitor`` under them on first use

_T = TypeVar("_T")
_VISITORS: dict[type, type] = {}


def visitor(visits: type[_T]) -> type[_T]:
    """The class ``visits`` (a subclass of ``Visits``) as a libcst ``CSTVisitor``, made once, when first needed: a
    module defines its visitor without importing libcst."""
    made = _VISITORS.get(visits)
    if made is None:
        import libcst

        made = _VISITORS[visits] = type(visits.__name__, (visits, libcst.CSTVisitor), {
            "__module__": visits.__module__, "__qualname__": visits.__qualname__, "__doc__": visits.__doc__})
    return made
