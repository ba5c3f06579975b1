#!/usr/bin/python3
"""tinyenc vs PyTorch eager on the same encoder shapes, side by side.

For each (config, batch, seq, threads) row it alternates the two engines for --rounds rounds
(these machines flip between speed states for seconds at a time, so one engine must not get all
the good seconds) and prints the p50 latency of each, as a range over rounds when rounds > 1,
and the ratio PyTorch / tinyenc (> 1: tinyenc is faster), then tinyenc's GFLOP/s and their share
of a plain oneDNN fp32 matmul (BM_Matmul/1024/<threads>) measured right after it.

PyTorch runs ReferenceEncoder (tools/golden/reference_encoder.py): nn.Embedding + learned
positions + token types + LayerNorm, nn.TransformerEncoderLayer (post-LN, GELU, its fused
inference fast path), CLS pooling, in eval() and torch.inference_mode(), with
torch.set_num_threads matched, and OpenBLAS's own thread pool set to the same count (Debian's
PyTorch does not pass its thread setting on to OpenBLAS, which otherwise uses every core even
at "1 thread"). With more than one thread both pools can oversubscribe the cores, so PyTorch is
also timed with one ATen thread and OpenBLAS on all of them, and the faster arrangement counts. tinyenc runs build/bench/encoder_bench (BM_Encoder) on random
weights of the same shapes.

Debian's PyTorch calls whatever libblas.so.3 the alternatives system selects; Debian's reference
BLAS makes it 7-20x slower. This script prints the BLAS library PyTorch loaded and refuses to
report ratios against the reference BLAS (install libopenblas0-pthread).

  /usr/bin/python3 bench/compare_pytorch.py --configs tiny,mini --seq 8,32,128 --batch 1 --threads 1
"""
import argparse
import json
import math
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "golden"))

PRESETS = {"tiny": (128, 2, 2, 512), "mini": (256, 4, 4, 1024), "small": (512, 8, 4, 2048),
           "base": (768, 12, 12, 3072)}


def blas_library():
    """The BLAS shared object this process has mapped (after a matmul has run)."""
    import torch
    x = torch.randn(64, 64)
    (x @ x).sum()
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if "blas" in path.lower() and path.endswith(tuple(f".so{v}" for v in ("", ".3", ".0"))) \
                or "openblas" in path:
            return path
    return "unknown"


def openblas_threads_setter(blas):
    """openblas_set_num_threads of the loaded OpenBLAS: torch.set_num_threads leaves it alone."""
    import ctypes
    library = ctypes.CDLL(blas)
    library.openblas_set_num_threads.argtypes = [ctypes.c_int]
    library.openblas_get_num_threads.restype = ctypes.c_int

    def set_threads(threads):
        library.openblas_set_num_threads(threads)
        if library.openblas_get_num_threads() != threads:
            sys.exit(f"OpenBLAS kept {library.openblas_get_num_threads()} threads, asked {threads}")
    return set_threads


def torch_model(preset):
    import torch
    import reference_encoder as ref
    d, heads, layers, ffn = PRESETS[preset]
    config = ref.default_config(vocab_size=30522, hidden_size=d, num_attention_heads=heads,
                                num_hidden_layers=layers, intermediate_size=ffn, type_vocab_size=2,
                                max_position_embeddings=512, pooling="cls",
                                position_encoding={"kind": "learned", "max_positions": 512})
    torch.manual_seed(0)
    return ref.ReferenceEncoder(config).eval()


def torch_p50(model, batch, seq, repeats, min_seconds):
    import torch
    ids = torch.randint(1000, 29000, (batch, seq))
    lengths = torch.full((batch,), seq)
    with torch.inference_mode():
        for _ in range(3):
            model(ids, lengths)
        times = []
        start = time.perf_counter()
        while len(times) < repeats or time.perf_counter() - start < min_seconds:
            t0 = time.perf_counter()
            model(ids, lengths)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def bench_median(bench, name, min_seconds):
    """(median real time in ms, median GFLOP/s) of one encoder_bench benchmark."""
    result = subprocess.run(
        [str(bench), f"--benchmark_filter=^{name}/", "--benchmark_format=json",
         "--benchmark_repetitions=5", f"--benchmark_min_time={min_seconds / 5:.3f}",
         "--benchmark_report_aggregates_only=true"],
        check=True, capture_output=True, text=True)
    for row in json.loads(result.stdout)["benchmarks"]:
        if row.get("aggregate_name") == "median":
            return row["real_time"], row["GFLOP/s"]  # ms (the benchmark's unit)
    raise RuntimeError(f"{name}: no median in the benchmark output")


def span(values):
    low, high = min(values), max(values)
    return f"{low:.3g}" if len(values) == 1 or abs(high - low) < 0.005 * low else f"{low:.3g}-{high:.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="tiny,mini,small,base")
    parser.add_argument("--seq", default="8,32,128,512")
    parser.add_argument("--batch", default="1,8")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--min-runs", type=int, default=10,
                        help="PyTorch runs per measurement, at least (and for --min-time)")
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    args = parser.parse_args()

    import torch
    blas = blas_library()
    print(f"PyTorch {torch.__version__}, BLAS: {blas}")
    if "openblas" not in blas.lower():
        sys.exit("refusing to compare: PyTorch is not running on OpenBLAS "
                 "(install libopenblas0-pthread; see update-alternatives --display "
                 "libblas.so.3-x86_64-linux-gnu)")
    set_blas_threads = openblas_threads_setter(blas)
    bench = pathlib.Path(args.build_dir) / "bench" / "encoder_bench"
    if not bench.exists():
        sys.exit(f"{bench} not found: build the project first")

    print("OpenBLAS threads = tinyenc threads on every row; PyTorch's own threads the same, or 1 "
          "when that is faster")
    print(f"date: {time.strftime('%Y-%m-%d')}, rounds: {args.rounds}, p50 in ms\n")
    print("| config | batch | seq | threads | PyTorch ms | tinyenc ms | speed-up "
          "| tinyenc GFLOP/s | % of matmul |")
    print("|---|---|---|---|---|---|---|---|---|")
    for preset in args.configs.split(","):
        model = torch_model(preset)
        for batch in map(int, args.batch.split(",")):
            for seq in map(int, args.seq.split(",")):
                for threads in map(int, args.threads.split(",")):
                    torch_times, ours, rates, shares = [], [], [], []
                    for _ in range(args.rounds):
                        # With several threads PyTorch gets its better arrangement: its own
                        # threads and OpenBLAS's both at `threads` can oversubscribe the cores
                        # (both pools spin), so ATen on one thread with OpenBLAS on `threads`
                        # is tried too and the faster p50 counts.
                        best = math.inf
                        for intra_op in sorted({threads, 1}, reverse=True):
                            torch.set_num_threads(intra_op)
                            set_blas_threads(threads)
                            best = min(best, torch_p50(model, batch, seq, args.min_runs,
                                                       args.min_time))
                        torch_times.append(best)
                        ms, rate = bench_median(
                            bench, f"BM_Encoder/{preset}/{batch}/{seq}/{threads}", args.min_time)
                        _, matmul_rate = bench_median(bench, f"BM_Matmul/1024/{threads}", 0.5)
                        ours.append(ms)
                        rates.append(rate)
                        shares.append(100 * rate / matmul_rate)
                    ratios = [t / o for t, o in zip(torch_times, ours)]
                    print(f"| {preset} | {batch} | {seq} | {threads} | {span(torch_times)} | "
                          f"{span(ours)} | {span(ratios)}x | {span(rates)} | {span(shares)} |",
                          flush=True)


if __name__ == "__main__":
    main()
