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


def _snippet_hooks() -> list[dict]:
    """The snippet's hooks, the commented-out alternative included (``# - id: jaxlint-fix`` and its lines)."""
    import yaml

    config = yaml.safe_load(re.sub(r"^(\s*)# ?(-|  \w)", r"\1\2", _precommit_snippet(), flags=re.M))
    [repo] = config["repos"]
    assert repo["repo"] == "local", "jaxlint has no public repository: the README's hook is a local one"
    return repo["hooks"]


def test_the_precommit_snippet_runs_the_hooks_of_the_manifest():
    """Each hook of the README (check, and the commented-out fix) runs what the hook of the same id in
    .pre-commit-hooks.yaml runs, on the same files."""
    import yaml

    manifest = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    hooks = _snippet_hooks()
    assert [hook["id"] for hook in hooks] == ["jaxlint", "jaxlint-fix"]
    for hook in hooks:
        assert hook["language"] == "system"
        assert (hook["entry"], hook["types_or"]) == (manifest[hook["id"]]["entry"], manifest[hook["id"]]["types_or"])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("hook_id", ["jaxlint", "jaxlint-fix"])
def test_the_precommit_snippet_works(tmp_path, hook_id):
    """The README's `repo: local` hook, run by real pre-commit on a commit-to-be with a finding: the check fails the
    commit and names it; the fix hook rewrites the file (and fails, as pre-commit does when a hook changed files)."""
    pytest.importorskip("pre_commit")
    import sys

    import yaml

    [hook] = [hook for hook in _snippet_hooks() if hook["id"] == hook_id]
    bin_dir = tmp_path / "bin"  # `jaxlint` on PATH: this checkout, run by the test's Python
    bin_dir.mkdir()
    shim = bin_dir / "jaxlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m jaxlint "$@"\n')
    shim.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": path,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    (project / "train.py").write_text("import jax\n\ny = jax.tree_map(f, x)\n")
    for args in (["init", "-q"], ["add", "."]):
        subprocess.run(["git", *args], cwd=project, check=True, env=env)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project,
                          capture_output=True, text=True, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    if hook_id == "jaxlint":
        assert "train.py:3:5: JAX101" in done.stdout, done.stdout
        assert (project / "train.py").read_text() == "import jax\n\ny = jax.tree_map(f, x)\n"
    else:
        assert "files were modified by this hook" in done.stdout, done.stdout
        assert (project / "train.py").read_text() == "import jax\n\ny = jax.tree.map(f, x)\n"


def test_the_verify_excerpt_is_quoted_from_the_transcript_in_docs():
    """The README's `jaxlint verify` output is an excerpt of the real transcript in docs/verify.md (`(...)` stands
    for an elided path): each of its lines must be there."""
    excerpt = README.split("## Verify the fixes", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    transcript = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8").splitlines()
    for line in filter(None, excerpt.splitlines()):
        pattern = re.compile(re.escape(line).replace(re.escape("(...)"), r"\(.*?\)"))
        assert any(pattern.fullmatch(candidate) for candidate in transcript), line
