"""What users talk to (the command line, the language server, rule documentation).

``cli`` parses options (named as ruff names them) and calls ``jaxlint.run``; ``server`` is the LSP server for
editors; ``docs`` renders rule documentation (``jaxlint rule CODE``, docs/rules.md).
The output formats are in ``jaxlint.output``; ``jaxlint verify`` and ``jaxlint exports`` in their own packages.
"""
