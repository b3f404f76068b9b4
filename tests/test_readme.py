"""The README as a user reads it: every command in its console blocks works as written, its sample output is what
jaxlint prints, and its pre-commit snippet is valid against this repository. A drift fails here."""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.ui.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _sync_tool():
    spec = importlib.util.spec_from_file_location("sync_readme", ROOT / "tools" / "sync_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _console_commands() -> list[str]:
    commands = []
    for block in re.findall(r"^```console\n(.*?)^```", README, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append(re.sub(r"\s+#.*$", "", line[2:]).strip())
    return commands


COMMANDS = _console_commands()
RUNNABLE = [c for c in COMMANDS if re.match(r"(cat \S+ \| )?jaxlint(?! (verify|exports|upgrade))\b", c)]


def test_the_sample_output_is_what_jaxlint_prints():
    tool = _sync_tool()
    assert tool.BLOCK.search(README), "the README's sample output block lost its `<!-- output of: ... -->` marker"
    assert tool.synced(README) == README, "README's sample output is stale: run `python tools/sync_readme.py`"


def test_the_upgrade_report_is_what_jaxlint_upgrade_writes():
    """The `jaxlint upgrade` report in the README comes from a real run (tools/readme_upgrade_example.py)."""
    spec = importlib.util.spec_from_file_location("readme_upgrade_example", ROOT / "tools" / "readme_upgrade_example.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    block = tool.BLOCK.search(README)
    assert block, "the README's upgrade report lost its `<!-- upgrade report: ... -->` marker"
    assert block.group("body") == tool.example_report(), \
        "README's upgrade report is stale: run `python tools/readme_upgrade_example.py`"
    assert "### mydep 0.1: pin `mydep>=0.2`" in block.group("body")
    assert tool.COMMAND in README


def test_the_sample_output_block_is_complete():
    """The block is the whole output: every finding line and the summary that counts them."""
    body = _sync_tool().BLOCK.search(README).group("body")
    findings = [line for line in body.splitlines() if re.match(r"\S+:\d+:\d+: JAX\d{3} ", line)]
    assert f"Found {len(findings)} errors." in body


@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory) -> Path:
    """examples/demo with the paths the README's commands name (src/, tests/, mod.py)."""
    project = tmp_path_factory.mktemp("readme") / "demo"
    shutil.copytree(ROOT / "examples" / "demo", project)
    (project / "src").mkdir()
    shutil.copy(project / "demo" / "grids.py", project / "src" / "grids.py")
    (project / "tests").mkdir()
    (project / "tests" / "test_grids.py").write_text("import jax.numpy as jnp\n")
    shutil.copy(project / "demo" / "grids.py", project / "mod.py")
    return project


def test_the_readme_shows_the_commands_users_need():
    assert len(RUNNABLE) >= 15, RUNNABLE
    assert {"jaxlint", "jaxlint --fix", "jaxlint rules"} <= set(RUNNABLE)


@pytest.mark.parametrize("command", RUNNABLE)
def test_each_usage_command_works_as_written(command, demo_copy):
    piped = re.match(r"cat (\S+) \| (.*)", command)
    stdin = (demo_copy / piped.group(1)).read_bytes() if piped else None
    args = shlex.split(piped.group(2) if piped else command)[1:]
    old = os.getcwd()
    os.chdir(demo_copy)
    try:
        result = CliRunner().invoke(main, args, input=stdin)
    finally:
        os.chdir(old)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code in (0, 1), f"{command}: exit {result.exit_code}\n{result.output}"
    assert "bug in jaxlint" not in result.output


def _command_for(args: list[str]):
    """The click command ``args`` names (``exports migrate`` is a subcommand of ``exports``) and the rest."""
    import click

    from jaxlint.exports.cli import INSPECT  # `jaxlint exports DIR` means `jaxlint exports inspect DIR`

    command = main
    while isinstance(command, click.Group) and args:
        if command.get_command(None, args[0]) is not None:  # loads a lazily registered subcommand
            command, args = command.commands[args[0]], args[1:]
        elif INSPECT in command.commands:
            command = command.commands[INSPECT]
        else:
            break
    return command, args


@pytest.mark.parametrize("command", [c for c in COMMANDS if re.match(r"jaxlint (verify|exports|upgrade)\b", c)])
def test_verify_and_exports_commands_use_options_that_exist(command):
    """These need JAX environments, artifacts or an environment to scan: check every option they spell exists."""
    words = shlex.split(command.replace("[", "").replace("]", ""))[1:]
    if "--" in words:
        words = words[:words.index("--")]
    target, rest = _command_for(words)
    declared = {name for param in target.params for name in (*param.opts, *param.secondary_opts)}
    spelled = {word.split("=")[0] for word in rest if word.startswith("-")}
    assert spelled <= declared, f"{command}: unknown {sorted(spelled - declared)}"


@pytest.mark.parametrize("command", [c for c in COMMANDS if not c.startswith(("jaxlint", "cat ", "pre-commit"))])
def test_scripts_and_tools_named_exist(command):
    path = next(word for word in shlex.split(command) if "/" in word)
    assert (ROOT / path).is_file(), command
    if path.startswith("./"):
        assert os.access(ROOT / path, os.X_OK), f"{path} is not executable"


def test_jaxlint_rules_lists_every_code_the_readme_table_has():
    listed = {line.split()[0] for line in CliRunner().invoke(main, ["rules"]).output.splitlines()[1:]}
    in_table = set(re.findall(r"^\| (JAX\d{3}) \|", README, re.M))
    assert in_table == listed
    assert {"JAX000", "JAX001", "JAX002"} <= listed


def test_help_does_not_cut_command_descriptions():
    text = CliRunner().invoke(main, ["--help"], terminal_width=120).output
    assert "..." not in text.split("Commands:")[1]
    assert "rule     Print one rule's documentation (e.g. `jaxlint rule JAX202`)." in text


# -- pre-commit ---------------------------------------------------------------------------------------------------
def _precommit_snippet() -> str:
    section = README.split("## Pre-commit", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


def test_the_precommit_snippet_names_real_hooks_and_no_missing_tag():
    import yaml

    config = yaml.safe_load(_precommit_snippet())
    [repo] = config["repos"]
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook_ids = {hook["id"] for hook in manifest}
    assert {hook["id"] for hook in repo["hooks"]} <= hook_ids
    assert "jaxlint-fix" in hook_ids and "jaxlint-fix" in _precommit_snippet()
    rev = str(repo["rev"])
    tags = subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    assert rev in tags or rev == "COMMIT-SHA", f"rev {rev!r} is neither a tag of this repository nor the placeholder"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_documented_autoupdate_pins_a_commit(tmp_path):
    """The README's `pre-commit autoupdate` line turns its snippet into a config pinned to a real commit SHA (run
    against a local repository holding this checkout's hook manifest, since the tests have no network)."""
    pytest.importorskip("pre_commit")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "hooks"]):
        subprocess.run(["git", *args], cwd=hooks, check=True, env=env)
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks, capture_output=True, text=True).stdout.strip()
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, env=env)
    url = "https://github.com/jaxlint/jaxlint"
    (project / ".pre-commit-config.yaml").write_text(_precommit_snippet().replace(url, str(hooks)))
    [autoupdate] = [c for c in COMMANDS if c.startswith("pre-commit autoupdate")]
    import sys

    args = [sys.executable, "-m", "pre_commit", *shlex.split(autoupdate.replace(url, str(hooks)))[1:]]
    done = subprocess.run(args, cwd=project, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"rev: {sha}" in (project / ".pre-commit-config.yaml").read_text()


def test_the_verify_excerpt_is_quoted_from_the_transcript_in_docs():
    """The README's `jaxlint verify` output is an excerpt of the real transcript in docs/verify.md (`(...)` stands
    for an elided path): each of its lines must be there."""
    excerpt = README.split("## Verify the fixes", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    transcript = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8").splitlines()
    for line in filter(None, excerpt.splitlines()):
        pattern = re.compile(re.escape(line).replace(re.escape("(...)"), r"\(.*?\)"))
        assert any(pattern.fullmatch(candidate) for candidate in transcript), line
