"""``jaxlint verify`` end to end: interpreters, plan, verification, report, ``--apply``, ``--rules``."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

import click

from jaxlint.project.config import SettingsResolver
from jaxlint.lint.engine import fix_source
from jaxlint.rules.base import Rule
from jaxlint.run.sources import write_atomic
from jaxlint.verify.probe_spans import derive_probe
from jaxlint.verify.plan import FilePlan, Plan, Site, make_plan, make_plan_from_git, project_root
from jaxlint.verify.run import in_virtualenv_bin
from jaxlint.verify.validate import InvalidArgument, check_baseline_jax, check_paths, check_platform, require_jax
from jaxlint.verify.report import render_json, render_text
from jaxlint.verify.verifier import VerifyResult, verify


def _echo(line: str) -> None:
    click.echo(line, err=True)


def resolve_interpreters(baseline_jax: str | None, baseline_python: str | None, target_python: str | None,
                         platform: str | None, *, allow_broken_baseline: bool = False) -> tuple[str, str]:
    """Both interpreters, every argument checked first: only then may a baseline venv be built."""
    target = str(Path(target_python).absolute()) if target_python else sys.executable
    check_platform(platform)
    target_jax = require_jax(target, "target", platform)["jax_version"]
    if baseline_python:
        baseline = str(Path(baseline_python).absolute())
        _note_same_jax(require_jax(baseline, "baseline", platform)["jax_version"], target_jax)
        return baseline, target
    version = check_baseline_jax(baseline_jax, target, _echo)
    _note_same_jax(version, target_jax)
    from jaxlint.verify.installer import InstallerError, choose

    try:
        choose()  # a JAXLINT_INSTALLER that names no installer is refused before the build starts
    except InstallerError as error:
        raise InvalidArgument(str(error)) from None
    from jaxlint.verify.envs import baseline_env

    return str(baseline_env(version, target, platform, echo=_echo, allow_broken=allow_broken_baseline)), target


def _note_same_jax(baseline: str, target: str) -> None:
    from jaxlint.project.versions import Version

    try:
        same = Version(baseline) == Version(target)
    except ValueError:
        same = baseline == target
    if same:
        _echo(f"warning: the baseline and the target are both JAX {target}: the comparison proves nothing about the "
              "upgrade")


def run_verify(paths: list[Path], command: list[str], *, resolver: SettingsResolver, baseline_jax=None,
               baseline_python=None, target_python=None, platform=None, rtol=1e-6, atol=1e-6, max_calls=10,
               unsafe=None, output_format="text", apply=False, check_rules=False, timeout=None, project_root=None,
               keep=False, probes=True, rules: Sequence[type[Rule]] | None = None, from_git: str | None = None,
               allow_nothing_compared=False, repeat_baseline=False, allow_broken_baseline=False, watch=True,
               fail_on_watched=False) -> int:
    if apply and from_git:
        raise InvalidArgument("--apply writes fixes, and with --from-git they are already in the working tree")
    targets = paths or [Path(".")]
    if not check_rules:
        check_paths(targets)
        root = project_root_for(targets, project_root)
        # The plan first (no JAX needed): with nothing to verify, no interpreter is checked and no env built.
        plan = make_plan_from_git(targets, resolver, root, from_git, unsafe=unsafe, rules=rules, watch=watch) \
            if from_git else make_plan(targets, resolver, root, unsafe=unsafe, rules=rules, watch=watch)
        if not plan.sites and not plan.watched:
            return _nothing_to_verify(plan, targets, from_git, output_format, allow_nothing_compared)
        if command:
            _note_interpreter(command)
    baseline, target = resolve_interpreters(baseline_jax, baseline_python, target_python, platform,
                                            allow_broken_baseline=allow_broken_baseline)
    if check_rules:
        return verify_rules(baseline, target, platform=platform, rtol=rtol, atol=atol, max_calls=max_calls,
                            output_format=output_format, timeout=timeout, keep=keep)
    watched = f" and {len(plan.watched)} watched site(s) (no fix: values compared as they are)" if plan.watched else ""
    _echo(f"jaxlint verify: {len(plan.sites)} fix site(s){watched} in {len(plan.files)} file(s)"
          + (f" (BEFORE: as committed in {from_git}; AFTER: the working tree)" if from_git else "")
          + f"; running `{' '.join(command)}` {'three times' if repeat_baseline else 'twice'}")
    result = verify(plan, command, baseline_python=baseline, target_python=target, platform=platform, rtol=rtol,
                    atol=atol, max_calls=max_calls, timeout=timeout, keep=keep, probes=probes,
                    repeat_baseline=repeat_baseline, allow_nothing_compared=allow_nothing_compared,
                    fail_on_watched=fail_on_watched, echo=_echo)
    _print(result, output_format)
    if keep and result.workdir:
        _echo(f"kept the BEFORE/AFTER trees and records in {result.workdir}")
    if apply:
        apply_verified(result, resolver, unsafe=unsafe, rules=rules)
    return result.exit_code


def _nothing_to_verify(plan: Plan, targets: list[Path], from_git: str | None, output_format: str,
                       allow: bool) -> int:
    where = ", ".join(str(p) for p in targets)
    _echo(f"jaxlint verify: no fixes to verify in {where}" + (f" (no file changed by jaxlint's fixes since "
                                                               f"{from_git})" if from_git else ""))
    if plan.unfixed:
        _echo(f"  {plan.unfixed} finding(s) have no fix applied: no fix exists, it is unsafe (--unsafe-fixes), or the "
              "min/target versions rule it out (`jaxlint check --show-settings FILE` shows them; --min-version and "
              "--target-version work here as in check)")
    if not from_git:
        _echo("  after `jaxlint --fix`, verify what it changed with `jaxlint verify --from-git HEAD ...`")
    for problem in plan.problems:
        _echo(f"warning: {problem}")
    if output_format == "json":
        click.echo('{"baseline": null, "target": null, "sites": [], "watched": []}')
    if allow:
        return 0
    _echo("nothing was compared, so nothing is proven: exit 1 (pass --allow-nothing-compared to accept)")
    return 1


def _note_interpreter(command: list[str]) -> None:
    head = command[0]
    if ("/" in head or os.sep in head) and in_virtualenv_bin(head):
        _echo(f"note: the command names {head}; BEFORE runs it from the baseline environment and AFTER from the "
              "target's (as written, both runs would use that one environment's JAX)")


def project_root_for(paths: list[Path], given: Path | None) -> Path:
    return project_root(paths, given)


def _print(result: VerifyResult, output_format: str) -> None:
    if output_format == "json":
        click.echo(render_json(result))
    else:
        click.echo(render_text(result, cwd=Path.cwd().resolve()))


# -- --apply ---------------------------------------------------------------------------------------------------
def fixed_with_only(file_plan: FilePlan, keep: set[str], *, unsafe: bool | None,
                    rules: Sequence[type[Rule]] | None) -> tuple[str, list[Site]]:
    """The file's source with only the fixes of ``keep`` applied, and the kept sites that could not be applied.

    All verified: exactly the fixed text that was run. Otherwise the findings of the original text at the verified
    sites (same code, same position) have their edits applied together, in one round; a verified fix that only
    appears after another fix was applied cannot be, and is listed.
    """
    sites = file_plan.sites
    if all(site.id in keep for site in sites):
        return file_plan.fixed, []
    from jaxlint.lint.engine import lint_source, parse, ParseFailure
    from jaxlint.lint.fixes import apply_edits, edits_overlap

    wanted = {(site.code, site.row, site.column): site for site in sites if site.id in keep}
    text = file_plan.source.text
    diagnostics = lint_source(text, str(file_plan.path), file_plan.settings, rules=rules).diagnostics
    edits, done = [], set()
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.start.row, diagnostic.start.column)
        if key in wanted and diagnostic.fix is not None and not edits_overlap(diagnostic.fix.edits, edits):
            edits.extend(diagnostic.fix.edits)
            done.add(key)
    new_text = apply_edits(text, edits)
    try:
        parse(new_text)
    except ParseFailure:
        return text, list(wanted.values())
    return new_text, [site for key, site in wanted.items() if key not in done]


def apply_verified(result: VerifyResult, resolver: SettingsResolver, *, unsafe, rules) -> None:
    keep = result.verified_ids()
    written, not_applied = [], []
    for file_plan in result.plan.files:
        new_text, missing = fixed_with_only(file_plan, keep, unsafe=unsafe, rules=rules)
        not_applied.extend(site for site in file_plan.sites if site.id not in keep)
        not_applied.extend(missing)
        if new_text != file_plan.source.text:
            write_atomic(file_plan.path, file_plan.source.encode(new_text))
            written.append(file_plan.path)
    applied = sum(1 for r in result.sites if r.status == "verified") - len([s for s in not_applied
                                                                           if s.id in keep])
    _echo(f"--apply: wrote {applied} verified fix(es) to {len(written)} file(s)")
    for site in not_applied:
        status = next(r.status for r in result.sites if r.site.id == site.id)
        why = "could not be applied without the unverified fixes" if site.id in keep else status
        _echo(f"  not applied: {site.file}:{site.row}:{site.column}: {site.code} ({why})")


# -- --rules ---------------------------------------------------------------------------------------------------
def rules_plan(directory: Path, rules: Sequence[type[Rule]] | None = None) -> Plan:
    """A project with one module per runnable rule example, and its fixes (each example with its own settings)."""
    from collections import Counter

    from jaxlint.run.sources import read_source
    from jaxlint.verify.rule_examples import runnable_examples, settings_for, write_project

    examples = runnable_examples(rules)
    paths = write_project(directory, examples)
    plan = Plan(directory.resolve())
    for item, path in zip(examples, paths):
        source = read_source(path)
        settings = settings_for(item.example, item.rule, directory)
        outcome = fix_source(source.text, str(path), settings, unsafe=item.example.fixed is None, rules=[item.rule],
                             derive_probe=derive_probe)
        if not outcome.applied:
            plan.problems.append(f"{item.rule.code} INVALID[{item.index}]: no fix applied in the example")
            continue
        relative = path.name
        ordinals: Counter = Counter()
        sites = []
        for fix in outcome.applied:
            ordinals[(fix.row, fix.code)] += 1
            sites.append(Site(f"{relative}:{fix.row}:{fix.code}:{ordinals[(fix.row, fix.code)]}", path.resolve(),
                              relative, fix.row, fix.column, fix.code, fix.message, fix))
        plan.files.append(FilePlan(path.resolve(), relative, source, outcome.source, sites, settings))
    return plan


def verify_rules(baseline: str, target: str, *, platform=None, rtol=1e-6, atol=1e-6, max_calls=10,
                 output_format="text", timeout=None, keep=False, rules=None) -> int:
    with tempfile.TemporaryDirectory(prefix="jaxlint-rule-examples-") as directory:
        plan = rules_plan(Path(directory), rules)
        _echo(f"jaxlint verify --rules: {len(plan.sites)} fix site(s) in {len(plan.files)} runnable example(s)")
        result = verify(plan, ["python", "run_examples.py"], baseline_python=baseline, target_python=target,
                        platform=platform, rtol=rtol, atol=atol, max_calls=max_calls, timeout=timeout, keep=keep,
                        echo=_echo)
        _print(result, output_format)
        return result.exit_code
