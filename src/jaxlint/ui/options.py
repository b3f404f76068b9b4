"""Option parsing shared by the click commands (``check``, ``verify``): rule codes and JAX versions."""
from __future__ import annotations

import click

from jaxlint.project.config import ConfigError, validate_selector
from jaxlint.project.versions import Version


def split_codes(values: tuple[str, ...], option: str) -> tuple[str, ...]:
    """Codes or prefixes given comma-separated or repeated (``--select JAX1,JAX202 --select JAX4``), validated."""
    codes: list[str] = []
    for value in values:
        for part in value.split(","):
            if part.strip():
                try:
                    codes.append(validate_selector(part, option))
                except ConfigError as error:
                    raise click.BadParameter(str(error)) from None
    return tuple(codes)


def version_option(ctx: click.Context, param: click.Parameter, value: str | None) -> Version | None:
    """A click callback: ``--target-version``/``--min-version`` parsed as a JAX version."""
    if value is None:
        return None
    try:
        return Version(value)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
