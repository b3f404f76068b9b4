"""The `jaxlint upgrade` report in README.md, from a real run (tests/test_readme.py fails when it drifts).

Builds, in a scratch folder: a copy of examples/upgrade, an environment (a venv that sees hand-made distributions:
``mydep`` 0.1, which calls the removed ``jax.tree_map``) and a package index holding ``mydep`` 0.2 (fixed); then runs
``jaxlint upgrade . --to 0.12.0.1 --python VENV --dry-run`` there and takes its Markdown report. No JAX is needed
(there is no test command: verifying sites needs two JAX environments, see docs/upgrade.md).
Usage: ``python tools/readme_upgrade_example.py`` (rewrites the README block; ``--check``: exit 1 if stale).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
COMMAND = "jaxlint upgrade . --to 0.12.0.1 --python .venv/bin/python --dry-run"
BLOCK = re.compile(r"(<!-- upgrade report: tools/readme_upgrade_example\.py -->\n```markdown\n)(?P<body>.*?)(```)",
                   re.S)


def example_report() -> str:
    for entry in (ROOT, ROOT / "src"):
        if str(entry) not in sys.path:
            sys.path.insert(0, str(entry))
    from click.testing import CliRunner

    from jaxlint.ui.cli import main
    from tests.upgrade.conftest import make_venv
    from tests.upgrade.distributions import NEW_DEP, OLD_DEP, build_wheel, install_unpacked

    saved = {name: os.environ.get(name) for name in ("PIP_NO_INDEX", "PIP_FIND_LINKS", "JAXLINT_UPGRADE_CACHE")}
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="jaxlint-readme-upgrade-") as scratch:
        base = Path(scratch)
        project = base / "project"
        shutil.copytree(ROOT / "examples" / "upgrade", project, ignore=shutil.ignore_patterns("README.md"))
        site = base / "site"
        install_unpacked(site, "mydep", "0.1", OLD_DEP)
        make_venv(project / ".venv", site)
        build_wheel(base / "index", "mydep", "0.2", NEW_DEP)
        os.environ.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(base / "index"),
                          JAXLINT_UPGRADE_CACHE=str(base / "cache"))
        os.chdir(project)
        try:
            result = CliRunner().invoke(main, COMMAND.split()[1:], catch_exceptions=False)
        finally:
            os.chdir(old)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return result.stdout


def synced(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + example_report() + m.group(3), text)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from sync_readme import main

    sys.exit(main(sys.argv[1:], synced))
