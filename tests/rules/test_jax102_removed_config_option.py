"""JAX102: the flag table and the version gate beyond the inline examples."""
from dataclasses import replace

import pytest

from jaxlint.lint.engine import fix_source, lint_source
from jaxlint.rules.jax102_removed_config_option import REMOVED_FLAGS, RemovedConfigOption
from jaxlint.project.settings import Settings
from jaxlint.project.versions import Version


def _findings(source, target="0.12.0.1", min_version=None):
    settings = replace(Settings(select=("JAX102",)), target_version=Version(target))
    if min_version:
        settings = replace(settings, explicit_min_version=Version(min_version))
    return lint_source(source, "x.py", settings, rules=[RemovedConfigOption]).diagnostics


@pytest.mark.parametrize("flag", sorted(REMOVED_FLAGS))
def test_every_spelling_passes_the_prefilter(flag):
    option = REMOVED_FLAGS[flag].compiler_option
    for text in (flag, flag.upper(), *([option] if option else [])):
        assert any(trigger in text for trigger in RemovedConfigOption.triggers), text


def test_common_words_do_not_pass_the_prefilter():
    # jax_array's stripped name: the triggers are whole option names, not the part after "jax_"
    for text in ("x = jnp.array(y)\n", "ARRAY = 1\n", "platform_name = 'cpu'\n"):
        assert not any(trigger in text for trigger in RemovedConfigOption.triggers), text


@pytest.mark.parametrize("spelling", [
    "jax.config.update('{flag}', 1)\n", 'jax.config.update("{flag}", 1)\n', "jax.config.{flag} = 1\n",
    "os.environ['{FLAG}'] = '1'\n", "os.environ.update({FLAG}='1')\n", "FLAGS = ['--{flag}=1']\n",
    "jax.jit(f, compiler_options={{'{option}': 1}})\n", "x = f'{FLAG}'\n",
])
@pytest.mark.parametrize("flag", sorted(REMOVED_FLAGS))
def test_every_spelling_passes_the_text_gate(flag, spelling):
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts

    option = REMOVED_FLAGS[flag].compiler_option
    if "{option}" in spelling and not option:
        return
    source = "import os\nimport jax\n" + spelling.format(flag=flag, FLAG=flag.upper(), option=option)
    assert RemovedConfigOption.may_match_text(TextFacts(source), Scan(source).words), source


@pytest.mark.parametrize("source", [
    "import jax\ndef _make_jax_array(i): return i\n",  # vmoe: an option name inside an identifier
    "import jax\nx = JAX_ARRAY_SIZE\n",
    "import jax\nconfig.my_jax_array = 1\n",
])
def test_an_option_name_inside_another_word_does_not_pass_the_text_gate(source):
    from jaxlint.lint.prefilter import Scan
    from jaxlint.lint.text_gate import TextFacts

    assert any(trigger in source for trigger in RemovedConfigOption.triggers)  # the word prefilter keeps it
    assert not RemovedConfigOption.may_match_text(TextFacts(source), Scan(source).words)


@pytest.mark.parametrize("flag", sorted(REMOVED_FLAGS))
def test_each_flag_fires_from_its_removal_release(flag):
    removed = REMOVED_FLAGS[flag].removed
    source = f'import jax, os\njax.config.update("{flag}", 1)\nos.environ["{flag.upper()}"] = "1"\n'
    # A bare option (``check_rep``) is reported in ``jax.config.update`` only: ``CHECK_REP`` is the project's own.
    assert len(_findings(source, target=removed)) == (2 if flag.startswith("jax") else 1)
    major, minor, patch = (int(part) for part in removed.split(".")[:3])
    before = f"{major}.{minor}.{patch - 1}" if patch else f"{major}.{minor - 1}.99"  # just before the removal
    assert _findings(source, target=before) == []


def test_reports_point_at_the_line_to_change():
    source = "import jax\n\nx = 1\njax.config.jax_memory_fitting_effort = 0.5\n"
    (finding,) = _findings(source)
    assert (finding.start.row, finding.start.column) == (4, 1)
    assert "jax_memory_fitting_level" in finding.message and "no exact mapping" in finding.message


def test_messages_name_the_replacements_and_error_texts():
    source = ('import jax\njax.config.update("jax_exec_time_optimization_effort", 0.3)\n'
              'f = jax.jit(g, compiler_options={"memory_fitting_effort": 0.3})\n')
    update, option = _findings(source)
    assert "AttributeError: Unrecognized config option: jax_exec_time_optimization_effort" in update.message
    assert "jax_optimization_level" in update.message and "jax.CompilerEffortLevel" in update.message
    assert "No such compile option: 'memory_fitting_effort'" in option.message
    assert "memory_fitting_level" in option.message and "no exact mapping" in option.message


def test_crlf_line_deletion():
    source = 'import jax\r\njax.config.update("jax_memory_fitting_effort", 0.0)\r\nx = 1\r\n'
    settings = Settings(select=("JAX102",))
    assert fix_source(source, "x.py", settings, rules=[RemovedConfigOption]).source == "import jax\r\nx = 1\r\n"
