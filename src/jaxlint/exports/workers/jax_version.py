"""Print the JAX version of this interpreter (request: {})."""
import _common

import jax

if __name__ == "__main__":
    _common.respond({"jax_version": jax.__version__, "has_expired_flag": _common.has_expired_flag(jax)})
