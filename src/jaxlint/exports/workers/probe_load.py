"""Deserialize each artifact in this JAX (and parse its StableHLO) to learn whether it loads; nothing is executed.

Request: {"paths": [...]}. Result: {"jax_version", "results": [{"path", "result", "error"}]} where result is
loads | loads-with-flag | cannot-load.
"""
import _common

import jax


def probe(path):
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        exported, used_flag = _common.deserialize(jax, data, allow_flag=True)
        # StableHLO is only parsed on demand; an op this version does not know fails here, not in deserialize.
        exported.mlir_module()
    except Exception as err:  # noqa: BLE001 - any failure to load is the answer we report
        return {"path": path, "result": "cannot-load", "error": _common.first_line(err)}
    return {"path": path, "result": "loads-with-flag" if used_flag else "loads", "error": None}


def main():
    request = _common.read_request()
    _common.respond({"jax_version": jax.__version__, "results": [probe(p) for p in request["paths"]]})


if __name__ == "__main__":
    main()
