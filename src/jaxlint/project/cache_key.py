"""The key that signs jaxlint's caches, the signed form of a cache file (``seal``/``unseal``), and a signed JSON
file read and written whole (``read_signed``/``write_signed``: every cache but the replay's manifests).

A cache folder can arrive from anywhere: committed with a repository (``.jaxlint_cache/``), or restored by a CI
system from a cache that other branches and forks wrote (``~/.cache``). Whatever such a file says must not change
what jaxlint reports, writes or proposes. So every cache file jaxlint reads is signed with a key that never lies in
a cache folder: ``$XDG_CONFIG_HOME/jaxlint/cache-key`` (``~/.config/jaxlint/cache-key``; ``$JAXLINT_CACHE_KEY``
names another file), 32 random bytes (hex),
made on first use, readable by its owner only. A file with no valid signature (planted, edited, or made by another
user or machine) is a miss: jaxlint does the work again and overwrites the file with its own.

The key is trusted only when it is a regular file of this user, of mode 0600 or stricter, holding a key: any other
key file (readable by others, unreadable, damaged), or one that cannot be made, turns caching off for the run,
never into an error (see docs/caching.md).

The signature is keyed BLAKE2b (a MAC by design, as fast as the hash itself), compared in constant time. It covers what the file is for (``kind`` and ``context``: the engine fingerprint, the release...)
as well as its bytes, so a file signed for one purpose cannot stand in for another. Standard library only: the
replay (``jaxlint.run.replay``) checks a manifest before it imports anything else.
"""
from __future__ import annotations

import hashlib
import hmac
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the replay imports this module first: no pathlib at run time
    from pathlib import Path

KEY_BYTES = 32
_HEADER = b"jaxlint-signed-1 "
_MAC_HEX = 64  # 32-byte BLAKE2b, as hex
_keys: dict[str, bytes | None] = {}  # key file -> its key, or None when caching is off: read once per process


def key_path() -> str:
    """``$JAXLINT_CACHE_KEY`` when set (tests, or a key of one's choosing), else the XDG config folder's."""
    chosen = os.environ.get("JAXLINT_CACHE_KEY", "")
    if chosen:
        return os.path.abspath(chosen)
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "jaxlint", "cache-key")


def cache_key() -> bytes | None:
    """This user's cache key, made on first use; None when it cannot be made or read, or is not private (caching
    is then off for this run). Read once per process."""
    path = key_path()
    if path not in _keys:
        try:
            _keys[path] = _read_key(path)
        except FileNotFoundError:
            _keys[path] = _made_key(path)
        except (OSError, ValueError):
            _keys[path] = None
    return _keys[path]


def forget_key() -> None:
    """Read the key file again at the next use (tests change it within one process)."""
    _keys.clear()


def _read_key(path: str) -> bytes | None:
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)
        data = os.read(descriptor, 4 * KEY_BYTES)
    finally:
        os.close(descriptor)
    if not _private(status):
        return None
    text = data.strip()
    if len(text) != 2 * KEY_BYTES:
        return None  # damaged, or being written by a run without hard links (``_made_key``)
    return bytes.fromhex(text.decode("ascii"))  # ValueError: not hex


def _private(status: os.stat_result) -> bool:
    """A regular file of this user that no one else may read or write (POSIX; elsewhere the folder's rights
    decide, as for any other file of the user's)."""
    import stat

    if not stat.S_ISREG(status.st_mode):
        return False
    if hasattr(os, "getuid"):
        return status.st_uid == os.getuid() and status.st_mode & 0o077 == 0
    return True


def _made_key(path: str) -> bytes | None:
    """A new key, written whole to a private temporary file and linked to ``path`` only if none is there yet (two
    first runs at once agree on one key: the one that loses the race reads the winner's)."""
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        key = os.urandom(KEY_BYTES)
        temporary = os.path.join(folder, f".cache-key.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            try:
                os.write(descriptor, key.hex().encode("ascii") + b"\n")
            finally:
                os.close(descriptor)
            try:
                os.link(temporary, path)
            except FileExistsError:
                return _read_key(path)
            except OSError:  # a file system without hard links: create it in place (a reader may see it short)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(key.hex().encode("ascii") + b"\n")
        finally:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        return key
    except (OSError, ValueError):
        return None


def _mac(key: bytes, kind: str, context: str, payload: bytes) -> bytes:
    digest = hashlib.blake2b(key=key, digest_size=_MAC_HEX // 2)
    # Lengths first: no two (kind, context) pairs can run together into the same bytes.
    digest.update(f"{len(kind)}:{kind}|{len(context)}:{context}|".encode("utf-8", "surrogateescape"))
    digest.update(payload)
    return digest.hexdigest().encode("ascii")


def seal(kind: str, context: str, payload: bytes) -> bytes | None:
    """``payload`` signed for ``kind``/``context``, as a cache file holds it; None when caching is off."""
    key = cache_key()
    if key is None:
        return None
    return _HEADER + _mac(key, kind, context, payload) + b"\n" + payload


def unseal(kind: str, context: str, data: bytes) -> bytes | None:
    """The payload of a file ``seal`` wrote for this ``kind``/``context`` with this user's key; None for anything
    else (unsigned, another key, another purpose, damaged), which the caller treats as a miss."""
    start = len(_HEADER)
    if not data.startswith(_HEADER) or data[start + _MAC_HEX:start + _MAC_HEX + 1] != b"\n":
        return None
    key = cache_key()
    if key is None:
        return None
    payload = data[start + _MAC_HEX + 1:]
    if not hmac.compare_digest(data[start:start + _MAC_HEX], _mac(key, kind, context, payload)):
        return None
    return payload


def replace_file(file: Path, payload: bytes, *, prefix: str) -> None:
    """Write ``payload`` to a temporary file beside ``file`` and rename it over ``file``: a reader sees the old
    cache or the new one, never half (a cache needs none of ``run.sources.write_atomic``'s care for owners)."""
    import tempfile  # here: a warm run that changes nothing writes nothing (and tempfile costs ~5 ms to import)

    fd, temporary = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=file.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temporary, file)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def read_signed(file: Path, kind: str, context: str) -> object:
    """The JSON value of a file ``write_signed`` wrote for ``kind``/``context`` with this user's key; None when it is
    missing, damaged or not ours (a miss)."""
    import json  # here: the replay imports this module first, and reads no JSON

    try:
        payload = unseal(kind, context, file.read_bytes())
        return None if payload is None else json.loads(payload)
    except (OSError, ValueError):
        return None


def write_signed(file: Path, kind: str, context: str, value: object) -> None:
    """``value`` as JSON, signed, replacing ``file`` atomically; nothing when caching is off (no key). Raises
    ``OSError`` where it cannot be written (the caller decides that a cache is never an error)."""
    import json

    payload = seal(kind, context, json.dumps(value, separators=(",", ":")).encode())
    if payload is None:
        return
    file.parent.mkdir(parents=True, exist_ok=True)
    replace_file(file, payload, prefix=f".{file.stem}-")
