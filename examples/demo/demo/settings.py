"""Compiler settings, written for JAX 0.10."""
import os

import jax

jax.config.update("jax_exec_time_optimization_effort", 0.0)
jax.config.update("jax_memory_fitting_effort", 0.5)
os.environ["JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS"] = "1"
