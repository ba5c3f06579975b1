#!/usr/bin/python3
"""Random-weight encoders, one per configuration tinyenc must get right, saved as tinyenc model
folders with PyTorch's outputs as goldens: tests/golden/encoders/<name>/{config.json,
model.safetensors, golden.json}.

Covers BERT-style post-LN (torch.nn.TransformerEncoderLayer, its packed in_proj_weight split into
query/key/value), pre-LN, and every PE kind: none, sinusoidal (both layouts, scaled), learned
(BERT and RoBERTa position ids), RoPE (half, interleaved, partial rotary), ALiBi (4 and 6 heads),
T5 relative. Inputs include a padded batch.

Usage: /usr/bin/python3 tools/golden/encoder_goldens.py [--out DIR] [--check]
  --check  regenerate into a temporary folder and compare with the committed goldens
"""
import argparse
import json
import math
import pathlib
import shutil
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import reference_encoder as ref  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PE = lambda **kw: {"position_encoding": kw}  # noqa: E731

MODELS = {
    "bert_post_ln": dict(type_vocab_size=2, hidden_act="gelu", pooling="pooler",
                         **PE(kind="learned", max_positions=64)),
    "pre_ln_sinusoidal": dict(norm_first=True, hidden_act="relu", embedding_layer_norm=False,
                              **PE(kind="sinusoidal", layout="interleaved", scale_embeddings=True)),
    "none": dict(hidden_act="gelu_pytorch_tanh", **PE(kind="none")),
    "sinusoidal_concat": dict(pooling="cls", **PE(kind="sinusoidal", layout="concat", base=100.0)),
    "learned_roberta": dict(**PE(kind="learned", max_positions=64, padding_idx=1)),
    "rope_half": dict(**PE(kind="rope", pairing="half", theta=10000.0)),
    "rope_interleaved": dict(norm_first=True, **PE(kind="rope", pairing="interleaved", theta=500.0)),
    "rope_partial": dict(**PE(kind="rope", pairing="half", theta=10000.0, rotary_dim=4)),
    "alibi": dict(**PE(kind="alibi")),
    "alibi_6_heads": dict(hidden_size=48, num_attention_heads=6, **PE(kind="alibi")),
    "relative": dict(**PE(kind="relative", num_buckets=8, max_distance=16)),
}


def inputs_for(config, generator):
    vocab = config["vocab_size"]
    cases = []
    for lengths, seq in (([7], 7), ([7, 4, 1], 7), ([20, 13], 20)):
        ids = torch.randint(2, vocab, (len(lengths), seq), generator=generator)
        for b, length in enumerate(lengths):
            ids[b, length:] = 0  # padding id; never looked at by the outputs compared
        types = None
        if config["type_vocab_size"] > 0:
            types = torch.randint(0, config["type_vocab_size"], ids.shape, generator=generator)
        cases.append((ids, torch.tensor(lengths), types))
    return cases


def build(name, overrides, folder, seed):
    config = ref.default_config(**overrides)
    torch.manual_seed(seed)
    model = ref.ReferenceEncoder(config).eval()
    # LayerNorm starts at gamma = 1, beta = 0: perturb so a swapped gamma/beta would show.
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.LayerNorm):
                module.weight.add_(0.1 * torch.randn_like(module.weight))
                module.bias.add_(0.1 * torch.randn_like(module.bias))
    model.save(folder)
    generator = torch.Generator().manual_seed(seed + 1)
    golden = {"model": name, "torch": torch.__version__, "cases": []}
    with torch.inference_mode():
        for ids, lengths, types in inputs_for(config, generator):
            hidden, pooled, logits = model(ids, lengths, types)
            golden["cases"].append({
                "ids": ids.tolist(),
                "lengths": lengths.tolist(),
                "token_types": types.tolist() if types is not None else None,
                # only each sequence's own tokens: padded rows are not outputs
                "last_hidden": [hidden[b, :n].tolist() for b, n in enumerate(lengths.tolist())],
                "pooled": pooled.tolist(),
                "logits": logits.tolist(),
            })
    (folder / "golden.json").write_text(json.dumps(golden, separators=(",", ":")) + "\n")


def generate(out):
    for config_name in ("tiny", "pre_ln"):  # the written-out layer is the torch layer
        config = ref.default_config(norm_first=config_name == "pre_ln")
        difference = ref.check_layer_matches_torch(config)
        assert difference < 1e-5, f"Layer differs from nn.TransformerEncoderLayer by {difference}"
    for seed, (name, overrides) in enumerate(MODELS.items()):
        build(name, overrides, out / name, 1000 + seed)
        print(f"{name}: written to {out / name}")


def max_magnitude(a):
    if isinstance(a, list):
        return max((max_magnitude(x) for x in a), default=0.0)
    return abs(float(a))


def max_difference(a, b):
    if isinstance(a, list):
        return max((max_difference(x, y) for x, y in zip(a, b)), default=0.0)
    return abs(float(a) - float(b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "encoders"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.check:
        generate(pathlib.Path(args.out))
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(pathlib.Path(tmp))
        worst = 0.0  # as a share of the bound
        for name in MODELS:
            fresh = json.loads((pathlib.Path(tmp) / name / "golden.json").read_text())
            committed = json.loads((pathlib.Path(args.out) / name / "golden.json").read_text())
            config = json.loads((pathlib.Path(args.out) / name / "config.json").read_text())
            layers = config["num_hidden_layers"]
            for a, b in zip(fresh["cases"], committed["cases"]):
                assert a["ids"] == b["ids"], f"{name}: inputs differ"
                for key in ("last_hidden", "pooled", "logits"):
                    # The BLAS under PyTorch picks kernels by CPU (AVX2, AVX-512), which sum in
                    # another order: about one float32 ulp per reordered sum, 8 sums a layer plus
                    # the embedding LayerNorm and the head, at the largest value compared, and 4x
                    # for the pooler and classifier, whose terms are larger than their results.
                    largest = max(max_magnitude(b[key]), 2.0**-10)
                    bound = 4 * (8 * layers + 2) * 2.0**-23 * 2.0 ** math.ceil(math.log2(largest))
                    worst = max(worst, max_difference(a[key], b[key]) / bound)
        print(f"regenerated goldens differ from the committed ones by at most {worst:.3g} of the"
              " float32 rounding bound")
        if worst > 1:
            sys.exit(f"goldens drifted by {worst:.3g} x the float32 rounding bound")


if __name__ == "__main__":
    main()
