"""Rewrite the sample outputs in README.md from real runs (tests/test_readme.py fails when they drift).

Each block that follows a ``<!-- output of: jaxlint ARGS -->`` line is replaced by what ``jaxlint ARGS --no-cache``
prints when run from the checkout's root. Usage: ``python tools/sync_readme.py`` (``--check``: exit 1 if stale).
"""
from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- output of: jaxlint (?P<args>[^>]*?) -->\n```text\n)(?P<body>.*?)(```)", re.S)


def jaxlint_output(args: str) -> str:
    """What ``jaxlint ARGS`` prints on stdout, run in this process from the checkout's root."""
    from click.testing import CliRunner

    from jaxlint.ui.cli import main

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(main, [*shlex.split(args), "--no-cache"], catch_exceptions=False)
    finally:
        os.chdir(old)
    return result.stdout


def synced(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + jaxlint_output(m.group("args")) + m.group(4), text)


def main(argv: list[str], sync=synced) -> int:
    """Rewrite README.md with ``sync(text)``; with ``--check``, only exit 1 when it would change (the other README
    tools pass their own ``sync``)."""
    text = README.read_text(encoding="utf-8")
    new = sync(text)
    if "--check" in argv:
        return int(new != text)
    if new != text:
        README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main(sys.argv[1:]))
