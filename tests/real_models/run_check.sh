#!/usr/bin/env bash
# run_check.sh SOURCE_DIR TINYENC MODEL_NAME CHECK: one check of models/external/MODEL_NAME
# (check_real_model.py) with the reference python that tools/install-models.py recorded.
# Without the model or that python the check is skipped (exit 77), unless
# TINYENC_REQUIRE_REAL_MODELS=1, where it fails: a machine that ran the install must have them.
set -uo pipefail
source_dir=$1 tinyenc=$2 model=$3 check=$4
external="$source_dir/models/external"
python=$(cat "$external/reference-python" 2>/dev/null)
if [[ ! -f "$external/$model/manifest.json" || -z "$python" || ! -x "$python" ]]; then
  if [[ "${TINYENC_REQUIRE_REAL_MODELS:-0}" == 1 ]]; then
    echo "models/external/$model or its reference python is missing (tools/install-deps.sh --models)" >&2
    exit 1
  fi
  echo "[  SKIPPED ] models/external/$model is not installed (tools/install-deps.sh --models)"
  exit 77
fi
exec "$python" "$source_dir/tests/real_models/check_real_model.py" "$tinyenc" "$external/$model" "$check"
