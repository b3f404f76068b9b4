"""Only the package list lives here: pyproject.toml cannot combine `packages.find` with the top-level rules/ folder,
which is shipped inside the package as `jaxlint._rules` (see `[tool.setuptools.package-dir]`)."""
from setuptools import find_packages, setup

setup(packages=find_packages("src") + ["jaxlint._rules"])
