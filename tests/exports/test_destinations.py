"""Where `exports migrate` writes each artifact: one input mirrored, several each under its own name, clashes
refused (no JAX needed)."""
from __future__ import annotations

from pathlib import Path

from jaxlint.exports.migrate import plan_destinations


def test_one_folder_is_mirrored(tmp_path):
    (tmp_path / "in").mkdir()
    sources = [tmp_path / "in" / "m.bin", tmp_path / "in" / "sub" / "m.bin"]
    planned = plan_destinations(sources, [tmp_path / "in"], Path("/out"))
    assert planned == {sources[0]: (Path("/out/m.bin"), []), sources[1]: (Path("/out/sub/m.bin"), [])}


def test_several_folders_each_under_their_name(tmp_path):
    sources = [tmp_path / "a" / "m.bin", tmp_path / "b" / "m.bin"]
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    planned = plan_destinations(sources, [tmp_path / "a", tmp_path / "b"], Path("/out"))
    assert planned == {sources[0]: (Path("/out/a/m.bin"), []), sources[1]: (Path("/out/b/m.bin"), [])}


def test_what_still_collides_is_reported_on_both_sides(tmp_path):
    for folder in ("x/data", "y/data"):
        (tmp_path / folder).mkdir(parents=True)
    sources = [tmp_path / "x" / "data" / "m.bin", tmp_path / "y" / "data" / "m.bin"]
    planned = plan_destinations(sources, [tmp_path / "x" / "data", tmp_path / "y" / "data"], Path("/out"))
    assert planned[sources[0]] == (Path("/out/data/m.bin"), [sources[1]])
    assert planned[sources[1]] == (Path("/out/data/m.bin"), [sources[0]])
    files = [tmp_path / "x" / "data" / "m.bin", tmp_path / "y" / "data" / "m.bin"]
    named_twice = plan_destinations(files, files, Path("/out"))  # files named directly: by their names
    assert named_twice[files[0]] == (Path("/out/m.bin"), [files[1]])
