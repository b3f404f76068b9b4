"""A one-file check, run as pre-commit runs it (a process per file), reads the packaged data tables through their
JSON copies once they are written, and so imports neither the TOML parser nor configparser (issue 38: parsing
``rules/behaviour.toml`` and the other small tables, and importing both parsers, were ~15 ms of a 0.3 s start-up).
Each check runs in a process of its own and says at its end which of those modules it imported."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PARSERS = ("tomllib", "tomli", "configparser")

# Runs ``jaxlint`` as its entry point does, and writes, as the process ends, which parsers were imported.
_WRAPPER = """
import json, os, sys
report, names, sys.argv = sys.argv[1], sys.argv[2].split(","), ["jaxlint", *sys.argv[3:]]
def write():
    with open(report, "w") as handle:
        json.dump(sorted(name for name in names if name in sys.modules), handle)
exit = os._exit
os._exit = lambda code: (write(), exit(code))
import atexit
atexit.register(write)
from jaxlint.ui.entry import entry_point
entry_point()
"""


def _parsers_imported(tmp_path: Path, path: Path, cache: Path) -> list[str]:
    report = tmp_path / "imported.json"
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    done = subprocess.run([sys.executable, "-c", _WRAPPER, str(report), ",".join(PARSERS), "check", str(path),
                           "--no-cache", "--isolated", "--output-format", "concise"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(report.read_text())


def test_a_check_with_the_tables_copied_parses_no_toml(tmp_path):
    # JAX names, so that every rule's gate (and the tables they are built from) is read
    path = tmp_path / "module.py"
    path.write_text("import jax\nimport jax.numpy as jnp\n\ny = jnp.zeros(3) + jax.random.normal(key, (3,))\n")
    cache = tmp_path / "cache"
    first = _parsers_imported(tmp_path, path, cache)  # an empty cache folder: the tables are parsed, then copied
    assert {"tomllib", "tomli"} & set(first)
    assert _parsers_imported(tmp_path, path, cache) == []


def test_a_project_with_a_setup_cfg_still_reads_its_pins(tmp_path):
    # configparser is imported where a setup.cfg is read: the pin still sets the range
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    jax==0.4.1\n")
    path = tmp_path / "module.py"
    path.write_text("import jax\n\njax.tree_map(f, t)\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-m", "jaxlint", "check", str(path), "--no-cache", "--show-settings"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)
    assert "min version:    0.4.1" in done.stdout, done.stdout + done.stderr


def test_the_cli_spells_the_unused_noqa_code_as_its_module_does():
    # the check imports ``run.noqa_add`` only where a file selects this code (opt-in)
    from jaxlint.run.noqa_add import UNUSED_NOQA
    from jaxlint.ui import cli

    assert cli.UNUSED_NOQA == UNUSED_NOQA


def test_the_examples_dedent_as_textwrap_does():
    # ``rules.base.dedent`` replaces ``textwrap.dedent`` for the 600 examples built when the rules are imported
    import random
    import textwrap

    from jaxlint.rules.base import dedent

    rng = random.Random(38)
    cases = ["", "\n", "  a\n    b\n", "\ta\n  b\n", "  a\n\t b\n", "    a\n  \n   \t\n    b", "  a\r\n  b\r\n", "x\n  y"]
    cases += ["".join(rng.choice(" \t\nab\r\x0c") for _ in range(rng.randint(0, 16))) for _ in range(20000)]
    for text in cases:
        assert dedent(text) == textwrap.dedent(text), repr(text)
