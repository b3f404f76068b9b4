"""``--check-load``: confirm the predicted verdicts by deserializing each artifact in the target JAX."""
from __future__ import annotations

from pathlib import Path

from jaxlint.exports.inventory import Inventory
from jaxlint.exports.jaxrun import run_worker, worker_env


def check_load(inventory: Inventory, python: Path, imports: tuple[str, ...] = ()) -> list[str]:
    """Fill in ``checked`` for every decodable artifact; returns one line per disagreement with the prediction."""
    decodable = [r for r in inventory.reports if r.header is not None]
    if not decodable:
        return []
    platforms = sorted({p for r in decodable for p in r.header.platforms})
    answer = run_worker(python, "probe_load.py", {"paths": [str(r.path) for r in decodable], "imports": list(imports)},
                        env=worker_env(platforms=platforms))
    by_path = {item["path"]: item for item in answer["results"]}
    disagreements = []
    for report in decodable:
        item = by_path[str(report.path)]
        report.checked, report.checked_detail = item["result"], item["error"]
        if report.checked != report.verdict.kind:
            disagreements.append(f"{report.path}: predicted {report.verdict.kind}, JAX {answer['jax_version']} "
                                 f"says {report.checked}" + (f" ({item['error']})" if item["error"] else ""))
    return disagreements
