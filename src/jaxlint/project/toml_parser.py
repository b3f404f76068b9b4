"""The TOML parser, imported where a TOML file is parsed rather than when jaxlint starts: a one-file check whose
configuration and data files are all absent or read from their JSON copies parses no TOML (issue 38: ``tomllib``
and its regular expressions were 2-3 ms of a 0.3 s start-up)."""
from __future__ import annotations

import sys
from types import ModuleType


def toml_parser() -> ModuleType:
    """``tomllib`` (``tomli`` before Python 3.11): ``load``, ``loads`` and ``TOMLDecodeError``."""
    if sys.version_info >= (3, 11):
        import tomllib as parser
    else:  # pragma: no cover
        import tomli as parser
    return parser
