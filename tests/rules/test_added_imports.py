"""Issue 24 item 9: an import a fix adds goes where isort would put it, and is not added when the file's imports
already load the module."""
from __future__ import annotations

import pytest

from tests.cli.test_cli import run

CORE = 'x = core.Primitive("p")\n'
CORE_FIXED = 'x = jax.extend.core.Primitive("p")\n'


def _fix(tmp_path, source: str, *args: str) -> str:
    (tmp_path / "m.py").write_text(source)
    run(["--no-cache", "--isolated", "--fix", "--min-version", "0.10.2", *args, "m.py"], tmp_path)
    return (tmp_path / "m.py").read_text()


@pytest.mark.parametrize("before, after", [
    # after the docstring and __future__, in the third-party section, `import` lines before `from` lines, sorted
    ('"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\nimport numpy as np\nfrom jax import core\n\n'
     + CORE,
     '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\nimport jax.extend.core\nimport numpy as np\n'
     'from jax import core\n\n' + CORE_FIXED),
    # sorted after an import of its section, after that import's trailing comment
    ("import jax  # the jax\nimport numpy as np\n\nfrom jax import core\n" + CORE,
     "import jax  # the jax\nimport jax.extend.core\nimport numpy as np\n\nfrom jax import core\n" + CORE_FIXED),
    # the first of the third-party section: after the blank line that ends the standard library
    ("import os\nimport sys\n\nfrom jax import core\n\n" + CORE,
     "import os\nimport sys\n\nimport jax.extend.core\nfrom jax import core\n\n" + CORE_FIXED),
    # no third-party section yet: a new one, with its blank line, after the standard library
    ("import os\n\nfrom . import core\nfrom jax import core\n" + CORE,
     "import os\n\nfrom . import core\nfrom jax import core\n" + CORE),  # `core` is bound twice: no fix
    # sections not apart in the file: still before the `from` imports of its section
    ("import os\nfrom jax import core\n\nfrom . import sibling\n" + CORE,
     "import os\nimport jax.extend.core\nfrom jax import core\n\nfrom . import sibling\n" + CORE_FIXED),
])
def test_added_import_goes_where_isort_puts_it(tmp_path, before, after):
    assert _fix(tmp_path, before) == after


def test_added_import_starts_a_section_after_the_last_one(tmp_path):
    assert _fix(tmp_path, "import os\n\nx = 1\nfrom jax import core\n" + CORE) == \
        "import os\n\nimport jax.extend.core\n\nx = 1\nfrom jax import core\n" + CORE_FIXED
    assert _fix(tmp_path, "import os\nimport jax.core as core\n" + CORE) == \
        "import os\nimport jax.core as core\nimport jax.extend.core\n" + CORE_FIXED
    assert _fix(tmp_path, "import os\n\n\nfrom jax import core\n" + CORE) == \
        "import os\n\n\nimport jax.extend.core\nfrom jax import core\n" + CORE_FIXED
    assert _fix(tmp_path, "import os\nimport sys\n\n\n" + CORE.replace("core.", "jax.core.")) == \
        "import os\nimport sys\n\n\n" + CORE.replace("core.", "jax.core.")  # jax unbound: nothing to fix


def test_first_party_section_is_kept_apart(tmp_path):
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    assert _fix(tmp_path, "import os\n\nfrom mypkg import thing\nfrom jax import core\n" + CORE) == \
        "import os\n\nimport jax.extend.core\n\nfrom mypkg import thing\nfrom jax import core\n" + CORE_FIXED


def test_no_import_when_the_file_already_loads_the_module(tmp_path):
    source = 'import jax\nfrom jax.extend import core as ec\n\njax.core.Primitive("p")\n'
    assert _fix(tmp_path, source) == source.replace("jax.core.", "jax.extend.core.")
    source = 'import jax\ntry:\n    import jax.extend.core as jec\nexcept ImportError:\n    pass\njax.core.Primitive("p")\n'
    assert _fix(tmp_path, source) == source.replace("jax.core.", "jax.extend.core.")


def test_jax401_adds_import_jax_where_isort_puts_it(tmp_path):
    source = ('"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\nimport numpy as np\n'
              'from jax.sharding import Mesh\n\nwith Mesh(np.array(devs), ("x",)):\n    pass\n')
    assert _fix(tmp_path, source, "--unsafe-fixes", "--select", "JAX401") == (
        '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\nimport jax\nimport numpy as np\n'
        'from jax.sharding import Mesh\n\nwith jax.set_mesh(Mesh(np.array(devs), ("x",))):\n    pass\n')
