"""The ``[[signature]]`` rows of ``rules/signatures_generated.toml`` checked by execution: each row's callable read
with ``inspect`` in a venv of its ``last_seen`` release and one of its ``changed_in`` release, the keyword bound with
``inspect.signature(...).bind`` there, and a renamed keyword's fix bound at ``replacement_since`` (the bottom of the
range where JAX105 offers it) and at the newest release. The outcomes go to ``rules/signatures_confirmed.toml``
(written only here), which the rule's loader reads: a contradicted row never reports anything.

Usage: ``JAXLINT_JAXENVS=DIR python tools/catalogue_gen/signature_check.py [--build-venvs]`` (one probe process per
release; every row of a release is read in the same process).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the package lives in tools/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalogue_gen.releases import vkey  # noqa: E402
from catalogue_gen.resolve import probe  # noqa: E402
from catalogue_gen.toml_writer import toml_value  # noqa: E402
from catalogue_gen.venvs import NO_VENV, SUBSTITUTE_JAXLIB, build_substitutes, build_venvs, venv_dir  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ROWS = REPO / "rules" / "signatures_generated.toml"
OUT = REPO / "rules" / "signatures_confirmed.toml"
# The release every fix must still bind at (the catalogue's newest).
NEWEST = "0.12.0.1"
KEYWORD_CHANGES = ("removed", "renamed", "positional-only")

# One query per callable: ``[names, member, binds]``; names are the owner and its other spellings, tried in turn (an
# old release may have only the old spelling); member "" for a function, "__init__" for a constructor; binds are
# ``["kw", name]`` (a call passing ``name=``) or ``["omit", name]`` (a call leaving it out), every other required
# parameter given. The answer: ``{"via", "member", "kind", "params", "binds"}`` or ``{"error"}`` when no name imports.
SIGNATURE_PROBE = probe(r"""
import inspect, json, sys, warnings
warnings.simplefilter("ignore")
KINDS = {0: "po", 1: "pk", 2: "varargs", 3: "kw", 4: "varkw"}

def member_signature(owner, member):
    # (present, kind, signature or None, why none): the member as a call through an instance reaches it
    if member == "":
        return True, "function", inspect.signature(owner), ""
    if member == "__init__":
        try:
            return True, "constructor", inspect.signature(owner), ""
        except ValueError:  # a class of a compiled extension: its __init__'s docstring
            return True, "constructor (docstring)", drop_first(doc_signature(owner.__init__)), ""
    try:
        raw = inspect.getattr_static(owner, member)
    except AttributeError:
        return False, None, None, ""
    if isinstance(raw, staticmethod):
        return True, "staticmethod", inspect.signature(raw.__func__), ""
    if isinstance(raw, classmethod):
        return True, "classmethod", drop_first(inspect.signature(raw.__func__)), ""
    if isinstance(raw, property) or type(raw).__name__ == "cached_property":
        return True, "property", None, "a property"
    if inspect.isfunction(raw):
        return True, "method", drop_first(inspect.signature(raw)), ""
    bound = getattr(owner, member)
    sig = inspect.signature(bound)
    return True, "other", sig if inspect.ismethod(bound) else drop_first(sig), ""

def annotation(a):
    if a is inspect.Parameter.empty:
        return None
    return a if isinstance(a, str) else getattr(a, "__qualname__", None) or repr(a)

def drop_first(sig):
    params = list(sig.parameters.values())
    if params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return sig.replace(parameters=params)

def bind(sig, keyword=None, omit=None):
    args, kwargs = [], {}
    for p in sig.parameters.values():
        if p.name in (keyword, omit) or p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind is p.POSITIONAL_ONLY:
            args.append(None)
        else:
            kwargs[p.name] = None
    if keyword is not None:
        kwargs[keyword] = None
    try:
        sig.bind(*args, **kwargs)
        return "ok"
    except TypeError as exc:
        return "TypeError: " + str(exc)

def import_error(dotted):
    # why a module on the way does not import (get() falls back to attributes and hides it): the deepest module
    # that exists but raises
    parts = dotted.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        try:
            importlib.import_module(module)
            return None
        except ModuleNotFoundError as exc:
            if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
                continue  # no such module: a shorter prefix
            return f"{module} does not import: {exc!r}"
        except Exception as exc:
            return f"{module} does not import: {exc!r}"
    return None

def doc_signature(obj):
    # nanobind/pybind11 callables carry their signature as the docstring's first line: "f(self, a: int) -> None"
    import ast
    line = (obj.__doc__ or "").strip().splitlines()[0]
    head = line[line.index("("):]
    head = head[: head.rindex(") -> ") + 1] if ") -> " in head else head
    args = ast.parse("def f" + head + ": pass").body[0].args
    P = inspect.Parameter
    out, positional = [], args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    for i, a in enumerate(positional):
        kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        default = ast.unparse(args.defaults[i - first_default]) if i >= first_default else P.empty
        out.append(P(a.arg, kind, default=default, annotation=ast.unparse(a.annotation) if a.annotation else P.empty))
    if args.vararg:
        out.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append(P(a.arg, P.KEYWORD_ONLY, default=P.empty if d is None else ast.unparse(d),
                     annotation=ast.unparse(a.annotation) if a.annotation else P.empty))
    if args.kwarg:
        out.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(out)

def read(names, member, binds):
    errors = []
    for name in names:
        try:
            owner = get(name)
            break
        except Exception as exc:
            errors.append(f"{name}: {import_error(name) or repr(exc)}"[:400])
    else:
        return {"error": "; ".join(errors)}
    try:
        present, kind, sig, why = member_signature(owner, member)
    except Exception as exc:
        return {"via": name, "member": True, "kind": None, "params": None, "why": repr(exc)[:300], "binds": {}}
    out = {"via": name, "member": present, "kind": kind, "params": None, "why": why, "binds": {}}
    if sig is None:
        return out
    out["params"] = [[p.name, KINDS[int(p.kind)], p.default is p.empty, None if p.default is p.empty
                      else repr(p.default), annotation(p.annotation)] for p in sig.parameters.values()]
    for how, name in binds:
        out["binds"][f"{how}:{name}"] = bind(sig, **({"keyword": name} if how == "kw" else {"omit": name}))
    return out

print(json.dumps([read(*q) for q in json.load(sys.stdin)]))
""")


def load_rows(path: Path = ROWS) -> list[dict]:
    """The jax rows (jaxlib, flax and optax rows, ``library``, are checked in their own venvs by
    ``library_signature_check.py``)."""
    with open(path, "rb") as fh:
        return [row for row in tomllib.load(fh)["signature"] if not row.get("library")]


def row_key(row: dict) -> tuple[str, str, str, str, str]:
    """What names a row in both files (the generator writes one row per key)."""
    return row["owner"], row.get("member", ""), row.get("parameter", ""), row["change"], row["changed_in"]


def fix_releases(row: dict) -> list[str]:
    """Where a renamed keyword's fix (the new keyword) is bound: the bottom of its range and the newest release."""
    if row["change"] != "renamed":
        return []
    return list(dict.fromkeys([row["replacement_since"], NEWEST]))


def binds_for(row: dict) -> list[list[str]]:
    """The calls bound on both sides of ``row``: the old keyword, the new one, or the parameter left out."""
    if row["change"] in KEYWORD_CHANGES:
        return [["kw", row["parameter"]]] + ([["kw", row["replacement"]]] if row.get("replacement") else [])
    if row["change"] == "newly-required":
        return [["omit", row["parameter"]]]
    return []


def queries(rows: list[dict]) -> dict[str, dict[tuple, list[list[str]]]]:
    """Release -> callable ``(names, member)`` -> the binds asked there; each release is probed once."""
    by_version: dict[str, dict[tuple, list[list[str]]]] = {}
    for row in rows:
        callable_ = ((row["owner"], *row.get("spellings", ())), row.get("member", ""))
        for v in (row["last_seen"], row["changed_in"], *fix_releases(row)):
            binds = by_version.setdefault(v, {}).setdefault(callable_, [])
            binds += [b for b in binds_for(row) if b not in binds]
    return by_version


def observe(python: Path, asked: dict[tuple, list[list[str]]], timeout: int = 900) -> dict[tuple, dict]:
    """The probe's answers for one release (``python``: its venv's interpreter), per callable."""
    order = list(asked)
    proc = subprocess.run([str(python), "-c", SIGNATURE_PROBE],
                          input=json.dumps([[list(names), member, asked[(names, member)]] for names, member in order]),
                          capture_output=True, text=True, timeout=timeout,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")})
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return dict(zip(order, json.loads(proc.stdout.strip().splitlines()[-1])))


# -- the decision (fake answers in tests/catalogue/test_signature_check.py) ------------------------------------------
def _param(answer: dict, name: str) -> list | None:
    return next((p for p in answer.get("params") or () if p[0] == name), None)


def _readable(answer: dict | None, version: str, need_signature: bool) -> str | None:
    """Why ``answer`` cannot decide (None when it can)."""
    if answer is None:
        return f"no venv of jax {version}"
    if "no_venv" in answer:
        return f"no venv of jax {version}: {answer['no_venv']}"
    if "error" in answer:
        return f"jax {version}: does not import: {answer['error']}"
    if need_signature and answer["member"] and answer["params"] is None:
        return f"jax {version}: no signature ({answer.get('why') or answer.get('kind')})"
    return None


def decide(row: dict, old: dict | None, new: dict | None) -> tuple[str, str]:
    """``(outcome, evidence)`` for one row from the answers at ``last_seen`` (``old``) and ``changed_in`` (``new``):
    confirmed (the old release has the old form, the new one the new form), contradicted (execution disagrees
    with the static read), unreadable (a side cannot be read; the reason)."""
    change, v_old, v_new = row["change"], row["last_seen"], row["changed_in"]
    for answer, v in ((old, v_old), (new, v_new)):
        why = _readable(answer, v, need_signature=change != "member-removed")
        if why:
            return "unreadable", why
    if change == "member-removed":
        if old["member"] and not new["member"]:
            return "confirmed", f"{v_old}: present ({old['kind']}); {v_new}: absent"
        return "contradicted", f"{v_old}: {_presence(old)}; {v_new}: {_presence(new)}"
    for answer, v in ((old, v_old), (new, v_new)):
        if not answer["member"]:
            return "contradicted", f"jax {v}: the member is absent"
    p = row.get("parameter", "")
    if change in KEYWORD_CHANGES:
        before, after = old["binds"].get(f"kw:{p}"), new["binds"].get(f"kw:{p}")
        evidence = f"{v_old}: {p}= {_short(before)}; {v_new}: {p}= {_short(after)}"
        if before != "ok":
            return "contradicted", evidence
        if after == "ok":
            if _param(new, p) is None and _varkw(new):
                return "unreadable", evidence + " (only **kwargs takes it: the body decides)"
            return "contradicted", evidence
        if change == "positional-only" and (_param(new, p) or [None, None])[1] != "po":
            return "contradicted", evidence + " (not a positional-only parameter there)"
        if change == "renamed":
            renamed = new["binds"].get(f"kw:{row['replacement']}")
            evidence += f", {row['replacement']}= {_short(renamed)}"
            if renamed != "ok":
                return "contradicted", evidence
            other = other_type(row, old, new)
            if other:
                evidence += f"; {other}: no plain rename"
        return "confirmed", evidence
    if change == "newly-required":
        before, after = old["binds"].get(f"omit:{p}"), new["binds"].get(f"omit:{p}")
        evidence = f"{v_old}: without {p} {_short(before)}; {v_new}: without {p} {_short(after)}"
        param = _param(new, p)
        if before == "ok" and after != "ok" and param is not None and param[2]:
            return "confirmed", evidence
        return "contradicted", evidence
    if change == "default-changed":
        was, now = (_param(old, p) or [None] * 4)[3], (_param(new, p) or [None] * 4)[3]
        evidence = f"{v_old}: {p}={was}; {v_new}: {p}={now}"
        if was == _literal_repr(row["old_default"]) and now == _literal_repr(row["new_default"]):
            return "confirmed", evidence
        return "contradicted", evidence
    return "unreadable", f"no check for change {change!r}"


def other_type(row: dict, old: dict, new: dict) -> str:
    """For a rename: the two annotations where both sides have one and they differ (``gmem_scratch_ptr: Value`` ->
    ``scratch: Scratch`` takes another kind of value, so writing the new keyword is no fix); "" otherwise."""
    was = (_param(old, row["parameter"]) or [None] * 5)[4:5]
    now = (_param(new, row["replacement"]) or [None] * 5)[4:5]
    if was and now and was[0] and now[0] and was[0] != now[0]:
        return f"{row['parameter']}: {was[0]} -> {row['replacement']}: {now[0]}"
    return ""


def plain_rename(record: dict) -> bool:
    """Whether execution leaves the rename a fix: confirmed, the same annotation on both sides, and the new keyword
    bound at both ends of the fix's range."""
    return record["outcome"] == "confirmed" and "no plain rename" not in record["evidence"] \
        and all(b == "ok" for b in record.get("fix_bound", {}).values())


def fix_bound(row: dict, answers: dict[str, dict | None]) -> dict[str, str]:
    """Release -> how the fixed call (the new keyword) binds there: ``ok``, the ``TypeError``, or why unread."""
    out = {}
    for v in fix_releases(row):
        answer = answers.get(v)
        why = _readable(answer, v, need_signature=True)
        if why is None and not answer["member"]:
            why = "the member is absent"
        out[v] = why or answer["binds"].get(f"kw:{row['replacement']}", "not bound")
    return out


def _presence(answer: dict) -> str:
    return f"present ({answer['kind']})" if answer["member"] else "absent"


def _varkw(answer: dict) -> bool:
    return any(p[1] == "varkw" for p in answer["params"] or ())


def _short(bound: str | None) -> str:
    return "binds" if bound == "ok" else (bound or "not bound")[:160]


def _literal_repr(source: str) -> str | None:
    try:
        return repr(ast.literal_eval(source))
    except Exception:
        return None


# -- the run --------------------------------------------------------------------------------------------------------
def check(rows: list[dict], jaxenvs: Path, build: bool = False) -> tuple[list[dict], dict]:
    """Every row decided; returns the records (one per row) and the run's numbers."""
    asked = queries(rows)
    stats = {"venvs_built_s": 0.0, "releases": len(asked), "unavailable": []}
    if build:
        stats["venvs_built_s"] = build_venvs(jaxenvs, [v for v in asked if v not in SUBSTITUTE_JAXLIB])
        stats["venvs_built_s"] += build_substitutes(jaxenvs, list(asked))
    answers: dict[str, dict[tuple, dict]] = {}
    venvs: dict[str, str] = {}
    for v in sorted(asked, key=vkey):
        env = venv_dir(jaxenvs, v)
        if env is None:
            stats["unavailable"].append(v)
            continue
        t = time.perf_counter()
        answers[v] = observe(env / "bin" / "python", asked[v])
        venvs[v] = env.name
        print(f"  {env.name}: {len(asked[v])} callables read in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    stats["venvs"] = venvs
    records = []
    for row in rows:
        callable_ = ((row["owner"], *row.get("spellings", ())), row.get("member", ""))

        def at(v: str) -> dict | None:
            if v in answers:
                return answers[v][callable_]
            return {"no_venv": NO_VENV[v]} if v in NO_VENV else None
        outcome, evidence = decide(row, at(row["last_seen"]), at(row["changed_in"]))
        record = dict(zip(("owner", "member", "parameter", "change", "changed_in"), row_key(row)))
        record.update(last_seen=row["last_seen"], outcome=outcome, evidence=evidence)
        substitutes = [venvs[v] for v in (row["last_seen"], row["changed_in"]) if "-jaxlib-" in venvs.get(v, "")]
        if substitutes:
            record["venvs"] = substitutes  # jax's source read with another jaxlib (venvs.SUBSTITUTE_JAXLIB)
        old = at(row["last_seen"])
        if old and old.get("via") and old["via"] != row["owner"]:
            record["old_spelling"] = old["via"]
        if row["change"] == "renamed":
            record["fix_bound"] = fix_bound(row, {v: at(v) for v in fix_releases(row)})
            record["plain_rename"] = plain_rename(record)
        records.append(record)
    return records, stats


def write(records: list[dict], out: Path = OUT) -> None:
    head = ["# Written by tools/catalogue_gen/signature_check.py; do not edit by hand (see docs/catalogue.md).",
            "# One [[row]] per [[signature]] row of signatures_generated.toml (owner, member, parameter, change,",
            "# changed_in name it): its callable read with inspect and bound in venvs of last_seen and changed_in.",
            "# outcome: confirmed | contradicted (never reported) | unreadable (evidence says why).",
            ""]
    blocks = []
    for r in sorted(records, key=lambda r: (r["owner"], r["member"], r["parameter"], r["change"], r["changed_in"])):
        lines = ["[[row]]"]
        for key in ("owner", "member", "parameter", "change", "changed_in", "last_seen", "outcome", "evidence",
                    "old_spelling", "venvs"):
            if r.get(key) not in (None, ""):
                lines.append(f"{key} = {toml_value(r[key])}")
        if "fix_bound" in r:
            inner = ", ".join(f"{toml_value(v)} = {toml_value(b[:300])}" for v, b in r["fix_bound"].items())
            lines.append(f"fix_bound = {{ {inner} }}")
            lines.append(f"plain_rename = {toml_value(r['plain_rename'])}")
        blocks.append("\n".join(lines))
    out.write_text("\n".join(head) + "\n\n".join(blocks) + "\n")


def counts(records: list[dict]) -> dict[str, dict[str, int]]:
    """Change kind -> outcome -> rows."""
    table: dict[str, dict[str, int]] = {}
    for r in records:
        table.setdefault(r["change"], {}).setdefault(r["outcome"], 0)
        table[r["change"]][r["outcome"]] += 1
    return table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jaxenvs", type=Path, default=Path(os.environ.get("JAXLINT_JAXENVS", REPO / ".jaxenvs")))
    ap.add_argument("--build-venvs", action="store_true", help="build the missing jax-<V> venvs first")
    ap.add_argument("--rows", type=Path, default=ROWS)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = load_rows(args.rows)
    records, stats = check(rows, args.jaxenvs, args.build_venvs)
    write(records, args.out)
    children = os.times()
    fixes = [r for r in records if "fix_bound" in r]
    print(json.dumps({"rows": len(records), "counts": counts(records), "releases": stats["releases"],
                      "unavailable": stats["unavailable"], "venvs": stats["venvs"], "venvs_built_s": round(stats["venvs_built_s"], 1),
                      "fixes_bound_everywhere": sum(all(b == "ok" for b in r["fix_bound"].values()) for r in fixes),
                      "plain_renames": sum(r["plain_rename"] for r in fixes),
                      "fixes": len(fixes), "wall_s": round(time.perf_counter() - t0, 1),
                      "cpu_s": round(time.process_time() - c0 + children.children_user + children.children_system, 1)},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
