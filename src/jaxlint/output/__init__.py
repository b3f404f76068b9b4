"""Output formats: one module each; ``render`` picks one by name.

A format is a function ``(results, options) -> str`` registered in ``FORMATS``; ``OUTPUT_FORMATS`` (the names) is what
the CLI and the config accept.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from jaxlint.run.results import FileResult


@dataclass(frozen=True)
class RenderOptions:
    unsafe: bool = False
    fixing: bool = False
    statistics: bool = False
    quiet: bool = False  # -q: the findings only, no summary line


def _text(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.text import format_diagnostics, statistics, summary

    if options.statistics:
        table = statistics(results, unsafe=options.unsafe)
        if not options.fixing or options.quiet or not any(r.applied for r in results):
            return table
        # As ruff: after --fix the counts are followed by what was fixed (alone when nothing remains).
        tail = summary(results, fixing=True, unsafe=options.unsafe)
        return f"{table}\n{tail}" if table else tail
    body = format_diagnostics(results, unsafe=options.unsafe)
    if options.quiet:
        return body
    tail = summary(results, fixing=options.fixing, unsafe=options.unsafe)
    return f"{body}\n{tail}" if body else tail


def _json(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.json import format_json

    return format_json(results)


def _concise(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.full import format_concise

    if options.statistics:
        return _text(results, options)
    return format_concise(results, unsafe=options.unsafe, fixing=options.fixing, quiet=options.quiet)


def _full(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.full import format_full

    if options.statistics:
        return _text(results, options)
    return format_full(results, unsafe=options.unsafe, fixing=options.fixing, quiet=options.quiet)


def _github(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.github import format_github

    return format_github(results)


def _gitlab(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.gitlab import format_gitlab

    return format_gitlab(results)


def _junit(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.junit import format_junit

    return format_junit(results)


def _sarif(results: Sequence[FileResult], options: RenderOptions) -> str:
    from jaxlint.output.sarif import format_sarif

    return format_sarif(results)


FORMATS: dict[str, Callable[[Sequence[FileResult], RenderOptions], str]] = {
    "text": _text,
    "json": _json,
    "concise": _concise,
    "full": _full,
    "github": _github,
    "gitlab": _gitlab,
    "junit": _junit,
    "sarif": _sarif,
}


def render(name: str, results: Sequence[FileResult], options: RenderOptions) -> str:
    return FORMATS[name](results, options)
