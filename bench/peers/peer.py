"""One peer engine of bench/compare_pytorch.py on an exported encoder: ONNX Runtime, OpenVINO or
CTranslate2, one dtype, one model. Prints one JSON object on stdout.

  peer.py --engine ort|openvino|ctranslate2 --dtype f32|bf16|int8 --model M.onnx --threads T \
      --ids FILE
      the output for given ids (FILE: {"ids": [[...], ...]}): the accuracy check
  peer.py --engine E --dtype D --model M.onnx --threads T --batch B --seq S \\
      [--min-time SEC] [--min-runs N] [--warmup 3]
      p50 latency of one input shape; timed runs reuse one input of deterministic ids

Runs under bench/.venv (bash bench/peers/setup.sh), not Debian's python3: nncf needs a newer
PyTorch than Debian's 1.13, which that venv does not see. Imports numpy, onnxruntime, openvino,
nncf (and onnx, which onnxruntime.quantization needs), ctranslate2 and the standard library only.

The model takes int64 `ids` [batch, seq] and returns float32 `hidden` [batch, seq, d].
  ort f32        CPUExecutionProvider; intra-op threads T, inter-op 1, all graph optimisations,
                 sequential execution
  ort int8       the same on model.ort-int8.onnx beside the model: quantize_dynamic, int8 weights
                 for every MatMul with a constant weight (the Linear layers), activations
                 quantized to u8 per call
  ort bf16       refused (exit 3): the CPU execution provider has no bf16 kernels for this graph
  openvino f32   CPU, INFERENCE_NUM_THREADS T, one stream, LATENCY hint, inference precision f32
  openvino bf16  the same with inference precision bf16; refused (exit 3) where the CPU does not
                 offer BF16
  openvino int8  model.ov-int8.xml/.bin beside the model: NNCF post-training quantization on
                 seeded random ids (no data set), compiled at OpenVINO's default precision
  ctranslate2 f32  model.ct2-float32/ beside the model, made from the tinyenc folder beside it
                 (config.json + model.safetensors: a BERT encoder spec built with numpy, as
                 CTranslate2's own BertLoader builds it, without PyTorch); ctranslate2.Encoder on
                 the CPU, intra_threads T, inter_threads 1, compute type float32, its AVX512
                 kernels where the CPU has AVX-512 (CT2_FORCE_CPU_ISA: it picks them on Intel
                 only), its own choice of GEMM backends (as its log names them)
  ctranslate2 int8 model.ct2-int8/: the same quantized by CTranslate2 (int8 weights per output
                 row), compute type int8
  ctranslate2 bf16 model.ct2-bfloat16/, compute type bfloat16; refused (exit 3) where
                 CTranslate2 does not list bfloat16 among the CPU's compute types
The quantized files are made once and remade when older than the model or made another way.

Output: engine, version, dtype, settings, implementation (what ran, as the engine reports it),
then dims + hidden (flattened) or batch, seq, runs, p50_ms, min_ms. A dtype the engine or the
CPU does not offer: {"engine", "version", "dtype", "refused": reason}, the reason on stderr,
exit 3. Any other failure: one line on stderr, exit 2.
"""
import argparse
import collections
import contextlib
import json
import logging
import os
import pathlib
import statistics
import sys
import tempfile
import time

# NNCF sends usage telemetry unless it believes it runs in CI; a benchmark sends nothing.
os.environ.setdefault("NNCF_CI", "1")

VOCAB = 30522
CALIBRATION = {"samples": 64, "seq": (8, 128), "seed": 0}  # NNCF's inputs, random ids


class Refused(Exception):
    """The engine does not offer the dtype here: shown as n/a, not as a failure."""


def deterministic_ids(batch, seq, vocab):
    """A 32-bit LCG from 12345, away from the special tokens at the start of the
    vocabulary, so every engine's timing sees the same input for a shape."""
    state, rows = 12345, []
    for _ in range(batch):
        row = []
        for _ in range(seq):
            state = (state * 1664525 + 1013904223) % 2**32
            row.append(1000 + state % max(1, vocab - 2000))
        rows.append(row)
    return rows


@contextlib.contextmanager
def stdout_to_stderr():
    """The quantizers print progress bars and advice on stdout, which carries the one JSON
    object: send file descriptor 1 to 2 while they run (C++ code writes there too)."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def stale(made, source, recipe, recipe_of):
    """Whether the quantized file `made` must be (re)made: missing, older than the model, or
    made another way (`recipe_of(made)` is the recipe stored in it)."""
    if not made.exists() or made.stat().st_mtime < source.stat().st_mtime:
        return True
    try:
        return recipe_of(made) != recipe
    except Exception:  # unreadable: a half-written file from an interrupted run
        return True


def with_umask(path, mode):
    """chmod path to `mode` less the process's umask: what open() or mkdir() would have given."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, mode & ~umask)


def temporary_beside(path, suffix):
    """A fresh file name in path's folder, so that os.replace onto path is a rename."""
    handle, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=suffix, dir=path.parent)
    os.close(handle)
    with_umask(name, 0o666)  # mkstemp's 0600 would pass on to the renamed file
    return pathlib.Path(name)


def engine_version(engine):
    if engine == "ort":
        import onnxruntime
        return f"onnxruntime {onnxruntime.__version__}"
    if engine == "ctranslate2":
        import ctranslate2
        return f"ctranslate2 {ctranslate2.__version__}"
    import openvino
    return f"openvino {openvino.get_version()}"


def matmul_summary(counts):
    """'A x8, B x4' from a Counter, most used first."""
    return ", ".join(f"{name} x{n}" for name, n in counts.most_common())


# --- ONNX Runtime ------------------------------------------------------------------------------

ORT_MATMULS = ("MatMul", "FusedMatMul", "Gemm", "MatMulInteger", "MatMulIntegerToFloat",
               "DynamicQuantizeMatMul", "QGemm", "Attention", "QAttention",
               "MultiHeadAttention")


def ort_int8_model(model):
    """model.ort-int8.onnx beside `model`: quantize_dynamic with ORT's recommended x86 setting,
    s8 weights and u8 activations (U8S8). Only MatMul is quantized: left to itself it also
    stores the embedding tables in int8 (Gather + DequantizeLinear), which made the difference
    from f32 1.7 to 2 times larger on tiny and mini for no speed; tinyenc and PyTorch keep them
    f32 too.
    Per-tensor weight scales: per-channel changed the difference from f32 by under 5 % on tiny
    and mini (random weights have even channels) and was 3 to 5 % slower."""
    import onnx
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic
    recipe = f"quantize_dynamic QInt8 per-tensor MatMul; onnxruntime {onnxruntime.__version__}"
    made = model.with_name("model.ort-int8.onnx")

    def recipe_of(path):
        return {p.key: p.value for p in onnx.load(str(path), load_external_data=False)
                .metadata_props}.get("tinyenc_bench_recipe")
    if stale(made, model, recipe, recipe_of):
        partial = temporary_beside(made, ".onnx")
        try:
            logging.getLogger().setLevel(logging.ERROR)  # "consider pre-processing": no gain here
            with stdout_to_stderr():
                quantize_dynamic(str(model), str(partial), weight_type=QuantType.QInt8,
                                 per_channel=False, op_types_to_quantize=["MatMul"])
            quantized = onnx.load(str(partial))
            onnx.helper.set_model_props(quantized, {"tinyenc_bench_recipe": recipe})
            onnx.save(quantized, str(partial))
            os.replace(partial, made)
        finally:
            partial.unlink(missing_ok=True)
    return made, recipe


class OrtPeer:
    def __init__(self, model, dtype, threads, with_implementation):
        import onnxruntime as ort
        if dtype == "bf16":
            raise Refused("not offered: ONNX Runtime's CPU execution provider has no bf16 "
                          "kernels for this graph (it would run f32)")
        self.version = engine_version("ort")
        self.settings = (f"CPUExecutionProvider; intra-op threads {threads}, inter-op 1, "
                         "graph optimisation all (ORT_ENABLE_ALL), sequential execution")
        if dtype == "int8":
            model, recipe = ort_int8_model(model)
            self.settings += f"; {model.name}: {recipe.split(';')[0]} (u8 activations)"
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # its warning that a saved optimised graph is CPU-specific
        with tempfile.TemporaryDirectory() as folder:
            if with_implementation:
                # The graph after ORT's fusions says which kernels run (all of them MLAS's);
                # saving it copies the weights, so only the accuracy check asks for it.
                options.optimized_model_filepath = str(pathlib.Path(folder) / "optimized.onnx")
            self.session = ort.InferenceSession(str(model), options,
                                                providers=["CPUExecutionProvider"])
            self.implementation = self.optimized_graph(options.optimized_model_filepath) \
                if with_implementation else ""

    @staticmethod
    def optimized_graph(path):
        import onnx
        graph = onnx.load(path, load_external_data=False).graph
        counts = collections.Counter(n.op_type for n in graph.node if n.op_type in ORT_MATMULS)
        return f"MLAS kernels; products after graph optimisation: {matmul_summary(counts)}"

    def hidden(self, ids):
        return self.session.run(["hidden"], {"ids": ids})[0]

    def timer(self, ids):
        feeds = {"ids": ids}
        return lambda: self.session.run(["hidden"], feeds)


# --- OpenVINO ----------------------------------------------------------------------------------

def ov_int8_model(core, model):
    """model.ov-int8.xml/.bin beside `model`: NNCF post-training quantization of the ONNX graph.
    There is no data set, so calibration runs seeded random ids of random lengths; the TRANSFORMER
    model type keeps LayerNorm, softmax and GELU in floating point, and its default (mixed) preset,
    u8 activations with a zero point, was as accurate as the performance preset on tiny
    (relative L2 0.010 against 0.009) and is NNCF's choice for transformers. The embedding
    tables (Gather) stay f32, as in tinyenc, PyTorch and ORT int8: NNCF would store them in int8,
    which added a tenth to a third to the difference from f32 on tiny and mini for no speed."""
    import nncf
    import numpy as np
    import openvino as ov
    recipe = (f"nncf {nncf.__version__} quantize TRANSFORMER mixed, embeddings f32, "
              f"{CALIBRATION['samples']} random-id samples seq {CALIBRATION['seq'][0]}.."
              f"{CALIBRATION['seq'][1]} seed {CALIBRATION['seed']}; openvino {ov.get_version()}")
    made = model.with_name("model.ov-int8.xml")

    def recipe_of(path):
        if not path.with_suffix(".bin").exists():
            raise FileNotFoundError(path.with_suffix(".bin"))
        return core.read_model(str(path)).get_rt_info(["tinyenc_bench_recipe"]).astype(str)
    if stale(made, model, recipe, recipe_of):
        rng = np.random.default_rng(CALIBRATION["seed"])
        low, high = CALIBRATION["seq"]
        samples = [rng.integers(1000, VOCAB - 1000, size=(1, int(n)), dtype=np.int64)
                   for n in rng.integers(low, high + 1, size=CALIBRATION["samples"])]
        nncf.set_log_level(logging.ERROR)
        with stdout_to_stderr():
            quantized = nncf.quantize(core.read_model(str(model)), nncf.Dataset(samples),
                                      model_type=nncf.ModelType.TRANSFORMER,
                                      subset_size=CALIBRATION["samples"],
                                      ignored_scope=nncf.IgnoredScope(types=["Gather"]))
        quantized.set_rt_info(recipe, ["tinyenc_bench_recipe"])
        partial = temporary_beside(made, ".xml")
        try:
            # Not compressed to f16 (save_model's default): the f32 left in the graph stays f32.
            ov.save_model(quantized, str(partial), compress_to_fp16=False)
            # .bin first: a run cut off between the two leaves an .xml older than the model.
            os.replace(partial.with_suffix(".bin"), made.with_suffix(".bin"))
            os.replace(partial, made)
        finally:
            partial.unlink(missing_ok=True)
            partial.with_suffix(".bin").unlink(missing_ok=True)
    return made, recipe


class OpenVinoPeer:
    def __init__(self, model, dtype, threads, with_implementation):
        import openvino as ov
        core = ov.Core()
        capabilities = core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        if dtype == "bf16" and "BF16" not in capabilities:
            raise Refused(f"not offered: this CPU's OPTIMIZATION_CAPABILITIES lack BF16 "
                          f"({' '.join(capabilities)})")
        self.version = engine_version("openvino")
        config = {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1,
                  "PERFORMANCE_HINT": "LATENCY"}
        recipe = ""
        if dtype == "int8":
            model, recipe = ov_int8_model(core, model)
            self.version += f", {recipe.split(' quantize')[0]}"
        else:
            # Asked explicitly: OpenVINO's default is bf16 on CPUs with native bf16.
            config["INFERENCE_PRECISION_HINT"] = dtype
        self.compiled = core.compile_model(core.read_model(str(model)), "CPU", config)
        precision = self.compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
        if dtype == "bf16" and precision != "bf16":  # a fallback must not pass for bf16
            raise Refused(f"not offered: OpenVINO compiled it at {precision}")
        self.precision = precision
        self.devices = list(self.compiled.get_property("EXECUTION_DEVICES"))
        pinning = self.compiled.get_property("ENABLE_CPU_PINNING")
        self.settings = (f"{'+'.join(self.devices)}; INFERENCE_NUM_THREADS {threads}, "
                         f"NUM_STREAMS 1, PERFORMANCE_HINT LATENCY, INFERENCE_PRECISION_HINT "
                         f"{'default' if dtype == 'int8' else dtype} (compiled: {precision}), "
                         f"CPU pinning {'on' if pinning else 'off'}")
        if recipe:
            self.settings += f"; {model.name}: {recipe.split('; ')[0]}"
        self.request = self.compiled.create_infer_request()

    def implementation(self):
        """The runtime graph's products, as the plugin picked them for the last input shape
        (primitives are chosen per shape, so ask after running): layer type, primitive type
        and runtime precision of each FullyConnected / MatMul / Convolution, and of each
        Subgraph that holds the attention's MatMuls."""
        counts = collections.Counter()
        for op in self.compiled.get_runtime_model().get_ordered_ops():
            info = op.get_rt_info()
            layer = info["layerType"].astype(str)
            if layer == "Subgraph" and "MatMul" in info["originalLayersNames"].astype(str):
                layer = "Subgraph (attention)"
            elif layer not in ("FullyConnected", "MatMul", "Convolution"):
                continue
            counts[f"{layer} {info['primitiveType'].astype(str)} "
                   f"({info['runtimePrecision'].astype(str)})"] += 1
        return f"{matmul_summary(counts)}; inference precision {self.precision}"

    def hidden(self, ids):
        return self.request.infer({"ids": ids})["hidden"].copy()

    def timer(self, ids):
        import openvino as ov
        self.request.set_tensor("ids", ov.Tensor(ids))
        return self.request.infer


# --- CTranslate2 -------------------------------------------------------------------------------

CT2_TYPES = {"f32": "float32", "bf16": "bfloat16", "int8": "int8"}


def safetensors_arrays(path):
    """{name: float32 array} of an F32 safetensors file (writable: quantizing writes)."""
    import numpy as np
    raw = bytearray(path.read_bytes())
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + size])
    arrays = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: {name}: dtype {entry['dtype']}, expected F32")
        begin, end = entry["data_offsets"]
        arrays[name] = np.frombuffer(raw[8 + size + begin:8 + size + end],
                                     dtype=np.float32).reshape(entry["shape"])
    return arrays


def ct2_spec(folder):
    """The CTranslate2 encoder spec of the tinyenc folder's BERT weights (post-LN, learned
    positions, token types, embedding LayerNorm, GELU), as its BertLoader makes one from a
    transformers BertModel, without the pooler (the compared output is the last hidden state)."""
    from ctranslate2.converters import utils
    from ctranslate2.specs import common_spec, transformer_spec
    config = json.loads((folder / "config.json").read_text())
    if config.get("norm_first") or config["position_encoding"]["kind"] != "learned" \
            or config["hidden_act"] != "gelu":
        raise ValueError(f"{folder}: not a post-LN BERT encoder with learned positions and GELU")
    tensors = safetensors_arrays(folder / "model.safetensors")
    encoder = transformer_spec.TransformerEncoderSpec(
        config["num_hidden_layers"], config["num_attention_heads"], pre_norm=False,
        activation=common_spec.Activation.GELU, layernorm_embedding=True,
        num_source_embeddings=2, embeddings_merge=common_spec.EmbeddingsMerge.ADD)
    spec = transformer_spec.TransformerEncoderModelSpec(encoder, pooling_layer=False)
    spec.encoder.scale_embeddings = False
    spec.encoder.embeddings[0].weight = tensors["embeddings.word_embeddings.weight"]
    spec.encoder.embeddings[1].weight = tensors["embeddings.token_type_embeddings.weight"]
    spec.encoder.position_encodings.encodings = tensors["embeddings.position_embeddings.weight"]

    def norm(layer, name):
        layer.gamma, layer.beta = tensors[name + ".weight"], tensors[name + ".bias"]

    def linear(layer, name):
        layer.weight, layer.bias = tensors[name + ".weight"], tensors[name + ".bias"]
    norm(spec.encoder.layernorm_embedding, "embeddings.LayerNorm")
    for i, layer in enumerate(spec.encoder.layer):
        prefix = f"encoder.layer.{i}."
        projections = [common_spec.LinearSpec() for _ in range(3)]
        for projection, name in zip(projections, ("query", "key", "value")):
            linear(projection, prefix + "attention.self." + name)
        utils.fuse_linear(layer.self_attention.linear[0], projections)
        linear(layer.self_attention.linear[1], prefix + "attention.output.dense")
        norm(layer.self_attention.layer_norm, prefix + "attention.output.LayerNorm")
        linear(layer.ffn.linear_0, prefix + "intermediate.dense")
        linear(layer.ffn.linear_1, prefix + "output.dense")
        norm(layer.ffn.layer_norm, prefix + "output.LayerNorm")
    # Ids are given directly: placeholder tokens of the embedding table's size.
    spec.register_vocabulary([f"[{i}]" for i in range(config["vocab_size"])])
    spec.config.unk_token = "[1]"
    spec.config.layer_norm_epsilon = config["layer_norm_eps"]
    return spec


def ct2_model(model, dtype):
    """model.ct2-<type>/ beside `model`, converted from the tinyenc folder it sits in."""
    import ctranslate2
    import shutil
    weights = model.with_name("model.safetensors")
    quantization = CT2_TYPES[dtype]
    recipe = f"ct2_spec {quantization}; ctranslate2 {ctranslate2.__version__}"
    made = model.with_name(f"model.ct2-{quantization}")
    stamp = "tinyenc_bench_recipe.txt"
    if stale(made / stamp, weights, recipe, lambda path: path.read_text()):
        partial = pathlib.Path(tempfile.mkdtemp(prefix=f".{made.name}.", dir=made.parent))
        with_umask(partial, 0o777)  # mkdtemp's 0700 would pass on to the renamed folder
        try:
            spec = ct2_spec(model.parent)
            spec.validate()
            spec.optimize(quantization=quantization)
            spec.save(str(partial))
            (partial / stamp).write_text(recipe)
            shutil.rmtree(made, ignore_errors=True)
            os.replace(partial, made)
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return made, recipe


@contextlib.contextmanager
def stderr_captured(lines):
    """File descriptor 2 into a temporary file while the block runs (CTranslate2 logs there
    from C++); its lines appended to `lines` after."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            lines.extend(capture.read().splitlines())


class Ct2Peer:
    def __init__(self, model, dtype, threads, with_implementation):
        # Its log names the ISA, the GEMM backends and the compute type it picked.
        os.environ["CT2_VERBOSE"] = "1"
        # CTranslate2 takes its AVX512 kernels on Intel CPUs only; on AMD Zen 4 they were as fast
        # or faster (int8 mini at 128 tokens 4.0 against 4.9-5.3 ms, base 96-99 against 101-103;
        # f32 the same): where the CPU has AVX-512, they run.
        flags = set()
        with contextlib.suppress(OSError):
            for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
        if {"avx512f", "avx512bw", "avx512dq", "avx512vl"} <= flags:
            os.environ.setdefault("CT2_FORCE_CPU_ISA", "AVX512")
        import ctranslate2
        compute_type = CT2_TYPES[dtype]
        offered = ctranslate2.get_supported_compute_types("cpu")
        if compute_type not in offered:
            raise Refused(f"not offered: CTranslate2's compute types on this CPU are "
                          f"{', '.join(sorted(offered))}")
        self.version = engine_version("ctranslate2")
        folder, recipe = ct2_model(model, dtype)
        log = []
        with stderr_captured(log):
            self.encoder = ctranslate2.Encoder(str(folder), device="cpu",
                                               compute_type=compute_type, intra_threads=threads,
                                               inter_threads=1)
        backend = "GEMM_S8 backend" if dtype == "int8" else "SGEMM backend"
        picked = [line.split("] ")[-1].strip(" -") for line in log
                  if any(k in line for k in ("Selected ISA", "Use Intel MKL", backend,
                                             "Selected compute type"))]
        self.settings = (f"ctranslate2.Encoder on the CPU; intra_threads {threads}, "
                         f"inter_threads 1, compute type {compute_type}; {folder.name}: "
                         f"{recipe.split(';')[0]}")
        self.implementation = "; ".join(picked)

    def run(self, ids):
        import ctranslate2
        import numpy as np
        batch, seq = ids.shape
        tokens = ctranslate2.StorageView.from_array(np.ascontiguousarray(ids, dtype=np.int32))
        lengths = ctranslate2.StorageView.from_array(np.full(batch, seq, dtype=np.int32))
        return lambda: self.encoder.forward_batch(tokens, lengths)

    def hidden(self, ids):
        import numpy as np
        return np.array(self.run(ids)().last_hidden_state)

    def timer(self, ids):
        return self.run(ids)


# --- main --------------------------------------------------------------------------------------

def positive(value):
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{value}'")
    return number


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("ort", "openvino", "ctranslate2"), required=True)
    parser.add_argument("--dtype", choices=("f32", "bf16", "int8"), default="f32")
    parser.add_argument("--model", required=True, help="the exported model.onnx")
    parser.add_argument("--threads", type=positive, default=1)
    parser.add_argument("--ids", help='JSON file {"ids": [[...], ...]}: print the output')
    parser.add_argument("--batch", type=positive, default=1)
    parser.add_argument("--seq", type=positive, default=8)
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds of timed runs")
    parser.add_argument("--min-runs", type=positive, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--vocab", type=positive, default=VOCAB)
    return parser.parse_args()


def run(args):
    import numpy as np
    model = pathlib.Path(args.model).resolve()
    if not model.exists():
        raise FileNotFoundError(f"{model} not found")
    peer_class = {"ort": OrtPeer, "openvino": OpenVinoPeer, "ctranslate2": Ct2Peer}[args.engine]
    peer = peer_class(model, args.dtype, args.threads, with_implementation=bool(args.ids))
    about = {"engine": args.engine, "version": peer.version, "dtype": args.dtype,
             "settings": peer.settings}
    if args.engine == "openvino":
        about.update(inference_precision=peer.precision, execution_devices=peer.devices)
    if args.ids:
        rows = json.loads(pathlib.Path(args.ids).read_text())["ids"]
        hidden = peer.hidden(np.asarray(rows, dtype=np.int64))
        implementation = peer.implementation() if args.engine == "openvino" \
            else peer.implementation
        return {**about, "implementation": implementation, "dims": list(hidden.shape),
                "hidden": hidden.astype(np.float32).reshape(-1).tolist()}

    ids = np.asarray(deterministic_ids(args.batch, args.seq, args.vocab), dtype=np.int64)
    call = peer.timer(ids)
    for _ in range(args.warmup):
        call()
    times = []
    start = time.perf_counter()
    while len(times) < args.min_runs or time.perf_counter() - start < args.min_time:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    result = dict(about)
    if args.engine == "openvino":  # the primitives picked for this shape
        result["implementation"] = peer.implementation()
    return {**result, "batch": args.batch, "seq": args.seq, "runs": len(times),
            "p50_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3}


def main():
    args = arguments()
    try:
        result = run(args)
    except Refused as refusal:
        print(json.dumps({"engine": args.engine, "version": engine_version(args.engine),
                          "dtype": args.dtype, "refused": str(refusal)}))
        print(f"peer.py: {args.engine} {args.dtype}: {refusal}", file=sys.stderr)
        sys.exit(3)
    except Exception as error:  # one line for the caller, whatever failed
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"peer.py: {args.engine} {args.dtype}: {type(error).__name__}: {message}",
              file=sys.stderr)
        sys.exit(2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
