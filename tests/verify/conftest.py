from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def old_python():
    from tests.support.jaxenv import jax_python

    return str(jax_python("0.10.2"))


@pytest.fixture(scope="session")
def new_python():
    from tests.support.jaxenv import jax_python

    return str(jax_python("0.12.0.1"))
