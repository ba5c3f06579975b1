"""One check of a real checkpoint against its own Python stack, run at test time.

    python check_real_model.py TINYENC MODEL_DIR CHECK

CHECK is one of
  tokenizer  ids from `tinyenc tokenize` identical to the model's fast tokenizer on ~3000 lines
  f32        last hidden states and the pooled, normalized embedding within 1e-4 (max abs) of
             transformers / sentence-transformers, in batches and one text at a time
  bf16, int8 per-text cosine to f32 and Spearman of the query-document similarities of a
             small query/document set, against fixed gates and against PyTorch's own bf16 autocast /
             int8 quantize_dynamic on the same texts
  cli        run, info, tokenize, bench -m, convert and order on the folder
Runs with the venv python that tools/install-models.py makes (transformers, sentence-transformers,
Debian's torch). Prints the figures; exits 1 when a gate fails.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import torch
from scipy.stats import spearmanr
from sentence_transformers import SentenceTransformer
from transformers import AutoModel, AutoTokenizer

warnings.filterwarnings("ignore")
torch.manual_seed(0)

GATES = {
    # dtype: (Spearman of pairwise similarities, lowest per-text cosine to f32)
    "bf16": (0.999, 0.995),
    "int8": (0.99, 0.95),
}

WORDS = ("the dog bit man Alice paid Bob for a cup of coffee yesterday morning while rain fell on "
         "quiet streets of Paris and Beijing we measured latency throughput memory encoder model "
         "naïve café Zoë façade résumé Ångström São Paulo Straße München 東京 北京 我打你 你打我 "
         "小明追小红 日本語のテキスト 한국어 문장 русский текст ελληνικά العربية हिन्दी 🙂 🚀 👩‍💻 "
         "x86-64 AVX-512 3.14159 1,000,000 e-mail@example.com https://example.org/a?b=c "
         "pneumonoultramicroscopicsilicovolcanoconiosis antidisestablishmentarianism "
         "Donaudampfschifffahrtsgesellschaftskapitän supercalifragilisticexpialidocious "
         "don't can't I'm O'Neill (parenthesis) [brackets] {braces} \"quotes\" «guillemets» "
         "—dash– …ellipsis ½ ² ℃ ™ © ® ﬁ ligature ＦＵＬＬＷＩＤＴＨ Ｔｅｘｔ").split()
SPACES = [" ", "  ", "\t", "\u00a0", "\u3000", "\u2009", " \t ", "\u200b", "   "]


def varied_lines(count, seed=1):
    """Lines mixing scripts, accents, emoji, long words and odd whitespace; some very long."""
    rng = random.Random(seed)
    lines = []
    while len(lines) < count:
        length = rng.choice([1, 2, 3, 5, 8, 13, 21, 40]) if rng.random() > 0.04 else rng.randint(300, 700)
        parts = []
        for _ in range(length):
            word = rng.choice(WORDS)
            if rng.random() < 0.1:
                word = word.upper()
            if rng.random() < 0.05:
                word = word + rng.choice(WORDS)
            parts.append(word)
            parts.append(rng.choice(SPACES) if rng.random() < 0.15 else " ")
        line = "".join(parts)
        if rng.random() < 0.1:
            line = rng.choice(SPACES) + line
        if line.strip():
            lines.append(line)
    return lines


def sentences(count, seed=2):
    """Ordinary sentences of 3 to 24 words for the numeric checks."""
    rng = random.Random(seed)
    plain = [w for w in WORDS if w.isascii() and w.isalpha()]
    out = []
    for i in range(count):
        pool = plain if i % 4 else WORDS
        out.append(" ".join(rng.choice(pool) for _ in range(rng.randint(3, 24))) + ".")
    return out


QUERIES = [
    "how do I bake bread at home", "symptoms of the flu", "cheap flights to Tokyo",
    "what is a transformer encoder", "who won the football match", "best way to learn piano",
    "how to fix a flat bicycle tyre", "the dog bit the man", "Alice paid Bob",
    "weather forecast for tomorrow",
]
DOCUMENTS = [
    "Mix flour, water, yeast and salt, let the dough rise, then bake it for forty minutes.",
    "Fever, cough, sore throat and aching muscles are common signs of influenza.",
    "Budget airlines offer low fares to Japan if you book a few months ahead.",
    "An encoder maps a sequence of tokens to contextual vectors with self-attention.",
    "The home team won the final two to one after extra time.",
    "Practise scales every day and take lessons from a good teacher to learn the piano.",
    "Remove the wheel, find the puncture, patch the inner tube and pump it up again.",
    "A man was bitten by a dog in the park this morning.",
    "Bob received the money Alice owed him.",
    "Tomorrow will be sunny with a light breeze in the afternoon.",
    "The stock market fell sharply after the announcement.",
    "Cats sleep for most of the day.",
    "Quantum computers use qubits instead of bits.",
    "The recipe calls for two eggs and a cup of sugar.",
    "Paris is the capital of France.",
    "Regular exercise improves sleep and mood.",
    "The library opens at nine in the morning.",
    "She painted the fence white last summer.",
    "Trains to the airport leave every fifteen minutes.",
    "The committee postponed its decision until next week.",
]


def run(tinyenc, arguments, stdin=None, check=True):
    result = subprocess.run([tinyenc] + arguments, input=stdin, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"tinyenc {' '.join(arguments)}: exit {result.returncode}: {result.stderr.strip()}")
    return result


def write_lines(lines):
    handle = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8")
    handle.write("\n".join(lines) + "\n")
    handle.close()
    return handle.name


def tinyenc_outputs(tinyenc, model_dir, texts, extra):
    path = write_lines(texts)
    try:
        out = run(tinyenc, ["run", "-m", model_dir, "-i", path, "--jsonl", "--truncate"] + extra).stdout
    finally:
        os.unlink(path)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def max_seq_length(model_dir):
    with open(os.path.join(model_dir, "sentence_bert_config.json")) as stream:
        return json.load(stream)["max_seq_length"]


def check_tokenizer(tinyenc, model_dir):
    lines = varied_lines(3000)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    path = write_lines(lines)
    try:
        out = json.loads(run(tinyenc, ["tokenize", "-m", model_dir, "-i", path, "--json"]).stdout)
    finally:
        os.unlink(path)
    ours = [item["ids"] for item in out["inputs"]]
    if len(ours) != len(lines):
        print(f"tokenizer: {len(ours)} outputs for {len(lines)} lines")
        return False
    mismatches = []
    longest = 0
    for line, ids in zip(lines, ours):
        reference = tokenizer(line, add_special_tokens=True)["input_ids"]
        longest = max(longest, len(reference))
        if ids != reference:
            mismatches.append((line, ids, reference))
    print(f"tokenizer: {len(lines)} lines (longest {longest} tokens, the model's limit "
          f"{max_seq_length(model_dir)}), {len(mismatches)} differ from {type(tokenizer).__name__}")
    for line, ids, reference in mismatches[:5]:
        print(f"  {line!r}\n    tinyenc {ids}\n    python  {reference}")
    return not mismatches


def reference_states(model_dir, texts):
    """transformers' last hidden states (truncated as sentence-transformers does), in padded
    batches of 16 with the attention mask; the rows of the real tokens only."""
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    limit = max_seq_length(model_dir)
    states = []
    with torch.no_grad():
        for start in range(0, len(texts), 16):
            encoded = tokenizer(texts[start:start + 16], return_tensors="pt", padding=True,
                                truncation=True, max_length=limit)
            hidden = model(**encoded).last_hidden_state
            for row, mask in zip(hidden, encoded["attention_mask"]):
                states.append(row[: int(mask.sum())].numpy())
    return states


def check_f32(tinyenc, model_dir):
    # Texts past the model's length are truncated as sentence-transformers truncates them. One
    # text at a time checks the last 50 only (the two long ones among them): writing hidden
    # states as JSON is what takes time.
    texts = sentences(200) + [" ".join(["long"] * 600), "word " * 300]
    states = reference_states(model_dir, texts)
    embeddings = SentenceTransformer(model_dir, device="cpu").encode(texts, batch_size=16)
    ok = True
    for label, extra, count in (("batched", ["--batch-size", "32"], len(texts)),
                                ("alone", ["--batch-size", "1"], 50)):
        outputs = tinyenc_outputs(tinyenc, model_dir, texts[-count:], extra + ["--hidden-states"])
        hidden_error = 0.0
        embedding_error = 0.0
        for output, state, embedding in zip(outputs, states[-count:], embeddings[-count:]):
            ours = np.array(output["hidden_states"], dtype=np.float32)
            if ours.shape != state.shape:
                print(f"f32 {label}: shape {ours.shape} against {state.shape} for {output.get('text', '')[:60]!r}")
                return False
            hidden_error = max(hidden_error, float(np.abs(ours - state).max()))
            embedding_error = max(embedding_error,
                                  float(np.abs(np.array(output["embedding"]) - embedding).max()))
        passed = len(outputs) == count and hidden_error <= 1e-4 and embedding_error <= 1e-4
        print(f"f32 {label}: {count} texts, last hidden state max abs {hidden_error:.3g}, "
              f"normalized embedding max abs {embedding_error:.3g} (gate 1e-4): "
              f"{'pass' if passed else 'FAIL'}")
        ok = ok and passed
    return ok


def normalized(matrix):
    matrix = np.asarray(matrix, dtype=np.float64)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def agreement(low, f32):
    """Lowest per-text cosine to f32; Spearman of the query-document similarities (the ranking a
    user of search sees), and of the similarities of all pairs of texts (for the record)."""
    low, f32 = normalized(low), normalized(f32)
    cosines = np.sum(low * f32, axis=1)
    queries = len(QUERIES)
    ranking = spearmanr((low[:queries] @ low[queries:].T).ravel(),
                        (f32[:queries] @ f32[queries:].T).ravel()).correlation
    upper = np.triu_indices(len(f32), k=1)
    all_pairs = spearmanr((low @ low.T)[upper], (f32 @ f32.T)[upper]).correlation
    return float(cosines.min()), float(ranking), float(all_pairs)


def torch_embeddings(model_dir, texts, dtype):
    model = SentenceTransformer(model_dir, device="cpu").eval()
    if dtype == "int8":
        model = torch.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        with torch.no_grad():
            return model.encode(texts, convert_to_numpy=True)
    if dtype == "bf16":
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            return np.array(model.encode(texts, convert_to_tensor=True).float())
    with torch.no_grad():
        return model.encode(texts, convert_to_numpy=True)


def check_low_precision(tinyenc, model_dir, dtype):
    texts = QUERIES + DOCUMENTS
    # A dtype this CPU (or ONEDNN_MAX_CPU_ISA) cannot run is refused with exit 2 naming what is
    # missing: the check is skipped (CTest's code 77), as the C++ suites skip it.
    probe = run(tinyenc, ["run", "-m", model_dir, "--dtype", dtype, "probe"], check=False)
    if probe.returncode == 2 and "this CPU" in probe.stderr:
        print(f"[  SKIPPED ] {probe.stderr.strip()}")
        sys.exit(77)
    ours_f32 = [o["embedding"] for o in tinyenc_outputs(tinyenc, model_dir, texts, ["--dtype", "f32"])]
    ours = [o["embedding"] for o in tinyenc_outputs(tinyenc, model_dir, texts, ["--dtype", dtype])]
    reference = torch_embeddings(model_dir, texts, "f32")
    theirs = torch_embeddings(model_dir, texts, dtype)
    our_cosine, our_rho, our_all = agreement(ours, ours_f32)
    their_cosine, their_rho, their_all = agreement(theirs, reference)
    rho_gate, cosine_gate = GATES[dtype]
    # "No worse" within what the choice of texts moves: 1e-4 of Spearman, 1e-5 of cosine.
    passed = (our_rho >= rho_gate and our_cosine >= cosine_gate and our_rho >= their_rho - 1e-4
              and our_cosine >= their_cosine - 1e-5)
    print(f"{dtype}: {len(QUERIES)} queries x {len(DOCUMENTS)} documents; tinyenc against its "
          f"f32: Spearman {our_rho:.6f} (all pairs {our_all:.6f}), lowest cosine "
          f"{our_cosine:.6f}; PyTorch {dtype} against its f32: Spearman {their_rho:.6f} (all "
          f"pairs {their_all:.6f}), lowest cosine {their_cosine:.6f}; gates: Spearman >= "
          f"{rho_gate}, cosine >= {cosine_gate}, no worse than PyTorch: "
          f"{'pass' if passed else 'FAIL'}")
    return passed


def check_cli(tinyenc, model_dir):
    with tempfile.TemporaryDirectory() as scratch:
        converted = os.path.join(scratch, "int8")
        steps = [
            ["run", "-m", model_dir, "the dog bit the man"],
            ["info", "-m", model_dir],
            ["tokenize", "-m", model_dir, "the dog bit the man"],
            ["bench", "-m", model_dir, "--seq", "8", "--repeat", "5", "--warmup", "1"],
            ["convert", "-m", model_dir, "-o", converted, "--dtype", "int8"],
            ["run", "-m", converted, "the dog bit the man"],
            ["order", "--compare", "--models", model_dir, "--", "the dog bit the man",
             "the man bit the dog"],
        ]
        for step in steps:
            result = run(tinyenc, step, check=False)
            print(f"tinyenc {' '.join(step)}: exit {result.returncode}")
            print("  " + "\n  ".join(result.stdout.strip().splitlines()[:6]))
            # convert reports on stderr; every other command prints its result.
            if result.returncode != 0 or (step[0] != "convert" and not result.stdout.strip()):
                print(result.stderr.strip())
                return False
    return True


def main():
    tinyenc, model_dir, check = sys.argv[1:4]
    if check == "tokenizer":
        ok = check_tokenizer(tinyenc, model_dir)
    elif check == "f32":
        ok = check_f32(tinyenc, model_dir)
    elif check in GATES:
        ok = check_low_precision(tinyenc, model_dir, check)
    elif check == "cli":
        ok = check_cli(tinyenc, model_dir)
    else:
        raise SystemExit(f"unknown check {check!r}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
