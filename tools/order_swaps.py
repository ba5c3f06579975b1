#!/usr/bin/env python3
"""Does an embedding model tell who did what to whom? Cosine distances between a sentence and
its agent/patient swap, beside meaning-preserving controls (a passive, a paraphrase), from
`tinyenc order --compare` over the given model folders; prints a Markdown table.

    tools/order_swaps.py [--tinyenc build/tinyenc] MODEL_DIR...

A model that reads roles puts the swap farther away than the controls; one that reads a bag of
words puts it closer. "unknown": the pair differs only in words the model's vocabulary lacks.
"""
import argparse
import json
import subprocess

PAIRS = [
    ("swap", "the dog bit the man", "the man bit the dog"),
    ("passive", "the dog bit the man", "the man was bitten by the dog"),
    ("paraphrase", "the dog bit the man", "the dog attacked the man"),
    ("swap", "Alice paid Bob", "Bob paid Alice"),
    ("passive", "Alice paid Bob", "Bob was paid by Alice"),
    ("paraphrase", "Alice paid Bob", "Alice gave Bob the money"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tinyenc", default="build/tinyenc")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()
    texts = [text for _, a, b in PAIRS for text in (a, b)]
    out = subprocess.run([args.tinyenc, "order", "--compare", "--json", "--models", *args.models,
                          "--", *texts], check=True, capture_output=True, text=True).stdout
    distances = {}
    for row in json.loads(out)["results"]:
        # A pair whose only difference is words the vocabulary lacks has no answer.
        distance = None if row["unknown_only"] else row["cosine_distance"]
        distances[(row["model"], row["text"], row["perturbed_text"])] = distance
    header = ["model"] + [f"{kind}: {b}" for kind, _, b in PAIRS] + ["swap farther than both controls"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for model in args.models:
        cells = [distances[(model, a, b)] for _, a, b in PAIRS]
        verdicts = []
        for start in (0, 3):
            swap, passive, paraphrase = cells[start:start + 3]
            if None in (swap, passive, paraphrase):
                verdicts.append("n/a")
            else:
                verdicts.append("yes" if swap > max(passive, paraphrase) else "no")
        name = model.rstrip("/").split("/")[-1]
        print("| " + " | ".join([name] + ["unknown" if d is None else f"{d:.4f}" for d in cells] + [" / ".join(verdicts)]) + " |")


if __name__ == "__main__":
    main()
