"""The effective floor (``jaxlint.run.effective_floor``): the oldest JAX a package's code can run on, from the first
releases of the JAX names it uses (``rules/first_release.toml``), said by ``jaxlint check`` as a note where it is
newer than the pins' floor, and never where the code guards the name or the name cannot be dated."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.catalogue.first_release import first_release, first_releases
from jaxlint.project.versions import Version
from jaxlint.lint.text_gate import names_by_last
from jaxlint.run.effective_floor import uses_above
from jaxlint.ui.cli import main

FLOOR = Version("0.4.0")


def test_the_table_dates_new_names_and_leaves_old_and_unknown_ones():
    # the two hand-read floors of catalogue/floors.py ("read in the wheels"), found again by the generator
    assert first_release("jax.set_mesh") == ("jax.set_mesh", Version("0.7.1"))
    assert first_release("jax.export") == ("jax.export", Version("0.4.30"))
    assert first_release("jax.export.deserialize") == ("jax.export", Version("0.4.30"))  # through its module
    assert first_release("jax.numpy.zeros") is None  # older than the table's first release
    assert first_release("jax.not_a_name") is None and first_release("jax._src.core.Tracer") is None
    assert len(first_releases()) > 100


def _uses(source: str, floor: Version = FLOOR) -> list[tuple[str, str, int]]:
    return [(u.name, str(u.since), u.row) for u in uses_above(source, "m.py", floor)]


@pytest.mark.parametrize("source, expected", [
    ("import jax\n\n\ndef f(m):\n    with jax.set_mesh(m):\n        pass\n", [("jax.set_mesh", "0.7.1", 5)]),
    ("from jax import set_mesh\n", [("jax.set_mesh", "0.7.1", 1)]),
    ("import jax as j\nj.set_mesh\n", [("jax.set_mesh", "0.7.1", 2)]),
    ("from jax import export\n\nexport.deserialize(b'')\n",
     [("jax.export", "0.4.30", 1), ("jax.export", "0.4.30", 3)]),
    ("import jax.export\n", [("jax.export", "0.4.30", 1)]),
    ("import jax\r\n\r\njax.set_mesh\r\n", [("jax.set_mesh", "0.7.1", 3)]),  # CRLF line endings
])
def test_must_say(source, expected):
    assert _uses(source) == expected


@pytest.mark.parametrize("source", [
    # guarded: the shims projects write so that old releases keep working
    "try:\n    from jax import set_mesh\nexcept ImportError:\n    set_mesh = None\n",
    "import jax\ntry:\n    f = jax.set_mesh\nexcept AttributeError:\n    f = None\n",
    "import jax\ntry:\n    f = jax.set_mesh\nexcept Exception:\n    f = None\n",
    "import jax\nif hasattr(jax, 'set_mesh'):\n    f = jax.set_mesh\n",
    "import jax\nif jax.__version_info__ >= (0, 7, 1):\n    f = jax.set_mesh\nelse:\n    f = None\n",
    # the early return of a shim (netket's ``pcast``): what follows runs only where the test let it through
    "import jax\nfrom importlib.metadata import version\n\n\ndef f(m):\n    if version('jax') < '0.7.1':\n"
    "        return m\n    return jax.set_mesh(m)\n",
    # unknown or undated names, and names that are not JAX's
    "import jax\njax.not_a_name_of_jax()\n",
    "import jax\njax.numpy.zeros(3)\n",
    "def set_mesh(m):\n    return m\n\nset_mesh(1)\n",
    "import mylib as jax\njax.set_mesh(1)\n",
    "import jax\n\n\ndef f(jax):\n    return jax.set_mesh\n",  # a parameter shadows the module: not certain
    "from jax import *\nset_mesh(1)\n",
    # annotations that never run
    "from __future__ import annotations\nimport jax\n\n\ndef f(x: jax.export.Exported):\n    pass\n",
    "this is not python(\n",
])
def test_must_not_say(source):
    assert _uses(source) == []


GATED_SHAPES = [
    "import jax.export as ex\nex.deserialize\n",
    "from jax import (\n    numpy as jnp,\n    set_mesh,\n)\n",
    "import os, \\\n    jax\njax.set_mesh\n",
    "from jax.experimental import shard_map\nshard_map.shard_map(f)\n",
    "import jax\nf = jax . set_mesh\n",
    "import jax\nf = (jax\n     .set_mesh)\n",
    "import jax\nf = getattr(jax, 'set_mesh')\n",
    "import jax.numpy as jnp\nx = jnp.bool\ny = jnp.zeros(3)\n",
    "from jax import tree\ntree.map(f, x)\n",
    "import jax\njax.tree.map(f, x)\njax.tree_util.register_dataclass\n",
    "from jax.sharding import PartitionSpec as P, get_mesh\n",
    "def f():\n    import jax\n    return jax.set_mesh\n",
    "s = 'import jax; jax.set_mesh'\n# jax.set_mesh\n",
]


@pytest.mark.parametrize("source", GATED_SHAPES + ["import jax\n\n\ndef f(m):\n    with jax.set_mesh(m):\n        pass\n"])
@pytest.mark.parametrize("floor", [Version("0.2.0"), FLOOR, Version("0.4.30")])
def test_the_text_gate_before_the_parse_loses_no_use(source, floor, monkeypatch):
    """The text gate only spares parses: with every file parsed, the uses are the same."""
    from jaxlint.run import effective_floor

    gated = _uses(source, floor)
    monkeypatch.setattr(effective_floor, "_mentions_a_dated_name", lambda source, floor: True)
    assert gated == _uses(source, floor)


def test_the_text_gate_spares_the_parse_of_a_file_that_only_spells_the_words(monkeypatch):
    from jaxlint.run import effective_floor

    def parse_module(source):
        raise AssertionError("parsed")

    monkeypatch.setattr(effective_floor, "parse_module", parse_module)
    assert _uses("import jax\nimport mylib\nmylib.set_mesh(1)\nx = jax.numpy.zeros(3)\n") == []


@pytest.mark.parametrize("floor", ["0.1.72", "0.2.0", "0.3.25", "0.4.30", "0.4.31", "0.7.0", "0.12.0.1", "9.0"])
def test_the_dated_names_of_a_floor_are_the_names_released_after_it(floor):
    """Read through the tables of every dated name, a floor sees the same names as a scan of every name's date:
    the same last parts spelled, and under each the same names."""
    from jaxlint.run.effective_floor import _dated

    floor = Version(floor)
    names = {name for name, since in first_releases().items() if since > floor}
    dated = _dated(floor)
    lasts = {name.rpartition(".")[2] for name in names}
    every_last = {name.rpartition(".")[2] for name in first_releases()}
    for word in sorted(every_last)[::7] + sorted(lasts)[:50]:
        assert dated.spelled_in({word, "unrelated_word"}) == (word in lasts), word
    assert not dated.spelled_in({"unrelated_word"})
    expected = names_by_last(frozenset(names))  # the text gate's table of exactly these names
    for last in every_last:
        assert set(dated.by_last.index[last]) == set(expected.index.get(last, ())), last
        assert all(dated.by_last.parts[name] == expected.parts[name] for name in dated.by_last.index[last])
    assert expected.lasts <= dated.by_last.lasts


def test_a_floor_builds_no_table_of_its_own():
    """Floors share the tables of every dated name; a floor's own names are filtered only for the last parts
    looked up (a monorepo meets a dozen floors, in each worker)."""
    from jaxlint.run.effective_floor import _dated, _every_dated_name

    releases = sorted(set(first_releases().values()))
    low, high = _dated(releases[0]), _dated(releases[-2])
    assert low.by_last.lasts is high.by_last.lasts is _every_dated_name()[0].lasts
    assert low.by_last.parts is high.by_last.parts
    assert len(_dated(Version("0.3.1")).by_last.index) == 0  # nothing filtered before a look-up


def test_the_warm_up_builds_each_floor_before_the_workers_fork():
    from jaxlint.run.effective_floor import _dated, _every_dated_name, warm_up

    _dated.cache_clear()
    _every_dated_name.cache_clear()
    warm_up([Version("0.2.0"), Version("0.4.30")])
    assert _dated.cache_info().currsize == 2
    assert _every_dated_name.cache_info().currsize == 1
    assert {"words", "by_last"} <= vars(_dated(Version("0.2.0"))).keys()  # each floor's own set and table too


def test_a_floor_already_high_enough_says_nothing():
    source = "import jax\njax.set_mesh\nfrom jax import export\n"
    assert _uses(source, Version("0.7.1")) == []
    assert _uses(source, Version("0.4.30")) == [("jax.set_mesh", "0.7.1", 2)]


CODE = "import jax\n\n\ndef shard(mesh):\n    with jax.set_mesh(mesh):\n        return jax.core.Primitive('p')\n"


def _check(root: Path, *args: str):
    old = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(main, ["check", "--no-cache", *args], catch_exceptions=False)
    finally:
        os.chdir(old)


def _project(tmp_path: Path, pin: str, code: str = CODE) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "requirements.txt").write_text(f"{pin}\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mesh.py").write_text(code)
    return root


def test_check_notes_the_code_floor_once_on_stderr(tmp_path):
    root = _project(tmp_path, "jax>=0.4.0")
    (root / "pkg" / "again.py").write_text(CODE)
    result = _check(root, ".")
    notes = [line for line in result.stderr.splitlines() if line.startswith("jaxlint: note:")]
    assert notes == ["jaxlint: note: pins say jax>=0.4.0 (requirements.txt:1); the code needs 0.7.1 for "
                     "`jax.set_mesh` at pkg/again.py:5 (`jaxlint upgrade` proposes jax>=0.7.1, which unlocks the "
                     "fixes withheld below it)"]
    assert "JAX101" in result.stdout  # the findings are as they were


def test_check_json_output_is_unchanged_by_the_note(tmp_path):
    root = _project(tmp_path, "jax>=0.4.0")
    with_note = _check(root, ".", "--output-format", "json")
    assert "pins say" in with_note.stderr and "pins say" not in with_note.stdout
    findings = json.loads(with_note.stdout)
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("JAX101", 6)]
    assert findings[0]["fix"] is None  # withheld at the pinned floor: check does not raise it


@pytest.mark.parametrize("pin, args", [
    ("jax>=0.7.1", ()),  # the pins already say it
    ("jax>=0.4.0", ("--min-version", "0.4.0")),  # the user said what they support
    ("numpy", ()),  # nothing pins jax: the range is the target
])
def test_check_says_nothing_when_the_floor_is_not_the_pins_or_high_enough(tmp_path, pin, args):
    result = _check(_project(tmp_path, pin), ".", *args)
    assert "jaxlint: note:" not in result.stderr


def _forbid_reading_again(monkeypatch) -> None:
    """The note's pass must take the uses the lint's workers found, not read and parse the files again: while it
    runs, reading a file's uses fails."""
    from jaxlint.run import effective_floor

    original = effective_floor.effective_floors

    def read_again(*args, **kwargs):
        raise AssertionError("the effective-floor pass read a file again")

    def checked(files, known=None):
        with pytest.MonkeyPatch.context() as inside:
            inside.setattr(effective_floor, "file_uses", read_again)
            return original(files, known)

    monkeypatch.setattr(effective_floor, "effective_floors", checked)


@pytest.mark.parametrize("cache", ["--no-cache", "cold", "warm"])
def test_the_note_comes_from_the_lint_not_a_second_read(tmp_path, monkeypatch, cache):
    root = _project(tmp_path, "jax>=0.4.0")
    (root / "pkg" / "crlf.py").write_bytes(CODE.replace("\n", "\r\n").encode())
    args = [".", "-j", "1"]
    if cache != "--no-cache":
        args += ["--cache-dir", str(tmp_path / "cache")]
    old = os.getcwd()
    os.chdir(root)
    try:
        if cache == "warm":  # results from the cache: their entries carry the uses
            CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
            os.utime(root / "pkg" / "mesh.py")  # a changed stamp: no replay of the last output
        _forbid_reading_again(monkeypatch)
        result = CliRunner().invoke(main, ["check", *(args if cache != "--no-cache" else ["--no-cache", *args])],
                                    catch_exceptions=False)
    finally:
        os.chdir(old)
    notes = [line for line in result.stderr.splitlines() if line.startswith("jaxlint: note:")]
    assert notes == ["jaxlint: note: pins say jax>=0.4.0 (requirements.txt:1); the code needs 0.7.1 for "
                     "`jax.set_mesh` at pkg/crlf.py:5 (`jaxlint upgrade` proposes jax>=0.7.1, which unlocks the "
                     "fixes withheld below it)"]


def test_the_note_reads_a_file_the_lint_did_not_give_uses_for(tmp_path):
    from jaxlint.project.files import discover
    from jaxlint.project.config import Overrides, SettingsResolver
    from jaxlint.run.effective_floor import effective_floors

    root = _project(tmp_path, "jax>=0.4.0")
    files = list(discover([root], SettingsResolver(Overrides()), unreadable=[]))
    floors = effective_floors(files, {})  # nothing known: each file is read (as `jaxlint upgrade` asks)
    assert [(floor.use.name, Path(floor.use.path).name) for floor in floors] == [("jax.set_mesh", "mesh.py")]
    stale = {str(root / "pkg" / "mesh.py"): (Version("0.3.0"), [])}  # found above another floor: not used
    assert [floor.use.name for floor in effective_floors(files, stale)] == ["jax.set_mesh"]


def test_check_says_nothing_for_guarded_code(tmp_path):
    guarded = "import jax\n\ntry:\n    set_mesh = jax.set_mesh\nexcept AttributeError:\n    set_mesh = None\n"
    result = _check(_project(tmp_path, "jax>=0.4.0", guarded), ".")
    assert "jaxlint: note:" not in result.stderr


def _upgrade(root: Path, report: Path, *args: str):
    from tests.upgrade.conftest import make_venv

    python = make_venv(root.parent / "venv")
    old = os.getcwd()
    os.chdir(root)
    try:
        CliRunner().invoke(main, ["upgrade", ".", "--to", "0.12.0.1", "--python", str(python), "--no-index",
                                  "--report", str(report), *args], catch_exceptions=False)
    finally:
        os.chdir(old)
    return json.loads(report.read_text())


def test_upgrade_raises_the_pin_and_takes_the_fixes_it_unlocks(tmp_path):
    root = _project(tmp_path, "jax>=0.4.0,<0.5")
    report = _upgrade(root, tmp_path / "r.json", "--report", str(tmp_path / "r.md"))
    assert report["effective_floor"] == {"package": ".", "pinned": "0.4.0", "pinned_where": "requirements.txt:1",
                                         "needs": "0.7.1", "name": "jax.set_mesh", "where": "pkg/mesh.py:5",
                                         "raised": True}
    [pin] = [p for p in report["pins"] if p["name"] == "jax"]
    assert (pin["current"], pin["where"], pin["proposed"]) == ("jax>=0.4.0,<0.5", "requirements.txt:1",
                                                               "jax>=0.7.1,<0.13")
    assert "the code needs JAX 0.7.1 (`jax.set_mesh` at pkg/mesh.py:5)" in pin["reason"]
    assert report["version_range"]["min"] == "0.7.1"
    # jax.extend.core.Primitive exists from 0.4.27: withheld at 0.4.0, written at the code's floor
    assert [(f["code"], f["row"]) for f in report["fixes_applied"]] == [("JAX101", 6)]
    assert "jax.extend.core.Primitive('p')" in (root / "pkg" / "mesh.py").read_text()
    markdown = (tmp_path / "r.md").read_text()
    assert ("- the code needs JAX 0.7.1 (`jax.set_mesh` at `pkg/mesh.py:5`), newer than the pins' floor 0.4.0 "
            "(requirements.txt:1): the fixes are computed from it") in markdown


def test_upgrade_without_a_code_floor_keeps_the_pinned_one(tmp_path):
    guarded = ("import jax\n\n\ndef shard(mesh):\n    if hasattr(jax, 'set_mesh'):\n        mesh = jax.set_mesh(mesh)\n"
               "    return jax.core.Primitive('p')\n")
    root = _project(tmp_path, "jax>=0.4.0", guarded)
    report = _upgrade(root, tmp_path / "r.json", "--dry-run")
    assert report["effective_floor"] is None
    assert [p for p in report["pins"] if p["name"] == "jax"] == []
    assert report["fixes_applied"] == []
    [left] = report["findings_left"]
    assert left["code"] == "JAX101" and "0.4.27" in left["advice"]


def test_upgrade_raises_each_package_floor_on_its_own_in_a_monorepo(tmp_path):
    # Three packages with their own pins and no pins at the root: `a` needs 0.7.1 (`jax.set_mesh`), `b` 0.4.30
    # (`jax.export`), `c` nothing newer than its pins. The fix of `jax.core.Primitive` (from 0.4.27) is written in
    # `a` and `b`, each computed from its own floor, and stays withheld in `c`.
    root = tmp_path / "proj"
    primitive = "    return jax.core.Primitive('p')\n"
    codes = {"a": "import jax\n\n\ndef shard(mesh):\n    jax.set_mesh(mesh)\n" + primitive,
             "b": "import jax\nfrom jax import export\n\n\ndef shard(mesh):\n" + primitive,
             "c": "import jax\n\n\ndef shard(mesh):\n" + primitive}
    for name, code in codes.items():
        (root / name / "pkg").mkdir(parents=True)
        (root / name / "requirements.txt").write_text("jax>=0.4.0,<0.5\n")
        (root / name / "pkg" / "__init__.py").write_text("")
        (root / name / "pkg" / "mesh.py").write_text(code)
    report = _upgrade(root, tmp_path / "r.json", "--report", str(tmp_path / "r.md"))
    assert report["effective_floor"] is None  # the root is no package
    assert [(f["package"], f["needs"], f["where"], f["raised"]) for f in report["effective_floors"]] == [
        ("a", "0.7.1", "a/pkg/mesh.py:5", True), ("b", "0.4.30", "b/pkg/mesh.py:2", True)]
    assert sorted((f["file"], f["code"]) for f in report["fixes_applied"]) == [
        ("a/pkg/mesh.py", "JAX101"), ("b/pkg/mesh.py", "JAX101")]
    for name in ("a", "b"):
        assert "jax.extend.core.Primitive('p')" in (root / name / "pkg" / "mesh.py").read_text()
    assert (root / "c" / "pkg" / "mesh.py").read_text() == codes["c"]
    raises = {(p["where"], p["proposed"]) for p in report["pins"] if p["name"] == "jax"}
    assert {("a/requirements.txt:1", "jax>=0.7.1,<0.13"), ("b/requirements.txt:1", "jax>=0.4.30,<0.13")} <= raises
    markdown = (tmp_path / "r.md").read_text()
    assert "- the code of package `b` needs JAX 0.4.30 (`jax.export` at `b/pkg/mesh.py:2`)" in markdown


USES = "import jax\n\n\ndef f(m):\n    with jax.set_mesh(m):\n        return 'é'\n"


@pytest.mark.parametrize("data", [
    USES.encode(),
    USES.replace("\n", "\r\n").encode(),
    b"\xef\xbb\xbf" + USES.encode(),  # a BOM: the note reads the file as UTF-8, BOM and all
    b"# -*- coding: latin-1 -*-\n" + USES.encode("latin-1"),  # not UTF-8: the note reads nothing
    b"# -*- coding: utf8 -*-\n" + USES.encode(),
    b"# -*- coding: latin-1 -*-\n" + USES.encode(),  # UTF-8 bytes under a latin-1 cookie: the note reads them
])
@pytest.mark.parametrize("mode", ["check", "fix"])
def test_the_lints_uses_are_those_of_the_bytes_read_as_utf8(tmp_path, data, mode):
    """``process_file`` hands the note's reader the text it decoded where that is the bytes' UTF-8 reading (no
    second decode): the uses must be those ``file_uses`` finds in the bytes alone."""
    from jaxlint.project.config import Overrides, SettingsResolver
    from jaxlint.run.effective_floor import file_uses
    from jaxlint.run.runner import Mode, process_file

    root = _project(tmp_path, "jax>=0.4.0")
    path = root / "pkg" / "mesh.py"
    path.write_bytes(data)
    settings = SettingsResolver(Overrides()).for_path(path)
    result = process_file(path, settings, Mode.CHECK if mode == "check" else Mode.FIX, False)
    floor, uses = result.floor_uses
    assert uses == file_uses(path.read_bytes(), str(path), floor)
    if data in (USES.encode(), USES.replace("\n", "\r\n").encode()):
        assert [use.name for use in uses] == ["jax.set_mesh"]


def test_a_parallel_run_builds_the_floors_of_its_pins_before_it_forks(tmp_path, monkeypatch):
    """``runner._warm_up`` runs before the workers fork: it builds the floor the files' pins set."""
    from jaxlint.project.config import Overrides, SettingsResolver
    from jaxlint.project.files import discover
    from jaxlint.run import effective_floor
    from jaxlint.run.runner import Mode, _warm_up

    built = []
    monkeypatch.setattr(effective_floor, "warm_up", lambda floors: built.extend(floors))
    root = _project(tmp_path, "jax>=0.4.3")
    files = list(discover([root], SettingsResolver(Overrides()), unreadable=[]))
    _warm_up(files, list(range(len(files))), Mode.CHECK)
    assert set(built) == {Version("0.4.3")}
    built.clear()
    unpinned = tmp_path / "unpinned"
    unpinned.mkdir()
    (unpinned / "a.py").write_text("import jax\n")
    files = list(discover([unpinned], SettingsResolver(Overrides()), unreadable=[]))
    _warm_up(files, list(range(len(files))), Mode.CHECK)
    assert built == []
