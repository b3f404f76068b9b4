"""Check that modules rewritten by `jaxlint --fix` still import under the new JAX.

Usage:
    python tools/import_check.py CORPUS SCRATCH OLD_PYTHON NEW_PYTHON [--unsafe-fixes] [--jaxlint PATH]
        [--project NAME ...] [--all-modules] [--jobs N] [--timeout S] [--reuse]

CORPUS is a folder of projects (one sub-folder each, e.g. the gitignored .corpus/); SCRATCH is a folder outside
the repository that this script fills:

    SCRATCH/orig/<project>   an untouched copy of the corpus
    SCRATCH/fixed/<project>  the copy after `jaxlint check --fix --no-cache --exit-zero .` (run in the project)
    SCRATCH/report.md        the table

Step 1: copy, fix, and list the changed `.py` files (a diff against the original copy).
Step 3: import every changed module three ways, each in a fresh interpreter with PYTHONPATH set to the project's
root (and the project folder, for tests that import the package): original code with OLD_PYTHON, original code with NEW_PYTHON, fixed code with NEW_PYTHON (and, as a
bonus, fixed code with OLD_PYTHON: a fix must stay valid on the older JAX too). When `import pkg.mod` fails, the
module is imported once more "isolated": the parent packages are stubbed (empty modules with the right __path__),
so that an error raised by some other module in the package's __init__ is told apart from one in the module.
A result is classified: ok; missing-dep (ModuleNotFoundError for a non-project module); package (the failure
comes from another file of the project; the isolated import works); module (the module itself fails).

--project restricts the run to some sub-folders of CORPUS. --all-modules also imports every module the fix left
unchanged (the question "does the project import on the new JAX after the fix?"), with two cells only: fixed/new,
and original/old where fixed/new fails (to tell a project that never imported from one the new JAX breaks);
setup.py and files whose name is not a module name are skipped. --jobs runs that many imports at once.

The verdict the check exists for: fixed/new must be ok wherever original/old was ok; a row where it is not, and
whose failure is not missing-dep / package-level in both original/new and fixed/new, is a jaxlint bug.

Building the venvs stays manual (Python 3.12; no parallel pip jobs), e.g.:

    PY=/root/.pyenv/versions/3.12.1/bin/python3.12
    $PY -m venv SCRATCH/venvs/jax-0.5.3
    printf 'jax==0.5.3\\njaxlib==0.5.3\\n' > c.txt
    SCRATCH/venvs/jax-0.5.3/bin/pip install -c c.txt jax==0.5.3 jaxlib==0.5.3 absl-py chex \\
        tensorflow-probability dm-tree cloudpickle gast decorator flax tensorboard Pillow cma pyyaml toolz \\
        typing_extensions pytest
    (the same with jax==0.12.0.1 / jaxlib==0.12.0.1 for the new one)

The old JAX must predate the removals the fixes are about (jax.tree_map went in 0.6.0), or the originals do
not import under it and the row says nothing. The projects are not pip-installed: PYTHONPATH points at the
copy, so the same venv serves the original and the fixed code.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_IMPORT = r"""
import importlib, sys, types, traceback
name, root, isolated = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
if isolated:
    parts = name.split(".")
    for i in range(1, len(parts)):
        pkg = ".".join(parts[:i])
        m = types.ModuleType(pkg)
        m.__path__ = [root + "/" + "/".join(parts[:i])]
        sys.modules[pkg] = m
try:
    importlib.import_module(name)
except BaseException as e:
    tb = traceback.extract_tb(e.__traceback__)
    where = tb[-1].filename if tb else ""
    print("FAIL\t%s: %s\t%s\t%s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "",
          getattr(e, "name", "") or "", where))
else:
    print("OK")
"""


def changed_files(orig: Path, fixed: Path) -> list[Path]:
    out = []
    for dirpath, _dirs, files in os.walk(orig):
        for f in files:
            if not f.endswith(".py"):
                continue
            a = Path(dirpath) / f
            b = fixed / a.relative_to(orig)
            if b.exists() and not filecmp.cmp(a, b, shallow=False):
                out.append(a.relative_to(orig))
    return sorted(out)


def all_modules(project: Path) -> list[Path]:
    out = []
    for dirpath, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d.isidentifier())
        for f in files:
            if f.endswith(".py") and f != "setup.py" and f[:-3].isidentifier():
                out.append((Path(dirpath) / f).relative_to(project))
    return sorted(out)


def resolve(project: Path, rel: Path) -> tuple[Path, str]:
    """(sys.path entry, dotted name): climb from the file's folder while the folder is a package."""
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()  # a package's __init__.py is imported as the package
    i = len(parts) - 1
    while i > 0 and (project.joinpath(*parts[:i]) / "__init__.py").exists():
        i -= 1
    return project.joinpath(*parts[:i]), ".".join(parts[i:])


TIMEOUT = 300


def try_import(python: str, root: Path, name: str, isolated: bool, project: Path) -> tuple[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys([str(root), str(project)])), JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    try:
        r = subprocess.run([python, "-c", _IMPORT, name, str(root), "1" if isolated else "0"], env=env,
                           cwd=root, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "module", "timeout"
    line = next((l for l in r.stdout.splitlines() if l.startswith(("OK", "FAIL"))), None)
    if line is None:
        return "module", (r.stderr.strip().splitlines() or ["no output"])[-1]
    if line == "OK":
        return "ok", "ok"
    _, msg, missing, where = (line.split("\t") + ["", "", ""])[:4]
    top = name.split(".")[0]
    if msg.startswith("ModuleNotFoundError") and missing and missing.split(".")[0] != top:
        return "missing-dep", msg
    if where and str(project) in where and not where.endswith(name.replace(".", "/") + ".py"):
        return "package", msg + " (in " + os.path.relpath(where, project) + ")"
    return "module", msg + (" (in " + where + ")" if where else "")


def cell(python: str, root: Path, name: str, project: Path) -> str:
    kind, msg = try_import(python, root, name, False, project)
    if kind == "ok":
        return "ok"
    if kind != "missing-dep":
        ikind, _ = try_import(python, root, name, True, project)
        if ikind == "ok" and kind == "module":
            kind = "package"  # the module alone imports: the failure is elsewhere (package __init__ or a dep)
    return f"{kind}: {msg}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("scratch", type=Path)
    ap.add_argument("old_python")
    ap.add_argument("new_python")
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--jaxlint", default=str(Path(sys.executable).with_name("jaxlint")))
    ap.add_argument("--reuse", action="store_true", help="keep SCRATCH/orig and SCRATCH/fixed if present")
    ap.add_argument("--project", action="append", default=[], help="only this sub-folder of CORPUS (repeatable)")
    ap.add_argument("--all-modules", action="store_true", help="also import the modules the fix left unchanged")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per import")
    a = ap.parse_args()
    global TIMEOUT
    TIMEOUT = a.timeout
    orig, fixed = a.scratch / "orig", a.scratch / "fixed"
    if not (a.reuse and orig.exists() and fixed.exists()):
        for d in (orig, fixed):
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            for src in sorted(a.corpus.iterdir()):
                if src.is_dir() and (not a.project or src.name in a.project):
                    shutil.copytree(src, d / src.name, symlinks=True)
        for p in sorted(fixed.iterdir()):
            if p.is_dir():
                cmd = [a.jaxlint, "check", "--fix", "--no-cache", "--exit-zero", "."]
                if a.unsafe_fixes:
                    cmd.insert(3, "--unsafe-fixes")
                subprocess.run(cmd, cwd=p, capture_output=True)
    jobs = []
    for p in sorted(orig.iterdir()):
        if not p.is_dir() or (a.project and p.name not in a.project):
            continue
        changed = changed_files(p, fixed / p.name)
        for rel in sorted(set(changed) | set(all_modules(p) if a.all_modules else ())):
            jobs.append((p, rel, rel in changed))

    def check(job: tuple[Path, Path, bool]) -> list[str]:
        p, rel, is_changed = job
        root_o, name = resolve(p, rel)
        root_f = fixed / p.name / root_o.relative_to(p)
        fixed_new = cell(a.new_python, root_f, name, fixed / p.name)
        if is_changed:
            row = [f"{p.name}/{rel}", name, cell(a.old_python, root_o, name, p),
                   cell(a.new_python, root_o, name, p), fixed_new, cell(a.old_python, root_f, name, fixed / p.name)]
        else:  # unchanged by the fix: original/new is fixed/new; fixed/old is original/old
            row = [f"{p.name}/{rel} (unchanged)", name,
                   "-" if fixed_new == "ok" else cell(a.old_python, root_o, name, p), "-", fixed_new, "-"]
        print(" | ".join(row), flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        rows = list(pool.map(check, jobs))
    head = "| file | module | original/old | original/new | fixed/new | fixed/old |\n|---|---|---|---|---|---|\n"
    body = "".join("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |\n" for r in rows)
    changed_rows = [r for r in rows if r[3] != "-"]
    bad = [r for r in changed_rows if r[2] == "ok" and r[4] != "ok"
           and not r[4].startswith(("missing-dep", "package")) and not r[3].startswith("module")]
    bad += [r for r in changed_rows if r[2] == "ok" and r[5] != "ok"
            and not r[5].startswith(("missing-dep", "package"))]
    # imported on the old JAX, not on the new one after the fix: what the user still has to handle
    still = [r for r in rows if r[2] in ("ok", "-") and r[4] != "ok" and r not in bad]
    (a.scratch / "report.md").write_text(head + body)
    n_changed = sum(1 for _p, _rel, c in jobs if c)
    print(f"\n{len(rows)} modules ({n_changed} changed by the fix); suspected fix breakages: {len(bad)}")
    for r in bad:
        print("  BROKEN?", r[0], "|", r[4], "|", r[5])
    print(f"modules that import on the old JAX but not on the new one after the fix: {len(still)}")
    for r in still:
        print("  STILL", r[0], "|", r[4])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
