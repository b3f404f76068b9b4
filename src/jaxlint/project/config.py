"""Configuration files: discovery (closest file wins), validation, and merging with command-line options.

Files, in priority order within one directory: ``.jaxlint.toml``, ``jaxlint.toml``, ``pyproject.toml`` (only if it
has a ``[tool.jaxlint]`` table). Unknown keys and bad values are errors naming the file and the key, never ignored.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Collection

from jaxlint.project.settings import OUTPUT_FORMATS, SELECTOR_RE, Settings
from jaxlint.project.toml_parser import toml_parser
from jaxlint.project.version_pins import PinnedRange, ProjectPins
from jaxlint.project.versions import Version

CONFIG_NAMES = (".jaxlint.toml", "jaxlint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration problem the user must fix; printed as ``jaxlint: error: ...`` with exit code 2."""


# -- validation ------------------------------------------------------------------------------------------------
def _codes(file: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{file}: `{key}` must be a list of rule codes or prefixes, got {value!r}")
    return tuple(validate_selector(v, f"{file}: `{key}`") for v in value)


def validate_selector(selector: str, where: str) -> str:
    from jaxlint.rules import known_codes

    selector = selector.strip().upper()
    if not SELECTOR_RE.match(selector):
        raise ConfigError(f"{where}: `{selector}` is not a rule code or prefix (expected e.g. JAX201, JAX2 or JAX)")
    if selector != "ALL" and not any(code.startswith(selector) for code in known_codes()):
        raise ConfigError(f"{where}: `{selector}` matches no rule (see `jaxlint rules`)")
    return selector


def _strings(file: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{file}: `{key}` must be a list of strings, got {value!r}")
    return tuple(value)


def _version(file: Path, key: str, value: Any) -> Version:
    if not isinstance(value, str):
        raise ConfigError(f"{file}: `{key}` must be a version string such as \"0.11.1\", got {value!r}")
    try:
        return Version(value)
    except ValueError as error:
        raise ConfigError(f"{file}: `{key}`: {error}") from None


def _bool(file: Path, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{file}: `{key}` must be true or false, got {value!r}")
    return value


def _output_format(file: Path, key: str, value: Any) -> str:
    if value not in OUTPUT_FORMATS:
        raise ConfigError(f"{file}: `{key}` must be one of {', '.join(OUTPUT_FORMATS)}, got {value!r}")
    return value


def _per_file_ignores(file: Path, key: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{file}: `{key}` must be a table of glob = [codes], got {value!r}")
    return tuple((pattern, _codes(file, f"{key}.{pattern}", codes)) for pattern, codes in value.items())


def _rule_folders(file: Path, key: str, value: Any) -> tuple[Path, ...]:
    """Folders of rule files, relative to the config file; every file is read and validated here."""
    from jaxlint.catalogue.extend import RulesFileError, read_folder

    folders = tuple((file.parent / folder).resolve() for folder in _strings(file, key, value))
    for folder in folders:
        try:
            read_folder(folder)
        except RulesFileError as error:
            raise ConfigError(f"{file}: `{key}`: {error}") from None
    return folders


_KEYS: dict[str, tuple[str, Callable[[Path, str, Any], Any]]] = {
    "select": ("select", _codes),
    "extend-select": ("extend_select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "exclude": ("exclude", _strings),
    "extend-exclude": ("extend_exclude", _strings),
    "target-version": ("target_version", _version),
    "min-version": ("explicit_min_version", _version),
    "unsafe-fixes": ("unsafe_fixes", _bool),
    "output-format": ("output_format", _output_format),
    "respect-gitignore": ("respect_gitignore", _bool),
    "extend-rules": ("extend_rules", _rule_folders),
}


def _did_you_mean(key: str) -> str:
    """`` (did you mean `exclude`?)`` for a key close to a known one (a typo, ``_`` for ``-``), else ``""``."""
    import difflib

    candidate = key.replace("_", "-").lower()
    if candidate in _KEYS:
        return f" (did you mean `{candidate}`?)"
    close = difflib.get_close_matches(candidate, list(_KEYS), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def parse_config_table(file: Path, table: dict[str, Any]) -> dict[str, Any]:
    """The validated values of a ``[tool.jaxlint]`` table; every problem in it is reported at once, one per line."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in table.items():
        if key not in _KEYS:
            problems.append(f"{file}: unknown key `{key}` in jaxlint settings{_did_you_mean(key)}; known keys: "
                            + ", ".join(_KEYS))
            continue
        field_name, validate = _KEYS[key]
        try:
            values[field_name] = validate(file, key, value)
        except ConfigError as error:
            problems.append(str(error))
    if problems:
        raise ConfigError("\n".join(problems))
    return values


def read_config_file(file: Path) -> dict[str, Any] | None:
    """The validated settings of one file, or None for a ``pyproject.toml`` without ``[tool.jaxlint]``."""
    tomllib = toml_parser()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{file}: invalid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: cannot read: {error}") from None
    if file.name == "pyproject.toml":
        tool = data.get("tool", {})
        if "jaxlint" not in tool:
            return None
        table = tool["jaxlint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{file}: [tool.jaxlint] must be a table")
    else:
        table = data  # jaxlint.toml / .jaxlint.toml hold the keys at top level, like ruff.toml
    return parse_config_table(file, table)


def find_config_file(directory: Path | str, seen: dict[str, Path | None] | None = None,
                     names: Collection[str] | None = None) -> Path | None:
    """The closest configuration file at or above ``directory`` (resolved); ``seen`` caches that answer for each
    folder on the way (sibling directories share their parents: a run over a tree would otherwise test the same
    parents for every folder, and walk up to ``/`` for each when there is no config). ``names``: ``directory``'s
    entries when the caller has just listed it (a walk), so that no config name is tested there unless it is
    present. Plain strings: this runs for every folder of a walk."""
    seen = {} if seen is None else seen
    folder = os.fspath(directory)
    walked = []
    while True:
        found = seen.get(folder, _UNSEEN)
        if found is not _UNSEEN:
            break
        walked.append(folder)
        found = _config_in(folder, names)
        if found is not None:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder, names = parent, None  # the walk listed only ``directory``
    for folder in walked:
        seen[folder] = found
    return found


_UNSEEN = object()


def _config_in(folder: str, names: Collection[str] | None = None) -> Path | None:
    """The configuration file in ``folder`` itself; ``names``, when given, are the folder's entries: a config name
    that is not among them is no file there (the common case costs no ``stat``), one that is is still tested as
    before (a folder named ``pyproject.toml``, a broken link)."""
    for name in CONFIG_NAMES:
        if names is not None and name not in names:
            continue
        candidate = Path(folder, name)
        if candidate.is_file() and (name != "pyproject.toml" or _has_jaxlint_table(candidate)):
            return candidate
    return None


def _has_jaxlint_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return "[tool.jaxlint" in text or "tool.jaxlint" in text


# -- command-line overrides --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Overrides:
    """Options given on the command line; None means "not given"."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    target_version: Version | None = None
    min_version: Version | None = None
    unsafe_fixes: bool | None = None
    output_format: str | None = None
    config_file: Path | None = None
    isolated: bool = False
    exclude: tuple[str, ...] | None = None  # replaces the configured `exclude`
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    # Where ``min_version`` comes from when not the command line.
    min_version_source: str | None = None
    # ``jaxlint upgrade``'s raised floors, per package (a monorepo's packages each have their own pins):
    # (package folder, min version, where it comes from). A package's files take its floor instead of the pins'
    # lower bound, unless the command line or the config gives a min version.
    package_floors: tuple[tuple[Path, Version, str], ...] = ()


class SettingsResolver:
    """Settings for each file from the closest configuration file, with the version range of the file's own package
    (``version_pins``) unless a min version is given; cached per directory, and per (config, package)."""

    def __init__(self, overrides: Overrides, cwd: Path | None = None) -> None:
        self.overrides = overrides
        self.cwd = (cwd or Path.cwd()).resolve()
        self._by_directory: dict[str, Settings] = {}
        self._by_config: dict[Path | None, Settings] = {}
        self._by_config_and_pins: dict[tuple[Path | None, PinnedRange | None], Settings] = {}
        self.pins = ProjectPins(self.cwd)
        self._by_key: dict[Path, Settings] = {}
        self._config_above: dict[str, Path | None] = {}  # each folder's closest config
        self._package_floors = {package: (version, source) for package, version, source in overrides.package_floors}

    def for_path(self, path: Path) -> Settings:
        key = path if path.is_dir() else path.parent
        found = self._by_key.get(key)  # before resolving: a run asks once per file, for few directories
        if found is None:
            found = self._by_key[key] = self._for_directory(str(key.resolve()))
        return found

    def for_resolved_directory(self, directory: str, names: Collection[str] | None = None) -> Settings:
        """``for_path`` of a folder whose real path the caller knows (a walk does): no stat, no resolving.
        ``names``: the folder's entries, when the caller has just listed it: its config and pin files are found among
        them, without a ``stat`` per config name, a listing or a ``.git`` test of its own."""
        found = self._by_directory.get(directory)
        if found is None:
            found = self._for_directory(directory, names)
        return found

    def _for_directory(self, directory: str, names: Collection[str] | None = None) -> Settings:
        if directory not in self._by_directory:
            if self.overrides.isolated:
                config = None
            elif self.overrides.config_file is not None:
                config = self.overrides.config_file.resolve()
            else:
                config = find_config_file(directory, self._config_above, names)
            self._by_directory[directory] = self._with_pins(self._settings_for_config(config), directory, names)
        return self._by_directory[directory]

    def _with_pins(self, settings: Settings, directory: str, names: Collection[str] | None) -> Settings:
        """``directory``'s package range; its lower bound is the min version unless the command line or the config
        gives one."""
        pinned = self.pins.for_directory(directory, names)
        key = (settings.config_file, pinned)
        if key not in self._by_config_and_pins:
            raised = self._package_floors.get(pinned.package) if pinned is not None else None
            if settings.explicit_min_version is None and raised is not None:
                settings = replace(settings, explicit_min_version=raised[0], min_version_source=raised[1],
                                   pinned=pinned)
                _check_range(settings)
            elif settings.explicit_min_version is None and pinned is not None and pinned.lower is not None:
                settings = replace(settings, explicit_min_version=pinned.lower.version,
                                   min_version_source=str(pinned.lower), pinned=pinned)
                _check_range(settings)
            else:
                settings = replace(settings, pinned=pinned)
            self._by_config_and_pins[key] = settings
        return self._by_config_and_pins[key]

    def _settings_for_config(self, config: Path | None) -> Settings:
        if config in self._by_config:
            return self._by_config[config]
        root = config.parent if config is not None else self.cwd
        values = read_config_file(config) if config is not None else {}
        settings = Settings(config_file=config, root=root, default_excludes="exclude" not in (values or {}),
                            **(values or {}))
        if "explicit_min_version" in (values or {}):
            settings = replace(settings, min_version_source=f"{config.name}: min-version")
        settings = self._apply_overrides(settings)
        self._by_config[config] = settings
        return settings

    def _apply_overrides(self, settings: Settings) -> Settings:
        o = self.overrides
        changes: dict[str, Any] = {}
        if o.select is not None:
            changes["select"] = o.select
            changes["extend_select"] = ()
        if o.extend_select:
            changes["extend_select"] = (changes.get("extend_select", settings.extend_select) + o.extend_select)
        if o.ignore:
            changes["ignore"] = settings.ignore + o.ignore
        if o.target_version is not None:
            changes["target_version"] = o.target_version
        if o.unsafe_fixes is not None:
            changes["unsafe_fixes"] = o.unsafe_fixes
        if o.output_format is not None:
            changes["output_format"] = o.output_format
        if o.exclude is not None:
            changes["exclude"] = o.exclude
            changes["default_excludes"] = False
        if o.extend_exclude:
            changes["extend_exclude"] = settings.extend_exclude + o.extend_exclude
        if o.respect_gitignore is not None:
            changes["respect_gitignore"] = o.respect_gitignore
        if o.min_version is not None:
            changes["explicit_min_version"] = o.min_version
            changes["min_version_source"] = o.min_version_source or "--min-version"
        settings = replace(settings, **changes)
        _check_range(settings)
        return settings


def _check_range(settings: Settings) -> None:
    if settings.explicit_min_version is not None and settings.explicit_min_version > settings.target_version:
        raise ConfigError(f"the min version {settings.explicit_min_version} ({settings.min_version_source}) is "
                          f"newer than the target version {settings.target_version}")
