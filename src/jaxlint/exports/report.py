"""Render an inventory as text (for people), JSON (the contract) or CSV (for spreadsheets)."""
from __future__ import annotations

import csv
import io
import json

from jaxlint.exports.inventory import ArtifactReport, Inventory, count
from jaxlint.exports.verdict import VERDICTS

# The JSON keys, in order; a contract (see docs/exports.md): do not add, rename or drop any.
JSON_KEYS = ("path", "verdict", "serialization_version", "calling_convention_version", "nr_devices", "jax_version",
             "shardings", "platforms", "in_avals", "out_avals", "effects", "reason")


def to_json_record(report: ArtifactReport) -> dict:
    header = report.header
    verdict = report.checked or report.verdict.kind
    reason = report.checked_detail if report.checked and report.checked != report.verdict.kind else None
    return {
        "path": str(report.path),
        "verdict": verdict,
        "serialization_version": header.serialization_version if header else None,
        "calling_convention_version": header.calling_convention_version if header else None,
        # The effective count: the uint32 field, or the legacy int16 one for files written before it existed.
        "nr_devices": header.device_count if header else None,
        "jax_version": header.jax_version if header else None,
        "shardings": header.shardings if header else None,
        "platforms": header.platforms if header else [],
        "in_avals": header.in_avals if header else [],
        "out_avals": header.out_avals if header else [],
        # The effect types the artifact declares (loading needs the module that defines them: --import).
        "effects": {"ordered": header.ordered_effects, "unordered": header.unordered_effects} if header else None,
        "reason": reason or report.verdict.reason,
    }


def render_json(inventory: Inventory) -> str:
    return json.dumps([to_json_record(r) for r in inventory.reports], indent=2)


CSV_COLUMNS = ("path", "verdict", "predicted", "serialization_version", "calling_convention_version", "nr_devices",
               "nr_devices_short", "jax_version", "shardings", "platforms", "in_avals", "out_avals",
               "stablehlo_producer", "reason", "effects")


def render_csv(inventory: Inventory) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for report in inventory.reports:
        record = to_json_record(report)
        header = report.header
        writer.writerow([
            record["path"], record["verdict"], report.verdict.kind, record["serialization_version"],
            record["calling_convention_version"], header.nr_devices if header else "",
            header.nr_devices_short if header else "", record["jax_version"] or "", record["shardings"] or "",
            " ".join(record["platforms"]), " ".join(record["in_avals"]), " ".join(record["out_avals"]),
            (header.stablehlo_producer or "") if header else "", record["reason"],
            " ".join(_effects(header)) if header else "",
        ])
    return out.getvalue()


def render_text(inventory: Inventory) -> str:
    lines = []
    for report in inventory.reports:
        lines.extend(_text_block(report, inventory))
        lines.append("")
    for path, why in inventory.unreadable:
        lines.append(f"{path}\n  could not be read: {why}\n")
    lines.append(summary(inventory))
    return "\n".join(lines)


def _text_block(report: ArtifactReport, inventory: Inventory) -> list[str]:
    header, verdict = report.header, report.verdict
    lines = [str(report.path), f"  verdict for JAX {inventory.target}: {verdict.label}", f"    why: {verdict.reason}"]
    if report.checked is not None:
        agreement = "agrees" if report.checked == verdict.kind else "DIFFERS from the prediction"
        lines.append(f"    check-load: {report.checked} ({agreement}){_detail(report)}")
    if header is None:
        return lines
    written_by = header.jax_version or "not recorded (JAX < 0.11.1)"
    lines += [
        f"  serialization version {header.serialization_version}, calling convention "
        f"{header.calling_convention_version}, written by JAX {written_by}",
        f"  devices: {header.device_count} (nr_devices={header.nr_devices}, "
        f"legacy nr_devices_short={header.nr_devices_short})",
        f"  platforms: {', '.join(header.platforms) or '-'}; StableHLO producer "
        f"{header.stablehlo_producer or 'unknown'}; module {header.mlir_size} bytes",
        f"  shardings: {header.shardings}" + _sharding_details(header),
        f"  effects: {', '.join(_effects(header)) or 'none'}"
        + (" (loading needs the module that defines them imported: --import MODULE)" if _effects(header) else ""),
        f"  in:  {', '.join(header.in_avals) or '()'}",
        f"  out: {', '.join(header.out_avals) or '()'}",
    ]
    return lines


def _effects(header) -> list[str]:
    return [f"{name} (ordered)" for name in header.ordered_effects] + list(header.unordered_effects)


def _detail(report: ArtifactReport) -> str:
    return f": {report.checked_detail}" if report.checked_detail else ""


def _sharding_details(header) -> str:
    texts = [s.text for s in header.in_shardings + header.out_shardings if s.kind != "unspecified"]
    return f" ({'; '.join(dict.fromkeys(texts))})" if texts else ""


def summary(inventory: Inventory) -> str:
    counts = ", ".join(f"{count(inventory, kind)} {kind}" for kind in VERDICTS if count(inventory, kind))
    found = len(inventory.reports)
    text = (f"{found} artifact{'s' if found != 1 else ''} ({counts or 'none'}) among "
            f"{inventory.files_looked_at} file{'s' if inventory.files_looked_at != 1 else ''} looked at; "
            f"target JAX {inventory.target}.")
    if inventory.unreadable:
        text += f" {len(inventory.unreadable)} file(s) or folder(s) could not be read."
    return text

