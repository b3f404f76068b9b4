"""Inspect serialized ``jax.export`` artifacts and migrate the ones a newer JAX refuses (``jaxlint exports``)."""
