"""``jaxlint upgrade``: the whole JAX upgrade as one command (pins, fixes, dependencies, verify, exports, report)."""
