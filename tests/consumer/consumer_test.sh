#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds tests/consumer/main.cc against it twice,
# with find_package(tinyenc) and with pkg-config, then runs both on a shipped model: the
# embedding has the model's width and the label is the one `tinyenc run` prints. Then builds
# tools/ (the tinyenc program) on its own against the same prefix: the program needs nothing but
# the installed package, and prints what the project's own build prints. main.cc must be
# README's "Use as a library" example, so the example people copy is the one compiled here.
#
#   consumer_test.sh BUILD_DIR SOURCE_DIR CXX SANITIZE
# Exit 77 (skipped) in a sanitizer build: its objects need the sanitizer runtimes linked in,
# which no ordinary consumer does.
set -euo pipefail
build=$1 source=$2 cxx=$3 sanitize=$4
if [[ "$sanitize" == 1 ]]; then
  echo "consumer_test: skipped: this build is compiled with -fsanitize=address,undefined, and a" \
    "program linking it would need the sanitizer runtimes too"
  exit 77
fi
fail() { echo "consumer_test: FAILED: $*" >&2; exit 1; }

example=$(awk '/^## Use as a library/ {in_section = 1; next}
               in_section && /^## / {exit}
               in_section && /^```cpp/ {in_code = 1; next}
               in_section && in_code && /^```/ {exit}
               in_code {print}' "$source/README.md")
[[ "$example" == "$(cat "$source/tests/consumer/main.cc")" ]] ||
  fail "README.md's \"Use as a library\" example differs from tests/consumer/main.cc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log"; fail "cmake --install"; }
for file in include/tinyenc/tinyenc.h lib/libtinyenc.a lib/cmake/tinyenc/tinyencConfig.cmake \
            lib/pkgconfig/tinyenc.pc bin/tinyenc; do
  [[ -f "$prefix/$file" ]] || fail "$file not installed"
done

echo "== find_package(tinyenc)"
cmake -S "$source/tests/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release
cmake --build "$work/cmake"

echo "== pkg-config --cflags --libs tinyenc"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tinyenc)
echo "$flags"
# shellcheck disable=SC2086  # the flags are words
"$cxx" -std=c++17 -O1 "$source/tests/consumer/main.cc" -o "$work/consumer-pkgconfig" $flags

model=$source/models/pretrained/order-rope
text=我打你
width=$(sed -n 's/.*"hidden_size": *\([0-9]*\).*/\1/p' "$model/config.json")
label=$("$prefix/bin/tinyenc" run -m "$model" "$text" | sed -n 's/^  label   \(.*\)  [0-9.]*$/\1/p')
[[ -n "$width" && -n "$label" ]] || fail "no width or label for $model"
for consumer in "$work/cmake/consumer" "$work/consumer-pkgconfig"; do
  output=$("$consumer" "$model" "$text")
  echo "$consumer: $output"
  grep -qx "embedding $width" <<<"$output" || fail "$consumer: expected embedding $width"
  grep -q "^label $label " <<<"$output" || fail "$consumer: expected label $label (tinyenc run)"
done
# Bad input reaches the consumer as tinyenc::Error of kind kBadInput.
status=0
"$work/consumer-pkgconfig" "$work/no-such-model" "$text" 2>"$work/error.txt" || status=$?
[[ $status -eq 2 ]] || fail "a missing folder: exit $status, expected 2"
grep -q "no-such-model: model folder not found" "$work/error.txt" || fail "$(cat "$work/error.txt")"

echo "== tools/ against the installed package"
cmake -S "$source/tools" -B "$work/tools" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >"$work/tools.log" ||
  { cat "$work/tools.log"; fail "configuring tools/ against the package"; }
cmake --build "$work/tools" -j"$(nproc)" >>"$work/tools.log" ||
  { tail -40 "$work/tools.log"; fail "building tools/ against the package"; }
for command in "run -m $model $text --json" "order -m $model $text" "info -m $model"; do
  # shellcheck disable=SC2086  # the command is words
  [[ "$("$work/tools/tinyenc" $command)" == "$("$prefix/bin/tinyenc" $command)" ]] ||
    fail "tools/ built alone prints something else for: tinyenc $command"
done
echo "consumer_test: both consumers print embedding $width and label $label; tools/ builds" \
  "against the package alone"
