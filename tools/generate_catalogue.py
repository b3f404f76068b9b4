#!/usr/bin/env python3
"""Generate ``rules/generated.toml`` from JAX's own wheels.

The work is done by the package ``tools/catalogue_gen/`` (one module a job; ``cli.py`` describes the run). Supporting a
new JAX release is: ``python tools/generate_catalogue.py --jaxenvs DIR --build-venvs`` (see ``docs/catalogue.md``).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogue_gen.cli import main  # noqa: E402

# What tools/catalogue_gen/ecosystem.py reads as ``generate_catalogue.X`` (it can import them from the modules).
from catalogue_gen.parameter_diff import parameter_diff  # noqa: E402,F401
from catalogue_gen.releases import vkey  # noqa: E402,F401
from catalogue_gen.snapshot import exists, origin_of, since, state_of  # noqa: E402,F401
from catalogue_gen.toml_writer import toml_value  # noqa: E402,F401
from catalogue_gen.wheel import Archive, ModuleInfo, Wheel, const_str, is_public_module  # noqa: E402,F401

if __name__ == "__main__":
    sys.exit(main())
