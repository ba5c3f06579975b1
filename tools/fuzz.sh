#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/*_fuzz.cc) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz/ (-O1 with line tables: half the compile time of -O2
# -g), then runs each one for FUZZ_SECONDS (default 60), one per core at a time, starting from
# its seed corpus tests/fuzz/corpus/<name without _fuzz>/. Fails when a target does
# not build, crashes, leaks, hangs, or breaks one of its own checks; the input that did it is
# kept in build-fuzz/fuzz-artifacts/.
#
#   tools/fuzz.sh                      every target
#   tools/fuzz.sh tokenizer_ models_   only targets whose name contains one of these words
#   FUZZ_SECONDS=600 tools/fuzz.sh     longer runs
#
# Needs clang and its libFuzzer runtime (libclang-rt-14-dev) and clang's OpenMP (libomp-dev).
# A target that prints "SKIPPED" and exits 0 (say, shared test data it needs is absent) is
# reported as skipped. New inputs the fuzzer finds go to build-fuzz/fuzz-corpus/, never into the
# committed seed corpus.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=build-fuzz
jobs=$(nproc)
export TINYENC_TESTDATA="${TINYENC_TESTDATA:-$PWD/../shared/testdata}"

# The libraries under test are instrumented for coverage and the sanitizers (no libFuzzer main);
# the fuzz targets themselves add -fsanitize=fuzzer (tests/fuzz/CMakeLists.txt).
instrument="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
echo "fuzz.sh: configuring $build with clang"
if ! cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
     -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
     -DCMAKE_CXX_FLAGS="$instrument" \
     -DTINYENC_FUZZ=ON -DTINYENC_BUILD_BENCH=OFF >"$build.configure.log" 2>&1; then
  cat "$build.configure.log"
  echo "fuzz.sh: FAILED: configure (is the add_subdirectory(fuzz) line in tests/CMakeLists.txt?)"
  exit 1
fi
rm -f "$build.configure.log"
# Each tests/fuzz/<name>.cc is the target <name> (see tests/fuzz/CMakeLists.txt).
names=()
for source in tests/fuzz/*_fuzz.cc; do
  name=$(basename "$source" .cc)
  if (($# > 0)); then
    wanted=0
    for word in "$@"; do [[ "$name" == *"$word"* ]] && wanted=1; done
    ((wanted)) || continue
  fi
  names+=("$name")
done
if ((${#names[@]} == 0)); then
  echo "fuzz.sh: FAILED: no fuzz target in tests/fuzz/ matches '$*'"
  exit 1
fi
echo "fuzz.sh: building ${names[*]}"
cmake --build "$build" --target "${names[@]}" -j"$jobs" || { echo "fuzz.sh: FAILED: build"; exit 1; }
targets=()
for name in "${names[@]}"; do targets+=("$build/tests/fuzz/$name"); done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One target for $seconds; its exit status goes to $build/fuzz-logs/<name>.status.
fuzz_one() {
  local target=$1 name seeds work artifacts log
  name=$(basename "$target")
  seeds="tests/fuzz/corpus/${name%_fuzz}"
  work="$build/fuzz-corpus/$name"
  artifacts="$build/fuzz-artifacts"
  log="$build/fuzz-logs/$name.log"
  mkdir -p "$work" "$artifacts" "$build/fuzz-logs"
  [[ -d "$seeds" ]] || { echo "fuzz.sh: note: $name has no seed corpus ($seeds)"; seeds=""; }
  # -timeout: one input taking longer than this is a hang; -rss_limit_mb: a memory blow-up.
  "$target" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$name-" "$work" ${seeds:+"$seeds"} >"$log" 2>&1
  echo $? >"$build/fuzz-logs/$name.status"
}

# As many targets at once as there are cores (each fuzzer runs on one).
rm -f "$build"/fuzz-logs/*.status
echo "fuzz.sh: ${#targets[@]} targets for ${seconds}s each, $jobs at a time (logs in $build/fuzz-logs/)"
running=0
for target in "${targets[@]}"; do
  if ((running == jobs)); then
    wait -n
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
wait

passed=() failed=() skipped=()
for target in "${targets[@]}"; do
  name=$(basename "$target")
  log="$build/fuzz-logs/$name.log"
  status=$(cat "$build/fuzz-logs/$name.status" 2>/dev/null || echo 1)
  if ((status == 0)) && grep -q "SKIPPED" "$log"; then
    skipped+=("$name")
    grep -m1 "SKIPPED" "$log"
  elif ((status == 0)); then
    passed+=("$name")
    echo "fuzz.sh: $name: $(grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" | tail -1)"
  else
    failed+=("$name")
    echo "fuzz.sh: $name FAILED (exit $status); the end of its log:"
    tail -40 "$log"
  fi
done
echo
echo "fuzz.sh: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped" \
     "(${seconds}s each)${failed[*]:+; failed: ${failed[*]}}${skipped[*]:+; skipped: ${skipped[*]}}"
((${#failed[@]} == 0))
