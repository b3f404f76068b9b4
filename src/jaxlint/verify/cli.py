"""``jaxlint verify``: click command only (options, calling the verifier, printing)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from jaxlint.project.config import ConfigError, Overrides, SettingsResolver
from jaxlint.ui.options import split_codes, version_option

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


class CommandAfterDashes(click.Command):
    """Everything after ``--`` is the user's command (``trailing_command()``), taken before click sees (and drops)
    the ``--`` (``verify`` and ``upgrade``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta["jaxlint.command"] = list(args[cut + 1:])
            args = list(args[:cut])
        return super().parse_args(ctx, args)


def trailing_command() -> list[str]:
    return list(click.get_current_context().meta.get("jaxlint.command", []))


@click.command("verify", cls=CommandAfterDashes, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--baseline-jax", metavar="VERSION", help="Build (once) and use a venv with this JAX as the baseline.")
@click.option("--baseline-python", type=click.Path(exists=True, dir_okay=False),
              help="An interpreter with the old JAX (instead of --baseline-jax).")
@click.option("--target-python", type=click.Path(exists=True, dir_okay=False),
              help="The interpreter with the new JAX (default: the current one).")
@click.option("--platform", type=click.Choice(["cpu", "gpu", "tpu"]), default=None,
              help="Run both on this platform (sets JAX_PLATFORMS; default: JAX's choice, the same for both).")
@click.option("--rtol", type=click.FloatRange(min=0), default=1e-6, show_default=True,
              help="Relative tolerance for floats.")
@click.option("--atol", type=click.FloatRange(min=0), default=1e-6, show_default=True,
              help="Absolute tolerance for floats.")
@click.option("--max-calls", type=click.IntRange(min=1), default=10, show_default=True,
              help="Record and compare the first N calls of each site.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (as in check).")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also verify unsafe fixes.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
@click.option("--apply", "apply_fixes", is_flag=True, help="Write the verified fixes (only those) to the files.")
@click.option("--rules", "check_rules", is_flag=True, help="Verify every rule's runnable examples instead of PATHS.")
@click.option("--timeout", type=float, default=None, help="Seconds each run may take, its output included; then it is ended.")
@click.option("--project-root", type=click.Path(file_okay=False, path_type=Path),
              help="The directory copied for the runs and the command's working directory (default: the current "
                   "directory).")
@click.option("--keep", is_flag=True, help="Keep the BEFORE/AFTER copies and records (and say where).")
@click.option("--target-version", callback=version_option, help="The JAX version the code will run on (as in check).")
@click.option("--min-version", callback=version_option,
              help="The oldest JAX version the code must keep working on (as in check; default: the project's pins).")
@click.option("--from-git", "from_git", metavar="REV",
              help="Verify the fixes already in the working tree (after `jaxlint --fix`): BEFORE runs each file as "
                   "committed in REV (e.g. HEAD), AFTER as it is now.")
@click.option("--allow-nothing-compared", is_flag=True,
              help="Exit 0 even when no fix site was reached (by default that is a failure: nothing was proven).")
@click.option("--repeat-baseline", is_flag=True,
              help="Run BEFORE a second time and mark the sites whose values differ between the two as "
                   "nondeterministic (unseeded randomness, timing).")
@click.option("--allow-broken-baseline", is_flag=True,
              help="Use a --baseline-jax environment even if `pip check` finds conflicts in it.")
@click.option("--no-watch", is_flag=True,
              help="Do not probe the watched sites (findings with no fix whose value changed between the releases: "
                   "JAX201-JAX203, JAX601); only the fix sites are probed.")
@click.option("--fail-on-watched", is_flag=True,
              help="Exit 1 when a watched site's values differ (by default a watched difference is reported and "
                   "does not change the exit status: it is no failure of the fixes).")
@click.option("--no-probes", is_flag=True, hidden=True, help="Run without probes (to check they change nothing).")
def verify_command(paths, baseline_jax, baseline_python, target_python, platform, rtol, atol, max_calls, select,
                   ignore, unsafe_fixes, output_format, apply_fixes, check_rules, timeout, project_root, keep,
                   target_version, min_version, from_git, allow_nothing_compared, repeat_baseline,
                   allow_broken_baseline, no_watch, fail_on_watched, no_probes) -> None:
    """Prove the fixes in PATHS by running COMMAND on the old code with the old JAX and on the fixed code with the
    new JAX, comparing the value at every fix site, and at every watched site (a finding with no fix whose value
    changed between the releases: the same code in both runs).

    Example: jaxlint verify src/ --baseline-jax 0.10.2 -- pytest tests/model_test.py -x
    """
    from jaxlint.verify.main import run_verify
    from jaxlint.verify.validate import InvalidArgument

    command = trailing_command()
    if baseline_jax and baseline_python:
        raise click.UsageError("give either --baseline-jax or --baseline-python, not both")
    if not baseline_jax and not baseline_python:
        raise click.UsageError("give the old JAX: --baseline-jax VERSION or --baseline-python PATH")
    if not command and not check_rules:
        raise click.UsageError("give the command to run after `--`, e.g. `-- pytest tests/ -x`")
    if timeout is not None and timeout <= 0:
        raise click.BadParameter("must be a positive number of seconds", param_hint="--timeout")
    overrides = Overrides(select=split_codes(select, "--select") if select else None,
                          ignore=split_codes(ignore, "--ignore"),
                          unsafe_fixes=unsafe_fixes, target_version=target_version, min_version=min_version)
    from jaxlint.verify.signals import Interrupted, signals_interrupt

    try:
        with signals_interrupt():
            code = run_verify(list(paths), list(command), resolver=SettingsResolver(overrides),
                              baseline_jax=baseline_jax, baseline_python=baseline_python, target_python=target_python,
                              platform=platform, rtol=rtol, atol=atol, max_calls=max_calls, unsafe=unsafe_fixes,
                              output_format=output_format, apply=apply_fixes, check_rules=check_rules, timeout=timeout,
                              project_root=project_root, keep=keep, probes=not no_probes, from_git=from_git,
                              allow_nothing_compared=allow_nothing_compared, repeat_baseline=repeat_baseline,
                              allow_broken_baseline=allow_broken_baseline, watch=not no_watch,
                              fail_on_watched=fail_on_watched)
    except Interrupted as stop:
        click.echo(f"jaxlint verify: interrupted by {stop}: the command was ended and the copies removed", err=True)
        code = stop.exit_code
    except InvalidArgument as error:
        click.echo(f"jaxlint verify: error: {error}", err=True)
        code = EXIT_ERROR
    except ConfigError as error:
        click.echo(f"jaxlint: error: {error}", err=True)
        code = EXIT_ERROR
    except (RuntimeError, FileNotFoundError, ValueError) as error:
        click.echo(f"jaxlint verify: error: {error}", err=True)
        code = EXIT_ERROR
    except OSError as error:  # a full disk or a folder it cannot write: one line, not a traceback
        from jaxlint.verify.scratch import describe, disk_error

        problem = disk_error(error)
        if problem is None:
            raise
        click.echo(f"jaxlint verify: error: {describe(problem)}", err=True)
        code = EXIT_ERROR
    sys.exit(code)
