"""Small synthetic projects for runner tests, made from the rules' own examples (no third-party code)."""
from __future__ import annotations

from pathlib import Path

from jaxlint.project.files import SourceFile
from jaxlint.rules import all_rules
from jaxlint.project.settings import Settings

BROKEN = "def f(:\n    pass\n"


def example_sources() -> list[str]:
    sources = []
    for rule in all_rules():
        if rule.opt_in:
            continue
        sources.extend(example.code for example in rule.INVALID if not example.min_version
                       and not example.target_version)
        sources.extend(example.code for example in rule.VALID[:2])
    return sources


def make_project(root: Path, copies: int = 1) -> list[Path]:
    """Write every example (and a broken file, an empty one, a CRLF one) into ``root``; return the paths."""
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    sources = example_sources() + [BROKEN, ""]
    for copy in range(copies):
        for number, source in enumerate(sources):
            path = root / f"pkg{copy}" / f"m{number:03d}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(source.encode("utf-8"))
            paths.append(path)
        crlf = root / f"pkg{copy}" / "crlf.py"
        crlf.write_bytes(sources[0].replace("\n", "\r\n").encode("utf-8"))
        paths.append(crlf)
    return sorted(paths)


def source_files(paths: list[Path], root: Path, **changes) -> list[SourceFile]:
    settings = Settings(root=root, **changes)
    return [SourceFile(path, settings) for path in paths]


def summary(results) -> list[tuple]:
    """Everything a user sees of a run's results, comparable between runs."""
    return [(r.path, r.internal_error, r.fixed_source, [(d.code, d.message, d.start, d.end, d.fix, d.cell)
                                                       for d in r.diagnostics]) for r in results]


def named_sources() -> list[tuple[str, str]]:
    """(name, text) of every rule example and every test fixture: what the tests that lint a module two ways
    (whole and in pieces, whole and focused) compare on."""
    root = Path(__file__).resolve().parents[2]
    found = [(f"{rule.code}-example-{i}", example.code)
             for rule in all_rules() for i, example in enumerate(rule.VALID + rule.INVALID)]
    found += [(str(path.relative_to(root)), path.read_text(encoding="utf-8"))
              for path in sorted((root / "tests" / "fixtures").rglob("*.py"))]
    return found
