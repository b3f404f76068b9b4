"""``jaxlint server`` driven over stdio the way an editor drives it (JSON-RPC with Content-Length framing)."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from jaxlint.ui.server import utf16_column  # noqa: E402

WRAP = "jnp.take_along_axis(x, idx, axis=0, wrap_negative_indices=None)"
SOURCE = f"import jax.numpy as jnp\nfrom jax.experimental import export\ny = {WRAP}\nz = 1  # noqa: JAX202\n"
TIMEOUT = 30


class Editor:
    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "jaxlint", "server", "--stdio"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, value = line.split(":", 1)
                headers[key.lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict | None):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        message = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in message, message
        return message["result"]

    def wait(self, matches):
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            if matches(message):
                return message

    def diagnostics(self, uri: str) -> list[dict]:
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri)
        return message["params"]["diagnostics"]

    def close(self) -> int:
        self.request("shutdown", None)
        self.notify("exit", {})
        return self.process.wait(timeout=TIMEOUT)


@pytest.fixture
def editor(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-select = ["JAX001"]\n')
    client = Editor(tmp_path)
    result = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    client.init_result = result
    yield client
    if client.process.poll() is None:
        client.process.kill()


def codes(diagnostics: list[dict]) -> list[tuple[str, int, int]]:
    return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in diagnostics]


def test_lsp_session(editor, tmp_path):
    capabilities = editor.init_result["capabilities"]
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.jaxlint"]
    assert editor.init_result["serverInfo"]["name"] == "jaxlint"
    uri = (tmp_path / "model.py").as_uri()

    # open: diagnostics published, 0-based positions, no docs link (none online), JAX001 marked unnecessary
    editor.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": SOURCE}})
    diagnostics = editor.diagnostics(uri)
    assert codes(diagnostics) == [("JAX302", 1, 0), ("JAX202", 2, 4), ("JAX001", 3, 7)]
    assert diagnostics[0]["source"] == "jaxlint" and "codeDescription" not in diagnostics[0]
    assert diagnostics[2]["tags"] == [1] and diagnostics[2]["severity"] == 2

    # quick fix for the finding under the cursor
    actions = editor.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 2, "character": 10}, "end": {"line": 2,
                                                                                                "character": 10}},
        "context": {"diagnostics": diagnostics[1:2]}})
    quick = [a for a in actions if a["kind"] == "quickfix"]
    assert len(quick) == 1 and "JAX202" in quick[0]["title"] and quick[0]["isPreferred"] is True
    (edit,) = quick[0]["edit"]["changes"][uri]
    assert edit["newText"] == "True"
    assert edit["range"]["start"] == {"line": 2, "character": SOURCE.splitlines()[2].index("None")}
    fix_all = [a for a in actions if a["kind"] == "source.fixAll.jaxlint"]
    assert len(fix_all) == 1

    # fix all safe, as an editor asks on save with `only`
    actions = editor.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0,
                                                                                               "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    assert [a["kind"] for a in actions] == ["source.fixAll.jaxlint"]
    (edit,) = actions[0]["edit"]["changes"][uri]
    fixed = edit["newText"]
    assert fixed == SOURCE.replace("jax.experimental import", "jax import").replace("None)", "True)").replace(
        "  # noqa: JAX202", "")
    assert edit["range"]["start"] == {"line": 0, "character": 0}

    # change: the editor applied the edit (full-text change); diagnostics are republished, empty
    editor.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": fixed}]})
    assert editor.diagnostics(uri) == []

    # incremental change that reintroduces a finding, then save
    column = fixed.splitlines()[2].index("True")
    editor.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{
        "range": {"start": {"line": 2, "character": column}, "end": {"line": 2, "character": column + 4}},
        "text": "None"}]})
    assert codes(editor.diagnostics(uri)) == [("JAX202", 2, 4)]
    editor.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert codes(editor.diagnostics(uri)) == [("JAX202", 2, 4)]

    editor.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert editor.diagnostics(uri) == []
    assert editor.close() == 0


def test_unsafe_fix_is_offered_but_not_preferred_and_not_in_fix_all(editor, tmp_path):
    uri = (tmp_path / "m.py").as_uri()
    text = "import jax.numpy as jnp\nw = jnp.take_along_axis(x, i, axis=0, mode=m)\n"
    editor.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": text}})
    editor.diagnostics(uri)
    actions = editor.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 5,
                                                                                               "character": 0}},
        "context": {"diagnostics": []}})
    assert all(a["kind"] != "source.fixAll.jaxlint" for a in actions if "unsafe" in a["title"])
    assert editor.close() == 0


def test_utf16_columns():
    assert utf16_column("x = 'é'", 6) == 5
    assert utf16_column("s = '😀' + jnp", 12) == 12  # the emoji is two UTF-16 units


def test_server_help():
    run = subprocess.run([sys.executable, "-m", "jaxlint", "server", "--help"], capture_output=True, text=True)
    assert run.returncode == 0 and "language server" in run.stdout
