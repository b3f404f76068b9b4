"""tools/restructure.py's reference rewriting (made-up module names, so that running the script leaves this alone)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "restructure", Path(__file__).resolve().parent.parent / "tools" / "restructure.py")
restructure = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(restructure)

PLACED = {"alpha": "low", "beta": "high", "alpha_b": "low"}


def test_dotted_names_paths_and_from_imports_are_rewritten():
    source = (
        "import jaxlint.alpha\n"
        "from jaxlint.beta.sub import f\n"
        "from jaxlint import alpha, beta as b, __version__  # why\n"
        "    from jaxlint import (\n        alpha_b,  # note\n        __version__,\n    )\n"
        'patch("jaxlint.alpha.f"); run("-m", "jaxlint.beta"); see("src/jaxlint/alpha.py", "jaxlint/beta.py")\n'
    )
    assert restructure.rewrite(source, PLACED) == (
        "import jaxlint.low.alpha\n"
        "from jaxlint.high.beta.sub import f\n"
        "from jaxlint.low import alpha  # why\nfrom jaxlint.high import beta as b\nfrom jaxlint import __version__\n"
        "    from jaxlint.low import alpha_b\n    from jaxlint import __version__\n"
        'patch("jaxlint.low.alpha.f"); run("-m", "jaxlint.high.beta"); '
        'see("src/jaxlint/low/alpha.py", "jaxlint/high/beta.py")\n'
    )


def test_other_names_and_moved_names_are_left_alone():
    source = ('"jaxlint.alphabet", "jaxlint.verify.alpha", "jaxlint.low.alpha", "xjaxlint.alpha", '
              '"src/jaxlint/verify/alpha.py"\nfrom jaxlint import __version__\n')
    assert restructure.rewrite(source, PLACED) == source


def test_rewriting_twice_changes_nothing_more():
    source = "from jaxlint import alpha, beta\nimport jaxlint.alpha_b\n"
    once = restructure.rewrite(source, PLACED)
    assert once != source
    assert restructure.rewrite(once, PLACED) == once
