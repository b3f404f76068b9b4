"""docs/rules.md is generated from the rule modules and must be current."""
from pathlib import Path

from jaxlint.docs import rules_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_rules_doc_is_up_to_date():
    assert DOCS.read_text(encoding="utf-8") == rules_markdown(), \
        "docs/rules.md is stale: run `python tools/generate_rules_doc.py`"
