"""jaxlint verify value comparison. Standalone on purpose: run by ``jaxlint verify`` with the *target* interpreter
(which has NumPy, as JAX needs it), so jaxlint itself does not depend on NumPy. stdlib + NumPy only.

Usage: ``python _jaxlint_compare.py REQUEST.json`` → prints one JSON object on stdout. The request names the record
directories of the two runs, the sites (``{"id", "kind": "value"|"reach"}``), ``rtol``, ``atol``, ``max_calls``.
For each site it reports the execution counts, the recorded calls, how many were compared, and the first
difference: the call, the leaf path, what differs, max abs/rel error and both values abbreviated. It does not decide
the status (``jaxlint.verify.compare`` does, with the runs' exit codes).
"""
import glob
import json
import os
import pickle
import re
import sys

import numpy as np

try:
    import ml_dtypes  # noqa: F401  (registers bfloat16 & co. with NumPy)
except ImportError:
    ml_dtypes = None


def load_run(directory):
    """Merge the record files of every process of one run, in process start order."""
    runs = []
    for path in glob.glob(os.path.join(directory, "records-*.pkl")):
        with open(path, "rb") as handle:
            runs.append(pickle.load(handle))
    runs.sort(key=lambda data: (data["meta"]["start"], data["meta"]["pid"]))
    sites, metas = {}, []
    for data in runs:
        metas.append(data["meta"])
        for site, entry in data["sites"].items():
            merged = sites.setdefault(site, {"count": 0, "calls": [], "traces": [], "errors": []})
            merged["count"] += entry["count"]
            for key in ("calls", "traces", "errors"):
                merged[key].extend(entry[key])
    return sites, metas


def _dtype(name):
    try:
        return np.dtype(name)
    except TypeError:
        if ml_dtypes is not None and hasattr(ml_dtypes, name):
            return np.dtype(getattr(ml_dtypes, name))
        raise


def to_array(encoded):
    _, dtype, shape, data = encoded[:4]
    return np.frombuffer(data, dtype=_dtype(dtype)).reshape(shape)


def abbreviate(encoded, width=100):
    tag = encoded[0]
    if tag == "array":
        try:
            array = to_array(encoded)
            text = np.array2string(array, threshold=8, edgeitems=2, precision=6, separator=", ")
            text = text.replace("\n", " ")
            if encoded[4] == "scalar":
                text = f"{dtype_short(encoded[1])}({text})"
            else:
                text = f"{text} ({encoded[1]}{list(encoded[2])})"
        except Exception as error:
            text = f"<array {encoded[1]}{list(encoded[2])}: {error}>"
    elif tag == "py":
        text = repr(encoded[2])
    elif tag == "seq":
        name = encoded[1].rsplit(".", 1)[-1]
        inner = ", ".join(abbreviate(e, width) for e in encoded[3][:4]) + (", ..." if len(encoded[3]) > 4 else "")
        if encoded[1] == "builtins.list":
            text = f"[{inner}]"
        elif encoded[1] == "builtins.tuple":
            text = f"({inner}{',' if len(encoded[3]) == 1 else ''})"
        else:
            text = f"{name}({inner})"
    elif tag == "map":
        name = encoded[1].rsplit(".", 1)[-1]
        inner = ", ".join(f"{k}: {abbreviate(v, width)}" for k, v in list(zip(encoded[2], encoded[3]))[:4])
        text = "{" + inner + "}" if encoded[1] == "builtins.dict" else f"{name}({inner})"
    elif tag == "abstract":
        text = f"<{encoded[1]}{list(encoded[2])}>"
    else:
        text = encoded[2]
    return text if len(text) <= width else text[: width - 3] + "..."


def dtype_short(name):
    return name


def describe(encoded):
    tag = encoded[0]
    if tag in ("seq", "map"):
        return encoded[1]
    if tag == "array":
        return f"array {encoded[1]}{list(encoded[2])}"
    if tag == "py":
        return encoded[1]
    if tag == "abstract":
        return f"abstract {encoded[1]}{list(encoded[2])}"
    return encoded[1]


def abstract_of(encoded):
    """The same value with array leaves reduced to dtype and shape (to compare with an abstract-only record)."""
    tag = encoded[0]
    if tag == "array":
        return ("abstract", encoded[1], tuple(encoded[2]))
    if tag in ("seq", "map"):
        return (tag, encoded[1], encoded[2], [abstract_of(e) for e in encoded[3]], *encoded[4:])
    return encoded


def class_of(encoded):
    """A container's class as compared: its qualified name inside its module (``State``, ``Outer.State``), where the
    probe recorded it, not the module path: a class that moved module between the two runs' library versions
    (``jaxlib.xla_extension`` -> ``jax._src.lib``, a flax or optax reorganisation) is the same class."""
    return encoded[4] if len(encoded) > 4 else encoded[1]


def has_callable(encoded):
    tag = encoded[0]
    if tag == "abstract":
        return encoded[1] == "callable"
    if tag in ("seq", "map"):
        return any(has_callable(e) for e in encoded[3])
    return False


def has_abstract(encoded):
    tag = encoded[0]
    if tag == "abstract":
        return True
    if tag in ("seq", "map"):
        return any(has_abstract(e) for e in encoded[3])
    return False


class Difference(Exception):
    def __init__(self, path, what, before, after, max_abs=None, max_rel=None):
        super().__init__(what)
        self.info = {"path": path, "what": what, "before": abbreviate(before), "after": abbreviate(after),
                     "max_abs": max_abs, "max_rel": max_rel}


def _child_path(path, encoded, index):
    tag, fields = encoded[0], encoded[2]
    if tag == "seq" and fields:
        return f"{path}.{fields[index]}"
    if tag == "map":
        return f"{path}.{fields[index]}" if encoded[1] != "builtins.dict" else f"{path}[{fields[index]}]"
    return f"{path}[{index}]"


def compare(before, after, rtol, atol, path="value"):
    if before[0] != after[0]:
        raise Difference(path, f"kind: {describe(before)} vs {describe(after)}", before, after)
    tag = before[0]
    if tag in ("seq", "map"):
        if class_of(before) != class_of(after):
            raise Difference(path, f"container type: {before[1]} vs {after[1]}", before, after)
        if before[2] != after[2]:
            raise Difference(path, f"fields/keys: {before[2]} vs {after[2]}", before, after)
        if len(before[3]) != len(after[3]):
            raise Difference(path, f"length: {len(before[3])} vs {len(after[3])}", before, after)
        for index, (b, a) in enumerate(zip(before[3], after[3])):
            compare(b, a, rtol, atol, _child_path(path, before, index))
        return
    if tag == "py":
        if before[1] != after[1]:
            raise Difference(path, f"type: {before[1]} vs {after[1]}", before, after)
        b, a = before[2], after[2]
        if before[1] in ("float", "complex"):
            if not np.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
                err = abs(b - a)
                raise Difference(path, "value", before, after, _finite(err), _finite(err / abs(b) if b else None))
        elif b != a:
            raise Difference(path, "value", before, after)
        return
    if tag == "abstract":
        if (before[1], tuple(before[2])) != (after[1], tuple(after[2])):
            raise Difference(path, f"dtype/shape: {describe(before)} vs {describe(after)}", before, after)
        return
    if tag == "array":
        if before[1] != after[1]:
            raise Difference(path, f"dtype: {before[1]} vs {after[1]}", before, after)
        if tuple(before[2]) != tuple(after[2]):
            raise Difference(path, f"shape: {list(before[2])} vs {list(after[2])}", before, after)
        if (before[4] == "scalar") != (after[4] == "scalar"):
            raise Difference(path, f"kind: {describe(before)} vs {describe(after)}", before, after)
        b, a = to_array(before), to_array(after)
        if b.dtype.kind in "fc" or (ml_dtypes is not None and b.dtype.kind == "V"):
            bf, af = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64), \
                a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            close = np.isclose(bf, af, rtol=rtol, atol=atol, equal_nan=True)
            if not close.all():
                with np.errstate(all="ignore"):
                    err = np.abs(bf - af)
                    both = ~(np.isnan(bf) | np.isnan(af)) & ~close  # errors of the differing numbers
                    max_abs = float(np.max(err[both])) if both.any() else None
                    rel = err / np.abs(bf)
                    max_rel = float(np.max(rel[both & (bf != 0)])) if (both & (bf != 0)).any() else None
                first = tuple(int(i) for i in np.argwhere(~close)[0])
                where = f" (first at index {list(first)}: {_item(b, first)} vs {_item(a, first)})"
                nans = int(np.sum(np.isnan(bf) != np.isnan(af)))
                if nans:
                    where += f"; NaN in one run only in {nans} element(s)"
                raise Difference(path, f"values differ in {int((~close).sum())} of {close.size} elements{where}",
                                 before, after, _finite(max_abs), _finite(max_rel))
        elif not np.array_equal(b, a):
            unequal = b != a
            first = tuple(int(i) for i in np.argwhere(unequal)[0]) if unequal.ndim else ()
            where = f" (first at index {list(first)}: {_item(b, first)} vs {_item(a, first)})"
            raise Difference(path, f"values differ in {int(np.sum(unequal))} of {b.size} elements{where}",
                             before, after)
        return
    # Opaque: the type's name (not its module: jaxlib moves classes between versions) and the repr, less the
    # object's address (``<State object at 0x7f...>`` is another number in every run).
    if before[1].rsplit(".", 1)[-1] != after[1].rsplit(".", 1)[-1] or _unplaced(before[2]) != _unplaced(after[2]):
        raise Difference(path, f"object: {before[2]} vs {after[2]}", before, after)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _unplaced(text):
    return _ADDRESS.sub("", text)


def _item(array, index):
    value = array[index] if array.ndim else array[()]
    try:
        return repr(value.item())
    except Exception:
        return str(value)


def _finite(value):
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def compare_site(before, after, rtol, atol, max_calls):
    out = {"before_count": before["count"] if before else 0, "after_count": after["count"] if after else 0,
           "before_traces": len(before["traces"]) if before else 0,
           "after_traces": len(after["traces"]) if after else 0,
           "errors": (before["errors"] if before else []) + (after["errors"] if after else []),
           "compared": 0, "abstract": False, "difference": None}
    if not before or not after:
        return out
    calls_b, calls_a = before["calls"][:max_calls], after["calls"][:max_calls]
    abstract = False
    if not (calls_b and calls_a):
        # At least one side has only trace-time (shape/dtype) records: compare abstractly.
        calls_b = calls_b or before["traces"][:max_calls]
        calls_a = calls_a or after["traces"][:max_calls]
        abstract = bool(calls_b and calls_a)
    for index, (b, a) in enumerate(zip(calls_b, calls_a)):
        if has_callable(b) or has_callable(a):
            out["callables"] = True
        if has_abstract(b) or has_abstract(a):
            b, a, abstract = abstract_of(b), abstract_of(a), True
        try:
            compare(b, a, rtol, atol)
        except Difference as difference:
            out["difference"] = dict(difference.info, call=index + 1)
            break
        out["compared"] += 1
    out["abstract"] = abstract
    out["recorded_before"], out["recorded_after"] = len(calls_b), len(calls_a)
    return out


def main(request_path):
    with open(request_path) as handle:
        request = json.load(handle)
    before, meta_b = load_run(request["before"])
    after, meta_a = load_run(request["after"])
    result = {"before_meta": meta_b, "after_meta": meta_a, "sites": {}}
    for site in request["sites"]:
        result["sites"][site["id"]] = compare_site(before.get(site["id"]), after.get(site["id"]),
                                                   request["rtol"], request["atol"], request["max_calls"])
        witnessed = before.get(site["id"] + "::negative")
        if witnessed is not None:  # whether a negative index reached the call in BEFORE (see the probe's witness)
            result["sites"][site["id"]]["negative_seen"] = {
                "checked": witnessed["count"], "seen": any(call[2] for call in witnessed["calls"])}
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
