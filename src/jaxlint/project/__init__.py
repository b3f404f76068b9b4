"""The project being linted (its configuration, files, JAX version range and results cache).

``config`` reads and validates ``[tool.jaxlint]``/``jaxlint.toml`` and merges the command line into ``settings``
(what one file is linted with); ``versions`` knows JAX releases, ``pins`` reads the oldest supported JAX from the
project's own dependency pins, ``version_range`` warns when the range reaches past what the catalogue describes;
``files`` finds the files to lint (excludes, ``gitignore``); ``cache`` keeps results of unchanged files.
"""
