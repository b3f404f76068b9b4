"""Move jaxlint's flat modules into sub-packages that show the pipeline, and rewrite every reference to them.

    python tools/restructure.py            # git mv + rewrite, then print what moved
    python tools/restructure.py --dry-run  # print what it would do, change nothing

Idempotent: a module already in its package is left alone, so the script can be re-run after more branches land.
A module named here that does not exist (yet) is skipped with a note; a flat module it does not know is listed at
the end (decide where it goes and add it to ``LAYOUT``). Needs a git work tree (it uses ``git mv`` and rewrites only
tracked files). References rewritten, in tracked text files outside the test data folders:

- ``jaxlint.X`` anywhere (``import jaxlint.X``, ``from jaxlint.X import``, ``mock.patch("jaxlint.X.f")``,
  ``python -m jaxlint.X``, entry points ``jaxlint.X:main``);
- ``from jaxlint import X, Y`` (split into one statement per package when the names now live in different ones);
- file paths ``src/jaxlint/X.py`` and ``jaxlint/X.py`` (docs, comments).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "jaxlint"

# package -> (docstring of its __init__.py, modules that belong to it)
LAYOUT: dict[str, tuple[str, tuple[str, ...]]] = {
    "lint": (
        """Linting one source text, the per-file pipeline.

In the order a file goes through it: ``engine`` (the driver: prefilter, parse once, one batched visit, fixes until
stable) asks ``text_gate`` then ``ast_gate`` whether any enabled rule can fire; parses with libcst; builds a
``context.FileContext`` (what the rules see: ``names`` resolves qualified names, ``inference`` what a name holds)
and walks the tree once (``context.BatchedVisitor`` over ``walk``, whose field order is ``_cst_fields``); turns the
rules' reports into ``diagnostics`` at ``positions``; filters them by ``noqa``; turns node-level fixes into text
edits (``fixes``). ``engine_codes`` lists the codes the engine reports itself (JAX000...).

Imports go one way (``tests/test_layering.py``), lowest first: ``jaxlint.project.versions`` and ``settings``;
``diagnostics``, ``walk``, ``names``, ``inference``, the gates; the rule API (``jaxlint.rules.base``, which sees
the file only through its ``RuleContext`` protocol); the rules and their registry (``jaxlint.rules``); ``context``
and ``fixes``; ``engine``; then ``jaxlint.run`` and ``jaxlint.ui``.
""",
        ("engine", "engine_codes", "text_gate", "ast_gate", "names", "inference", "context", "walk", "_cst_fields",
         "positions", "diagnostics", "fixes", "noqa"),
    ),
    "project": (
        """The project being linted (its configuration, files, JAX version range and results cache).

``config`` reads and validates ``[tool.jaxlint]``/``jaxlint.toml`` and merges the command line into ``settings``
(what one file is linted with); ``versions`` knows JAX releases, ``pins`` reads the oldest supported JAX from the
project's own dependency pins, ``version_range`` warns when the range reaches past what the catalogue describes;
``files`` finds the files to lint (excludes, ``gitignore``); ``cache`` keeps results of unchanged files.
""",
        ("config", "settings", "versions", "version_range", "pins", "files", "gitignore", "cache"),
    ),
    "run": (
        """Running the pipeline over files (reading and writing them, notebooks, what each file produced).

``runner`` lints or fixes a list of files (``sources`` reads and writes them byte-for-byte, atomically);
``notebooks`` lints the code cells of Jupyter notebooks as one module (``notebook_json`` finds and rewrites a cell
in the JSON text, ``ipython_masking`` masks magics so the rest parses); ``results`` is what one file produced;
``noqa_add`` is suppression hygiene after the engine (``--add-noqa``, JAX001 unused-noqa).
""",
        ("runner", "sources", "results", "notebooks", "notebook_json", "ipython_masking", "noqa_add"),
    ),
    "ui": (
        """What users talk to (the command line, the language server, rule documentation, the progress bar).

``cli`` parses options (named as ruff names them) and calls ``jaxlint.run``; ``server`` is the LSP server for
editors; ``docs`` renders rule documentation (``jaxlint rule CODE``, docs/rules.md); ``progress`` draws on stderr.
The output formats are in ``jaxlint.output``; ``jaxlint verify`` and ``jaxlint exports`` in their own packages.
""",
        ("cli", "server", "docs", "progress"),
    ),
}
# Flat modules that stay where they are.
STAY = frozenset({"__init__", "__main__"})
# Files with which the references are rewritten (tracked files only); test data is never touched.
TEXT_SUFFIXES = frozenset({".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".txt", ".sh", ".ini", ".rst", ""})
SKIP_DIRECTORIES = ("tests/fixtures/", "tests/data/", "rules/", "examples/")
FROM_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from jaxlint import (?:(?P<names>[^()\n#]+?)(?P<comment>[ \t]*#.*)?$"
                         r"|\((?P<grouped>[^()]*)\))", re.MULTILINE)


def git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def destination(module: str) -> str | None:
    for package, (_, modules) in LAYOUT.items():
        if module in modules:
            return package
    return None


OWN_LOCATION = re.compile(r"(?<![\w.])__file__")  # not ``jaxlint.__file__`` nor ``libcst.__file__``


def uses_own_location(placed: dict[str, str]) -> list[str]:
    """Moved modules that find files relative to themselves: one level deeper now, check each by hand."""
    return sorted(f"src/jaxlint/{package}/{module}.py" for module, package in placed.items()
                  if OWN_LOCATION.search((PACKAGE / package / f"{module}.py").read_text(encoding="utf-8")))


def move_modules(dry_run: bool) -> tuple[dict[str, str], list[str]]:
    """git mv each known flat module into its package: (module -> package of every module now in its package,
    notes on the skipped ones)."""
    placed: dict[str, str] = {}
    notes: list[str] = []
    for package, (docstring, modules) in LAYOUT.items():
        folder = PACKAGE / package
        init = folder / "__init__.py"
        text = f'"""{docstring.rstrip()}\n"""\n'
        if not dry_run:
            folder.mkdir(exist_ok=True)
            if not init.exists() or init.read_text(encoding="utf-8") != text:
                init.write_text(text, encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))
        for module in modules:
            flat, moved = PACKAGE / f"{module}.py", folder / f"{module}.py"
            if moved.exists():
                placed[module] = package
                if flat.exists():
                    notes.append(f"{module}: both src/jaxlint/{module}.py and {package}/{module}.py exist; "
                                 "merge them by hand")
            elif flat.exists():
                if not dry_run:
                    git("mv", str(flat.relative_to(ROOT)), str(moved.relative_to(ROOT)))
                print(f"moved  src/jaxlint/{module}.py -> src/jaxlint/{package}/{module}.py")
                placed[module] = package
            else:
                notes.append(f"{module}: not in src/jaxlint/ nor in {package}/ (skipped)")
    return placed, notes


def unknown_flat_modules() -> list[str]:
    return sorted(path.stem for path in PACKAGE.glob("*.py")
                  if path.stem not in STAY and destination(path.stem) is None)


def _split_from_import(match: re.Match, placed: dict[str, str]) -> str:
    listed = match["names"] if match["grouped"] is None else re.sub(r"#[^\n]*", "", match["grouped"])
    names = [" ".join(name.split()) for name in listed.split(",") if name.strip()]
    groups: dict[str, list[str]] = {}
    for name in names:
        module = name.split(" as ")[0].strip()
        groups.setdefault(f"jaxlint.{placed[module]}" if module in placed else "jaxlint", []).append(name)
    if list(groups) == ["jaxlint"]:
        return match[0]
    lines = [f"{match['indent']}from {source} import {', '.join(group)}" for source, group in groups.items()]
    lines[0] += match["comment"] or ""
    return "\n".join(lines)


def rewrite(text: str, placed: dict[str, str]) -> str:
    if not placed:
        return text
    alternatives = "|".join(sorted(map(re.escape, placed), key=len, reverse=True))
    dotted = re.compile(rf"(?<![\w.])jaxlint\.({alternatives})(?!\w)")
    text = dotted.sub(lambda m: f"jaxlint.{placed[m[1]]}.{m[1]}", text)
    path = re.compile(rf"(?<![\w.])((?:src/)?jaxlint)/({alternatives})\.py(?!\w)")
    text = path.sub(lambda m: f"{m[1]}/{placed[m[2]]}/{m[2]}.py", text)
    return FROM_IMPORT.sub(lambda m: _split_from_import(m, placed), text)


README_SECTION = "## Development\n\n"
README_MARKER = "- The package's folders follow the pipeline"


def readme_layout_bullet() -> str:
    """The README's Development bullet about the layout, from ``LAYOUT`` (first line of each package's docstring)."""
    words = [README_MARKER.removeprefix("- ") + " (each folder's `__init__.py` says what it holds and in which order):"]
    for package, (docstring, _) in LAYOUT.items():
        summary = docstring.splitlines()[0].rstrip(".")
        words.append(f"`src/jaxlint/{package}/`: {summary[0].lower()}{summary[1:]};")
    words.append("`rules/`: the rule API (`base.py`) and one module per rule; `output/`, `verify/`, `exports/`,"
                 " `catalogue/` as their names say. Imports go one way: `tests/test_layering.py` fails on any cycle.")
    lines, line = [], "-"
    for word in " ".join(words).split():
        if len(line) + 1 + len(word) > 116:
            lines.append(line)
            line = " "
        line += " " + word
    return "\n".join(lines + [line]) + "\n"


def document_layout(dry_run: bool) -> bool:
    """Add the layout bullet to README's Development section (once): True if README changed."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if README_MARKER in text or README_SECTION not in text:
        return False
    if not dry_run:
        readme.write_text(text.replace(README_SECTION, README_SECTION + readme_layout_bullet(), 1), encoding="utf-8")
    return True


def rewrite_references(placed: dict[str, str], dry_run: bool) -> list[str]:
    changed = []
    for name in git("ls-files").splitlines():
        if name.startswith(SKIP_DIRECTORIES) or Path(name).suffix not in TEXT_SUFFIXES:
            continue
        path = ROOT / name
        if not path.is_file() or path == Path(__file__).resolve():  # its own tables name the old modules
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, placed)
        if new != text:
            changed.append(name)
            if not dry_run:
                path.write_bytes(new.encode("utf-8"))
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print what would move, change nothing")
    arguments = parser.parse_args()
    placed, notes = move_modules(arguments.dry_run)
    changed = rewrite_references(placed, arguments.dry_run)
    if document_layout(arguments.dry_run):
        print("README.md: added the layout to its Development section")
    print(f"\n{len(placed)} modules in sub-packages:")
    for package, (_, modules) in LAYOUT.items():
        present = [module for module in modules if placed.get(module) == package]
        print(f"  jaxlint.{package}: {', '.join(present) or '(none)'}")
    print(f"{len(changed)} files with rewritten references" + (":" if changed else ""))
    for name in changed:
        print(f"  {name}")
    for note in notes:
        print(f"note: {note}")
    if not arguments.dry_run:
        for name in uses_own_location(placed):
            print(f"check: {name} uses __file__ (it now lies one folder deeper)")
    unknown = unknown_flat_modules()
    if unknown:
        print("flat modules this script does not know (decide where they go, add them to LAYOUT):")
        for module in unknown:
            print(f"  src/jaxlint/{module}.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
