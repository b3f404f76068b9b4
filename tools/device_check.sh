#!/usr/bin/env bash
# The accelerator check for `jaxlint verify` and `jaxlint exports`, to run on a GPU (or TPU) host with the JAX
# that host has. Nothing is downloaded: JAX comes from JAX_PYTHON's environment, jaxlint from this checkout.
#
#   tools/device_check.sh [JAX_PYTHON]        (default: python3; JAXLINT_PYTHON runs jaxlint, default .venv/bin/python)
#
# The old JAX: BASELINE_PYTHON (an interpreter with it, for a host without a package index), else
# --baseline-jax ${BASELINE_JAX:-0.10.2}, built once with pip (with the CUDA wheels) in $OUT/envs.
# 1. `jaxlint verify --rules` on the accelerator: every rule's runnable examples, old code on the old JAX and fixed
#    code on JAX_PYTHON's, probed (values inside jit/scan/grad arrive through jax.debug.callback) and compared;
# 2. `jaxlint exports migrate` of the test artifacts through the old JAX into JAX_PYTHON's, then `--check-load`.
# Exit status: 0 only if both steps pass and the runs used the accelerator.
set -uo pipefail
cd "$(dirname "$0")/.."
JAX_PYTHON=${1:-python3}
JAXLINT_PYTHON=${JAXLINT_PYTHON:-.venv/bin/python}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export JAXLINT_ENV_DIR="$OUT/envs"
if [ -n "${BASELINE_PYTHON:-}" ]; then baseline=(--baseline-python "$BASELINE_PYTHON")
else baseline=(--baseline-jax "${BASELINE_JAX:-0.10.2}"); fi

"$JAX_PYTHON" -c 'import jax; print("JAX", jax.__version__, "devices:", jax.devices())' || exit 2
platform=$("$JAX_PYTHON" -c 'import jax; print(jax.devices()[0].platform)')
case "$platform" in
  gpu|cuda|rocm) platform=gpu ;;
  tpu) ;;
  *) [ "${ALLOW_CPU:-}" = 1 ] || { echo "no accelerator: JAX sees $platform (ALLOW_CPU=1 runs the steps anyway)"; exit 2; }
     platform=cpu ;;
esac

status=0
echo "== jaxlint verify --rules --platform $platform"
"$JAXLINT_PYTHON" -m jaxlint verify --rules "${baseline[@]}" --target-python "$JAX_PYTHON" \
    ${platform:+--platform "$platform"} --output-format json > "$OUT/rules.json" || status=1
"$JAXLINT_PYTHON" - "$OUT/rules.json" <<'PY' || status=1
import collections, json, os, sys
report = json.load(open(sys.argv[1]))
print("devices:", report["target"]["devices"])
print(dict(collections.Counter(site["status"] for site in report["sites"])))
on_device = report["target"]["devices"] and not report["target"]["devices"][0].startswith("cpu")
sys.exit(0 if on_device or os.environ.get("ALLOW_CPU") == "1" else 1)
PY

echo "== jaxlint exports migrate tests/data/exports (--mesh x=2 for the HloSharding-only ones)"
"$JAXLINT_PYTHON" -m jaxlint exports migrate tests/data/exports --out "$OUT/migrated" --mesh x=2 \
    "${baseline[@]}" --target-python "$JAX_PYTHON" | tail -3 || status=1
"$JAXLINT_PYTHON" -m jaxlint exports "$OUT/migrated" --check-load --target-python "$JAX_PYTHON" | tail -1 || status=1
echo "device check: $([ $status = 0 ] && echo PASSED || echo FAILED) (outputs in $OUT)"
exit $status
