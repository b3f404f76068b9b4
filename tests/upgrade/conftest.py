"""Fixtures for the upgrade tests: a fake environment (a venv without pip whose site-packages reach a folder of
hand-made distributions through a .pth file), a package index made of a find-links folder, and a small project."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.upgrade.distributions import NEW_DEP, OLD_DEP, UNRELATED, build_wheel, install_unpacked


def make_venv(folder: Path, *extra_sites: Path, base: str = sys.executable) -> Path:
    """A venv of ``base`` (no pip: 0.3 s) that also sees ``extra_sites`` (``.pth``); returns its python."""
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "extra.pth").write_text("".join(f"{path}\n" for path in extra_sites))
    return python


@pytest.fixture
def fake_site(tmp_path: Path) -> Path:
    """mydep 0.1 (calls jax.tree_map, removed) and an unrelated distribution, installed."""
    site = tmp_path / "site"
    install_unpacked(site, "mydep", "0.1", OLD_DEP)
    install_unpacked(site, "other", "1.0", UNRELATED, requires=())
    return site


@pytest.fixture
def index(tmp_path: Path, monkeypatch) -> Path:
    """A package index with mydep 0.1 and 0.2 (fixed), read through pip's own settings; and an empty cache."""
    links = tmp_path / "links"
    build_wheel(links, "mydep", "0.1", OLD_DEP)
    build_wheel(links, "mydep", "0.2", NEW_DEP)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    monkeypatch.setenv("JAXLINT_UPGRADE_CACHE", str(tmp_path / "cache"))
    return links


PROJECT = {
    "pyproject.toml": '[project]\nname = "proj"\nversion = "0"\n'
                      'dependencies = ["jax>=0.4.30,<0.11", "jaxlib==0.10.2", "mydep>=0.1"]\n',
    "proj/__init__.py": "",
    "proj/model.py": "import jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n    return jax.tree_map(jnp.sin, x)\n",
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def tree_hash(root: Path) -> str:
    """Every file's path and bytes (and nothing else) under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
