"""docs/rules.md is generated from the rule modules and must be current."""
from pathlib import Path

from jaxlint.ui.docs import rules_markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"


def test_rules_doc_is_up_to_date():
    assert DOCS.read_text(encoding="utf-8") == rules_markdown(), \
        "docs/rules.md is stale: run `python tools/generate_rules_doc.py`"


def test_readme_rule_table_lists_every_rule_as_it_is():
    """The README's table of rules (code, name, JAX version or, for JAX5xx, the library's, fix) matches the rule
    modules."""
    import re

    from jaxlint.ui.docs import fix_availability
    from jaxlint.rules import all_rules

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rows = {m[0]: (m[1], m[2], m[3]) for m in
            re.findall(r"^\| (JAX\d{3}) \| ([\w-]+) \| ([\d.]+|—|(?:flax|optax) [\d., -]+?(?:, optax [\d.-]+)?) \| (\w+) \|", readme, re.M)}
    expected = {rule.code: (rule.name, rule.version_label(), fix_availability(rule)) for rule in all_rules()}
    assert {code: rows.get(code) for code in expected} == expected


def test_no_link_leads_to_a_made_up_home():
    """jaxlint has no public repository or site: no link in what users read or get may pretend it has one."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    tracked = subprocess.run(["git", "ls-files", "README.md", "docs", "src", "pyproject.toml", ".pre-commit-hooks.yaml"],
                             cwd=root, capture_output=True, text=True, check=True).stdout.split()
    found = [name for name in tracked if (root / name).is_file()
             and "github.com/jaxlint" in (root / name).read_text(encoding="utf-8", errors="replace")]
    assert not found, f"links to github.com/jaxlint (not where jaxlint lives): {found}"


def test_architecture_names_modules_that_exist():
    """docs/architecture.md walks a file through the pipeline by module name: every module it names must exist,
    and the stages of ``jaxlint.lint`` must appear in the order the engine runs them."""
    import re

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:ui|project|run|lint|rules|analysis|catalogue|output|verify|exports|upgrade)/"
                           r"[\w/*]+\.py)`", text))
    assert len(named) >= 30
    package = root / "src" / "jaxlint"
    missing = [path for path in named if "*" not in path and not (package / path).is_file()]
    assert not missing
    stages = ["lint/prefilter.py", "lint/text_gate.py", "lint/ast_gate.py", "lint/ast_findings.py", "lint/focus.py",
              "lint/context.py", "lint/positions.py", "lint/fixes.py"]
    positions = [text.index(f"`{stage}`") for stage in stages]
    assert positions == sorted(positions)
