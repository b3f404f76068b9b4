"""jaxlint.project.gitignore: pathspec decides; the joined-pattern prefilter must never hide a match from it."""
from __future__ import annotations

from pathlib import Path

import pathspec
import pytest

from jaxlint.project.gitignore import IgnoreRules, _parse_spec

PATTERNS = ["__pycache__/", "*.py[cod]", "build/", "/site", "docs/_build/", "env/", "!env/keep.py", "*_gen.py",
            "!keep_gen.py", "a/**/b", "**/logs", "data/*.csv", "\\#literal", "trailing\\ ", "[ab]?.py"]
PATHS = ["x.pyc", "pkg/x.pyo", "build/", "pkg/build/", "build", "site/", "pkg/site/", "docs/_build/", "env/",
         "env/keep.py", "env/lib/x.py", "pkg/a_gen.py", "pkg/keep_gen.py", "a/b", "a/x/y/b", "logs/", "q/logs",
         "data/x.csv", "data/sub/x.csv", "#literal", "trailing ", "ab.py", "abc.py", "src/mod.py", "mod.py"]


def test_the_prefilter_agrees_with_pathspec(tmp_path):
    file = tmp_path / ".gitignore"
    file.write_text("\n".join(PATTERNS) + "\n")
    ours = _parse_spec(str(file), file.stat().st_mtime_ns)
    theirs = pathspec.GitIgnoreSpec.from_lines(PATTERNS)
    assert [ours.check(path) for path in PATHS] == [theirs.check_file(path).include for path in PATHS]
    assert any(ours.check(path) for path in PATHS) and any(ours.check(path) is False for path in PATHS)


@pytest.mark.parametrize("layout", ["repository", "plain folder"])
def test_deeper_gitignore_files_win(tmp_path, layout):
    if layout == "repository":
        (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("!keep.gen.py\n")
    rules = IgnoreRules.for_walk(tmp_path)
    assert rules.ignores("x.gen.py", False)
    inner = rules.child("pkg", tmp_path / "pkg")
    assert inner.ignores("x.gen.py", False) and not inner.ignores("keep.gen.py", False)


def test_an_edited_gitignore_is_read_again(tmp_path):
    import os

    (tmp_path / ".gitignore").write_text("a.py\n")
    assert IgnoreRules.for_walk(tmp_path).ignores("a.py", False)
    (tmp_path / ".gitignore").write_text("b.py\n")
    os.utime(tmp_path / ".gitignore", ns=(1, 1))  # a different modification time, whatever the clock's resolution
    rules = IgnoreRules.for_walk(Path(tmp_path))
    assert not rules.ignores("a.py", False) and rules.ignores("b.py", False)
