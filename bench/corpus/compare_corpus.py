#!/usr/bin/python3
"""Embedding a whole corpus: tinyenc against PyTorch run the way sentence-transformers runs it.

One command makes what it needs (bench/corpus/out/: the corpus from generate_corpus.py, the
mini model from make_mini_model.py; both kept for the next run), then:

  tokens    `tinyenc tokenize -m MODEL -i CORPUS --json`: the token ids both engines run, so they
            do the same work. A text longer than the model's positions is split as tinyenc's
            `--long chunk` splits it: its content tokens in windows of positions - 2, [CLS] and
            [SEP] put back around each, no overlap; its embedding is the mean of its windows'
            embeddings weighted by the text's tokens each holds (its specials not counted).
  tinyenc   `tinyenc bench --corpus CORPUS -m MODEL --long chunk -f json` at each of --threads:
            length-sorted
            batches under a token budget, run without padding; tokenization included in its time.
            (A build without `bench --corpus` is timed through `tinyenc run -i CORPUS --jsonl`.)
  PyTorch   the same weights (make_mini_model.mini_model: tools/golden/reference_encoder.py, whose
            layers are nn.TransformerEncoderLayer and take its fused path under inference_mode)
            on the token ids, in a child process per thread count (so that its peak RSS is its
            own): windows sorted by length, batches of 32 padded to their longest, the attention
            mask, mean pooling over real tokens, order restored -- sentence-transformers' encode().
            torch.set_num_threads and Debian's OpenBLAS pool both set to the thread count.
            Tokenization is not in its time.
  dtypes    --dtypes f32,int8 (the default) times each engine in each: tinyenc `--dtype int8`
            (every Linear s8 per output channel, activations quantized per call) against PyTorch's
            own int8, `torch.ao.quantization.quantize_dynamic` on the onednn quantized engine (it
            replaces linear1 and linear2; in_proj and out_proj stay f32, as printed). bf16 is
            timed where the CPU has avx512_bf16 (PyTorch: CPU autocast); elsewhere it is skipped.
  check     ~200 lines (the long ones among them) through `tinyenc run -i --jsonl` against
            PyTorch's embeddings: the max abs difference must stay within 1e-4 in f32. In int8
            and bf16 the cosine of each engine's embeddings to PyTorch's f32 ones is reported,
            and neither engine is timed below a cosine of 0.99.

The ratios compare the engines dtype by dtype, and tinyenc's fastest against PyTorch's
fastest. tokens/s counts real tokens: each window's ids, [CLS] and [SEP] included, padding not.
Padding waste is the share of the positions a batch computes that are padding: tinyenc's own
figure, PyTorch's (sorted, 32 a batch) and that of batches of 32 in file order without sorting.

  /usr/bin/python3 bench/corpus/compare_corpus.py
  /usr/bin/python3 bench/corpus/compare_corpus.py --lines 2000 --threads 1 --json result.json
  /usr/bin/python3 bench/corpus/compare_corpus.py --threads 1 --dtypes f32,int8 --rounds 3
"""
import argparse
import contextlib
import json
import os
import pathlib
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "bench"))

import compare_pytorch  # noqa: E402  the machine description and OpenBLAS's thread pool
import make_mini_model  # noqa: E402

PYTORCH_BATCH = 32
DTYPES = ("f32", "int8", "bf16")
MIN_LOW_PRECISION_COSINE = 0.99


# --- the work: token ids, windows, padding ------------------------------------------------------

def tokenize(tinyenc, model, corpus):
    """(ids of every line, wall seconds of `tinyenc tokenize --json`, JSON printing included)."""
    start = time.perf_counter()
    result = subprocess.run([str(tinyenc), "tokenize", "-m", str(model), "-i", str(corpus),
                             "--json"], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"tinyenc tokenize: {result.stderr.strip()}")
    return [entry["ids"] for entry in json.loads(result.stdout)["inputs"]], seconds


def windows_of(ids, positions):
    """What `--long chunk` runs for one text: [(window ids, weight)]. A text that fits is its
    own window; a longer one has its content (ids without the leading [CLS] and trailing [SEP])
    cut into windows of positions - 2, each given [CLS] and [SEP] again and weighted by the
    text's tokens it holds (its specials not counted)."""
    if len(ids) <= positions:
        return [(ids, 1)]
    cls, content, sep = ids[0], ids[1:-1], ids[-1]
    size = positions - 2
    return [([cls] + content[begin:begin + size] + [sep], len(content[begin:begin + size]))
            for begin in range(0, len(content), size)]


def plan(all_ids, positions):
    """Flat lists of windows, the line each belongs to, and its weight."""
    windows, owners, weights = [], [], []
    for line, ids in enumerate(all_ids):
        for window, weight in windows_of(ids, positions):
            windows.append(window)
            owners.append(line)
            weights.append(weight)
    return windows, owners, weights


def padding_waste(lengths, batch, sort):
    """Share of the computed positions that are padding, for batches of `batch` padded to their
    longest, in length order (sentence-transformers sorts) or in the given order."""
    ordered = sorted(lengths, reverse=True) if sort else list(lengths)
    computed = sum(max(ordered[i:i + batch]) * len(ordered[i:i + batch])
                   for i in range(0, len(ordered), batch))
    return 1 - sum(lengths) / computed


# --- PyTorch ------------------------------------------------------------------------------------

def torch_encode(model, windows, batch_size, context=None):
    """sentence-transformers' encode(): longest first, batches padded to their longest with an
    attention mask, mean pooling over the real tokens, results put back in input order. Returns
    (embeddings [windows, d] as a float32 tensor, seconds)."""
    import torch
    order = sorted(range(len(windows)), key=lambda i: -len(windows[i]))
    out = [None] * len(windows)
    start = time.perf_counter()
    with torch.inference_mode(), (context or contextlib.nullcontext)():
        for begin in range(0, len(order), batch_size):
            chosen = order[begin:begin + batch_size]
            longest = len(windows[chosen[0]])
            ids = torch.zeros((len(chosen), longest), dtype=torch.long)  # [PAD] is 0
            lengths = torch.empty(len(chosen), dtype=torch.long)
            for row, index in enumerate(chosen):
                window = windows[index]
                ids[row, :len(window)] = torch.tensor(window)
                lengths[row] = len(window)
            pooled = model(ids, lengths)[1].float()
            for row, index in enumerate(chosen):
                out[index] = pooled[row]
        embeddings = torch.stack(out)
    return embeddings, time.perf_counter() - start


def combine(window_embeddings, owners, weights, lines):
    """A line's embedding: the weighted mean of its windows'."""
    import torch
    d = window_embeddings.shape[1]
    total = torch.zeros((lines, d), dtype=torch.float64)
    weight_sum = torch.zeros(lines, dtype=torch.float64)
    owner = torch.tensor(owners)
    weight = torch.tensor(weights, dtype=torch.float64)
    total.index_add_(0, owner, window_embeddings.double() * weight[:, None])
    weight_sum.index_add_(0, owner, weight)
    return (total / weight_sum[:, None]).float()


def pytorch_worker(args):
    """The child process: time the windows in --work at --threads, print JSON."""
    import torch
    work = json.loads(pathlib.Path(args.work).read_text())
    blas = compare_pytorch.blas_library()
    set_blas_threads = compare_pytorch.openblas_threads_setter(blas)
    torch.set_num_threads(args.worker_threads)
    set_blas_threads(args.worker_threads)
    variant = torch_variant(make_mini_model.mini_model(work["seed"]), args.worker_dtype)
    windows = work["windows"]
    # Warm up: one batch of the longest and one of the shortest windows.
    ordered = sorted(windows, key=len)
    torch_encode(variant.model, ordered[-PYTORCH_BATCH:] + ordered[:PYTORCH_BATCH], PYTORCH_BATCH,
                 variant.context)
    cpu_start = time.process_time()
    _, seconds = torch_encode(variant.model, windows, PYTORCH_BATCH, variant.context)
    cpu = time.process_time() - cpu_start
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu,
                      "threads": torch.get_num_threads()}))


def torch_variant(model, dtype):
    """PyTorch's model and context for a dtype: compare_pytorch's variants (f32 as it is; int8
    by quantize_dynamic on the onednn engine; bf16 under CPU autocast)."""
    if dtype != "f32":
        compare_pytorch.quantized_engine()
    with warnings.catch_warnings():
        # quantize_dynamic's observers warn that they saw no data: dynamic quantization needs none
        warnings.filterwarnings("ignore", message="must run observer")
        return compare_pytorch.TorchEngine(dtype, model)


def run_pytorch(launcher, work_file, threads, dtype):
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--pytorch-worker",
               "--work", str(work_file), "--worker-threads", str(threads),
               "--worker-dtype", dtype]
    environment = dict(os.environ, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads))
    stdout, _, _, peak, _ = launcher.run(command, environment)
    row = json.loads(stdout.strip().splitlines()[-1])
    row["peak_rss_bytes"] = peak  # the process's, as for tinyenc: Python, PyTorch, the ids
    return row


# --- tinyenc ------------------------------------------------------------------------------------

def help_text(tinyenc, subcommand):
    return subprocess.run([str(tinyenc), subcommand, "--help"], capture_output=True,
                          text=True).stdout


# Linux carries a process's peak RSS across fork and exec: a program started from this script
# once it holds PyTorch would report this script's peak, not its own (getrusage's ru_maxrss,
# and so `bench --corpus`'s peak_rss_bytes, alike). So the timed programs are started by a small
# launcher, itself started before PyTorch is imported: their figures carry its ~10 MiB at most.
LAUNCHER = r"""
import json, os, subprocess, sys, tempfile, time
for line in sys.stdin:
    request = json.loads(line)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(request["command"], stdout=out, stderr=err,
                                   env=request["env"])
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        reply = {"returncode": os.waitstatus_to_exitcode(status), "seconds": seconds,
                 "peak_rss_bytes": usage.ru_maxrss * 1024,
                 "cpu_seconds": usage.ru_utime + usage.ru_stime,
                 "stdout": out.read().decode(), "stderr": err.read().decode()}
    print(json.dumps(reply), flush=True)
"""


class Launcher:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def run(self, command, environment=None):
        """(stdout, stderr, wall seconds, peak RSS in bytes, CPU seconds) of one program."""
        request = {"command": [str(c) for c in command], "env": environment or dict(os.environ)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        if reply["returncode"] != 0:
            sys.exit(f"{' '.join(request['command'][:2])}: {reply['stderr'].strip()}")
        return (reply["stdout"], reply["stderr"], reply["seconds"], reply["peak_rss_bytes"],
                reply["cpu_seconds"])


def dtype_arguments(dtype):
    return [] if dtype == "f32" else ["--dtype", dtype]


def run_tinyenc(launcher, tinyenc, model, corpus, threads, has_corpus_bench, has_long,
                dtype="f32"):
    """A row of tinyenc's figures: `bench --corpus` when the build has it, else a timed
    `run -i --jsonl` (then padding, tokens and stages are not known)."""
    if has_corpus_bench:
        command = [str(tinyenc), "bench", "--corpus", str(corpus), "-m", str(model),
                   "--threads", str(threads), "--long", "chunk", "-f", "json"]
        command += dtype_arguments(dtype)
        stdout, _, _, peak, cpu = launcher.run(command)
        row = json.loads(stdout)
        row["own_peak_rss_bytes"] = row.get("peak_rss_bytes")  # its own getrusage figure
        row["peak_rss_bytes"] = peak
        row["cpu_seconds"] = cpu
        row["how"] = "bench --corpus"
        return row
    command = [str(tinyenc), "run", "-m", str(model), "-i", str(corpus), "--jsonl", "-o",
               os.devnull, "--threads", str(threads)] + dtype_arguments(dtype)
    command += ["--long", "chunk"] if has_long else ["--truncate"]
    _, _, seconds, peak, cpu = launcher.run(command)
    return {"threads": threads, "seconds": seconds, "peak_rss_bytes": peak, "cpu_seconds": cpu,
            "how": "run -i --jsonl (wall clock)"}


def tinyenc_embeddings(launcher, tinyenc, model, lines, has_long, dtype="f32"):
    with tempfile.TemporaryDirectory() as folder:
        sample = pathlib.Path(folder) / "sample.txt"
        sample.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        command = [str(tinyenc), "run", "-m", str(model), "-i", str(sample), "--jsonl",
                   "--threads", "1"] + dtype_arguments(dtype)
        if has_long:
            command += ["--long", "chunk"]
        stdout = launcher.run(command)[0]
    return [json.loads(line)["embedding"] for line in stdout.splitlines() if line.strip()]


# --- the machine --------------------------------------------------------------------------------

def torch_blas_info():
    import torch
    match = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    return match.group(1) if match else "?"


def tinyenc_isa(tinyenc):
    info = subprocess.run([str(tinyenc), "info"], capture_output=True, text=True).stdout
    for line in info.splitlines():
        if line.startswith(("PE kernels:", "oneDNN:")):
            yield " ".join(line.split())


def tinyenc_runnable_dtypes(tinyenc):
    """The dtypes `tinyenc info` says run on this CPU ("dtypes: f32, int8 run here; ...")."""
    info = subprocess.run([str(tinyenc), "info"], capture_output=True, text=True).stdout
    for line in info.splitlines():
        if line.startswith("dtypes:") and "run here" in line:
            listed = line.split(":", 1)[1].split("run here")[0]
            return {d.strip() for d in listed.split(",") if d.strip()}
    return {"f32"}


def cosine_summary(embeddings, reference):
    import torch
    cos = torch.nn.functional.cosine_similarity(embeddings.double(), reference.double(), dim=1)
    return {"mean": float(cos.mean()), "min": float(cos.min())}


# --- output -------------------------------------------------------------------------------------

def mib(value):
    return f"{value / 2**20:.0f} MiB" if value else "-"


def percent(value):
    return "-" if value is None else f"{100 * value:.1f} %"


def rate(value):
    return "-" if value is None else f"{value:,.0f}"


def ensure_corpus(path, lines, seed):
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(HERE / "generate_corpus.py"), "--lines", str(lines),
                    "--seed", str(seed), "-o", str(path)], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("--corpus", help="corpus file (default: generated into bench/corpus/out/)")
    parser.add_argument("--lines", type=int, default=20000,
                        help="lines of the generated corpus (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="corpus and model seed (default 0)")
    parser.add_argument("--model", help="model folder (default: the mini model, written into "
                                        "bench/corpus/out/ from --seed)")
    parser.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    parser.add_argument("--dtypes", default="f32,int8",
                        help="compute dtypes, each engine in each: f32, int8, bf16 (default "
                             "f32,int8; one this CPU cannot run fast is skipped with a note)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds, each engine and thread count once a round; the median "
                             "counts (default 1)")
    parser.add_argument("--sample", type=int, default=200,
                        help="lines checked against PyTorch (default 200)")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--format", choices=("text", "md"), default="text")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    parser.add_argument("--pytorch-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker-dtype", default="f32", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pytorch_worker:
        return pytorch_worker(args)
    markdown = args.format == "md"
    bullet = "- " if markdown else ""
    threads_list = [int(t) for t in args.threads.split(",")]
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if not dtypes or any(d not in DTYPES for d in dtypes):
        sys.exit(f"--dtypes {args.dtypes}: each must be one of {', '.join(DTYPES)}")

    launcher = Launcher()  # before PyTorch is imported
    import torch
    tinyenc = pathlib.Path(args.build_dir) / "tinyenc"
    if not tinyenc.exists():
        sys.exit(f"{tinyenc} not found: build the project first")
    blas = compare_pytorch.blas_library()
    if "openblas" not in blas.lower():
        sys.exit("refusing to compare: PyTorch is not running on OpenBLAS "
                 "(install libopenblas0-pthread)")
    out_dir = HERE / "out"
    corpus = pathlib.Path(args.corpus) if args.corpus else \
        out_dir / f"corpus-{args.lines}-seed{args.seed}.txt"
    if not args.corpus:
        ensure_corpus(corpus, args.lines, args.seed)
    if args.model:
        model_dir, model_seed = pathlib.Path(args.model), None
    else:
        model_dir, model_seed = out_dir / f"mini-seed{args.seed}", args.seed
        make_mini_model.ensure_mini_model(model_dir, args.seed)
    if model_seed is None:
        stamp = model_dir / "stamp.json"
        if not stamp.exists() or json.loads(stamp.read_text()).get("preset") != "mini":
            sys.exit(f"--model {model_dir}: not a folder make_mini_model.py wrote (PyTorch "
                     "rebuilds the mini model from its seed)")
        model_seed = json.loads(stamp.read_text())["seed"]
    positions = json.loads((model_dir / "config.json").read_text())["max_position_embeddings"]

    has_corpus_bench = "--corpus" in help_text(tinyenc, "bench")
    has_long = "--long" in help_text(tinyenc, "run")
    cpu, flags = compare_pytorch.cpu_description()
    print(f"{bullet}CPU: {cpu} ({os.cpu_count()} logical CPUs); flags: {' '.join(flags)}")
    print(f"{bullet}tinyenc: {'; '.join(tinyenc_isa(tinyenc))}")
    print(f"{bullet}PyTorch {torch.__version__} (BLAS_INFO={torch_blas_info()}), BLAS mapped: "
          f"{blas}; Python {platform.python_version()}")
    print(f"{bullet}model: {model_dir} (mini BERT: d 256, 4 layers, 4 heads, ffn 1024, "
          f"{positions} positions, mean pooling, seed {model_seed})")

    skipped = {}
    tinyenc_dtypes = tinyenc_runnable_dtypes(tinyenc)
    for dtype in dtypes:
        if dtype not in tinyenc_dtypes:
            skipped[dtype] = f"tinyenc cannot run {dtype} on this CPU (see `tinyenc info`)"
        elif dtype == "int8" and compare_pytorch.quantized_engine()[0] is None:
            skipped[dtype] = "PyTorch has no quantized engine"
        elif dtype == "bf16" and "avx512_bf16" not in flags:
            skipped[dtype] = "no avx512_bf16: PyTorch's bf16 would be emulated"
    for dtype, why in skipped.items():
        print(f"{bullet}{dtype} skipped: {why}")
    dtypes = [d for d in dtypes if d not in skipped]
    if not dtypes:
        sys.exit("no dtype left to compare")
    if "int8" in dtypes:
        quantized, kept = compare_pytorch.quantized_coverage(
            torch_variant(make_mini_model.mini_model(model_seed), "int8").model)
        print(f"{bullet}PyTorch int8 ({torch.backends.quantized.engine} engine): quantize_dynamic "
              f"made int8: {', '.join(quantized)}; f32: {', '.join(kept)}. tinyenc int8: every "
              "Linear")

    all_ids, tokenize_seconds = tokenize(tinyenc, model_dir, corpus)
    lines = corpus.read_text(encoding="utf-8").splitlines()
    if len(lines) != len(all_ids):
        sys.exit(f"{corpus}: {len(lines)} lines but tinyenc tokenize gave {len(all_ids)}")
    windows, owners, weights = plan(all_ids, positions)
    window_lengths = [len(w) for w in windows]
    real_tokens = sum(window_lengths)
    long_lines = sum(1 for ids in all_ids if len(ids) > positions)
    print(f"{bullet}corpus: {corpus} ({len(lines)} lines, {sum(map(len, all_ids))} tokens; "
          f"{long_lines} longer than {positions} -> {len(windows)} windows of "
          f"{real_tokens} tokens)")
    if not has_long and long_lines:
        print(f"{bullet}NOTE: this tinyenc has no `run --long chunk`: the check leaves the "
              "long lines out and tinyenc's timing cuts them (--truncate)")
    if not has_corpus_bench:
        print(f"{bullet}NOTE: this tinyenc has no `bench --corpus`: tinyenc is timed as a "
              "wall-clock `run -i --jsonl -o /dev/null`")

    # Correctness first: nothing is timed for engines that disagree.
    rng = random.Random(args.seed + 1)
    candidates = [i for i in range(len(lines)) if has_long or len(all_ids[i]) <= positions]
    long_ones = [i for i in candidates if len(all_ids[i]) > positions][:10]
    sample = sorted(set(long_ones) | set(rng.sample(candidates, min(args.sample - len(long_ones),
                                                                    len(candidates)))))
    sample_windows, sample_owners, sample_weights = plan([all_ids[i] for i in sample], positions)
    torch.set_num_threads(1)
    reference, _ = torch_encode(make_mini_model.mini_model(model_seed), sample_windows,
                                PYTORCH_BATCH)
    reference = combine(reference, sample_owners, sample_weights, len(sample))
    ours = torch.tensor(tinyenc_embeddings(launcher, tinyenc, model_dir, [lines[i] for i in sample],
                                           has_long))
    max_abs = float((ours - reference).abs().max()) if ours.shape == reference.shape \
        else float("inf")
    check_ok = max_abs <= args.tolerance
    print(f"{bullet}check: {len(sample)} lines ({len([i for i in sample if i in long_ones])} "
          f"chunked), `tinyenc run -i --jsonl` vs PyTorch: max abs difference {max_abs:.2e} "
          f"({'ok' if check_ok else 'FAILED'}: <= {args.tolerance:g})", flush=True)
    if not check_ok:
        sys.exit("the engines disagree: not timing them")
    cosines = {}
    for dtype in dtypes:
        if dtype == "f32":
            continue
        variant = torch_variant(make_mini_model.mini_model(model_seed), dtype)
        theirs, _ = torch_encode(variant.model, sample_windows, PYTORCH_BATCH, variant.context)
        theirs = combine(theirs, sample_owners, sample_weights, len(sample))
        ours_low = torch.tensor(tinyenc_embeddings(launcher, tinyenc, model_dir,
                                                   [lines[i] for i in sample], has_long, dtype))
        cosines[dtype] = {
            "tinyenc": cosine_summary(ours_low, reference),
            "pytorch": cosine_summary(theirs, reference)}
        print(f"{bullet}check {dtype}: cosine to PyTorch f32 over {len(sample)} lines, mean / "
              f"min: tinyenc {dtype} {cosines[dtype]['tinyenc']['mean']:.6f} / "
              f"{cosines[dtype]['tinyenc']['min']:.6f}; PyTorch {dtype} "
              f"{cosines[dtype]['pytorch']['mean']:.6f} / {cosines[dtype]['pytorch']['min']:.6f}",
              flush=True)
        worst = min(cosines[dtype]["tinyenc"]["min"], cosines[dtype]["pytorch"]["min"])
        if worst < MIN_LOW_PRECISION_COSINE:
            sys.exit(f"{dtype}: an embedding's cosine to f32 is {worst:.4f} "
                     f"(< {MIN_LOW_PRECISION_COSINE}): not timing it")

    cells = [(dtype, threads) for dtype in dtypes for threads in threads_list]
    tinyenc_rows = {cell: [] for cell in cells}
    torch_rows = {cell: [] for cell in cells}
    with tempfile.TemporaryDirectory() as folder:
        work = pathlib.Path(folder) / "work.json"
        work.write_text(json.dumps({"seed": model_seed, "windows": windows}))
        for round_index in range(args.rounds):
            for dtype, threads in cells:
                row = run_tinyenc(launcher, tinyenc, model_dir, corpus, threads,
                                  has_corpus_bench, has_long, dtype)
                tinyenc_rows[(dtype, threads)].append(row)
                print(f"  round {round_index + 1}: tinyenc {dtype} {threads}T "
                      f"{row['seconds']:.2f} s", file=sys.stderr, flush=True)
                row = run_pytorch(launcher, work, threads, dtype)
                torch_rows[(dtype, threads)].append(row)
                print(f"  round {round_index + 1}: PyTorch {dtype} {threads}T "
                      f"{row['seconds']:.2f} s", file=sys.stderr, flush=True)

    def median_row(rows):
        row = dict(min(rows, key=lambda r: abs(r["seconds"] - statistics.median(
            x["seconds"] for x in rows))))
        row["spread"] = (max(r["seconds"] for r in rows) - min(r["seconds"] for r in rows)) \
            / statistics.median(r["seconds"] for r in rows)
        return row

    sorted_waste = padding_waste(window_lengths, PYTORCH_BATCH, sort=True)
    unsorted_waste = padding_waste(window_lengths, PYTORCH_BATCH, sort=False)
    result = {"corpus": str(corpus), "model": str(model_dir), "lines": len(lines),
              "tokens": real_tokens, "windows": len(windows), "long_lines": long_lines,
              "tokenize_cli_seconds": tokenize_seconds, "check_max_abs": max_abs,
              "check_lines": len(sample), "check_cosines": cosines, "dtypes": dtypes,
              "skipped_dtypes": skipped, "tinyenc": {}, "pytorch": {},
              "padding_waste": {"pytorch_sorted_32": sorted_waste,
                                "unsorted_fixed_32": unsorted_waste},
              "machine": {"cpu": cpu, "flags": flags, "torch": torch.__version__,
                          "blas": blas}}
    headers = ["engine", "dtype", "threads", "texts", "tokens", "seconds", "tokens/s", "texts/s",
               "CPU s", "tokens/CPU s", "padding waste", "peak RSS", "spread"]
    table = []
    speed, cpu_speed = {}, {}
    for dtype, threads in cells:
        row = median_row(tinyenc_rows[(dtype, threads)])
        # The windows' tokens for both engines (tinyenc's own "tokens" counts a chunked text's
        # tokens once, without the specials each window adds).
        speed[("tinyenc", dtype, threads)] = real_tokens / row["seconds"]
        cpu_speed[("tinyenc", dtype, threads)] = real_tokens / row["cpu_seconds"]
        result["tinyenc"].setdefault(dtype, {})[threads] = row
        table.append([f"tinyenc ({row['how']})", dtype, str(threads),
                      str(row.get("texts", len(lines))),
                      str(real_tokens), f"{row['seconds']:.2f}",
                      rate(real_tokens / row["seconds"]), rate(len(lines) / row["seconds"]),
                      f"{row['cpu_seconds']:.2f}", rate(real_tokens / row["cpu_seconds"]),
                      percent(row.get("padding_waste")),
                      mib(row.get("peak_rss_bytes")), f"{100 * row['spread']:.0f} %"])
    for dtype, threads in cells:
        row = median_row(torch_rows[(dtype, threads)])
        speed[("PyTorch", dtype, threads)] = real_tokens / row["seconds"]
        cpu_speed[("PyTorch", dtype, threads)] = real_tokens / row["cpu_seconds"]
        result["pytorch"].setdefault(dtype, {})[threads] = row
        table.append([f"PyTorch (sorted, batches of {PYTORCH_BATCH})", dtype, str(threads),
                      str(len(lines)), str(real_tokens), f"{row['seconds']:.2f}",
                      rate(real_tokens / row["seconds"]), rate(len(lines) / row["seconds"]),
                      f"{row['cpu_seconds']:.2f}", rate(real_tokens / row["cpu_seconds"]),
                      percent(sorted_waste), mib(row["peak_rss_bytes"]),
                      f"{100 * row['spread']:.0f} %"])
    print()
    compare_pytorch.print_table(headers, table, markdown)
    print()

    def ratio(a, b, target, label=""):
        if a not in speed or b not in speed:
            return None
        value = speed[a] / speed[b]
        print(f"{bullet}{label}{a[0]} {a[1]} {a[2]}T / {b[0]} {b[1]} {b[2]}T tokens/s: {value:.2f} "
              f"(target >= {target}: {'met' if value >= target else 'NOT met'})")
        return value
    result["ratios"] = {}
    for dtype in dtypes:
        suffix = "" if dtype == "f32" else f"_{dtype}"
        result["ratios"].update({
            f"tinyenc1_over_pytorch1{suffix}": ratio(("tinyenc", dtype, 1), ("PyTorch", dtype, 1),
                                                     2),
            f"tinyenc2_over_tinyenc1{suffix}": ratio(("tinyenc", dtype, 2), ("tinyenc", dtype, 1),
                                                     1.8),
            f"tinyenc2_over_pytorch2{suffix}": ratio(("tinyenc", dtype, 2), ("PyTorch", dtype, 2),
                                                     2)})
        one = ("tinyenc", dtype, 1), ("PyTorch", dtype, 1)
        if all(key in cpu_speed for key in one):
            value = cpu_speed[one[0]] / cpu_speed[one[1]]
            result["ratios"][f"tinyenc1_over_pytorch1_cpu_time{suffix}"] = value
            print(f"{bullet}{dtype}, the same per CPU second (steadier on a busy machine; "
                  f"tinyenc's CPU time is its whole process, model loading included): {value:.2f}")
    for threads in threads_list:
        if len(dtypes) < 2:
            break
        ours = max(dtypes, key=lambda d: speed[("tinyenc", d, threads)])
        theirs = max(dtypes, key=lambda d: speed[("PyTorch", d, threads)])
        result["ratios"][f"best_tinyenc{threads}_over_best_pytorch{threads}"] = ratio(
            ("tinyenc", ours, threads), ("PyTorch", theirs, threads), 2.5,
            "each engine's fastest dtype: ")
    tinyenc_one = result["tinyenc"].get(dtypes[0], {}).get(threads_list[0], {})
    print(f"{bullet}padding waste: tinyenc {percent(tinyenc_one.get('padding_waste'))}, "
          f"PyTorch sorted batches of {PYTORCH_BATCH} {percent(sorted_waste)}, unsorted "
          f"batches of {PYTORCH_BATCH} {percent(unsorted_waste)}"
          + (f" (tinyenc's own unsorted-32 figure "
             f"{percent(tinyenc_one.get('padding_waste_unsorted_32'))})"
             if "padding_waste_unsorted_32" in tinyenc_one else ""))
    stages = tinyenc_one.get("stages", {})
    print(f"{bullet}tokenization: tinyenc {stages['tokenize']:.2f} s of its "
          f"{tinyenc_one['seconds']:.2f} s (included in its tokens/s); "
          if "tokenize" in stages else f"{bullet}tokenization: ", end="")
    print(f"`tinyenc tokenize --json` {tokenize_seconds:.2f} s wall (JSON printing included); "
          "PyTorch's time has none")
    print(f"{bullet}each cell the median of {args.rounds} round(s); spread (max - min) / median; "
          "the machine is shared: 2-thread figures include the neighbours")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
