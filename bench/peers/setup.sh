#!/usr/bin/env bash
# The Python environment of compare_pytorch.py's peers (ONNX Runtime, OpenVINO + NNCF, CTranslate2):
# bench/.venv, made with Debian's python3 WITHOUT the system site packages (nncf cannot import
# next to Debian's PyTorch 1.13), with bench/peers/requirements.txt installed from PyPI.
# Idempotent: an existing venv is reused and pip only installs what is missing or pinned
# differently. compare_pytorch.py runs bench/peers/peer.py with bench/.venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=bench/.venv
requirements=bench/peers/requirements.txt

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
  echo "setup.sh: $venv exists; reusing it"
else
  echo "setup.sh: creating $venv (/usr/bin/python3 -m venv, no system site packages)"
  /usr/bin/python3 -m venv "$venv"
fi
if "$venv/bin/python" -c 'import sys; sys.exit(0 if any("dist-packages" in p for p in sys.path) else 1)'; then
  echo "setup.sh: $venv sees the system site packages; remove it and run again" >&2
  exit 1
fi

echo "setup.sh: installing $requirements into $venv"
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
"$venv/bin/python" - <<'PY'
import importlib.metadata as metadata
print("setup.sh: installed: " + ", ".join(
    f"{name} {metadata.version(name)}" for name in ("onnxruntime", "openvino", "nncf", "onnx", "ctranslate2", "numpy")))
PY
echo "setup.sh: done; run /usr/bin/python3 bench/compare_pytorch.py (it finds $venv/bin/python)"
