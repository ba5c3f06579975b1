#!/usr/bin/python3
"""Side by side: the seed's PyTorch embed + PE + LayerNorm path against tinyenc's fused pass.

PyTorch runs the seed module path `x = emb(ids); x = x + pe[:, :T]; x = layer_norm(x)` with
nn.Embedding (30522 rows, like BERT's vocabulary), the seed article's PositionalEncoding buffer
(tools/golden/seed_pe_module.py, run verbatim) and nn.LayerNorm, in torch.inference_mode, timed in
batches of --batch calls (median over --repeats calls). tinyenc runs build/bench/pe_bench for the
matching BM_EmbedPE/sinusoidal_ln/<isa>/<T>/<d> benchmarks (embed_tokens, what a caller pays) and
BM_EmbedPE_Kernel/... (the same kernel without the per-call dispatch), median of
--bench-repetitions runs.

--clock wall (default) compares wall time: perf_counter for PyTorch, real_time for pe_bench.
--clock cpu compares CPU time (PyTorch: this thread's, or the whole process's with --threads > 1;
pe_bench: cpu_time), which leaves out the time a busy shared machine keeps the process waiting.

The issue's targets, single thread: tinyenc >= 5x faster than PyTorch at (1, 128, 256) and >= 4x
at (1, 512, 512); PyTorch was measured earlier at ~41 us and ~226 us there.

Usage: /usr/bin/python3 bench/compare_pe_pytorch.py [--build-dir build] [--threads 1]
                                                    [--repeats 2000] [--clock wall|cpu]
Needs Debian's python3-torch and a built pe_bench; the engine never needs Python.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
SHAPES = ((1, 128, 256), (1, 512, 512), (1, 512, 768))  # (batch, seq, d_model)
TARGETS = {(1, 128, 256): 5.0, (1, 512, 512): 4.0}  # minimum speed-up over PyTorch
EARLIER_PYTORCH_US = {(1, 128, 256): 41.0, (1, 512, 512): 226.0}
VOCAB_SIZE = 30522


def blas_report(torch):
    """Which BLAS torch was built against and which libblas/openblas/mkl this process maps."""
    config = torch.__config__.show()
    build_blas = [part.strip() for line in config.splitlines() for part in line.split(",")
                  if "BLAS_INFO" in part or "LAPACK_INFO" in part]
    mapped = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and any(key in fields[5].lower()
                                        for key in ("blas", "mkl", "blis", "lapack")):
                mapped.add((fields[5], os.path.realpath(fields[5])))
    print("torch", torch.__version__, "built with:", ", ".join(build_blas) or "(no BLAS_INFO)")
    if not mapped:
        print("BLAS libraries mapped by this process: none")
    for path, real in sorted(mapped):
        print(f"BLAS library mapped: {path}" + (f" -> {real}" if real != path else ""))
    reference = [real for _, real in mapped
                 if "/blas/libblas.so" in real or "/blas/libcblas.so" in real]
    if reference:
        print("WARNING: the reference (netlib) BLAS is loaded: matmul-heavy PyTorch timings would "
              "be far from optimised. (This embed + PE + LayerNorm path is elementwise and does "
              "not call BLAS, so its figures are unaffected.)")
    else:
        print("(embed + PE + LayerNorm is elementwise: BLAS plays no part in these figures)")


def seed_positional_encoding():
    sys.path.insert(0, str(REPO / "tools" / "golden"))
    sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
    from seed_pe_module import SEED_MODULE  # the seed article's module, verbatim
    namespace = {}
    exec(SEED_MODULE, namespace)
    return namespace["PositionalEncoding"]


def time_pytorch(torch, shape, repeats, warmup, batch, clock):
    batch_size, seq, d_model = shape
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(VOCAB_SIZE, d_model)
    position_encoding = seed_positional_encoding()(d_model)
    layer_norm = torch.nn.LayerNorm(d_model)
    ids = torch.randint(0, VOCAB_SIZE, (batch_size, seq))
    pe = position_encoding.pe

    def forward():
        x = embedding(ids)
        x = x + pe[:, :seq]
        return layer_norm(x)

    samples = []
    with torch.inference_mode():
        for _ in range(warmup):
            x = forward()
        for _ in range(max(1, repeats // batch)):
            start = clock()
            for _ in range(batch):
                x = forward()
            samples.append((clock() - start) / batch / 1000.0)
    assert x.shape == (batch_size, seq, d_model)
    return statistics.median(samples)


def run_tinyenc(build_dir, threads, min_time, repetitions, time_key):
    binary = pathlib.Path(build_dir) / "bench" / "pe_bench"
    if not binary.is_file():
        sys.exit(f"{binary} not found: build it first "
                 f"(cmake --build {build_dir} --target pe_bench)")
    shapes = "|".join(f"{seq}/{d_model}" for _, seq, d_model in SHAPES)
    # With --pe_threads > 1 pe_bench times wall clock and appends /real_time to the names.
    pattern = f"^BM_EmbedPE(_Kernel)?/sinusoidal_ln/[a-z0-9]+/({shapes})(/real_time)?$"
    command = [str(binary), f"--benchmark_filter={pattern}",
               "--benchmark_format=json", f"--benchmark_min_time={min_time}",
               f"--benchmark_repetitions={repetitions}",
               "--benchmark_report_aggregates_only=true", f"--pe_threads={threads}"]
    print("running:", " ".join(command), flush=True)
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    report = json.loads(result.stdout)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    medians = {}
    for entry in report["benchmarks"]:
        if entry.get("error_occurred") or entry.get("aggregate_name", "median") != "median":
            continue
        name = entry["run_name"].removesuffix("/real_time")
        medians[name] = entry[time_key] * scale[entry["time_unit"]]
    return report["context"], medians


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(REPO / "build"),
                        help="CMake build directory holding bench/pe_bench (default: build)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch.set_num_threads and pe_bench --pe_threads (default 1)")
    parser.add_argument("--repeats", type=int, default=2000,
                        help="timed PyTorch calls per shape; the median is reported")
    parser.add_argument("--warmup", type=int, default=100, help="untimed PyTorch calls first")
    parser.add_argument("--batch", type=int, default=10,
                        help="PyTorch calls per timed sample (amortises the clock read)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="compare wall time (default) or CPU time")
    parser.add_argument("--isa", default="best",
                        help="tinyenc ISA to compare: scalar, avx2, avx512 or best (default)")
    parser.add_argument("--bench-min-time", type=float, default=0.2,
                        help="pe_bench --benchmark_min_time per repetition (seconds)")
    parser.add_argument("--bench-repetitions", type=int, default=5,
                        help="pe_bench repetitions; the median real_time is reported")
    args = parser.parse_args()

    import torch
    torch.set_num_threads(args.threads)
    capability = torch.__config__.show().split("CPU capability usage:")[-1].split()[0]
    print(f"PyTorch threads: {torch.get_num_threads()}, CPU capability: {capability}")
    blas_report(torch)

    context, tinyenc_us = run_tinyenc(args.build_dir, args.threads, args.bench_min_time,
                                      args.bench_repetitions,
                                      "real_time" if args.clock == "wall" else "cpu_time")
    isa = context.get("best_isa", "avx2") if args.isa == "best" else args.isa
    print(f"tinyenc ISA: {isa} (best on this CPU: {context.get('best_isa')}; avx512 "
          f"{context.get('avx512')}), pe_threads {context.get('pe_threads')}, Google Benchmark "
          f"library build: {context.get('library_build_type')}")

    if args.clock == "wall":
        clock = time.perf_counter_ns
    else:
        clock = time.thread_time_ns if args.threads == 1 else time.process_time_ns
    print(f"clock: {args.clock} ({clock.__name__} for PyTorch, batches of {args.batch} calls)")
    pytorch_us = {}
    for shape in SHAPES:
        pytorch_us[shape] = time_pytorch(torch, shape, args.repeats, args.warmup, args.batch,
                                         clock)

    header = (f"{'shape (b,T,d)':<16}{'pytorch us':>11}{'tinyenc us':>12}{'ratio':>8}"
              f"{'target':>8}{'met':>6}{'kernel us':>11}{'ratio':>8}")
    print()
    print(header)
    print("-" * len(header))
    for shape in SHAPES:
        _, seq, d_model = shape
        api = tinyenc_us.get(f"BM_EmbedPE/sinusoidal_ln/{isa}/{seq}/{d_model}")
        kernel = tinyenc_us.get(f"BM_EmbedPE_Kernel/sinusoidal_ln/{isa}/{seq}/{d_model}")
        torch_us = pytorch_us[shape]
        target = TARGETS.get(shape)
        ratio = torch_us / api if api else float("nan")
        kernel_ratio = torch_us / kernel if kernel else float("nan")
        met = "-" if target is None else ("yes" if ratio >= target else "NO")
        print(f"{str(shape):<16}{torch_us:>11.1f}{api or float('nan'):>12.1f}{ratio:>7.2f}x"
              f"{(f'{target:.0f}x' if target else '-'):>8}{met:>6}"
              f"{kernel or float('nan'):>11.1f}{kernel_ratio:>7.2f}x")
    print()
    print("ratio = PyTorch time / tinyenc time (higher is better for tinyenc).")
    print("tinyenc us: embed_tokens, the public entry point (validation + ISA dispatch + kernel);")
    print("kernel us: the same kernel called directly (BM_EmbedPE_Kernel), no per-call dispatch.")
    print("PyTorch measured earlier: " + ", ".join(
        f"{shape} ~{value:.0f} us" for shape, value in EARLIER_PYTORCH_US.items()))


if __name__ == "__main__":
    main()
