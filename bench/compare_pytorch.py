#!/usr/bin/python3
"""tinyenc vs PyTorch eager, ONNX Runtime, OpenVINO and CTranslate2, in f32, bf16 and int8, one
model each.

For each preset (tiny/mini/small/base) the script builds ONE random-weight ReferenceEncoder
(tools/golden/reference_encoder.py, fixed seed: nn.Embedding + learned positions + token types +
LayerNorm, post-LN nn.TransformerEncoderLayer with GELU, CLS pooling) and saves it twice: as a
tinyenc model folder (config.json + model.safetensors) and as ONNX (torch.onnx.export, opset 14,
dynamic batch and seq). Every engine then runs those weights:

  tinyenc f32/bf16/int8  `build/tinyenc bench -m FOLDER [--dtype D] -f json` (its p50); a dtype
                         the CPU cannot run is shown as n/a with tinyenc's reason
  PyTorch f32            the module in eval() + inference_mode(): nn.TransformerEncoderLayer's
                         fused fast path
  PyTorch bf16           the same under torch.autocast("cpu", torch.bfloat16)
  PyTorch int8           torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, torch.qint8)
                         on the quantized engine "onednn" (falls back to the best supported)
  ORT f32                ONNX Runtime's CPU execution provider on model.onnx
  ORT int8               the same on its quantize_dynamic copy (int8 MatMul weights, u8
                         activations quantized per call); ORT has no bf16 column
  OpenVINO f32/bf16      the CPU plugin at inference precision f32 / bf16 (bf16 n/a where the CPU
                         does not offer it)
  OpenVINO int8          NNCF post-training quantization (calibrated on seeded random ids),
                         compiled at OpenVINO's default precision for the rest
  CTranslate2 f32/int8   ctranslate2.Encoder on a CTranslate2 model made from the tinyenc folder
                         (no PyTorch: peer.py builds its BERT spec with numpy), float32 / int8
                         (its own int8 weights and activations), its AVX512 kernels where the
                         CPU has AVX-512 (on AMD it would pick AVX2); bf16 n/a where it lists no
                         bfloat16 compute type for the CPU (on AMD Zen 4 with AVX512_BF16 it
                         lists float32, int8, int8_float32)

ONNX Runtime, OpenVINO and CTranslate2 run in bench/peers/peer.py, one process per
measurement, under --peers-python (default bench/.venv/bin/python, made by `bash
bench/peers/setup.sh` from bench/peers/requirements.txt): nncf needs a newer PyTorch than
Debian's, so they cannot share this process or a venv that sees Debian's packages. Without that
Python their columns are left out, with a note. Each prints its version, settings and what it
ran (ORT's fused graph, the OpenVINO runtime graph's primitives, CTranslate2's ISA and GEMM
backend) before the table. A dtype a peer refuses is n/a, its reason in the notes.

The fused fast path accepts neither autocast on CPU (it checks CUDA's autocast flag only, then
fails on mixed dtypes) nor quantized Linear layers (it reads linear1.weight as a tensor), so the
bf16 and int8 rows run the layer's own unfused code (the same F.multi_head_attention_forward +
_ff_block + LayerNorms). quantize_dynamic replaces the FFN's linear1/linear2 and the classifier;
the attention's packed in_proj weight and its out_proj (a NonDynamicallyQuantizableLinear, read
as a raw weight by F.multi_head_attention_forward) stay float32: a third of the projection
FLOPs, besides the attention's own products.

Before timing, each preset runs a fixed input through every engine and prints the difference
from tinyenc f32 (max abs, and relative L2 norm of the difference): an f32 engine further than
--f32-tolerance (1e-4) in max abs, or a reduced-precision one further than --low-tolerance in
relative L2, is not timed ("refused" in the table). Timing alternates all engines for --rounds
rounds (these machines change speed for seconds at a time, so no engine may get all the good
seconds); each cell is the median over rounds of each round's p50. Ratios: the best other
engine's p50 over tinyenc's, per dtype and over all dtypes (tinyenc's fastest against everyone's
fastest; > 1: tinyenc is faster).

PyTorch threads: torch.set_num_threads and Debian's OpenBLAS pool (which torch's setting does
not reach) both set to the row's threads; with more than one thread PyTorch is also timed with
one ATen thread over OpenBLAS at `threads` and its faster arrangement counts. Debian's PyTorch
calls whatever libblas.so.3 the alternatives system selects; the script refuses to run on the
reference BLAS (7-20x slower; install libopenblas0-pthread). ONNX Runtime: intra-op threads =
the row's threads, inter-op 1; OpenVINO: INFERENCE_NUM_THREADS = the row's threads, one stream,
the LATENCY hint. The peers time the same deterministic ids for every shape, reused run to run.

  bash bench/peers/setup.sh
  /usr/bin/python3 bench/compare_pytorch.py --configs mini,small,base --seq 8,32,128 \\
      --rounds 3 --format md
"""
import argparse
import contextlib
import copy
import json
import math
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "golden"))

PRESETS = {"tiny": (128, 2, 2, 512), "mini": (256, 4, 4, 1024), "small": (512, 8, 4, 2048),
           "base": (768, 12, 12, 3072)}
DTYPES = ("f32", "bf16", "int8")
WEIGHT_TYPE = {"f32": "f32", "bf16": "bf16", "int8": "s8"}  # oneDNN's name of the weights' type
PEER_SCRIPT = ROOT / "bench" / "peers" / "peer.py"
# The dtypes each peer has a column for. ONNX Runtime's CPU execution provider has no bf16
# kernels for this graph (peer.py refuses it rather than run f32 under the name).
PEER_DTYPES = {"ORT": ("f32", "int8"), "OpenVINO": DTYPES, "CTranslate2": DTYPES}
CHECK_SEQ = 16


# --- the machine -------------------------------------------------------------------------------

def cpu_description():
    model, flags = "unknown CPU", set()
    with contextlib.suppress(OSError):
        for line in open("/proc/cpuinfo"):
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    shown = sorted(f for f in flags if f in ("avx2", "fma") or f.startswith(("avx512", "amx"))
                   or "vnni" in f)
    return model, shown


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


# --- the model, saved for tinyenc and ONNX Runtime ---------------------------------------------

def reference_model(preset, seed):
    import torch
    import reference_encoder as ref
    d, heads, layers, ffn = PRESETS[preset]
    config = ref.default_config(vocab_size=30522, hidden_size=d, num_attention_heads=heads,
                                num_hidden_layers=layers, intermediate_size=ffn, type_vocab_size=2,
                                max_position_embeddings=512, pooling="cls",
                                position_encoding={"kind": "learned", "max_positions": 512})
    torch.manual_seed(seed)
    model = ref.ReferenceEncoder(config).eval()
    # LayerNorm starts at gamma = 1, beta = 0: perturb, so the weights are all in play.
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.LayerNorm):
                module.weight.add_(0.1 * torch.randn_like(module.weight))
                module.bias.add_(0.1 * torch.randn_like(module.bias))
    return model


def hidden_states_module(model):
    """The encoder's last hidden state for unpadded ids [batch, seq], from the model's own
    submodules: what is exported to ONNX (ReferenceEncoder.forward sizes its position ids with
    len(lengths), which tracing would freeze to the export batch)."""
    import torch

    class HiddenStates(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, ids):
            m = self.model
            positions = torch.arange(ids.shape[1]).unsqueeze(0)
            x = m.word_embeddings(ids) + m.position_embeddings(positions) \
                + m.token_type_embeddings(torch.zeros_like(ids))
            x = m.embedding_norm(x)
            for layer in m.layers:
                x = layer(x)
            return x
    return HiddenStates()


def export(model, preset, seed, folder):
    """config.json + model.safetensors (tinyenc) and model.onnx in `folder`, reused when the
    stamp says they were made from the same preset, seed and PyTorch."""
    import torch
    stamp = {"preset": preset, "seed": seed, "torch": torch.__version__, "format": 3}
    stamp_file = folder / "stamp.json"
    if stamp_file.exists() and json.loads(stamp_file.read_text()) == stamp \
            and (folder / "model.onnx").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    stamp_file.unlink(missing_ok=True)
    model.save(folder)
    # tinyenc's CLI loads a tokenizer with every model; the ids are given directly, so a
    # WordPiece vocabulary of placeholders of the embedding table's size is enough.
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += [f"[unused{i}]" for i in range(len(vocab), model.config["vocab_size"])]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    ids = torch.randint(1000, 29000, (2, 8))
    # Traced with grad enabled: the parameters require grad, so nn.TransformerEncoderLayer takes
    # its plain path, made of ops ONNX has (the fused one is a single ATen op it has not).
    with torch.enable_grad():
        torch.onnx.export(hidden_states_module(model), (ids,), str(folder / "model.onnx"),
                          opset_version=14, input_names=["ids"], output_names=["hidden"],
                          dynamic_axes={"ids": {0: "batch", 1: "seq"},
                                        "hidden": {0: "batch", 1: "seq"}})
    stamp_file.write_text(json.dumps(stamp) + "\n")


# --- PyTorch -----------------------------------------------------------------------------------

def unfused(model):
    """Each nn.TransformerEncoderLayer runs its own non-fused post-LN code (what its forward does
    when the fast path is off): the fast path takes neither CPU autocast nor quantized Linear."""
    import torch.nn.functional as F
    for layer in model.layers:
        assert not layer.norm_first

        def forward(src, src_mask=None, src_key_padding_mask=None, layer=layer):
            attention = layer.self_attn
            q = src.transpose(1, 0)  # batch_first: MultiheadAttention's slow path is seq-first
            a, _ = F.multi_head_attention_forward(
                q, q, q, attention.embed_dim, attention.num_heads, attention.in_proj_weight,
                attention.in_proj_bias, None, None, False, 0.0, attention.out_proj.weight,
                attention.out_proj.bias, training=False, key_padding_mask=src_key_padding_mask,
                need_weights=False, attn_mask=src_mask)
            x = layer.norm1(src + a.transpose(1, 0))
            return layer.norm2(x + layer._ff_block(x))
        layer.forward = forward
    return model


def quantized_engine():
    import torch
    supported = torch.backends.quantized.supported_engines
    for engine in ("onednn", "x86", "fbgemm", "qnnpack"):
        if engine in supported:
            torch.backends.quantized.engine = engine
            return engine, supported
    return None, supported


class TorchEngine:
    """One PyTorch variant: call(ids, lengths) under the right context."""

    def __init__(self, dtype, model):
        import torch
        self.dtype = dtype
        if dtype == "f32":
            self.model = model
            self.context = contextlib.nullcontext
        elif dtype == "bf16":
            self.model = unfused(copy.deepcopy(model))
            self.context = lambda: torch.autocast("cpu", dtype=torch.bfloat16)
        else:
            quantized = torch.ao.quantization.quantize_dynamic(
                copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
            self.model = unfused(quantized)
            self.context = contextlib.nullcontext

    def hidden(self, ids):
        import torch
        lengths = torch.full((ids.shape[0],), ids.shape[1])
        with torch.inference_mode(), self.context():
            return self.model(ids, lengths)[0].float()

    def p50(self, ids, repeats, min_seconds, max_seconds):
        """Median of at least `repeats` runs and `min_seconds`, but a variant slow enough to pass
        `max_seconds` (bf16 emulated on AVX2) stops there, after one warm-up and one run."""
        import torch
        lengths = torch.full((ids.shape[0],), ids.shape[1])
        with torch.inference_mode(), self.context():
            for _ in range(3):
                t0 = time.perf_counter()
                self.model(ids, lengths)
                if time.perf_counter() - t0 > max_seconds / 10:
                    break
            times = []
            start = time.perf_counter()
            while len(times) < repeats or time.perf_counter() - start < min_seconds:
                if times and time.perf_counter() - start > max_seconds:
                    break
                t0 = time.perf_counter()
                self.model(ids, lengths)
                times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1e3


def quantized_coverage(model):
    """Which Linear layers quantize_dynamic replaced, as a one-line summary."""
    import torch
    quantized, kept = set(), set()
    for name, module in model.named_modules():
        kind = type(module).__name__
        short = re.sub(r"^layers\.\d+\.", "", name)
        if "quantized" in type(module).__module__ and kind == "Linear":
            quantized.add(short)
        elif isinstance(module, torch.nn.Linear):
            kept.add(short)
    kept.add("self_attn.in_proj (a raw parameter)")
    return sorted(quantized), sorted(kept)


# --- tinyenc -----------------------------------------------------------------------------------

def tinyenc_has_dtype(tinyenc):
    help_text = subprocess.run([str(tinyenc), "bench", "--help"], capture_output=True,
                               text=True).stdout
    return "--dtype" in help_text


def tinyenc_hidden(tinyenc, folder, ids, dtype, with_dtype):
    """(hidden [seq, d] as a list of rows, matmul implementations) from `tinyenc run --ids`,
    with oneDNN's verbose log naming the implementation of every matmul it ran; or (None,
    message) when tinyenc refuses."""
    command = [str(tinyenc), "run", "-m", str(folder), "--ids", ",".join(map(str, ids)),
               "--hidden-states", "--json", "--threads", "1"]
    if with_dtype:
        command += ["--dtype", dtype]
    environment = dict(os.environ, ONEDNN_VERBOSE="1")
    result = subprocess.run(command, capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or ["failed"])[-1]
    json_lines, implementations = [], {}
    for line in result.stdout.splitlines():
        if line.startswith(("onednn_verbose", "dnnl_verbose")):
            fields = line.split(",")
            if len(fields) > 6 and fields[1] == "exec" \
                    and fields[3] in ("matmul", "inner_product", "convolution"):
                weights = re.search(r"wei_([a-z0-9]+):", fields[6])
                key = (fields[3], fields[4], weights.group(1) if weights else "?",
                       "bia_" in fields[6])
                implementations[key] = implementations.get(key, 0) + 1
        else:
            json_lines.append(line)
    document = json.loads("\n".join(json_lines))
    return document["inputs"][0]["hidden_states"], implementations


def implementation_summary(implementations, dtype):
    """The oneDNN implementations of the weight products (Q/K/V, output, FFN and head
    projections), most used first: the primitives whose weights have the dtype's type, and for
    f32 those with a bias too (attention's own products have f32 "weights" and no bias)."""
    wanted = WEIGHT_TYPE[dtype]
    rows = {}
    for (kind, impl, weights, bias), count in implementations.items():
        if weights == wanted and (bias or dtype != "f32"):
            rows[f"{kind} {impl}"] = rows.get(f"{kind} {impl}", 0) + count
    if not rows:
        return None
    return " + ".join(name for name, _ in sorted(rows.items(), key=lambda r: -r[1]))


def tinyenc_p50(tinyenc, folder, dtype, with_dtype, batch, seq, threads, min_seconds):
    command = [str(tinyenc), "bench", "-m", str(folder), "--seq", str(seq), "--batch-size",
               str(batch), "--threads", str(threads), "--min-time", str(min_seconds),
               "--warmup", "3", "-f", "json"]
    if with_dtype:
        command += ["--dtype", dtype]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"tinyenc bench: {result.stderr.strip()}")
    row = json.loads(result.stdout)["rows"][0]
    if row.get("dtype", "f32") != dtype:  # a fallback must not be shown as the dtype asked for
        raise RuntimeError(f"tinyenc bench --dtype {dtype} ran {row['dtype']}")
    return row["p50_ms"], row.get("matmul", "")


def encoder_bench_p50(bench, dtype, preset, batch, seq, threads, min_seconds):
    """(median real time in ms, label) of BM_Encoder[_dtype]/<preset>/<batch>/<seq>/<threads>:
    the preset's own random weights, for a tinyenc CLI without --dtype; (None, reason) when the
    benchmark skips itself (a dtype this CPU cannot run) or is not registered."""
    prefix = "BM_Encoder" if dtype == "f32" else f"BM_Encoder_{dtype}"
    name = f"{prefix}/{preset}/{batch}/{seq}/{threads}"
    result = subprocess.run(
        [str(bench), f"--benchmark_filter=^{name}/", "--benchmark_format=json",
         "--benchmark_repetitions=3", f"--benchmark_min_time={max(min_seconds / 3, 0.01):.3f}",
         "--benchmark_report_aggregates_only=true"], capture_output=True, text=True)
    if result.returncode != 0:
        return None, f"{bench.name} failed: {result.stderr.strip()}"
    rows = json.loads(result.stdout)["benchmarks"]
    for row in rows:
        if row.get("error_occurred"):
            return None, row.get("error_message", "skipped")
    for row in rows:
        if row.get("aggregate_name") == "median":
            return row["real_time"], row.get("label", "")  # ms (the benchmark's unit)
    return None, f"{bench.name} has no {name}"


# --- ONNX Runtime, OpenVINO and CTranslate2 ----------------------------------------------------

def peer_run(python, engine, dtype, model, *args):
    """bench/peers/peer.py's JSON object for one engine and dtype, run by the peers' venv (its
    nncf cannot share a process, or a venv, with Debian's PyTorch): one with "refused" when the
    peer does not offer the dtype here (exit 3)."""
    command = [str(python), str(PEER_SCRIPT), "--engine", engine.lower(), "--dtype", dtype,
               "--model", str(model), *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode not in (0, 3):
        raise RuntimeError((result.stderr.strip().splitlines() or [f"{engine} {dtype}: failed "
                                                                    f"({result.returncode})"])[-1])
    return json.loads(result.stdout)


def peer_check(python, model, ids, columns, preset, notes):
    """{(peer, dtype): peer.py's output for the check ids} of the peers' columns; a dtype a peer
    refuses here, or a peer that fails, leaves a note and an n/a cell instead."""
    results = {}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as ids_file:
        json.dump({"ids": ids}, ids_file)
        ids_file.flush()
        for engine, dtype in columns:
            try:
                result = peer_run(python, engine, dtype, model, "--threads", 1, "--ids",
                                  ids_file.name)
            except RuntimeError as error:
                notes.append(f"{preset}: {engine} {dtype} not run: {error}")
                continue
            if "refused" in result:
                notes.append(f"{preset}: {engine} {dtype} n/a: {result['refused']}")
                continue
            results[(engine, dtype)] = result
    return results


def describe_peer(engine, dtype, result, where, shown):
    """The line naming a peer's version, settings and implementation the first time it ran;
    later, only an implementation not shown before (OpenVINO picks its primitives per input
    shape; ORT names its kernels in the check only); None when there is nothing new. `shown`
    keeps what was printed, per (peer, dtype)."""
    implementation = result.get("implementation")
    if (engine, dtype) not in shown:
        shown[(engine, dtype)] = {implementation}
        return (f"{engine} {dtype}: {result['version']}; {result['settings']} (threads: 1 in "
                f"the check, the row's when timed); ran ({where}): {implementation}")
    if implementation and implementation not in shown[(engine, dtype)]:
        shown[(engine, dtype)].add(implementation)
        return f"{engine} {dtype} ran ({where}): {implementation}"
    return None


def peers_missing(python):
    if not pathlib.Path(python).exists():
        return f"{python} not found (run `bash bench/peers/setup.sh`)"
    return ""


# --- accuracy ----------------------------------------------------------------------------------

def differences(hidden, reference):
    """(max abs difference, relative L2 norm of the difference) of two equal-shape arrays."""
    import numpy as np
    a = np.asarray(hidden, dtype=np.float64).reshape(-1)
    b = np.asarray(reference, dtype=np.float64).reshape(-1)
    if a.shape != b.shape:
        return math.inf, math.inf
    return float(np.abs(a - b).max()), float(np.linalg.norm(a - b) / np.linalg.norm(b))


# --- output ------------------------------------------------------------------------------------

def number(value):
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.3g}" if value < 1000 else f"{value:.0f}"


def print_table(headers, rows, markdown):
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "---|" * len(headers))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="small,base")
    parser.add_argument("--seq", default="8,128")
    parser.add_argument("--batch", default="1")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--min-runs", type=int, default=5,
                        help="runs per measurement of PyTorch and the peers, at least")
    parser.add_argument("--max-time", type=float, default=10.0,
                        help="seconds after which a slow PyTorch variant stops (one run at least)")
    parser.add_argument("--engines", default="tinyenc,pytorch,ort,openvino,ctranslate2",
                        help="any of tinyenc, pytorch, ort, openvino, ctranslate2")
    parser.add_argument("--dtypes", default="f32,bf16,int8")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--f32-tolerance", type=float, default=1e-4,
                        help="max abs difference from tinyenc f32 allowed to f32 engines")
    parser.add_argument("--low-tolerance", type=float, default=0.05,
                        help="relative L2 difference from tinyenc f32 allowed to bf16/int8")
    parser.add_argument("--format", choices=("text", "md"), default="text")
    parser.add_argument("--build-dir", default=str(ROOT / "build"))
    parser.add_argument("--models-dir", default=str(ROOT / "bench" / "exported"),
                        help="where the presets' model folders and ONNX files are kept")
    parser.add_argument("--peers-python", default=str(ROOT / "bench" / ".venv" / "bin" / "python"),
                        help="the Python that runs bench/peers/peer.py (ONNX Runtime, OpenVINO, "
                             "CTranslate2); "
                             "bash bench/peers/setup.sh makes the default")
    args = parser.parse_args()
    engines = set(args.engines.split(","))
    dtypes = [d for d in DTYPES if d in args.dtypes.split(",")]
    markdown = args.format == "md"

    import numpy as np
    import torch
    cpu, flags = cpu_description()
    blas = blas_library()
    if "openblas" not in blas.lower():
        sys.exit("refusing to compare: PyTorch is not running on OpenBLAS "
                 "(install libopenblas0-pthread; see update-alternatives --display "
                 "libblas.so.3-x86_64-linux-gnu)")
    set_blas_threads = openblas_threads_setter(blas)
    engine_name, supported = quantized_engine()
    tinyenc = pathlib.Path(args.build_dir) / "tinyenc"
    if "tinyenc" in engines and not tinyenc.exists():
        sys.exit(f"{tinyenc} not found: build the project first")
    with_dtype = "tinyenc" in engines and tinyenc_has_dtype(tinyenc)
    encoder_bench = pathlib.Path(args.build_dir) / "bench" / "encoder_bench"
    notes = []
    peers = {"ort", "openvino", "ctranslate2"} & engines
    missing = peers_missing(args.peers_python) if peers else ""
    if missing:  # their columns are left out, not shown empty
        notes.append(f"ONNX Runtime, OpenVINO and CTranslate2 not run: {missing}")
        engines -= peers

    bullet = "- " if markdown else ""
    print(f"{bullet}CPU: {cpu}; flags: {' '.join(flags) or 'none of avx2/avx512*/amx*/vnni'}")
    print(f"{bullet}PyTorch {torch.__version__}, BLAS {blas}, quantized engine {engine_name} "
          f"(supported: {', '.join(supported)})")
    print(f"{bullet}date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; rounds "
          f"{args.rounds}; each cell the median over rounds of the round's p50, ms")
    if "tinyenc" in engines and not with_dtype:
        print(f"{bullet}tinyenc: this build's CLI has no --dtype: f32 through `tinyenc bench -m`,"
              " bf16 and int8 through encoder_bench where it has them")
    if "ort" in engines and "bf16" in dtypes:
        notes.append("ORT bf16: no column: its CPU execution provider has no bf16 kernels for "
                     "this graph")
    shown = {}  # (peer, dtype) -> its implementations printed so far

    headers = ["config", "batch", "seq", "threads"]
    columns = [(e, d) for e in ("tinyenc", "PyTorch", "ORT", "OpenVINO", "CTranslate2")
               for d in dtypes
               if e.lower() in engines and d in PEER_DTYPES.get(e, DTYPES)]
    headers += [f"{e} {d}" for e, d in columns]
    headers += [f"tinyenc {d} vs best other {d}" for d in dtypes]
    headers += ["tinyenc best vs best of all", "tinyenc matmul", "spread"]
    table = []

    for preset in args.configs.split(","):
        if preset not in PRESETS:
            sys.exit(f"--configs: unknown preset '{preset}' (tiny, mini, small, base)")
        model = reference_model(preset, args.seed)
        folder = pathlib.Path(args.models_dir) / f"{preset}-seed{args.seed}"
        export(model, preset, args.seed, folder)

        # Accuracy: one fixed input through every engine, against tinyenc f32.
        generator = torch.Generator().manual_seed(args.seed + 1)
        check_ids = torch.randint(1000, 29000, (1, CHECK_SEQ), generator=generator)
        runners = {}  # (engine, dtype) -> None (refused) or a way to time it
        matmul = {}
        outputs = {}
        if "tinyenc" in engines:
            for dtype in dtypes:
                if dtype != "f32" and not with_dtype:
                    # Timed on the preset's random weights instead, when encoder_bench has them.
                    if not encoder_bench.exists():
                        continue
                    ms, info = encoder_bench_p50(encoder_bench, dtype, preset, 1, 8, 1, 0.01)
                    if ms is None:
                        notes.append(f"{preset}: tinyenc {dtype} not run: {info}")
                    else:
                        runners[("tinyenc", dtype)] = "encoder_bench"
                        matmul[dtype] = info
                        print(f"{bullet}{preset}: tinyenc {dtype} is timed by "
                              f"{encoder_bench.name} on the preset's random weights (marked *; "
                              f"this tinyenc has no --dtype), not checked against f32")
                    continue
                hidden, info = tinyenc_hidden(tinyenc, folder, check_ids[0].tolist(), dtype,
                                              with_dtype)
                if hidden is None:
                    notes.append(f"{preset}: tinyenc {dtype} not run: {info}")
                    continue
                summary = implementation_summary(info, dtype)
                if summary is None:  # no product with this dtype's weights: another dtype ran
                    notes.append(f"{preset}: tinyenc {dtype} not run: `tinyenc run --dtype "
                                 f"{dtype}` ran no matmul with {WEIGHT_TYPE[dtype]} weights")
                    continue
                outputs[("tinyenc", dtype)] = hidden
                matmul[dtype] = summary
        torch_engines = {}
        if "pytorch" in engines:
            for dtype in dtypes:
                if dtype == "int8" and engine_name is None:
                    notes.append("PyTorch int8: no quantized engine")
                    continue
                torch_engines[dtype] = TorchEngine(dtype, model)
                outputs[("PyTorch", dtype)] = torch_engines[dtype].hidden(check_ids)[0].numpy()
            if "int8" in torch_engines:
                quantized, kept = quantized_coverage(torch_engines["int8"].model)
                notes.append(f"{preset}: quantize_dynamic made int8: {', '.join(quantized)}; "
                             f"kept f32: {', '.join(kept)}")
        peer_results = peer_check(args.peers_python, folder / "model.onnx", check_ids.tolist(),
                                  [c for c in columns if c[0] in PEER_DTYPES], preset, notes)
        for column, result in peer_results.items():
            outputs[column] = np.asarray(result["hidden"]).reshape(result["dims"])[0]

        reference_name = ("tinyenc", "f32") if "tinyenc" in engines else ("PyTorch", "f32")
        reference = outputs.get(reference_name)
        if reference is None:
            sys.exit(f"{preset}: {' '.join(reference_name)} did not run; nothing to check the "
                     "others against")
        for (engine, dtype), hidden in outputs.items():
            if (engine, dtype) == reference_name:
                runners[(engine, dtype)] = True
                continue
            max_abs, relative = differences(hidden, reference)
            ok = max_abs <= args.f32_tolerance if dtype == "f32" else relative <= args.low_tolerance
            bound = f"max abs <= {args.f32_tolerance:g}" if dtype == "f32" \
                else f"relative <= {args.low_tolerance:g}"
            print(f"{bullet}{preset}: {engine} {dtype} vs {' '.join(reference_name)} "
                  f"(1 x {CHECK_SEQ} ids): max "
                  f"abs {max_abs:.3g}, relative L2 {relative:.3g} "
                  f"({'ok' if ok else 'NOT TIMED'}: {bound})")
            runners[(engine, dtype)] = ok
        for dtype in dtypes:
            if dtype in matmul:
                print(f"{bullet}{preset}: tinyenc {dtype} matmul implementations (oneDNN verbose, "
                      f"weights {WEIGHT_TYPE[dtype]}): {matmul[dtype]}")
        for (engine, dtype), result in peer_results.items():
            line = describe_peer(engine, dtype, result, f"{preset}, 1 x {CHECK_SEQ} ids", shown)
            if line:
                print(f"{bullet}{line}")

        for batch in map(int, args.batch.split(",")):
            for seq in map(int, args.seq.split(",")):
                ids = torch.randint(1000, 29000, (batch, seq))
                for threads in map(int, args.threads.split(",")):
                    samples = {column: [] for column in columns}
                    row_matmul = dict(matmul)  # the check run's, unless bench names this shape's
                    for _ in range(args.rounds):
                        for engine, dtype in columns:
                            if not runners.get((engine, dtype)):
                                continue
                            if runners[(engine, dtype)] == "encoder_bench":
                                ms, label = encoder_bench_p50(encoder_bench, dtype, preset, batch,
                                                              seq, threads, args.min_time)
                                if ms is None:
                                    notes.append(f"{preset}: tinyenc {dtype} b{batch} s{seq} "
                                                 f"t{threads}: {label}")
                                    continue
                                row_matmul[dtype] = label
                            elif engine == "tinyenc":
                                ms, label = tinyenc_p50(tinyenc, folder, dtype, with_dtype,
                                                        batch, seq, threads, args.min_time)
                                if label:  # tinyenc bench's own name for its main matmul
                                    row_matmul[dtype] = label
                            elif engine == "PyTorch":
                                ms = math.inf
                                for intra_op in sorted({threads, 1}, reverse=True):
                                    torch.set_num_threads(intra_op)
                                    set_blas_threads(threads)
                                    ms = min(ms, torch_engines[dtype].p50(
                                        ids, args.min_runs, args.min_time, args.max_time))
                            else:
                                result = peer_run(
                                    args.peers_python, engine, dtype, folder / "model.onnx",
                                    "--batch", batch, "--seq", seq, "--threads", threads,
                                    "--min-time", args.min_time, "--min-runs", args.min_runs)
                                if "refused" in result:
                                    raise RuntimeError(f"{engine} {dtype}: {result['refused']}")
                                ms = result["p50_ms"]
                                line = describe_peer(engine, dtype, result, f"{preset} b{batch} "
                                                     f"s{seq} t{threads}", shown)
                                if line:
                                    notes.append(line)
                            samples[(engine, dtype)].append(ms)
                    p50 = {c: statistics.median(v) for c, v in samples.items() if v}
                    spread = max((max(v) - min(v)) / statistics.median(v)
                                 for v in samples.values() if v)
                    row = [preset, str(batch), str(seq), str(threads)]
                    for column in columns:
                        if column in p50:
                            mark = "*" if runners.get(column) == "encoder_bench" else ""
                            row.append(number(p50[column]) + mark)
                        elif column in runners:
                            row.append("refused")
                        else:
                            row.append("n/a")
                    for dtype in dtypes:
                        ours = p50.get(("tinyenc", dtype))
                        others = [v for (e, d), v in p50.items() if e != "tinyenc" and d == dtype]
                        row.append(f"{min(others) / ours:.2f}x" if ours and others else "-")
                    ours = [v for (e, _), v in p50.items() if e == "tinyenc"]
                    others = [v for (e, _), v in p50.items() if e != "tinyenc"]
                    row.append(f"{min(others) / min(ours):.2f}x" if ours and others else "-")
                    fastest = min((v, d) for (e, d), v in p50.items() if e == "tinyenc") \
                        if ours else None
                    row.append(f"{fastest[1]}: {row_matmul.get(fastest[1], '?')}"
                               if fastest else "-")
                    row.append(f"{100 * spread:.0f}%")
                    table.append(row)
                    print(("| " + " | ".join(row) + " |") if markdown else "  ".join(row),
                          file=sys.stderr, flush=True)
    print()
    print_table(headers, table, markdown)
    for note in notes:
        print(f"\n{bullet}{note}" if note is notes[0] else f"{bullet}{note}")
    print(f"{bullet}ratios: the other engine's p50 over tinyenc's (> 1: tinyenc is faster); "
          "spread: the widest (max - min) / median over rounds of any engine in the row")


if __name__ == "__main__":
    main()
