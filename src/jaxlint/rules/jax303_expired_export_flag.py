"""JAX303 expired-export-flag: ``jax_export_deserialize_expired_versions`` enabled from code."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst
else:
    from jaxlint.lint.lazy_libcst import cst

from jaxlint.analysis import ast_calls
from jaxlint.lint.ast_findings import AstFinding, AstView
from jaxlint.rules.base import Invalid, Valid
from jaxlint.analysis.calls import literal_value, string_value
from jaxlint.rules.jax102_removed_config_option import AstConfigAccess, ConfigAccessRule, Setting, _spellings

FLAG = "jax_export_deserialize_expired_versions"
FLAG_SINCE = "0.11.1"
# JAX's boolean environment parsing: these mean False (anything else it does not reject means True).
_FALSE_TEXTS = frozenset({"n", "no", "f", "false", "off", "0"})


class ExpiredExportFlag(ConfigAccessRule):
    code = "JAX303"
    name = "expired-export-flag"
    summary = "jax_export_deserialize_expired_versions enabled from code: a migration crutch to remove"
    since = FLAG_SINCE
    triggers = ("export_deserialize_expired_versions", "EXPORT_DESERIALIZE_EXPIRED_VERSIONS")
    # Decided from ``ast`` (``findings_from_ast``) where the settings are spelled plainly (no finding has a fix).
    decides_from_ast = True
    explanation = """
## What it does
Finds code that turns on `jax_export_deserialize_expired_versions`: `jax.config.update(...)` (however `jax.config`
is imported, or through a name the value inference knows holds it: `cfg = jax.config`) or an assignment to
`jax.config.jax_export_deserialize_expired_versions` with a value that is not literally false, and the environment variable `JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS` set from code
(`os.environ[...] = ...`, `setdefault`, `update`, `os.putenv`) to anything but a false string (`"0"`, `"false"`,
`"no"`, `"off"`, ...).

## Why
From JAX 0.11.1 the deserializer refuses `jax.export` artifacts older than the 6-month compatibility window
(written by JAX 0.8.1 or earlier):
`ValueError: Exported being deserialized seems to be older than the 6-month backward-compatibility window and
cannot be deserialized anymore.The Exported uses serialization version 2. See
https://docs.jax.dev/en/latest/export/export.html#compatibility-guarantees.` (missing space verbatim). The flag
(new in 0.11.1, default False) turns that error into a `DeprecationWarning` with the same text: a temporary
migration crutch. It does not help for sharded exports that store only HloShardings (written before 2026-01-15,
e.g. by 0.8.2): those raise `ValueError` even with the flag. JAX versions before 0.11.1 do not know the flag, so
`jax.config.update` raises `AttributeError: Unrecognized config option: jax_export_deserialize_expired_versions`
there.

The lasting fix is in the data: deserialize the old artifacts with JAX 0.10.2 or 0.11.0 and `.serialize()` them
again (the result loads on 0.12.0.1 without the flag and computes the same values; `jaxlint exports migrate` does
this and checks it), then remove the flag.

## Example
```python
jax.config.update("jax_export_deserialize_expired_versions", True)
exp = jax.export.deserialize(old_blob)
```
Re-serialize `old_blob` once (`jaxlint exports migrate`), then:
```python
exp = jax.export.deserialize(new_blob)
```

## Fix safety
No fix: the flag is needed until the artifacts are re-serialized, which is a change to data, not code.

## JAX version
0.11.1 (`jax/_src/export/serialization.py`; `jax/_src/config.py`).
"""

    VALID = [
        Valid("""
            import jax
            jax.config.update("jax_export_deserialize_expired_versions", False)
        """, note="explicitly off"),
        Valid("""
            import os
            os.environ["JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS"] = "0"
            os.environ.setdefault("JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS", "false")
        """, note="environment variable set to false"),
        Valid("""
            import jax
            enabled = jax.config.jax_export_deserialize_expired_versions
        """, note="reading the flag"),
        Valid("""
            import jax
            if hasattr(jax.config, "jax_export_deserialize_expired_versions"):
                jax.config.update("jax_export_deserialize_expired_versions", True)
        """, note="compat code behind hasattr(jax.config, ...)"),
        Valid("""
            import jax
            def update(name, value): ...
            update("jax_export_deserialize_expired_versions", True)
        """, note="not jax.config.update"),
        Valid("""
            import jax
            def enable(options):
                options.update("jax_export_deserialize_expired_versions", True)
        """, note="update on a parameter of unknown type"),
        Valid("""
            import jax
            jax.config.update("jax_export_deserialize_expired_versions", True)
        """, target_version="0.11.0", note="target before the flag exists"),
    ]

    INVALID = [
        Invalid("""
            import jax
            jax.config.update("jax_export_deserialize_expired_versions", True)
        """, note="enabled with jax.config.update"),
        Invalid("""
            from jax import config as cfg
            cfg.update("jax_export_deserialize_expired_versions", allow_old)
        """, note="a value that may be true"),
        Invalid("""
            import jax
            jax.config.jax_export_deserialize_expired_versions = True
        """, note="attribute assignment"),
        Invalid("""
            import jax

            def load_artifacts(paths):
                cfg = jax.config
                cfg.update("jax_export_deserialize_expired_versions", True)
                return [open(p, "rb").read() for p in paths]
        """, note="jax.config bound to a local name"),
        Invalid("""
            import os
            os.environ["JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS"] = "1"
            import jax
        """, note="environment variable"),
        Invalid("""
            from os import environ
            environ.update({"JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS": "true", "XLA_FLAGS": ""})
        """, note="os.environ.update"),
        Invalid("""
            import os
            os.putenv("JAX_EXPORT_DESERIALIZE_EXPIRED_VERSIONS", "yes")
        """, note="os.putenv"),
        Invalid("""
            import jax
            jax.config.update("jax_export_deserialize_expired_versions", True)
        """, min_version="0.10.2", note="min version before the flag: the message says it raises there"),
    ]

    def watched(self, flag: str) -> bool:
        return flag == FLAG

    def on_setting(self, setting: Setting) -> None:
        if setting.kind not in ("update", "write", "env") or self._is_false(setting):
            return
        self.report(setting.node, self._message(setting.kind, setting.spelled))

    def _message(self, kind: str, spelled: str) -> str:
        message = (f"`{spelled or FLAG}` enables loading `jax.export` artifacts older than the 6-month "
                   f"compatibility window (JAX {FLAG_SINCE}+): a temporary migration crutch; re-serialize the "
                   f"artifacts (deserialize and `.serialize()` them with JAX 0.10.2 or 0.11.0, e.g. with "
                   f"`jaxlint exports migrate`) and remove this setting")
        if kind in ("update", "write") and not self.min_version_at_least(FLAG_SINCE):
            message += (f"; JAX before {FLAG_SINCE} (min version {self.settings.min_version}) raises "
                        f"`AttributeError: Unrecognized config option: {FLAG}` here")
        return message

    def _is_false(self, setting: Setting) -> bool:
        value = setting.value
        if value is None:
            return False
        if setting.kind == "env":
            text = string_value(value)
            return text is not None and text.strip().lower() in _FALSE_TEXTS
        if isinstance(value, (cst.Name, cst.Integer)):
            try:
                return not literal_value(value, self.context.module)
            except (ValueError, SyntaxError):
                return False
        return False

    # -- the same findings from ``ast`` (``jaxlint.lint.ast_findings``) -------------------------------------------
    @classmethod
    def findings_from_ast(cls, view: AstView) -> list[AstFinding]:
        """What ``ConfigAccessRule``'s visit hands ``on_setting`` and this rule reports, from the ``ast`` tree
        (``AstConfigAccess``: ``Undecidable`` where only libcst's inference follows a receiver, and for a variable
        passed by keyword to ``os.environ.update``: libcst reports the keyword's name, which ``ast`` has no node
        for)."""
        if not cls.applies_to(view.settings):
            return []  # (the engine does not ask then)
        if all(text.lower() != FLAG for text in _spellings(view.nodes)):
            return []  # every setting spells the flag or its variable as a string, an attribute or a keyword
        rule = view.rule(cls)
        return [AstFinding(cls.code, setting.node, rule._message(setting.kind, setting.spelled))
                for setting in AstConfigAccess(view, rule, _REPORTED_KINDS).settings()
                if not _is_false_ast(setting.kind, setting.value)]


_REPORTED_KINDS = frozenset({"update", "write", "env"})  # ``on_setting``: reads and compiler options are no finding


def _is_false_ast(kind: str, value: ast.AST | None) -> bool:
    """``_is_false`` on ``ast``: libcst's names ``True``, ``False``, ``None`` are constants here, and its literal
    reading of any other name fails (then the value may be true)."""
    if value is None:
        return False
    if kind == "env":
        text = ast_calls.string_value(value)
        return text is not None and text.strip().lower() in _FALSE_TEXTS
    if type(value) is ast.Constant and (value.value is None or type(value.value) in (bool, int)):
        return not value.value
    return False
