"""Issue 27, "the house": rules/ holds only the rules and their API; the word prefilter gets its own module.

    python tools/moves/2026-12-04_house.py   # from the repository root, in a git work tree

What it does, in one commit (run it on a branch written against the old layout to get the same moves there; a move
already done is skipped, so a second run changes nothing):

- the catalogue-driven helpers of ``jaxlint/rules`` go to ``jaxlint/catalogue`` (``catalogue_symbols`` ->
  ``catalogue.symbols``, ``catalogue_rewrites`` -> ``catalogue.rewrites``, ``catalogue_messages`` ->
  ``catalogue.messages``, ``ecosystem`` -> ``catalogue.ecosystem``: the flax/optax table);
- the other shared helpers go to a new package ``jaxlint/analysis`` (``calls``, ``targets``, ``unread_buffers``,
  ``pjit_specs``, ``jax_imports``, ``flax_values``, ``project_reach``, ``added_imports``, ``unused_imports``,
  ``list_arguments``);
- ``ui/progress.py`` goes to ``run/progress.py`` (only the runner draws it: the runner no longer imports the ui);
- the word prefilter (``_Scan``, ``_TriggerGroup``, ``_Prefilter``, ``may_match``, ``rules_that_may_match``, ...)
  leaves ``lint/engine.py`` for ``lint/prefilter.py`` (``_Scan`` is now ``Scan``, ``_rules_that_may_match`` is
  ``rules_matching_scan``: the engine uses them); the import-binding helpers both gates share (``with_prefixes``,
  ``record_import``, ``record_from_import``) leave ``lint/ast_gate.py`` for ``lint/import_bindings.py`` (the text
  gate no longer imports the later ast gate);
- every reference is rewritten in the tracked text files of src/, tests/, tools/, docs/, benchmarks/, scripts/,
  rules/, README.md: dotted names ``jaxlint.rules.X``, ``from jaxlint.rules import X``, paths ``jaxlint/rules/X.py``.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "src" / "jaxlint"

# old dotted module (under jaxlint.) -> new one
MOVES = {
    "rules.catalogue_symbols": "catalogue.symbols",
    "rules.catalogue_rewrites": "catalogue.rewrites",
    "rules.catalogue_messages": "catalogue.messages",
    "rules.ecosystem": "catalogue.ecosystem",
    **{f"rules.{name}": f"analysis.{name}" for name in (
        "calls", "targets", "unread_buffers", "pjit_specs", "jax_imports", "flax_values", "project_reach",
        "added_imports", "unused_imports", "list_arguments")},
    "ui.progress": "run.progress",
}

ANALYSIS_INIT = '''"""What the rules share: facts about code that more than one rule (or one rule's fix safety) needs.

Matching calls and their arguments (``calls``, ``list_arguments``: the ``jnp`` functions that reject a list),
where a name is an assignment target (``targets``), where an ``import`` goes and which imports a fix leaves unused
(``added_imports``, ``unused_imports``), whether a file imports JAX (``jax_imports``), what flax values are
(``flax_values``), whether a buffer is ever read (``unread_buffers``), whether a block reaches a ``pjit`` with
``PartitionSpec`` shardings or a risky project module (``pjit_specs``, ``project_reach``). None of them is a rule:
the rules are ``jaxlint.rules.jaxNNN_*``; what the rules know about JAX's (and flax's, optax's) API changes is in
``jaxlint.catalogue``. These modules may use the rule API (``jaxlint.rules.base``), never a rule module.
"""
'''

TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yaml", ".yml", ".sh", ".json", ""}
FOLDERS = ("src", "tests", "tools", "docs", "benchmarks", "scripts", "rules", "README.md", "pyproject.toml", ".ci")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def path_of(dotted: str) -> Path:
    return PKG.joinpath(*dotted.split(".")).with_suffix(".py")


def move_files() -> None:
    (PKG / "analysis").mkdir(exist_ok=True)
    init = PKG / "analysis" / "__init__.py"
    if not init.exists():
        init.write_text(ANALYSIS_INIT, encoding="utf-8")
        git("add", str(init))
    for old, new in MOVES.items():
        if path_of(old).exists():
            git("mv", str(path_of(old)), str(path_of(new)))


def _split_from_rules(match: re.Match) -> str:
    """``from jaxlint.rules import a, b``: the names that moved go to their new package, one statement each."""
    indent, names = match.group(1), [n.strip() for n in match.group(2).split(",")]
    by_package: dict[str, list[str]] = {}
    for name in names:
        local = name.split(" as ")[0]
        new = MOVES.get(f"rules.{local}")
        package, _, module = (new or f"rules.{local}").rpartition(".")
        spelled = module + name[len(local):]
        if new and new.startswith("catalogue.") and " as " not in name:
            spelled = f"{module} as {local}" if local != module else module
        by_package.setdefault(package, []).append(spelled)
    return "\n".join(f"{indent}from jaxlint.{package} import {', '.join(sorted(found))}"
                     for package, found in by_package.items())


PREFILTER_NAMES = {"may_match", "rules_that_may_match", "_Scan", "_prefilter_for", "_triggers_in", "_TriggerGroup",
                   "_Prefilter", "_index_word_sets", "_ASCII_WORDS", "WordIndex", "_combined_match", "_has_word_set"}


def _split_from_engine(match: re.Match) -> str:
    """``from jaxlint.lint.engine import a, b``: the prefilter's names now come from ``jaxlint.lint.prefilter``."""
    indent, names = match.group(1), [n.strip() for n in match.group(2).split(",")]
    staying = [name for name in names if name not in PREFILTER_NAMES]
    moved = [name.lstrip("_") if name == "_Scan" else name for name in names if name in PREFILTER_NAMES]
    lines = [f"{indent}from jaxlint.lint.engine import {', '.join(staying)}"] if staying else []
    if moved:
        lines.append(f"{indent}from jaxlint.lint.prefilter import {', '.join(sorted(moved))}")
    return "\n".join(lines)


def rewrite(text: str) -> str:
    if re.search(r"from jaxlint\.lint\.engine import [\w ,]*\b_Scan\b", text):
        text = re.sub(r"\b_Scan\(", "Scan(", text)
    text = re.sub(r"^([ \t]*)from jaxlint\.lint\.engine import ([\w ,]+)$", _split_from_engine, text, flags=re.M)
    text = re.sub(r"^([ \t]*)from jaxlint\.rules import ([\w ,]+)$", _split_from_rules, text, flags=re.M)
    for old, new in MOVES.items():
        text = re.sub(rf"\bjaxlint\.{re.escape(old)}\b", f"jaxlint.{new}", text)
        text = re.sub(rf"\bjaxlint/{old.replace('.', '/')}\.py\b", f"jaxlint/{new.replace('.', '/')}.py", text)
        text = text.replace(f'"{old.split(".")[0]}" / "{old.split(".")[1]}.py"',
                            f'"{new.split(".")[0]}" / "{new.split(".")[1]}.py"')
        # prose: ``rules.unused_imports``, ``catalogue_symbols`` (the old module name on its own)
        text = re.sub(rf"(?<![\w./]){re.escape(old)}\b", new, text)
    for old in ("catalogue_symbols", "catalogue_rewrites", "catalogue_messages"):
        text = re.sub(rf"``{old}([.\w]*)``", lambda m, o=old: f"``catalogue.{o.split('_')[1]}{m.group(1)}``", text)
        text = re.sub(rf"\(({old})\)", lambda m, o=old: f"(catalogue.{o.split('_')[1]})", text)
    # the prefilter's new home
    text = text.replace("jaxlint.lint.engine.may_match", "jaxlint.lint.prefilter.may_match")
    text = text.replace("``engine.may_match``", "``prefilter.may_match``")
    return text


def tracked_text_files() -> list[Path]:
    found = []
    for name in git("ls-files", "-z", *FOLDERS).split("\0"):
        path = ROOT / name
        if name and path.is_file() and path.suffix in TEXT_SUFFIXES and not name.startswith("tools/moves/"):
            found.append(path)
    return found


def rewrite_references() -> None:
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text)
        if new != text:
            path.write_bytes(new.encode("utf-8"))


# -- lint/engine.py -> lint/prefilter.py -----------------------------------------------------------------------
PREFILTER_HEAD = '''"""The first stage of the per-file pipeline: the words (then ``text_gate``, ``ast_gate``, the cut, libcst).

A file that contains none of its rules' trigger strings (``Rule.triggers``), and for no word set of theirs
(``Rule.required_words``) all of its words, cannot produce a finding, and is never parsed. It answers per rule
(``rules_that_may_match``), so that only the rules it keeps go on to the next stage; ``engine`` runs the stages in
order. Like the gates it sits below the rule API: it reads only the two class attributes of ``WordRule``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence


class WordRule(Protocol):
    """What the prefilter asks of a rule class (``jaxlint.rules.base.Rule``; ``required_words`` may be absent)."""

    triggers: tuple[str, ...]


'''


def split_engine() -> None:
    engine_path = PKG / "lint" / "engine.py"
    prefilter_path = PKG / "lint" / "prefilter.py"
    if prefilter_path.exists():
        return
    engine = engine_path.read_text(encoding="utf-8")
    start_1, end_1 = engine.index("def may_match("), engine.index("def passes_prefilter(")
    start_2, end_2 = engine.index("WordIndex = dict["), engine.index("@dataclass\nclass LintResult:")
    moved = engine[start_1:end_1] + engine[start_2:end_2]
    engine = engine[:start_1] + engine[end_1:start_2] + engine[end_2:]
    renames = {"_Scan": "Scan", "_rules_that_may_match": "rules_matching_scan"}
    for old, new in renames.items():
        moved = re.sub(rf"\b{old}\b", new, moved)
        engine = re.sub(rf"\b{old}\b", new, engine)
    moved = moved.replace("Sequence[type[Rule]]", "Sequence[type[WordRule]]") \
        .replace("list[type[Rule]]", "list[type[WordRule]]").replace("tuple[type[Rule], ...]", "tuple[type[WordRule], ...]")
    moved = moved.replace("(after the combined, faster ``may_match``)", "(``may_match`` answers for all at once, faster)")
    assert "Rule]" not in moved.replace("WordRule]", ""), "a Rule annotation left in the prefilter"
    prefilter_path.write_text(PREFILTER_HEAD + moved.rstrip("\n") + "\n", encoding="utf-8")
    engine = engine.replace("from jaxlint.lint.positions import StatementSpans\n",
                            "from jaxlint.lint.positions import StatementSpans\n"
                            "from jaxlint.lint.prefilter import Scan, rules_matching_scan\n")
    engine = engine.replace(
        '"""Lint and fix one source text: prefilter, parse once, one batched visit for all rules, fixes until stable."""',
        '"""Lint and fix one source text: the prefilter stages (``prefilter``, ``text_gate``, ``ast_gate``) in order, '
        'parse\nonce, one batched visit for all rules, fixes until stable."""')
    engine_path.write_text(engine, encoding="utf-8")
    git("add", str(prefilter_path))


# -- lint/ast_gate.py -> lint/import_bindings.py -----------------------------------------------------------------
BINDINGS_HEAD = '''"""What an import statement binds, as both gates record it: the ast gate from ``ast`` nodes, the text gate from the
same statements read in the text (``text_gate`` comes first in the pipeline and must not import ``ast_gate``)."""
from __future__ import annotations


'''


def split_ast_gate() -> None:
    gate_path = PKG / "lint" / "ast_gate.py"
    bindings_path = PKG / "lint" / "import_bindings.py"
    if bindings_path.exists():
        return
    gate = gate_path.read_text(encoding="utf-8")
    start = gate.index("def with_prefixes(")
    end = gate.index("# Child fields per node class")
    moved = gate[start:end].replace(
        "# What an import statement binds, as both gates record it (the text gate reads the same statements from the "
        "text).\n", "")
    gate = gate[:start] + gate[end:]
    gate = gate.replace("from typing import Iterable, Protocol, Sequence\n",
                        "from typing import Iterable, Protocol, Sequence\n\n"
                        "from jaxlint.lint.import_bindings import record_from_import, record_import, with_prefixes\n")
    bindings_path.write_text(BINDINGS_HEAD + moved.rstrip("\n") + "\n", encoding="utf-8")
    gate_path.write_text(gate, encoding="utf-8")
    text_gate = PKG / "lint" / "text_gate.py"
    text_gate.write_text(text_gate.read_text(encoding="utf-8").replace(
        "from jaxlint.lint.ast_gate import record_from_import", "from jaxlint.lint.import_bindings import record_from_import"),
        encoding="utf-8")
    git("add", str(bindings_path))


# -- what the package docstrings and the README say about the layout ----------------------------------------------
PROSE = {
    "src/jaxlint/lint/__init__.py": [
        ("In the order a file goes through it: ``engine`` (the driver: prefilter, parse once, one batched visit, fixes until\n"
         "stable) asks ``text_gate`` then ``ast_gate`` whether any enabled rule can fire;",
         "In the order a file goes through it: ``engine`` (the driver: prefilter, parse once, one batched visit, fixes until\n"
         "stable) asks ``prefilter`` (the words), ``text_gate`` then ``ast_gate`` (``import_bindings`` is what both gates\n"
         "record of an import) whether any enabled rule can fire;"),
        ("``diagnostics``, ``walk``, ``names``, ``inference``, the gates; the rule API (``jaxlint.rules.base``, which sees\n"
         "the file only through its ``RuleContext`` protocol); the rules and their registry (``jaxlint.rules``); ``context``\n"
         "and ``fixes``; ``engine``; then ``jaxlint.run`` and ``jaxlint.ui``.",
         "``diagnostics``, ``walk``, ``names``, ``inference``, the stages before libcst (``prefilter``, ``text_gate``,\n"
         "``ast_gate``: none imports a later one); the rule API (``jaxlint.rules.base``, which sees the file only through\n"
         "its ``RuleContext`` protocol); the rules and their registry (``jaxlint.rules``); ``context`` and ``fixes``;\n"
         "``engine``; then ``jaxlint.run``, ``jaxlint.output`` and ``jaxlint.ui``."),
    ],
    "src/jaxlint/ui/__init__.py": [
        ("(the command line, the language server, rule documentation, the progress bar)",
         "(the command line, the language server, rule documentation)"),
        ("editors; ``docs`` renders rule documentation (``jaxlint rule CODE``, docs/rules.md); ``progress`` draws on stderr.",
         "editors; ``docs`` renders rule documentation (``jaxlint rule CODE``, docs/rules.md)."),
    ],
    "src/jaxlint/run/__init__.py": [
        ("``noqa_add`` is suppression hygiene after the engine (``--add-noqa``, JAX001 unused-noqa).",
         "``noqa_add`` is suppression hygiene after the engine (``--add-noqa``, JAX001 unused-noqa); ``progress`` draws\n"
         "the runner's progress bar on stderr."),
    ],
    "src/jaxlint/rules/__init__.py": [
        ('"""All rules, one module each (``jaxNNN_<name>.py``); found by name so adding a rule is adding a file.\n',
         '"""All rules, one module each (``jaxNNN_<name>.py``); found by name so adding a rule is adding a file.\n\n'
         "This package holds only the rules and their API (``base``). What several rules share lives in\n"
         "``jaxlint.analysis`` (call matching, assignment targets, import edits, ...) and ``jaxlint.catalogue`` (the\n"
         "removed and deprecated APIs of JAX, flax and optax, and the machinery of the catalogue-driven rules).\n"),
    ],
    "tools/check_ecosystem_catalogue.py": [
        ("against the released wheels (statically: nothing is imported).\n",
         "against the released wheels (statically: nothing is\nimported).\n"),
    ],
    "README.md": [
        ("(the command line, the language server, rule documentation, the progress bar); `rules/`: the rule API (`base.py`)\n"
         "  and one module per rule; `output/`, `verify/`, `exports/`, `catalogue/` as their names say.",
         "(the command line, the language server, rule documentation); `rules/`: the rule API (`base.py`) and one module\n"
         "  per rule, nothing else; `analysis/`: what the rules share (call matching, assignment targets, import edits);\n"
         "  `catalogue/`: the removed and deprecated APIs (JAX's, flax's, optax's) and the catalogue-driven rules'\n"
         "  machinery; `output/`, `verify/`, `exports/` as their names say."),
        ("skips files in three stages before libcst: the words a finding needs,\n"
         "  the text around each name",
         "skips files in three stages before libcst: the words a finding needs\n"
         "  (`src/jaxlint/lint/prefilter.py`), the text around each name"),
        ("the text around each name (`src/jaxlint/lint/text_gate.py`) and an `ast` parse (`src/jaxlint/lint/ast_gate.py`);",
         "the text around each name (`src/jaxlint/lint/text_gate.py`) and an `ast` parse\n  (`src/jaxlint/lint/ast_gate.py`);"),
    ],
}


def rewrite_prose() -> None:
    for name, replacements in PROSE.items():
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        for old, new in replacements:
            if new not in text:
                if old not in text:
                    print(f"note: {name}: text to replace not found: {old[:60]!r}...")
                text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")


def main() -> int:
    move_files()
    split_engine()
    split_ast_gate()
    rewrite_references()
    rewrite_prose()
    print(git("status", "--short"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
