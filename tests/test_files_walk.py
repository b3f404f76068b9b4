"""The discovery walk (``project.files``): one ``scandir`` per folder and plain strings, yet exactly what a walk
with ``os.walk`` finds: the same files in the same order, the same settings, symlinks and .gitignore files
treated the same. The reference below is the ``os.walk`` version it replaced."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from jaxlint.project.config import Overrides, SettingsResolver
from jaxlint.project.files import _default_excluded, discover, is_excluded
from jaxlint.project.gitignore import IgnoreRules
from jaxlint.project.settings import real_path


def _reference(root: Path, resolver: SettingsResolver, suffixes=(".py", ".pyi", ".ipynb")):
    rules = {}
    if resolver.for_path(root).respect_gitignore:
        rules[str(root)] = IgnoreRules.for_walk(root)
    for directory, subdirectories, filenames in os.walk(root):
        here = Path(directory)
        settings = resolver.for_path(here) if filenames or subdirectories else None
        ignore = rules.pop(directory, None)
        kept = []
        for name in sorted(subdirectories):
            child = here / name
            if _default_excluded(name, settings) or (settings is not None and is_excluded(child, settings)):
                continue
            if ignore is not None and ignore.ignores(name, True):
                continue
            if ignore is not None:
                rules[os.path.join(directory, name)] = ignore.child(name, child)
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(filenames):
            if name.endswith(suffixes):
                file = here / name
                if settings is not None and is_excluded(file, settings):
                    continue
                if ignore is not None and ignore.ignores(name, False):
                    continue
                yield file


def _tree(root: Path) -> None:
    for path in ["a.py", "B.py", "_c.pyi", "note.ipynb", "x.txt", "pkg/m.py", "pkg/sub/deep.py", "pkg/sub/gen.py",
                 "pkg/Zeta/z.py", "build/skip.py", "other/pyproject.toml", "other/o.py", "other/tmp/t.py",
                 "ignored_dir/i.py", "empty/.keep", "dots.in.name/d.py"]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("ignored_dir/\n*.pyi\n")
    (root / "pkg" / "sub" / ".gitignore").write_text("gen.py\n")
    (root / "other" / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["tmp"]\n')
    os.symlink("pkg", root / "linked_dir")  # listed by os.walk, not entered
    os.symlink("pkg/m.py", root / "link.py")  # the same file twice: linted once
    os.symlink("missing.py", root / "dangling.py")


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX symlinks")
@pytest.mark.parametrize("given", [".", "pkg", "other"])
def test_the_walk_finds_what_os_walk_finds(tmp_path, monkeypatch, given):
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    resolver = SettingsResolver(Overrides())
    expected, seen = [], set()
    for file in _reference(Path(given), resolver):
        if real_path(file) not in seen:
            seen.add(real_path(file))
            expected.append((str(file), resolver.for_path(file)))
    found = [(str(f.path), f.settings) for f in discover([Path(given)], SettingsResolver(Overrides()))]
    assert found == expected
    assert found, "the tree has files to find"
    if given == ".":
        names = [path for path, _ in found]
        assert "pkg/sub/gen.py" not in names and "ignored_dir/i.py" not in names and "_c.pyi" not in names
        assert "other/tmp/t.py" not in names and "build/skip.py" not in names
        assert "dangling.py" in names and names.count("link.py") + names.count("pkg/m.py") == 1
