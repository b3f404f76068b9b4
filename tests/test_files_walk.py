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


def _names_tree(root: Path) -> None:
    """Folders whose config and pin names are not plain files: the walk finds them among the folder's names, and
    must give each the answer that testing the path gives (``is_file``, ``exists``)."""
    for folder in "abcdefghi":
        (root / folder).mkdir()
        (root / folder / "m.py").write_text("x = 1\n")
    (root / "b" / "inner").mkdir()  # below a folder with a config: that one, not the root's
    (root / "b" / "inner" / "m.py").write_text("x = 1\n")
    (root / "jaxlint.toml").write_text("ignore = ['JAX202']\n")
    (root / "requirements.txt").write_text("jax>=0.4.30\n")
    (root / "shared").mkdir()
    (root / "shared" / "conf.toml").write_text("ignore = ['JAX101']\n")
    (root / "shared" / "pins.txt").write_text("jax>=0.4.35\n")
    (root / "a" / "pyproject.toml").mkdir()  # a folder named like a config file: no config
    (root / "a" / ".jaxlint.toml").mkdir()
    os.symlink("../shared/conf.toml", root / "b" / ".jaxlint.toml")  # a linked config: read
    os.symlink("missing.toml", root / "c" / "jaxlint.toml")  # a broken link: no config, the next name is tested
    (root / "c" / "pyproject.toml").write_text("[tool.jaxlint]\nignore = ['JAX203']\n")
    (root / "d" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file: the repository root
    (root / "e" / ".git").mkdir()
    os.symlink("missing", root / "f" / ".git")  # a broken link: not a repository root
    (root / "g" / "setup.py").mkdir()  # a folder named like a project file: not a package
    os.symlink("../shared/pins.txt", root / "h" / "requirements.txt")  # a linked pin file: read
    (root / "i" / "requirements.txt").mkdir()  # a folder named like a pin file: not read


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX symlinks")
def test_a_walked_folder_gets_the_settings_its_path_gets(tmp_path, monkeypatch):
    _names_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    found = {f.path.parent.name: f.settings for f in discover([Path(".")], SettingsResolver(Overrides()))}
    for folder, settings in found.items():  # a fresh resolver, asked by path: no names, a stat per candidate
        file = Path("b", folder, "m.py") if folder == "inner" else Path(folder, "m.py")
        assert settings == SettingsResolver(Overrides()).for_path(file), folder
    configs = {folder: settings.config_file.relative_to(tmp_path).as_posix() for folder, settings in found.items()}
    assert configs == {"a": "jaxlint.toml", "b": "b/.jaxlint.toml", "c": "c/pyproject.toml", "d": "jaxlint.toml",
                       "e": "jaxlint.toml", "f": "jaxlint.toml", "g": "jaxlint.toml", "h": "jaxlint.toml",
                       "i": "jaxlint.toml", "inner": "b/.jaxlint.toml"}
    packages = {folder: settings.pinned and (settings.pinned.package.relative_to(tmp_path).as_posix(),
                                             settings.pinned.lower and str(settings.pinned.lower.version))
                for folder, settings in found.items()}
    root = (".", "0.4.30")
    assert packages == {"a": root, "b": root, "c": ("c", None), "d": None, "e": None, "f": root, "g": root,
                        "h": ("h", "0.4.35"), "i": root, "inner": root}


def test_a_walked_folder_is_read_by_its_listing_only(tmp_path, monkeypatch):
    """Below the walk's root, a folder's config and pin files are found among the names its ``scandir`` listed: no
    ``stat`` per config name, no second listing, no ``.git`` test (the replay recorder stamps that listing, whose
    times change when such a file is added)."""
    for path in ["pkg/a.py", "pkg/sub/b.py", "pkg/sub/deeper/c.py", "tests/t.py"]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\ndependencies = ['jax>=0.4.30']\n")
    read: list[tuple[str, str]] = []
    stat, listdir = os.stat, os.listdir
    monkeypatch.setattr(os, "stat",
                        lambda path, *a, **k: read.append(("stat", os.fspath(path))) or stat(path, *a, **k))
    monkeypatch.setattr(os, "listdir", lambda path=".": read.append(("listdir", os.fspath(path))) or listdir(path))
    files = list(discover([tmp_path], SettingsResolver(Overrides())))
    assert len(files) == 4 and all(str(file.settings.pinned.lower.version) == "0.4.30" for file in files)
    below = [(how, path) for how, path in read if path.startswith(str(tmp_path) + os.sep)
             and os.path.relpath(path, tmp_path).split(os.sep)[0] in ("pkg", "tests")]
    assert not [(how, path) for how, path in below
                if how == "listdir" or os.path.basename(path) in (".jaxlint.toml", "jaxlint.toml", "pyproject.toml",
                                                                  ".git", "setup.py", "setup.cfg", "Pipfile")]


# -- exclude patterns: the walk's quick test (``_Excludes``) against ``is_excluded`` -------------------------------
# Patterns with ``/`` or without, ``*`` (which matches ``/`` too), ``**``, ``?``, brackets (one holding ``/``, an
# unclosed one), a folder pattern, ``.``, a trailing ``/``, and ones that match only the real path of a link.
_EXCLUDES = ["*.ipynb", "pkg", "pkg/", "sub", "pkg/sub", "pkg/sub/*.py", "**/deep.py", "*/sub", "p?g", "[ab].py",
             "[!a]*.py", "B.py", "pk*/s*b", "*", ".", "./pkg", "tmp", "other/tmp", "*/tmp/*", "a[/]b", "p[", "**",
             "linked_dir", "link.py", "*outside*", "*/outside/*", "m.py", "pkg/m.py", "*m.py", "?", "*/*/*"]


def _exclude_tree(root: Path) -> None:
    _tree(root / "proj")
    for path in ["outside/o.py", "outside/dir/p.py", "proj/pkg/sub/a/b.py", "proj/ab/b.py"]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")
    os.symlink("../outside/o.py", root / "proj" / "pkg" / "out.py")  # a link out of the settings' root
    os.symlink("../../outside/dir", root / "proj" / "pkg" / "outdir")  # a linked folder, listed not entered
    os.symlink("..", root / "proj" / "pkg" / "up")  # a link to the root itself
    os.symlink("sub/deep.py", root / "proj" / "pkg" / "deep_link.py")


def _walk_matches_reference(given: Path, overrides: Overrides) -> list[str]:
    expected, seen = [], set()
    for file in _reference(given, SettingsResolver(overrides)):
        if real_path(file) not in seen:
            seen.add(real_path(file))
            expected.append(str(file))
    files = list(discover([given], SettingsResolver(overrides)))
    found = [str(f.path) for f in files]
    assert found == expected
    # the real path discovery hands on (``project_modules`` takes it rather than resolving each file again)
    assert [f.real for f in files] == [real_path(f.path) for f in files]
    return found


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX symlinks")
@pytest.mark.parametrize("pattern", _EXCLUDES)
def test_the_walk_excludes_what_is_excluded_excludes(tmp_path, monkeypatch, pattern):
    """Each pattern, from the settings' root, from folders below it, through a linked folder, from above the root
    (paths outside it are matched as absolute paths), and with ``exclude`` (no default excludes) too."""
    _exclude_tree(tmp_path)
    monkeypatch.chdir(tmp_path / "proj")
    for given in [".", "pkg", "pkg/sub", "linked_dir", "other", str(tmp_path / "proj" / "pkg")]:
        _walk_matches_reference(Path(given), Overrides(extend_exclude=(pattern,)))
        _walk_matches_reference(Path(given), Overrides(exclude=(pattern, "*.ipynb")))
    monkeypatch.chdir(tmp_path / "proj" / "pkg")  # the settings' root is below the walk's
    _walk_matches_reference(Path(".."), Overrides(extend_exclude=(pattern,)))
    _walk_matches_reference(Path("../.."), Overrides(extend_exclude=(pattern, "tmp")))


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="POSIX symlinks")
def test_the_walk_excludes_with_several_patterns(tmp_path, monkeypatch):
    _exclude_tree(tmp_path)
    monkeypatch.chdir(tmp_path / "proj")
    found = _walk_matches_reference(Path("."), Overrides(extend_exclude=("sub", "*.ipynb", "other/tmp/")))
    assert "pkg/out.py" in found and "ab/b.py" in found
    assert not [path for path in found if "sub" in path.split("/") or path.endswith(".ipynb")]
    assert _walk_matches_reference(Path("."), Overrides(extend_exclude=("*outside*",))).count("pkg/out.py") == 0


def _random_path(rng, parts: list[str], depth: int) -> str:
    return "/".join(rng.choice(parts) for _ in range(depth))


def test_the_quick_exclude_test_agrees_with_path_matches(tmp_path):
    """``_Excludes.excludes`` for ``folder/name`` in a folder that passed (the walk's quick test) against
    ``path_matches`` on the whole path, on many random paths and patterns; folders below the root, the root itself
    (``.``) and folders outside it (absolute paths)."""
    import collections
    import random

    from jaxlint.project.files import _Excludes
    from jaxlint.project.settings import path_matches

    rng = random.Random(38)
    names = ["a", "b", "ab", "a.py", "b.py", "x.ipynb", ".a", "..a", "*", "[a]", "a b", "sub", "pkg", "é"]
    tokens = ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", "[/]", "[", "]", ".py", ".", "sub", "a*/", "*/", "/*",
              "!", "-", "[a-b]", "[]a]", "é"]
    root = tmp_path / "root"
    root.mkdir()
    base = real_path(root)
    checked = passed_folders = 0
    outcomes = collections.Counter()
    for _ in range(30_000):
        patterns = tuple("".join(rng.choice(tokens) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 3)))
        excludes = _Excludes(patterns, root)
        where = rng.random()
        if where < 0.15:
            folder, real = ".", base
        elif where < 0.3:
            real = "/" + _random_path(rng, ["x", "y", "a", "sub"], rng.randint(1, 3))  # outside the root
            folder = real
        else:
            folder = _random_path(rng, names, rng.randint(1, 4))
            real = os.path.join(base, folder)
        assert excludes.relative(real) == folder
        name = rng.choice(names)
        relative = name if folder == "." else f"{folder}/{name}"
        expected = any(path_matches(relative, pattern) for pattern in patterns)
        passed = excludes.passed(folder)
        passed_folders += passed
        outcomes[passed, expected] += 1
        assert excludes.excludes(real, passed, name, None) == expected, (patterns, folder, name)
        assert excludes.excludes(real, False, name, None) == expected, (patterns, folder, name)
        checked += 1
    assert checked == 30_000 and min(outcomes.values()) > 1_000 and len(outcomes) == 3, outcomes
