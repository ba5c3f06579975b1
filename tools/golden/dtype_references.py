#!/usr/bin/python3
"""PyTorch's int8 and bf16 distances from float32, on the models tinyenc's dtype accuracy gates
run: the golden random encoders (tests/golden/encoders/*), a `small`-preset encoder whose
weights both sides compute from one formula, and (for context) the shipped order models. Writes
tests/golden/dtype/references.json, which tests/models/dtype_accuracy_test.cc reads.

What PyTorch runs:
- int8: torch.ao.quantization.quantize_dynamic over every nn.Linear (query/key/value as one
  packed in_proj, attention output, both FFN matrices, pooler, classifier) with the oneDNN
  quantized engine: weights s8, symmetric; activations u8, asymmetric, one scale per tensor,
  chosen at run time. Twice: per-output-channel weight scales (per_channel_dynamic_qconfig, the
  granularity tinyenc uses) and one weight scale per tensor (the default qconfig).
- bf16: torch.autocast("cpu", dtype=torch.bfloat16) around the same float32 model (every matmul
  in bf16, the attention's too); and "bf16_matmuls": every nn.Linear's input and weight rounded
  to bf16, products and sums in float32, the rest float32, which is what tinyenc's bf16 computes.
The layers are reference_encoder.Layer (attention written out with nn.Linear projections) even
for the PE kinds whose goldens use nn.TransformerEncoderLayer: that layer keeps its packed
in_proj and out_proj away from quantize_dynamic, which would leave most of the model float32.
Layer equals nn.TransformerEncoderLayer (reference_encoder.check_layer_matches_torch), and this
script checks its float32 outputs against the committed goldens.

Every sequence runs alone (batch 1, no padding), in PyTorch and in the test: dynamic
quantization picks its activation scale from the whole input tensor, so a padded batch would
make each sequence's numbers depend on its neighbours.

Distances, per sequence, of the pooled output (what an embedding or a classifier uses):
1 - cosine(pooled_dtype, pooled_f32) and max |pooled_dtype - pooled_f32|; and of the last
hidden state over the sequence's tokens, max |hidden_dtype - hidden_f32|.

The `small` preset weights (engine/random_encoder.h's preset_config("small"): d 512, 8 heads,
4 layers, FFN 2048, vocabulary 30522, learned positions 512, 2 token types, post-LN, GELU, CLS
pooling) come from `formula_tensor` below, which the C++ test implements too: element i of
tensor t is offset + std * sqrt(3) * (2u - 1), u = lowbias32(i * 0x9E3779B1 + (t + 1) *
0x85EBCA77 + seed * 0xC2B2AE3D mod 2^32) >> 8 over 2^24, computed in double and rounded to
float32 once: uniform weights with random_encoder's standard deviations (1 for embeddings,
1 / sqrt(in) for matrices, 0.1 for biases and around LayerNorm's 1 and 0).

Usage: /usr/bin/python3 tools/golden/dtype_references.py [--out FILE]
"""
import argparse
import json
import copy
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import reference_encoder as ref  # noqa: E402
import safetensors_io  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "tests" / "golden" / "encoders"
ORDER_MODELS = ["order-none", "order-sinusoidal", "order-learned", "order-rope", "order-alibi",
                "order-relative"]

SMALL_SEED = 512
SMALL_LENGTHS = (16, 48, 128, 1, 2, 3)  # the short ones last: the others keep their ids


# --- the formula weights ---------------------------------------------------------------------

def lowbias32(x):
    """Chris Wellons' lowbias32 integer hash, on uint64 arrays holding 32-bit values."""
    mask = np.uint64(0xFFFFFFFF)
    x = x & mask
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7FEB352D)) & mask
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846CA68B)) & mask
    x ^= x >> np.uint64(16)
    return x


def formula_tensor(seed, index, shape, std, offset=0.0):
    count = int(np.prod(shape))
    i = np.arange(count, dtype=np.uint64)
    mask = np.uint64(0xFFFFFFFF)
    key = (np.uint64((index + 1) * 0x85EBCA77 + seed * 0xC2B2AE3D) & mask)
    x = lowbias32((i * np.uint64(0x9E3779B1) + key) & mask)
    u = (x >> np.uint64(8)).astype(np.float64) * 2.0**-24
    values = offset + (std * math.sqrt(3.0)) * (2.0 * u - 1.0)
    return values.astype(np.float32).reshape(shape)


def small_config():
    return ref.default_config(vocab_size=30522, hidden_size=512, num_attention_heads=8,
                              num_hidden_layers=4, intermediate_size=2048, type_vocab_size=2,
                              max_position_embeddings=512, hidden_act="gelu", pooling="cls",
                              position_encoding={"kind": "learned", "max_positions": 512})


def small_tensors(config, seed):
    """The formula's tensors under tinyenc's names, in the order the C++ test numbers them."""
    d, f = config["hidden_size"], config["intermediate_size"]
    tensors = {}
    index = 0

    def put(name, shape, std, offset=0.0):
        nonlocal index
        tensors[name] = formula_tensor(seed, index, shape, std, offset)
        index += 1

    put("embeddings.word_embeddings.weight", (config["vocab_size"], d), 1.0)
    put("embeddings.position_embeddings.weight", (config["max_position_embeddings"], d), 1.0)
    put("embeddings.token_type_embeddings.weight", (config["type_vocab_size"], d), 1.0)
    put("embeddings.LayerNorm.weight", (d,), 0.1, 1.0)
    put("embeddings.LayerNorm.bias", (d,), 0.1)
    for n in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{n}."
        for name, out, inp in (("attention.self.query", d, d), ("attention.self.key", d, d),
                               ("attention.self.value", d, d), ("attention.output.dense", d, d)):
            put(p + name + ".weight", (out, inp), 1.0 / math.sqrt(inp))
            put(p + name + ".bias", (out,), 0.1)
        put(p + "attention.output.LayerNorm.weight", (d,), 0.1, 1.0)
        put(p + "attention.output.LayerNorm.bias", (d,), 0.1)
        put(p + "intermediate.dense.weight", (f, d), 1.0 / math.sqrt(d))
        put(p + "intermediate.dense.bias", (f,), 0.1)
        put(p + "output.dense.weight", (d, f), 1.0 / math.sqrt(f))
        put(p + "output.dense.bias", (d,), 0.1)
        put(p + "output.LayerNorm.weight", (d,), 0.1, 1.0)
        put(p + "output.LayerNorm.bias", (d,), 0.1)
    return tensors


# --- loading tinyenc folders into the reference model ---------------------------------------

def load_reference(config, tensors):
    """A ReferenceEncoder with written-out layers holding `tensors` (tinyenc's names)."""
    model = ref.ReferenceEncoder(config, use_torch_layers=False).eval()
    t = {name: torch.from_numpy(np.array(value, dtype=np.float32)) for name, value in tensors.items()}
    used = set()

    def take(name, target):
        with torch.no_grad():
            target.copy_(t[name].reshape(target.shape))
        used.add(name)

    take("embeddings.word_embeddings.weight", model.word_embeddings.weight)
    if hasattr(model, "position_embeddings"):
        take("embeddings.position_embeddings.weight", model.position_embeddings.weight)
    if hasattr(model, "token_type_embeddings"):
        take("embeddings.token_type_embeddings.weight", model.token_type_embeddings.weight)
    if hasattr(model, "embedding_norm"):
        take("embeddings.LayerNorm.weight", model.embedding_norm.weight)
        take("embeddings.LayerNorm.bias", model.embedding_norm.bias)
    if hasattr(model, "relative_bias"):
        take("encoder.relative_attention_bias.weight", model.relative_bias.weight)
    d = config["hidden_size"]
    for n, layer in enumerate(model.layers):
        p = f"encoder.layer.{n}."
        for part, name in enumerate(("query", "key", "value")):
            take(p + f"attention.self.{name}.weight", layer.in_proj.weight[part * d:(part + 1) * d])
            take(p + f"attention.self.{name}.bias", layer.in_proj.bias[part * d:(part + 1) * d])
        take(p + "attention.output.dense.weight", layer.out_proj.weight)
        take(p + "attention.output.dense.bias", layer.out_proj.bias)
        take(p + "attention.output.LayerNorm.weight", layer.norm1.weight)
        take(p + "attention.output.LayerNorm.bias", layer.norm1.bias)
        take(p + "intermediate.dense.weight", layer.linear1.weight)
        take(p + "intermediate.dense.bias", layer.linear1.bias)
        take(p + "output.dense.weight", layer.linear2.weight)
        take(p + "output.dense.bias", layer.linear2.bias)
        take(p + "output.LayerNorm.weight", layer.norm2.weight)
        take(p + "output.LayerNorm.bias", layer.norm2.bias)
    if hasattr(model, "final_norm"):
        take("encoder.LayerNorm.weight", model.final_norm.weight)
        take("encoder.LayerNorm.bias", model.final_norm.bias)
    if hasattr(model, "pooler"):
        take("pooler.dense.weight", model.pooler.weight)
        take("pooler.dense.bias", model.pooler.bias)
    if "classifier.weight" in t:
        take("classifier.weight", model.classifier.weight)
        take("classifier.bias", model.classifier.bias)
    unused = set(t) - used
    assert not unused, f"tensors the reference model does not use: {sorted(unused)}"
    return model


def load_folder(folder):
    config = ref.default_config(**json.loads((folder / "config.json").read_text()))
    return config, load_reference(config, safetensors_io.read(folder / "model.safetensors"))


# --- running and measuring -------------------------------------------------------------------

def quantized(model, per_channel):
    from torch.ao.quantization import (default_dynamic_qconfig, per_channel_dynamic_qconfig,
                                       quantize_dynamic)
    qconfig = per_channel_dynamic_qconfig if per_channel else default_dynamic_qconfig
    return quantize_dynamic(model, {torch.nn.Linear: qconfig}, dtype=torch.qint8)


class Bf16Linear(torch.nn.Module):
    """nn.Linear with its input and weight rounded to bfloat16 and float32 products and sums
    (bf16 x bf16 products are exact in float32): what tinyenc's bf16 matmuls compute."""

    def __init__(self, linear):
        super().__init__()
        self.weight = torch.nn.Parameter(linear.weight.detach().bfloat16().float())
        self.bias = linear.bias

    def forward(self, x):
        return torch.nn.functional.linear(x.bfloat16().float(), self.weight, self.bias)


def bf16_matmuls(model):
    """A copy of `model` whose every nn.Linear is a Bf16Linear; the rest stays float32."""
    model = copy.deepcopy(model)
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, torch.nn.Linear):
                setattr(module, name, Bf16Linear(child))
    return model


def pytorch_activation_levels():
    """The top of the u8 range PyTorch's dynamic linear quantizes activations to on this engine:
    255, or 127 with reduce_range; found by reproducing its output."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(64, 32)
    x = torch.randn(5, 64) * 3 + 0.5
    q = quantized(torch.nn.Sequential(linear), True)
    y = q(x)
    weight = q[0].weight().dequantize()
    for levels in (255, 127):
        low, high = min(0.0, float(x.min())), max(0.0, float(x.max()))
        scale = (high - low) / levels
        zero_point = max(0, min(levels, round(-low / scale)))
        xq = torch.clamp(torch.round(x / scale) + zero_point, 0, levels)
        if float(((xq - zero_point) * scale @ weight.T + linear.bias - y).abs().max()) < 1e-4:
            return levels
    raise SystemExit("PyTorch's dynamic linear matches neither 8- nor 7-bit activations")


def run(model, sequence, bf16=False):
    ids = torch.tensor([sequence["ids"]])
    lengths = torch.tensor([len(sequence["ids"])])
    types = torch.tensor([sequence["token_types"]]) if sequence.get("token_types") else None
    with torch.inference_mode():
        if bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                hidden, pooled, logits = model(ids, lengths, types)
        else:
            hidden, pooled, logits = model(ids, lengths, types)
    return hidden[0].double(), pooled[0].double(), logits[0].double()


def distances(reference, other):
    hidden_ref, pooled_ref, _ = reference
    hidden, pooled, _ = other
    cosine = float(torch.dot(pooled, pooled_ref) / (pooled.norm() * pooled_ref.norm()))
    return {"one_minus_cosine": 1.0 - cosine,
            "max_abs_pooled": float((pooled - pooled_ref).abs().max()),
            "max_abs_hidden": float((hidden - hidden_ref).abs().max())}


def measure(model, sequences):
    """Per sequence distances of PyTorch's int8 (both weight granularities) and bf16."""
    variants = {"int8_per_channel": (quantized(model, True), False),
                "int8_per_tensor": (quantized(model, False), False),
                "bf16_autocast": (model, True),
                "bf16_matmuls": (bf16_matmuls(model), False)}
    result = {name: {"one_minus_cosine": [], "max_abs_pooled": [], "max_abs_hidden": []}
              for name in variants}
    fp32 = []
    for sequence in sequences:
        reference = run(model, sequence)
        fp32.append(reference)
        for name, (variant, bf16) in variants.items():
            for key, value in distances(reference, run(variant, sequence, bf16)).items():
                result[name][key].append(value)
    return result, fp32


def golden_sequences(folder):
    golden = json.loads((folder / "golden.json").read_text())
    sequences = []
    for case in golden["cases"]:
        for b, length in enumerate(case["lengths"]):
            sequence = {"ids": case["ids"][b][:length]}
            if case["token_types"] is not None:
                sequence["token_types"] = case["token_types"][b][:length]
            sequence["pooled_f32"] = case["pooled"][b]
            sequences.append(sequence)
    return sequences


def order_agreement(folder):
    """PyTorch's int8 (per channel) and bf16 labels on the held-out goldens, against float32's,
    and how far each variant moves the logits: max |logit - logit_f32| per sentence, its largest
    and its mean over the sentences."""
    config, model = load_folder(folder)
    golden = json.loads((folder / "heldout_golden.json").read_text())
    variants = {"int8_per_channel": (quantized(model, True), False),
                "int8_per_tensor": (quantized(model, False), False),
                "bf16_autocast": (model, True),
                "bf16_matmuls": (bf16_matmuls(model), False)}
    counts = {name: {"same_label": 0, "correct": 0, "max_one_minus_cosine": 0.0,
                     "max_abs_hidden": 0.0, "max_abs_logits": 0.0, "mean_abs_logits": 0.0}
              for name in variants}
    correct_f32 = 0
    for sentence in golden["sentences"]:
        sequence = {"ids": sentence["ids"]}
        reference = run(model, sequence)
        f32_label = int(torch.argmax(reference[2]))
        correct_f32 += f32_label == sentence["label"]
        for name, (variant, bf16) in variants.items():
            output = run(variant, sequence, bf16)
            label = int(torch.argmax(output[2]))
            counts[name]["same_label"] += label == f32_label
            counts[name]["correct"] += label == sentence["label"]
            distance = distances(reference, output)
            for key in ("one_minus_cosine", "max_abs_hidden"):
                worst = "max_" + key if key == "one_minus_cosine" else key
                counts[name][worst] = max(counts[name][worst], distance[key])
            logits = float((output[2].float() - reference[2]).abs().max())
            counts[name]["max_abs_logits"] = max(counts[name]["max_abs_logits"], logits)
            counts[name]["mean_abs_logits"] += logits / len(golden["sentences"])
    return {"sentences": len(golden["sentences"]), "correct_f32": correct_f32, **counts}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "dtype" / "references.json"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "onednn"
    facts = {
        "about": "PyTorch's distances from float32 on the models of tinyenc's dtype accuracy "
                 "gates; written by tools/golden/dtype_references.py",
        "torch": torch.__version__,
        "quantized_engine": torch.backends.quantized.engine,
        "quantized_activation_levels": pytorch_activation_levels(),
        "models": {},
        "order_models": {},
    }
    for folder in sorted(p for p in GOLDENS.iterdir() if (p / "golden.json").exists()):
        config, model = load_folder(folder)
        sequences = golden_sequences(folder)
        result, fp32 = measure(model, sequences)
        # The written-out layers reproduce the committed goldens (made with PyTorch's own layers
        # for some PE kinds): the same model.
        worst = max(float((pooled - torch.tensor(s["pooled_f32"], dtype=torch.float64)).abs().max())
                    for (_, pooled, _), s in zip(fp32, sequences))
        assert worst < 1e-4, f"{folder.name}: reference model differs from its golden by {worst}"
        facts["models"][folder.name] = {
            "sequences": [{k: v for k, v in s.items() if k != "pooled_f32"} for s in sequences],
            **result}
        print(f"{folder.name}: int8 1-cos {max(result['int8_per_channel']['one_minus_cosine']):.3g}"
              f" (per tensor {max(result['int8_per_tensor']['one_minus_cosine']):.3g}),"
              f" bf16 1-cos {max(result['bf16_autocast']['one_minus_cosine']):.3g}")

    config = small_config()
    model = load_reference(config, small_tensors(config, SMALL_SEED))
    generator = np.random.default_rng(SMALL_SEED)
    sequences = []
    for length in SMALL_LENGTHS:
        ids = generator.integers(4, config["vocab_size"], length).tolist()
        ids[0] = 101  # BERT's [CLS] id, the token CLS pooling reads
        types = [0] * length
        types[length // 2:] = [1] * (length - length // 2)
        sequences.append({"ids": ids, "token_types": types})
    result, fp32 = measure(model, sequences)
    for sequence, (_, pooled, _) in zip(sequences, fp32):
        # PyTorch's float32 output: the test's proof that it built the same model.
        sequence["pooled_f32"] = pooled.float().tolist()
    facts["models"]["small"] = {"preset": "small", "seed": SMALL_SEED, "sequences": sequences,
                                **result}
    print(f"small: int8 1-cos {max(result['int8_per_channel']['one_minus_cosine']):.3g}"
          f" (per tensor {max(result['int8_per_tensor']['one_minus_cosine']):.3g}),"
          f" bf16 1-cos {max(result['bf16_autocast']['one_minus_cosine']):.3g}")

    for name in ORDER_MODELS:
        facts["order_models"][name] = order_agreement(ROOT / "models" / "pretrained" / name)
        print(name, facts["order_models"][name])

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(facts, indent=1) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
