#!/usr/bin/env python3
"""Generate ``rules/objects_generated.toml``: the removed members of the ``jax.config`` object and the removed
public jaxlib modules and names, read from the wheels (``tools/catalogue_gen/jax_objects.py`` says how).

    python tools/generate_jax_objects.py --jax-cache wheels-cache/jax --jaxlib-cache wheels-cache/jaxlib \\
        [--mirror /path/to/jax.git] [--download]

- ``jax.config``: every ``jax`` release of ``rules/generated.toml``'s list, from its wheel in ``--jax-cache``
  (``pip download --no-deps --only-binary=:all: jax==V``); a release published only as a source archive (most
  before 0.4) is read from that archive when the cache holds it, else from the release's tag ``jax-vV`` in a git
  mirror of jax-ml/jax (``--mirror``: the tree the archive was built from). Every row says which.
- jaxlib: the manylinux x86_64 wheels in ``--jaxlib-cache``, releases from 0.4.1 on. A change whose two sides are
  not consecutive releases is a gap; ``--download`` fetches a release between (``pip download --platform``) until
  none is left. jaxlib's releases follow jax's (``jax==V`` needs ``jaxlib>=`` a release at most V), so a jaxlib
  release is written as the first jax release at or above it.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catalogue_gen.jax_objects import CONFIG_FILES, Removal, config_members, gaps, jaxlib_modules, read_source, \
    removals  # noqa: E402
from catalogue_gen.releases import download_jaxlib, jaxlib_wheel, vkey  # noqa: E402
from catalogue_gen.toml_writer import toml_value  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "rules" / "objects_generated.toml"
CHANGELOG = "https://docs.jax.dev/en/latest/changelog.html"
JAXLIB_FIRST = "0.4.1"
# The x86_64 Linux wheels' tags over the years (manylinux2014 up to 0.7, manylinux_2_27 after).


def jax_versions() -> list[str]:
    import tomllib
    with open(REPO / "rules" / "generated.toml", "rb") as fh:
        return list(tomllib.load(fh)["versions"])


# -- jax.config ------------------------------------------------------------------------------------------------
def config_source(version: str, cache: Path, mirror: Path | None) -> tuple[str | None, str]:
    archives = sorted(cache.glob(f"jax-{version}-*.whl")) + sorted(cache.glob(f"jax-{version}.tar.gz"))
    for archive in archives:
        text = read_source(archive, CONFIG_FILES)
        if text is not None:
            return text, "wheel" if archive.suffix == ".whl" else "sdist"
    if mirror is not None:
        for path in CONFIG_FILES:
            done = subprocess.run(["git", "-C", str(mirror), "show", f"jax-v{version}:{path}"], capture_output=True,
                                  text=True)
            if done.returncode == 0:
                return done.stdout, "tag"
    return None, ""


def config_rows(versions: list[str], cache: Path, mirror: Path | None) -> tuple[list[Removal], dict, list[str]]:
    present: dict[str, dict[str, bool]] = {}
    deprecated: dict[str, dict[str, str]] = {}
    failing: dict[str, dict[str, str]] = {}
    sources: dict[str, str] = {}
    read = []
    for version in versions:
        text, source = config_source(version, cache, mirror)
        found = config_members(text) if text else None
        if found is None:
            continue
        read.append(version)
        sources[version] = source
        for name in found.members | set(found.deprecated):
            present.setdefault(f"jax.config.{name}", {})[version] = True
        for name, message in found.deprecated.items():
            deprecated.setdefault(f"jax.config.{name}", {})[version] = message
        for name, message in found.failing.items():
            failing.setdefault(f"jax.config.{name}", {})[version] = message
    rows = removals(read, present, deprecated, "symbol")
    for row in rows:  # a method that only raises from its removal on: JAX's own message says why
        row.message = row.message or failing.get(row.name, {}).get(row.removed_in) or None
    return rows, sources, read


# -- jaxlib ----------------------------------------------------------------------------------------------------
def jaxlib_rows(cache: Path, releases: list[str], download: bool) -> tuple[list[Removal], list[str]]:
    read_modules: dict[str, dict[str, set[str] | None]] = {}
    while True:
        read = sorted((v for v in releases if jaxlib_wheel(cache, v)), key=vkey)
        for version in read:
            if version not in read_modules:
                read_modules[version] = jaxlib_modules(jaxlib_wheel(cache, version))
        modules: dict[str, dict[str, bool]] = {}
        names: dict[str, dict[str, bool]] = {}
        for version in read:
            for module, members in read_modules[version].items():
                modules.setdefault(module, {})[version] = True
                for name in members or ():
                    names.setdefault(f"{module}.{name}", {})[version] = True
        removed_modules = removals(read, modules, {}, "module")
        gone = {row.name: row.removed_in for row in removed_modules}
        # ``jaxlib.xla_extension.pytree`` went with ``jaxlib.xla_extension``: the parent's row says it
        removed_modules = [row for row in removed_modules if not any(
            gone.get(parent) == row.removed_in for parent in _parents(row.name))]
        # a name of a removed module is that module's row; names whose module has no readable names are unknown
        kept_names = {name: seen for name, seen in names.items() if name.rpartition(".")[0] not in gone}
        newest = read_modules[read[-1]]
        removed_names = [row for row in removals(read, kept_names, {}, "symbol")
                         if newest.get(row.name.rpartition(".")[0]) is not None]
        rows = removed_modules + removed_names
        missing = gaps(rows, releases, read)
        if not download or not missing:
            if missing:
                print(f"jaxlib: {len(missing)} gaps left: {missing}", file=sys.stderr)
            return rows, read
        fetched = False
        for last, first_absent in missing:
            between = [v for v in releases if vkey(last) < vkey(v) < vkey(first_absent) and v not in read]
            middle = between[len(between) // 2]
            print(f"jaxlib: downloading {middle} (between {last} and {first_absent})", file=sys.stderr, flush=True)
            if download_jaxlib(cache, middle):
                fetched = True
            else:
                releases = [v for v in releases if v != middle]
                fetched = True
        if not fetched:
            return rows, read


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def jaxlib_releases() -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "jaxlib", "--only-binary=:all:",
                           "--platform", "manylinux2014_x86_64", "--python-version", "3.10"],
                          capture_output=True, text=True, check=True)
    listed = done.stdout.split("Available versions:", 1)[1].splitlines()[0]
    versions = {v.strip() for v in listed.split(",")}
    done = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "jaxlib"], capture_output=True, text=True,
                          check=True)
    versions |= {v.strip() for v in done.stdout.split("Available versions:", 1)[1].splitlines()[0].split(",")}
    return sorted((v for v in versions if vkey(v) >= vkey(JAXLIB_FIRST)), key=vkey)


def as_jax_release(version: str, jax: list[str]) -> str:
    return next((v for v in jax if vkey(v) >= vkey(version)), version)


# -- output ----------------------------------------------------------------------------------------------------
def row_text(row: Removal, module: str, reason: str, jax: list[str] | None = None) -> str:
    removed_in = as_jax_release(row.removed_in, jax) if jax else row.removed_in
    fields = {"name": row.name, "module": module, "deprecated_in": row.deprecated_in, "removed_in": removed_in,
              "first_seen": row.first_seen, "last_seen": row.last_seen, "message": row.message,
              "url": CHANGELOG, "source": "diff", "reason": reason}
    body = "".join(f"{key} = {toml_value(value)}\n" for key, value in fields.items() if value is not None)
    return f"[[{row.kind}]]\n{body}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax-cache", type=Path, required=True)
    ap.add_argument("--jaxlib-cache", type=Path, required=True)
    ap.add_argument("--mirror", type=Path, help="a git mirror of jax-ml/jax (releases published without a wheel)")
    ap.add_argument("--download", action="store_true", help="download the jaxlib releases each gap needs")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    jax = jax_versions()
    config, sources, read = config_rows(jax, args.jax_cache, args.mirror)
    args.jaxlib_cache.mkdir(parents=True, exist_ok=True)
    lib, lib_read = jaxlib_rows(args.jaxlib_cache, jaxlib_releases(), args.download)
    parts = ["# Generated by tools/generate_jax_objects.py from the jax and jaxlib wheels; do not edit by hand.\n"
             "# The members of the jax.config object and the public jaxlib modules and names that a release removed "
             "(docs/catalogue.md).\n"
             f"# jax.config: {len(read)} jax releases read ({read[0]}..{read[-1]}); jaxlib: {len(lib_read)} "
             f"releases ({lib_read[0]}..{lib_read[-1]}): {', '.join(lib_read)}\n\n"]
    for row in config:
        read_from = {"wheel": "the wheels", "sdist": "the source archives",
                     "tag": "the release tags (no wheel was published)"}
        where = ", ".join(sorted({read_from[sources[v]] for v in (row.last_seen, row.removed_in)}))
        reason = (f"a member of the Config class (jax/_src/config.py, jax/config.py before 0.2.x) in jax "
                  f"{row.first_seen}-{row.last_seen}, gone in {row.removed_in}: read in {where}")
        if row.deprecated_in:
            reason += f"; handed out by Config.__getattr__ with a DeprecationWarning from {row.deprecated_in}"
        parts.append(row_text(row, "jax.config", reason))
    for row in lib:
        what = "module" if row.kind == "module" else "public name"
        reason = (f"a {what} of the jaxlib wheels {row.first_seen}-{row.last_seen}, gone in jaxlib {row.removed_in} "
                  "(manylinux x86_64 wheels read: the file list, the .py modules, the .pyi stubs)")
        module = row.name if row.kind == "module" else row.name.rpartition(".")[0]
        parts.append(row_text(row, module, reason, jax))
    args.out.write_text("".join(parts))
    print(f"jax.config: {len(config)} rows from {len(read)} releases; jaxlib: "
          f"{sum(r.kind == 'module' for r in lib)} modules, {sum(r.kind == 'symbol' for r in lib)} names from "
          f"{len(lib_read)} releases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
