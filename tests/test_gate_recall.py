"""``tools/gate_recall.py``: the gates against each rule's findings found without them (the end-to-end oracle of
the gates on real code; ``$JAXLINT_DEV_CORPUS`` runs it on the dev corpus)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from support.dev_corpus import needs_dev_corpus

from jaxlint.project.settings import Settings
from jaxlint.rules import all_rules

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import gate_recall  # noqa: E402

FLAGGED = {
    "removed.py": "import jax\nx = jax.tree_map(f, t)\n",
    "mesh.py": "import jax\n\n\ndef f(mesh):\n    with jax.sharding.Mesh(jax.devices(), ('x',)):\n        pass\n",
    "clean.py": "import jax\nx = jax.tree.map(f, t)\n",
    "other.py": "import os\nprint(os.getcwd())\n",
}


def _project(tmp_path, files=FLAGGED):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_findings_are_compared_and_none_is_dropped(tmp_path, capsys):
    counts = gate_recall.check([str(_project(tmp_path))], Settings())
    assert counts["files"] == 4
    assert counts["findings JAX101"] == 1 and counts["findings JAX401"] >= 1
    assert counts["dropped"] == 0
    assert gate_recall.main([str(tmp_path)]) == 0
    assert "dropped by a gate: 0" in capsys.readouterr().out


def test_a_gate_that_drops_a_finding_is_reported(tmp_path, monkeypatch, capsys):
    rule = next(rule for rule in all_rules() if rule.code == "JAX101")
    monkeypatch.setattr(rule, "may_match_text", classmethod(lambda cls, facts, words: False))
    assert gate_recall.main([str(_project(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "DROPPED by the text gate: JAX101 at" in out and "removed.py:2" in out


def test_a_run_that_compared_no_finding_fails(tmp_path):
    assert gate_recall.main([str(_project(tmp_path, {"clean.py": FLAGGED["clean.py"]}))]) == 1
    assert gate_recall.main([str(tmp_path / "empty")]) == 1  # no file at all


@needs_dev_corpus
def test_no_gate_drops_a_finding_on_the_dev_corpus():
    dropped = []
    counts = gate_recall.check([os.environ["JAXLINT_DEV_CORPUS"]], Settings(), echo=dropped.append)
    assert counts["findings"] > 0 and not dropped, dropped[:20]
