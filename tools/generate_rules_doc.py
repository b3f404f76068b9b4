"""Regenerate docs/rules.md from the rule modules (run after changing any rule's docs or examples)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from jaxlint.ui.docs import rules_markdown  # noqa: E402

if __name__ == "__main__":
    target = ROOT / "docs" / "rules.md"
    target.parent.mkdir(exist_ok=True)
    target.write_text(rules_markdown(), encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
