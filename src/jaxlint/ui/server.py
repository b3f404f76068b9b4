"""``jaxlint server``: a Language Server (LSP over stdio, with pygls) for editors.

- publishes diagnostics on open, change and save (cleared on close) for Python files, with the project's settings
  (the closest ``pyproject.toml`` / ``jaxlint.toml``, as on the command line);
- offers each fix as a ``quickfix`` code action (unsafe ones say so and are never preferred), and
  "Fix all safe jaxlint fixes" as a ``source.fixAll.jaxlint`` source action (what editors run on save);
- JAX001 unused-noqa findings are included, with their fix.

Needs the optional dependency: ``pip install 'jaxlint[lsp]'`` (pygls). Without it the command explains that.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from lsprotocol import types

SOURCE = "jaxlint"
FIX_ALL_KIND = "source.fixAll.jaxlint"


# -- conversions (pure functions, tested without a server) --------------------------------------------------------
def utf16_column(line: str, column: int) -> int:
    """A 1-based code-point column in ``line`` as the 0-based UTF-16 offset LSP wants."""
    prefix = line[:max(column - 1, 0)]
    return len(prefix.encode("utf-16-le")) // 2


def _position(lines: list[str], location):
    from lsprotocol import types

    row = location.row - 1
    line = lines[row] if 0 <= row < len(lines) else ""
    return types.Position(line=max(row, 0), character=utf16_column(line, location.column))


def _range(lines: list[str], start, end):
    from lsprotocol import types

    return types.Range(start=_position(lines, start), end=_position(lines, end))


def lint_text(text: str, path: str, settings) -> list:
    from jaxlint.lint.diagnostics import Diagnostic
    from jaxlint.lint.engine import lint_source
    from jaxlint.run.noqa_add import unused_noqa

    found = lint_source(text, path, settings).diagnostics + unused_noqa(text, path, settings)
    return sorted(found, key=Diagnostic.sort_key)


def to_lsp_diagnostic(text_lines: list[str], d):
    from lsprotocol import types

    return types.Diagnostic(
        range=_range(text_lines, d.start, d.end),
        message=d.message,
        severity=types.DiagnosticSeverity.Warning if d.code == "JAX001" else types.DiagnosticSeverity.Error,
        code=d.code,
        code_description=types.CodeDescription(href=d.url) if d.url else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if d.code == "JAX001" else None,
        data={"fixable": d.fix is not None},
    )


def _lines(text: str) -> list[str]:
    return [line.rstrip("\r") for line in text.split("\n")]


def _whole_document_edit(text: str, new_text: str):
    from lsprotocol import types

    lines = _lines(text)
    end = types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
    return types.TextEdit(range=types.Range(start=types.Position(line=0, character=0), end=end), new_text=new_text)


def fix_all_safe(text: str, path: str, settings) -> str:
    from jaxlint.lint.engine import fix_source
    from jaxlint.run.noqa_add import remove_unused_noqa, unused_noqa

    fixed = fix_source(text, path, settings, unsafe=False).source
    return remove_unused_noqa(fixed, unused_noqa(fixed, path, settings))


def _overlaps(a, b) -> bool:
    return not ((a.end.line, a.end.character) < (b.start.line, b.start.character)
                or (b.end.line, b.end.character) < (a.start.line, a.start.character))


def code_actions(text: str, uri: str, path: str, settings, request_range, only: list[str] | None) -> list:
    from lsprotocol import types

    lines = _lines(text)
    actions = []
    want_quickfix = not only or any(types.CodeActionKind.QuickFix.value.startswith(k) or
                                    k.startswith(types.CodeActionKind.QuickFix.value) for k in only)
    want_fix_all = not only or any(FIX_ALL_KIND.startswith(k) for k in only)
    diagnostics = lint_text(text, path, settings)
    if want_quickfix:
        for d in diagnostics:
            if d.fix is None:
                continue
            lsp = to_lsp_diagnostic(lines, d)
            if not _overlaps(lsp.range, request_range):
                continue
            edits = [types.TextEdit(range=_range(lines, e.location, e.end_location), new_text=e.content)
                     for e in d.fix.edits]
            unsafe = d.fix.applicability.value == "unsafe"
            actions.append(types.CodeAction(
                title=f"{d.fix.message} ({d.code}{', unsafe' if unsafe else ''})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp],
                is_preferred=not unsafe,
                edit=types.WorkspaceEdit(changes={uri: edits}),
            ))
    if want_fix_all and any(d.fix is not None and d.fix.applicability.value == "safe" for d in diagnostics):
        fixed = fix_all_safe(text, path, settings)
        if fixed != text:
            actions.append(types.CodeAction(
                title="Fix all safe jaxlint fixes",
                kind=FIX_ALL_KIND,
                edit=types.WorkspaceEdit(changes={uri: [_whole_document_edit(text, fixed)]}),
            ))
    return actions


# -- the server --------------------------------------------------------------------------------------------------
def _is_python(uri: str) -> bool:
    return uri.endswith((".py", ".pyi")) or not uri.startswith("file:")


def build_server():
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    from jaxlint import __version__
    from jaxlint.project.config import ConfigError, Overrides, SettingsResolver

    server = LanguageServer("jaxlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    resolver = SettingsResolver(Overrides())

    def path_and_settings(uri: str):
        path = to_fs_path(uri) or uri
        try:
            settings = resolver.for_path(Path(path))
        except ConfigError as error:
            server.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"jaxlint: {error}"))
            return path, None
        return path, settings

    def publish(uri: str) -> None:
        if not _is_python(uri):
            return
        document = server.workspace.get_text_document(uri)
        path, settings = path_and_settings(uri)
        if settings is None:
            return
        text = document.source
        try:
            found = lint_text(text, path, settings)
        except Exception as error:  # noqa: BLE001 - the editor session must survive a bug
            server.window_log_message(types.LogMessageParams(types.MessageType.Error,
                                                             f"jaxlint failed on {path}: {error!r}"))
            return
        lines = _lines(text)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=document.version, diagnostics=[to_lsp_diagnostic(lines, d) for d in found]))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: types.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseTextDocumentParams) -> None:
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                                diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False))
    def code_action(ls, params: types.CodeActionParams):
        uri = params.text_document.uri
        if not _is_python(uri):
            return []
        path, settings = path_and_settings(uri)
        if settings is None:
            return []
        text = server.workspace.get_text_document(uri).source
        return code_actions(text, uri, path, settings, params.range, params.context.only)

    return server


@click.command("server")
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin/stdout (the default and only transport).")
def server_command(stdio: bool) -> None:
    """Run the jaxlint language server (LSP over stdio) for editors."""
    try:
        server = build_server()
    except ImportError as error:
        click.echo(f"jaxlint: error: the language server needs pygls ({error}); install it with "
                   "`pip install 'jaxlint[lsp]'`", err=True)
        sys.exit(2)
    server.start_io()
