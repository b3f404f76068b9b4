"""Every ``tests/fixtures/<CODE>/before.py`` goes through the real CLI: --fix gives exactly ``after.py``, a second
--fix changes nothing, --diff writes nothing, and the JSON output carries the fixes."""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from tests.cli.test_cli import run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CASES = sorted(p for p in FIXTURES.glob("*/before.py") if (p.parent / "after.py").exists())


def _args(case: Path) -> list[str]:
    extra = case.parent / "args.txt"
    return shlex.split(extra.read_text()) if extra.exists() else []


@pytest.fixture(params=CASES, ids=[p.parent.name for p in CASES])
def case(request, tmp_path):
    before: Path = request.param
    shutil.copy(before, tmp_path / "module.py")
    return before, tmp_path


def test_fix_gives_exactly_after(case):
    before, folder = case
    args = ["--isolated", *_args(before), "module.py"]
    run(["--fix", *args], folder)
    expected = (before.parent / "after.py").read_bytes()
    assert (folder / "module.py").read_bytes() == expected
    second = run(["--fix", *args], folder)
    assert "(0 fixed," in second.output or second.output.strip() == "All checks passed!"
    assert (folder / "module.py").read_bytes() == expected


def test_diff_writes_nothing(case):
    before, folder = case
    result = run(["--diff", "--isolated", *_args(before), "module.py"], folder)
    assert (folder / "module.py").read_bytes() == before.read_bytes()
    changes = before.read_bytes() != (before.parent / "after.py").read_bytes()
    assert result.exit_code == (1 if changes else 0)
    assert ("+++ module.py" in result.output) == changes


def test_json_lists_the_findings_with_fixes(case):
    before, folder = case
    result = run(["--output-format", "json", "--isolated", *_args(before), "module.py"], folder)
    items = json.loads(result.output)
    assert items, "a fixture must produce findings"
    assert all(item["code"] == before.parent.name for item in items if item["code"] != "JAX000")
    if before.read_bytes() != (before.parent / "after.py").read_bytes():
        assert any(item["fix"] and item["fix"]["applicability"] == "safe" for item in items)
