"""Scripts that run inside a JAX virtual environment, never inside jaxlint's own process.

Each is started as ``<venv python> <script>.py`` by :mod:`jaxlint.exports.jaxrun`, reads one JSON request on stdin
and prints one ``JAXLINT-RESULT {...}`` line. They import only the standard library, numpy and jax.
"""
