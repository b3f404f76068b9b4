#!/usr/bin/env python3
"""Every bullet of JAX's CHANGELOG.md from 0.4.0 on, with the class it was read as (``tools/data/changelog_jax.csv``).

The changelog is read from a clone of jax-ml/jax (``git --git-dir=REPO show HEAD:CHANGELOG.md``, or ``--changelog``
FILE). A bullet is a list item directly under a release's section (``* Changes`` / ``* Breaking changes`` /
``* Deprecations`` / ``* Bug fixes`` ...), or directly under the release where it has no sections; the lines and
deeper items below it belong to it. Each bullet's class (``behaviour-change``, ``removal``, ``deprecation``,
``new-feature``, ``bug-fix``, ``other``) and, for a behaviour change, the ``rules/behaviour.toml`` row it became or
why none (``note``) are data in the CSV, keyed by the release and a hash of the bullet's text, so that the count of
bullets read can be re-made from the same changelog.

Usage:
  python tools/changelog_bullets.py counts  [--repo GITDIR | --changelog FILE]   bullets per section and per class
  python tools/changelog_bullets.py missing [--repo GITDIR | --changelog FILE]   bullets the CSV does not classify
  python tools/changelog_bullets.py candidates ...    unread bullets a keyword filter says may change behaviour
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tools" / "data" / "changelog_jax.csv"
MIRROR = Path("/work/.mirror/jax-ml+jax/repo")
CLASSES = ("behaviour-change", "removal", "deprecation", "new-feature", "bug-fix", "other")
FIELDS = ("id", "release", "section", "class", "row", "note", "how", "text")

HEADING = re.compile(r"^## (?:(jax|jaxlib|JAX|jaxlib) (\d+\.\d+\.\d+)\b.*|(Unreleased)\s*)$")
ITEM = re.compile(r"^( *)[*-] +(.*)$")
# the words a section item is named by (``* Breaking changes:``, ``* Deprecations & Removals``, ``* Bugs``)
SECTION = re.compile(r"^(?:new features?|new functionality|breaking changes|changes|deprecations?"
                     r"(?: (?:&|and) removals)?|bug ?fixes|bugs|improvements|notable changes|deletions"
                     r"|removals|known issues|performance improvements)\s*:?\s*$", re.I)
# words that make a bullet a candidate behaviour change, whatever its section
KEYWORDS = re.compile(r"default|now returns?|no longer|now raises?|behavio|semantic|dtype|promot|shape|now (?:an? )?"
                      r"error|instead of|rather than|previously|now (?:follows|matches|consistent)|numpy 2|"
                      r"returns?|raise|result|now (?:produce|accept|require|warn)|to recover|restore", re.I)


@dataclass(frozen=True)
class Bullet:
    release: str  # ``jax 0.5.0``, ``jaxlib 0.4.30``, ``jax unreleased``
    section: str  # the section's name, lower case (``changes``, ``breaking changes``), or ``(none)``
    text: str  # the bullet, its lines joined by single spaces
    repeat: int = 0  # the same text earlier in the same release (jax 0.4.16 lists one bullet twice)

    @property
    def id(self) -> str:
        digest = hashlib.sha1(self.text.encode()).hexdigest()[:10]
        return f"{self.release.replace(' ', '-')}-{digest}" + (f"-{self.repeat}" if self.repeat else "")


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def read_changelog(repo: Path = MIRROR) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", "show", "HEAD:CHANGELOG.md"], capture_output=True,
                          text=True, check=True).stdout


def releases(text: str) -> list[tuple[str, list[str]]]:
    """The releases from 0.4.0 on (and ``Unreleased``), each with the lines under its heading."""
    found: list[tuple[str, list[str]]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            heading = HEADING.match(line)
            current = None
            if heading and (heading.group(3) or version_tuple(heading.group(2)) >= (0, 4, 0)):
                library = "jax" if heading.group(3) else heading.group(1).lower()
                found.append((f"{library} {heading.group(2) or 'unreleased'}", current := []))
        elif line.startswith("# ") or line.startswith("<!--"):
            current = None
        elif current is not None:
            current.append(line)
    return found


def bullets_of(release: str, lines: list[str]) -> list[Bullet]:
    """The bullets of one release: the items under its sections, or its own items where it has no sections. A
    section's first item sets the indentation of its bullets; deeper items and other lines belong to the bullet."""
    indents = [len(m.group(1)) for m in map(ITEM.match, lines) if m]
    if not indents:
        return []
    top = min(indents)
    found: list[Bullet] = []
    section, child, body, fence = "(none)", None, None, False

    def close() -> None:
        if body:
            found.append(Bullet(release, section, " ".join(" ".join(body).split())))

    for line in lines:
        if line.strip().startswith("```"):
            fence = not fence
        item = None if fence else ITEM.match(line)
        indent = len(item.group(1)) if item else None
        if item and indent == top and SECTION.match(item.group(2).strip()):
            close()
            section, child, body = item.group(2).strip().rstrip(":").strip().lower(), None, None
        elif item and indent == top and section != "(none)" and child is not None and child > top:
            close()  # an item beside the sections, not inside one
            section, child, body = "(none)", None, [item.group(2)]
        elif item and (child is None or indent <= child):
            close()
            child, body = (indent if child is None else child), [item.group(2)]
        elif body is not None and line.strip():
            body.append(line.strip())
    close()
    return found


def parse(text: str) -> list[Bullet]:
    found: list[Bullet] = []
    seen: dict[tuple[str, str], int] = {}
    for release, lines in releases(text):
        for bullet in bullets_of(release, lines):
            repeat = seen.get((release, bullet.text), 0)
            seen[(release, bullet.text)] = repeat + 1
            found.append(replace(bullet, repeat=repeat))
    return found


# The first pass that the classes marked ``how = "script"`` come from: a section or wording that leaves no doubt. The
# bullets it cannot place, and every candidate behaviour change, were read and marked ``how = "read"``.
_PLATFORM = re.compile(r"\b(support for python|python 3\.\d+|numpy \d|scipy \d|minimum (jaxlib|numpy|scipy|python)|"
                       r"jaxlib version|cuda|cudnn|wheels?|libtpu|manylinux|mac|windows|tpu|gpu|pip install)\b")
_CHANGED = re.compile(r"now returns|default|behavio|semantic")


def scripted_class(bullet: Bullet) -> str | None:
    """The class a bullet's section or wording gives it, or None where it must be read."""
    text = bullet.text.lower()
    if bullet.section in ("new features", "new functionality"):
        return "new-feature"
    if bullet.section in ("bug fixes", "bugs"):
        return "bug-fix"
    if _PLATFORM.search(text) and not re.search(r"jax\.numpy|jnp\.|default", text):
        return "other"
    if re.search(r"\b(removed|deleted|has been removed|have been removed|were removed|are removed|"
                 r"no longer (available|exported|exist))", text) and not _CHANGED.search(text):
        return "removal"
    if re.search(r"\bdeprecat", text) and not re.search(r"now returns|default|behavio|semantic|now raises", text):
        return "deprecation"
    if re.search(r"^(added|add |new |introduc|.*\bnow supports?\b|.*\bnew (function|api|option|argument|parameter|"
                 r"keyword))", text):
        return "new-feature"
    return None


def load(path: Path = DATA) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    with path.open(newline="") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


def save(rows: list[dict[str, str]], path: Path = DATA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("counts", "missing", "candidates"))
    ap.add_argument("--repo", type=Path, default=MIRROR)
    ap.add_argument("--changelog", type=Path)
    args = ap.parse_args(argv)
    text = args.changelog.read_text() if args.changelog else read_changelog(args.repo)
    bullets = parse(text)
    data = load()
    if args.command == "missing":
        missing = [b for b in bullets if b.id not in data]
        for bullet in missing:
            print(f"{bullet.id}\t{bullet.section}\t{bullet.text[:120]}")
        print(f"{len(missing)} of {len(bullets)} bullets not classified")
        return 1 if missing else 0
    if args.command == "candidates":
        for bullet in bullets:
            if KEYWORDS.search(bullet.text) and data.get(bullet.id, {}).get("class") != "behaviour-change":
                print(f"{bullet.id}\t{bullet.section}\t{bullet.text}")
        return 0
    releases_seen = sorted({b.release for b in bullets})
    print(f"{len(bullets)} bullets in {len(releases_seen)} releases")
    for title, key in (("section", lambda b: b.section), ("class", lambda b: data.get(b.id, {}).get("class", "?"))):
        counts: dict[str, int] = {}
        for bullet in bullets:
            counts[key(bullet)] = counts.get(key(bullet), 0) + 1
        print(f"per {title}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
