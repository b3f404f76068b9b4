"""Issue 24 items 5 and 8: where there is no fix, the one-line message (the default output) says what to do, and
says it right: the host_callback functions, colab_tpu, thread_resources, device_put_replicated, jnp.NINF,
maps.mesh, and JAX103's keywords in one sentence. Exact texts: each is what a user reads."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from jaxlint.catalogue import load
from jaxlint.catalogue.messages import jax_message
from tests.cli.test_cli import run

HCB_MESSAGE = ("The host_callback APIs are deprecated as of March 20, 2024. The functionality is subsumed by the new "
               "JAX external callbacks. See https://github.com/jax-ml/jax/issues/20385.")


def messages(tmp_path: Path, source: str, *args: str, row: int | None = None) -> list[tuple[str, str]]:
    """(code, message) of every finding in ``source`` (on line ``row`` only, when given)."""
    (tmp_path / "m.py").write_text(source)
    result = run(["check", "--no-cache", "--output-format", "json", *args, "m.py"], tmp_path)
    return [(f["code"], f["message"]) for f in json.loads(result.output)
            if row is None or f["location"]["row"] == row]


@pytest.mark.parametrize("call,advice", [
    ("id_tap(f, x)", "use `jax.debug.callback(fn, x)`, whose `fn` takes the value alone (no `transforms`), or "
                     "`jax.experimental.io_callback` for ordered side effects"),
    ("id_print(x)", 'use `jax.debug.print("{x}", x=x)`'),
    ("call(f, x, result_shape=x)", "use `jax.pure_callback(fn, result_shape, x)` for a pure host function, or "
                                   "`jax.experimental.io_callback(fn, result_shape, x, ordered=True)` for one with "
                                   "side effects"),
    ("barrier_wait()", "use `jax.effects_barrier()`"),
    ("stop_outfeed_receiver()", "delete the call: the new callbacks have no outfeed receiver to stop"),
])
def test_each_host_callback_function_names_its_replacement(tmp_path, call, advice):
    name = call.partition("(")[0]
    removed = load().symbol(f"jax.experimental.host_callback.{name}").removed_in
    got = messages(tmp_path, f"import jax.experimental.host_callback as hcb\nhcb.{call}\n", row=2)
    assert got == [("JAX101", f"`jax.experimental.host_callback.{name}` was removed in JAX {removed}; {advice}")]


def test_the_host_callback_import_says_where_each_function_went(tmp_path):
    assert messages(tmp_path, "from jax.experimental import host_callback\n") == [(
        "JAX101", "`jax.experimental.host_callback` was removed in JAX 0.8.0; move to the external callbacks: "
                  "`jax.debug.callback` / `jax.debug.print` (was `id_tap` / `id_print`), `jax.pure_callback` or "
                  "`jax.experimental.io_callback` (was `call`), `jax.effects_barrier` (was `barrier_wait`)")]


@pytest.mark.parametrize("name", ["id_tap", "id_print", "call", "barrier_wait", "stop_outfeed_receiver"])
def test_host_callback_rows_carry_jax_text_not_its_variable_name(name):
    assert jax_message(load().symbol(f"jax.experimental.host_callback.{name}")) == HCB_MESSAGE


def test_colab_tpu_says_to_delete_the_setup(tmp_path):
    assert messages(tmp_path, "from jax.tools import colab_tpu\ncolab_tpu.setup_tpu()\n") == [(
        "JAX101", "`jax.tools.colab_tpu` was removed in JAX 0.9.2; delete the import and its `setup_tpu()` call: "
                  "JAX runs only on TPU VMs, which need no setup (`setup_tpu()` has raised `RuntimeError` since "
                  "JAX 0.4.7)")]


def test_maps_thread_resources_says_how_to_read_the_mesh(tmp_path):
    assert messages(tmp_path, "from jax.experimental.maps import thread_resources\n") == [(
        "JAX101", "`jax.experimental.maps.thread_resources` was removed in JAX 0.4.31; pass the mesh explicitly, or "
                  "read the current one with `jax.sharding.get_abstract_mesh()` (JAX 0.5.3+) under "
                  "`with jax.set_mesh(mesh):` (JAX 0.7.1+)")]


def test_jax402_thread_resources_reads_the_mesh_with_get_abstract_mesh(tmp_path):
    source = "from jax.interpreters import pxla\nmesh = pxla.thread_resources.env.physical_mesh\n"
    assert messages(tmp_path, source) == [(
        "JAX402", "`jax.interpreters.pxla.thread_resources` is deprecated since JAX 0.8.2; read the current mesh "
                  "with `jax.sharding.get_abstract_mesh()` (JAX 0.5.3+), under `with jax.set_mesh(mesh):` "
                  "(JAX 0.7.1+) in place of `with mesh:`")]


def test_device_put_replicated_gives_the_drop_in_in_the_default_output(tmp_path):
    source = "import jax\nx = jax.device_put_replicated(x, jax.devices())\n"
    assert messages(tmp_path, source) == [(
        "JAX101", "`jax.device_put_replicated` was removed in JAX 0.10.0; no drop-in in JAX: "
                  "`jax.device_put(jnp.stack([x] * len(devices)), NamedSharding(Mesh(devices, ('x',)), P('x')))` "
                  "does what it did (see https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements); "
                  "`jax.device_put(x, NamedSharding(mesh, P()))` replicates without the leading axis")]


def test_ninf_keeps_the_sign(tmp_path):
    assert messages(tmp_path, "import jax.numpy as jnp\nx = jnp.NINF\n") == [
        ("JAX101", "`jax.numpy.NINF` was removed in JAX 0.4.24; use `-jax.numpy.inf`")]


def test_maps_mesh_cites_its_own_removal(tmp_path):
    assert messages(tmp_path, "from jax.experimental.maps import mesh\n") == [
        ("JAX101", "`jax.experimental.maps.mesh` was removed in JAX 0.3.8; use `jax.sharding.Mesh`")]
    assert messages(tmp_path, "import jax.experimental.maps\nwith jax.experimental.maps.mesh(d, ('x',)):\n    pass\n",
                    "--min-version", "0.3.25") == [
        ("JAX101", "`jax.experimental.maps` was removed in JAX 0.4.31"),
        ("JAX101", "`jax.experimental.maps.mesh` was removed in JAX 0.3.8; use `jax.sharding.Mesh` (JAX 0.4.1+)")]


def test_jax103_names_both_clip_keywords_in_one_sentence(tmp_path):
    assert messages(tmp_path, "import jax.numpy as jnp\ny = jnp.clip(x, a_min=0, a_max=1)\n") == [(
        "JAX103", "`jnp.clip(a_min=..., a_max=...)`: the keywords are rejected since JAX 0.10.0 (`TypeError`); "
                  "use `min=`, `max=` (JAX 0.4.27+)")]
    assert messages(tmp_path, "import jax.numpy as jnp\ny = jnp.clip(x, a_max=1)\n") == [(
        "JAX103", "`jnp.clip(a_max=...)`: the keyword is rejected since JAX 0.10.0 (`TypeError`); "
                  "use `max=` (JAX 0.4.27+)")]
