#!/usr/bin/python3
"""Trains one "who did it?" model with the given position encoding and ships it as a tinyenc
model folder: models/pretrained/order-<kind>/{config.json, model.safetensors, tokenizer.model,
heldout_golden.json}; its measurements go to OUT/metrics/order-<kind>.json for the model card.

Every kind gets the same architecture and recipe (the constants below): only
config["position_encoding"] differs. The model is tools/golden/reference_encoder.py's
ReferenceEncoder, tinyenc's semantics in PyTorch, so what trains here is what the engine runs.

Usage: /usr/bin/python3 models/train/train_order_model.py --kind rope [--out DIR] [--threads 1]
Needs prepare_data.py's output in OUT.
"""
import argparse
import json
import math
import pathlib
import shutil
import sys
import time

import sentencepiece
import torch
import torch.nn.functional as F

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tools" / "golden"))
import reference_encoder as ref  # noqa: E402
import who_did_it  # noqa: E402
from prepare_data import sentence_ids  # noqa: E402

POSITION_ENCODINGS = {
    "none": {"kind": "none"},
    "sinusoidal": {"kind": "sinusoidal", "layout": "interleaved", "base": 10000.0},
    "learned": {"kind": "learned", "max_positions": 64},
    "rope": {"kind": "rope", "pairing": "half", "theta": 10000.0},
    "alibi": {"kind": "alibi"},
    "relative": {"kind": "relative", "num_buckets": 32, "max_distance": 64},
}

ARCHITECTURE = dict(hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
                    intermediate_size=128, max_position_embeddings=64, hidden_act="gelu",
                    norm_first=False, embedding_layer_norm=True, pooling="mean",
                    layer_norm_eps=1e-12, type_vocab_size=0)
RECIPE = dict(seed=1234, steps=2400, batch_size=64, learning_rate=2e-3, warmup_steps=150,
              weight_decay=0.01, gradient_clip=1.0)


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def pad(rows):
    lengths = torch.tensor([len(row) for row in rows])
    ids = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)  # 0 = <pad>
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row)
    return ids, lengths


def build_model(kind, vocab_size):
    config = ref.default_config(**ARCHITECTURE, vocab_size=vocab_size,
                                position_encoding=dict(POSITION_ENCODINGS[kind]),
                                id2label={str(i): label
                                          for i, label in enumerate(who_did_it.LABELS)})
    torch.manual_seed(RECIPE["seed"])
    model = ref.ReferenceEncoder(config)
    # nn.TransformerEncoderLayer (none, sinusoidal, learned) and the written-out Layer (rope,
    # alibi, relative) initialise attention differently; give every kind
    # nn.MultiheadAttention's initialisation, so that the recipe, too, differs only in the PE.
    with torch.no_grad():
        for layer in model.layers:
            if model.use_torch_layers:
                in_weight, in_bias = layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
                out_bias = layer.self_attn.out_proj.bias
            else:
                in_weight, in_bias = layer.in_proj.weight, layer.in_proj.bias
                out_bias = layer.out_proj.bias
            torch.nn.init.xavier_uniform_(in_weight)
            in_bias.zero_()
            out_bias.zero_()
    return model


def logits_of(model, rows, batch_size=512):
    model.eval()
    out = []
    with torch.inference_mode():
        for start in range(0, len(rows), batch_size):
            ids, lengths = pad(rows[start:start + batch_size])
            out.append(model(ids, lengths)[2])
    return torch.cat(out)


def length_bucketed_batches(rows, batch_size, generator, window=16):
    """One epoch of batches in random order, each of sentences of similar length: a random
    permutation cut into windows of `window` batches, sorted by length inside each window.
    English sentences are about twice as long as Chinese ones (▁ between words); batching
    them apart halves the padding the training computes on."""
    order = torch.randperm(len(rows), generator=generator).tolist()
    batches = []
    span = batch_size * window
    for start in range(0, len(order) - batch_size + 1, span):
        chunk = sorted(order[start:start + span], key=lambda i: len(rows[i]))
        batches += [chunk[b:b + batch_size] for b in range(0, len(chunk) - batch_size + 1,
                                                            batch_size)]
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def train(model, rows, labels, log):
    generator = torch.Generator().manual_seed(RECIPE["seed"] + 1)
    # Weight decay on the weight matrices only: not on biases, LayerNorms or lookup tables
    # (token and position embeddings, the T5 bias table).
    tables = ("word_embeddings.weight", "position_embeddings.weight", "relative_bias.weight")
    decayed = lambda name, p: p.dim() >= 2 and not name.endswith(tables)  # noqa: E731
    decay = [p for n, p in model.named_parameters() if decayed(n, p)]
    no_decay = [p for n, p in model.named_parameters() if not decayed(n, p)]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": RECIPE["weight_decay"]},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=RECIPE["learning_rate"])
    steps, warmup = RECIPE["steps"], RECIPE["warmup_steps"]
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(
        (step + 1) / warmup, 0.5 * (1 + math.cos(math.pi * min(step, steps) / steps))))
    labels = torch.tensor(labels)
    batches = []
    model.train()
    for step in range(steps):
        if not batches:
            batches = length_bucketed_batches(rows, RECIPE["batch_size"], generator)
        batch = batches.pop()
        ids, lengths = pad([rows[i] for i in batch])
        loss = F.cross_entropy(model(ids, lengths)[2], labels[batch])
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), RECIPE["gradient_clip"])
        optimizer.step()
        schedule.step()
        if step % 250 == 0 or step == steps - 1:
            log(f"step {step:5d}  loss {loss.item():.4f}")


def accuracy_tables(items, predictions, rows):
    """Accuracy overall, by construction and by group; swapped pairs by kind."""
    def tally(keys):
        table = {}
        for item, prediction in zip(items, predictions):
            for key in keys(item):
                entry = table.setdefault(key, {"correct": 0, "total": 0})
                entry["total"] += 1
                entry["correct"] += int(prediction == item["label"])
        return table
    sentences = {
        "overall": tally(lambda item: ["all"])["all"],
        "by_construction": tally(lambda item: [item["construction"]]),
        "by_group": tally(lambda item: [who_did_it.GROUPS[item["construction"]]]),
        # English sentences whose agent and patient are both pronouns (she hit him, he was hit
        # by her, we were helped by them, you hit me)
        "english_pronouns": tally(lambda item: [item["construction"]] if item["pronouns"]
                                  else []),
    }
    pairs = {}
    for b in range(0, len(items), 2):
        first, second = items[b], items[b + 1]
        assert first["pair"] == second["pair"]
        both = int(predictions[b] == first["label"] and predictions[b + 1] == second["label"])
        for kind in pair_kinds(rows[b], rows[b + 1], first["construction"]):
            entry = pairs.setdefault(kind, {"both_right": 0, "total": 0})
            entry["total"] += 1
            entry["both_right"] += both
    return {"sentences": sentences, "swapped_pairs": pairs}


def pair_kinds(a, b, construction):
    """all; permutation (same tokens, other order: order-blind models must give both the same
    output) or marked (English pronoun case or was/were differ); mirror (the words of one are
    the other's reversed: without the <s> and </s> at the ends, symmetric -m|i-j| ALiBi would
    give both the same output)."""
    kinds = ["all", construction]
    kinds.append("permutation" if sorted(a) == sorted(b) else "marked")
    if list(a[1:-1]) == list(reversed(b[1:-1])):
        kinds.append("mirror")
    return kinds


def golden(kind, items, rows, logits, tables):
    sentences = []
    for item, row, values in zip(items, rows, logits.tolist()):
        sentences.append({
            "text": item["text"], "ids": row, "label": item["label"],
            "construction": item["construction"], "pair": item["pair"],
            "logits": [float(f"{v:.7g}") for v in values],
        })
    return {
        "model": f"order-{kind}",
        "about": "variant 0 of every held-out swapped pair: texts, their ids, the label (the "
                 "agent), PyTorch's logits, and PyTorch's accuracy on them (models/train/)",
        "torch": torch.__version__,
        "labels": who_did_it.LABELS,
        "accuracy": tables["sentences"],
        "swapped_pairs": tables["swapped_pairs"],
        "sentences": sentences,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", required=True, choices=sorted(POSITION_ENCODINGS))
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--models", default=str(REPO / "models" / "pretrained"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    out = pathlib.Path(args.out)
    name = f"order-{args.kind}"
    (out / "logs").mkdir(parents=True, exist_ok=True)
    log_file = open(out / "logs" / f"{name}.log", "w")

    def log(message):
        print(f"{name}: {message}", flush=True)
        log_file.write(message + "\n")
        log_file.flush()

    tokenizer_model = out / "tokenizer" / "tokenizer.model"
    processor = sentencepiece.SentencePieceProcessor(model_file=str(tokenizer_model))
    train_items = load_jsonl(out / "corpus" / "train.jsonl")
    heldout_items = load_jsonl(out / "corpus" / "heldout.jsonl")
    train_rows = [sentence_ids(processor, item["text"]) for item in train_items]
    heldout_rows = [sentence_ids(processor, item["text"]) for item in heldout_items]

    model = build_model(args.kind, processor.get_piece_size())
    parameters = sum(p.numel() for p in model.parameters())
    log(f"{parameters} parameters, {len(train_rows)} training sentences, {args.threads} thread(s)")
    start = time.time()
    train(model, train_rows, [item["label"] for item in train_items], log)
    seconds = time.time() - start
    log(f"trained in {seconds:.1f} s")

    train_logits = logits_of(model, train_rows)
    train_accuracy = float((train_logits.argmax(1) == torch.tensor(
        [item["label"] for item in train_items])).float().mean())
    logits = logits_of(model, heldout_rows)
    predictions = logits.argmax(1).tolist()
    full = accuracy_tables(heldout_items, predictions, heldout_rows)
    subset = [i for i, item in enumerate(heldout_items) if item["golden"]]
    golden_items = [heldout_items[i] for i in subset]
    golden_rows = [heldout_rows[i] for i in subset]
    golden_logits = logits_of(model, golden_rows)
    golden_tables = accuracy_tables(golden_items, golden_logits.argmax(1).tolist(), golden_rows)

    # Mean pooling with no PE sees a bag of tokens: a swapped pair with the same tokens must give
    # the same logits, whatever the training did.
    permutation_gap = max(
        float((logits[b] - logits[b + 1]).abs().max()) for b in range(0, len(heldout_rows), 2)
        if sorted(heldout_rows[b]) == sorted(heldout_rows[b + 1]))
    if args.kind == "none":
        assert permutation_gap < 1e-5, f"order-none tells same-token pairs apart: {permutation_gap}"
    top2 = golden_logits.topk(2, dim=1).values
    margin = float((top2[:, 0] - top2[:, 1]).min())

    folder = pathlib.Path(args.models) / name
    if folder.exists():
        shutil.rmtree(folder)
    model.eval()
    model.save(folder)
    shutil.copyfile(tokenizer_model, folder / "tokenizer.model")
    (folder / "heldout_golden.json").write_text(json.dumps(
        golden(args.kind, golden_items, golden_rows, golden_logits, golden_tables),
        ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")

    metrics = {
        "name": name, "kind": args.kind, "position_encoding": POSITION_ENCODINGS[args.kind],
        "architecture": ARCHITECTURE, "recipe": RECIPE, "parameters": parameters,
        "vocab_size": processor.get_piece_size(), "heldout_sentences": len(heldout_rows),
        "golden_sentences": len(golden_rows),
        "threads": args.threads, "train_seconds": seconds, "torch": torch.__version__,
        "train_sentences": len(train_rows), "train_accuracy": train_accuracy,
        "heldout": full, "golden": golden_tables, "golden_min_margin": margin,
        "permutation_pair_max_logit_gap": permutation_gap,
        "examples": example_outputs(model, processor),
        "extrapolation": extrapolation(model, processor, args.kind, out),
    }
    (out / "metrics").mkdir(exist_ok=True)
    (out / "metrics" / f"{name}.json").write_text(
        json.dumps(metrics, ensure_ascii=False, indent=1), encoding="utf-8")
    overall, pairs = full["sentences"]["overall"], full["swapped_pairs"]["all"]
    log(f"held-out accuracy {overall['correct']}/{overall['total']} "
        f"({100 * overall['correct'] / overall['total']:.2f} %), "
        f"train {100 * train_accuracy:.2f} %, "
        f"swapped pairs both right {pairs['both_right']}/{pairs['total']}")


EXAMPLES = ["我打你", "你打我", "狗咬人", "人咬狗", "小明被小红打了", "小红被小明打了",
            "昨天下午在公园里小明追了小红", "I hit you", "you hit me", "you were hit by me",
            "she hit him", "he hit her", "she was hit by him", "Xiaoming hit Xiaohong",
            "Xiaohong hit Xiaoming", "the dog bit the man", "the man bit the dog"]


def extrapolation(model, processor, kind, out):
    """Accuracy against sentence length (tokens, <s> and </s> included) on the extrapolation
    set: held-out combinations in sentences longer than any training sentence. A learned
    table cannot place a sentence longer than its rows: "cannot", not a number."""
    items = load_jsonl(out / "corpus" / "extrapolation.jsonl")
    rows = [sentence_ids(processor, item["text"]) for item in items]
    limit = ARCHITECTURE["max_position_embeddings"]
    runnable = [i for i, row in enumerate(rows) if kind != "learned" or len(row) <= limit]
    predictions = {}
    if runnable:
        logits = logits_of(model, [rows[i] for i in runnable])
        predictions = dict(zip(runnable, logits.argmax(1).tolist()))
    bins = []
    for low, high in who_did_it.EXTRAPOLATION_BINS:
        entry = {"tokens": [low, high]}
        for language in ("all", "zh", "en"):
            chosen = [i for i, item in enumerate(items) if low <= item["tokens"] <= high and (
                language == "all" or item["construction"].startswith(language))]
            if not chosen:
                continue
            if any(i not in predictions for i in chosen):
                entry[language] = "cannot"
                continue
            entry[language] = {"correct": sum(int(predictions[i] == items[i]["label"])
                                              for i in chosen), "total": len(chosen)}
        bins.append(entry)
    return {"max_train_tokens": who_did_it.MAX_TRAIN_TOKENS, "position_limit": limit,
            "bins": bins}


def example_outputs(model, processor):
    rows = [sentence_ids(processor, text) for text in EXAMPLES]
    probabilities = torch.softmax(logits_of(model, rows), dim=1)
    out = []
    for text, p in zip(EXAMPLES, probabilities):
        best = int(p.argmax())
        out.append({"text": text, "label": who_did_it.LABELS[best], "probability": float(p[best])})
    return out


if __name__ == "__main__":
    main()
