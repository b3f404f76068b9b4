"""Tiny distributions for the upgrade tests: a wheel written by hand (no build backend, no network), and the same
files unpacked into a folder as pip installs them (``importlib.metadata`` reads them from there)."""
from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

# A dependency that calls an API JAX removed (jax.tree_map went in 0.6.0), and its fixed release.
OLD_DEP = {"mydep/__init__.py": "from mydep.core import flatten\n",
           "mydep/core.py": "import jax\n\n\ndef flatten(tree):\n    return jax.tree_map(lambda x: x, tree)\n"}
NEW_DEP = {"mydep/__init__.py": "from mydep.core import flatten\n",
           "mydep/core.py": "import jax\n\n\ndef flatten(tree):\n    return jax.tree.map(lambda x: x, tree)\n"}
# Uses nothing JAX: never scanned.
UNRELATED = {"other/__init__.py": "import json\n"}


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel_files(name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ("jax",),
                requires_python: str | None = None) -> dict:
    info = f"{name}-{version}.dist-info"
    contents = {path: text.encode() for path, text in files.items()}
    contents[f"{info}/METADATA"] = ("Metadata-Version: 2.1\n" f"Name: {name}\nVersion: {version}\n"
                                    + (f"Requires-Python: {requires_python}\n" if requires_python else "")
                                    + "".join(f"Requires-Dist: {r}\n" for r in requires)).encode()
    contents[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: jaxlint-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [_record_line(path, data) for path, data in contents.items()] + [f"{info}/RECORD,,"]
    contents[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    return contents


def build_wheel(folder: Path, name: str, version: str, files: dict[str, str],
                requires: tuple[str, ...] = ("jax",), requires_python: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in wheel_files(name, version, files, requires, requires_python).items():
            archive.writestr(path, data)
    return wheel


def build_sdist(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A source distribution only (no wheel): what a lookup for wheels cannot check."""
    import io
    import tarfile

    folder.mkdir(parents=True, exist_ok=True)
    sdist = folder / f"{name}-{version}.tar.gz"
    contents = {**files, "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"}
    with tarfile.open(sdist, "w:gz") as archive:
        for path, text in contents.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{name}-{version}/{path}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return sdist


def install_unpacked(site: Path, name: str, version: str, files: dict[str, str],
                     requires: tuple[str, ...] = ("jax",)) -> None:
    """As pip leaves an installed wheel: the files, and a dist-info whose RECORD lists them."""
    for path, data in wheel_files(name, version, files, requires).items():
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
