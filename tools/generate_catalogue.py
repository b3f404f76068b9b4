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


if __name__ == "__main__":
    sys.exit(main())
