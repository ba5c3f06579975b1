#!/usr/bin/python3
"""Writes models/pretrained/order-<kind>/README.md, the model card of each shipped model, from
the measurements train_order_model.py left in OUT/metrics/, and the results table of
models/pretrained/README.md.

Usage: /usr/bin/python3 models/train/write_model_cards.py [--out DIR] [--wall-seconds S]
"""
import argparse
import json
import pathlib

import who_did_it

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
KINDS = ["none", "sinusoidal", "learned", "rope", "alibi", "relative"]
CONSTRUCTIONS = ["zh-active", "zh-ba", "zh-bei", "en-active", "en-passive"]
GROUPS = ["active", "被-passive", "English passive"]
PE_TEXT = {
    "none": "no position information at all: the order-blind baseline",
    "sinusoidal": "the seed article's sin/cos table (interleaved, base 10000) added to the "
                  "embeddings",
    "learned": "a trained 64-row position table added to the embeddings (BERT)",
    "rope": "q and k rotated by position in every head (RoFormer; rotate_half pairing, "
            "theta 10000)",
    "alibi": "−m_h·|i−j| added to the attention scores (Press et al. slopes 1/4, 1/16, 1/64, "
             "1/256)",
    "relative": "a trained bias per head and relative-distance bucket on the attention scores "
                "(T5; 32 buckets, max distance 64)",
}


def percent(entry, key="correct"):
    return f"{100 * entry[key] / entry['total']:.2f} % ({entry[key]}/{entry['total']})"


def size_kb(path):
    return f"{path.stat().st_size / 1024:.0f} KB"


def folder_bytes(folder):
    return sum(f.stat().st_size for f in folder.iterdir() if f.is_file())


def accuracy_table(metrics):
    rows = ["| held-out sentences | all held-out | golden subset (variant 0, "
            "checked by the C++ test) |", "| --- | --- | --- |"]
    full, golden = metrics["heldout"]["sentences"], metrics["golden"]["sentences"]
    rows.append(f"| **overall** | **{percent(full['overall'])}** | {percent(golden['overall'])} |")
    for group in GROUPS:
        rows.append(f"| {group} | {percent(full['by_group'][group])} | "
                    f"{percent(golden['by_group'][group])} |")
    for construction in CONSTRUCTIONS:
        rows.append(f"| &nbsp;&nbsp;{construction} | "
                    f"{percent(full['by_construction'][construction])} | "
                    f"{percent(golden['by_construction'][construction])} |")
    for construction, example in [("en-active", "she hit him"),
                                  ("en-passive", "he was hit by her")]:
        rows.append(f"| English pronouns, {construction} ({example}, …) | "
                    f"{percent(full['english_pronouns'][construction])} | "
                    f"{percent(golden['english_pronouns'][construction])} |")
    return "\n".join(rows)


def swapped_table(all_metrics, highlight):
    kinds = [("all", "all pairs"),
             ("permutation", "same tokens, other order"),
             ("mirror", "&nbsp;&nbsp;of which one's words are the other's reversed"),
             ("marked", "English pronoun case or was/were differ")] + [
        (c, c) for c in CONSTRUCTIONS]
    header = "| pairs | count | " + " | ".join(
        f"**order-{k}**" if k == highlight else f"order-{k}" for k in KINDS) + " |"
    rows = [header, "| --- | ---: |" + " ---: |" * len(KINDS)]
    first = all_metrics[KINDS[0]]["heldout"]["swapped_pairs"]
    for key, text in kinds:
        if key not in first:
            continue
        cells = []
        for kind in KINDS:
            entry = all_metrics[kind]["heldout"]["swapped_pairs"][key]
            value = f"{100 * entry['both_right'] / entry['total']:.1f} %"
            cells.append(f"**{value}**" if kind == highlight else value)
        rows.append(f"| {text} | {first[key]['total']} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def examples_table(metrics):
    rows = ["| input | predicted agent | probability |", "| --- | --- | ---: |"]
    for example in metrics["examples"]:
        rows.append(f"| {example['text']} | {example['label']} | {example['probability']:.3f} |")
    return "\n".join(rows)


def extrapolation_cell(entry, language):
    value = entry.get(language)
    if value is None:
        return "–"
    if value == "cannot":
        return "cannot"
    return f"{100 * value['correct'] / value['total']:.1f} % ({value['total']})"


def extrapolation_table(all_metrics, highlight=None, language="all"):
    """Accuracy against length, one column per model."""
    header = "| tokens | " + " | ".join(
        f"**order-{k}**" if k == highlight else f"order-{k}" for k in KINDS) + " |"
    rows = [header, "| --- |" + " ---: |" * len(KINDS)]
    first = all_metrics[KINDS[0]]["extrapolation"]
    limit = first["max_train_tokens"]
    for b, entry in enumerate(first["bins"]):
        low, high = entry["tokens"]
        label = f"{low}–{high}" + (" (trained)" if high <= limit else "")
        cells = [extrapolation_cell(all_metrics[k]["extrapolation"]["bins"][b], language)
                 for k in KINDS]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def known_words():
    people = ", ".join(f"{p[1]} ({p[2]}" + (f" / {p[3]}" if p[3] != p[2] else "") + ")"
                       for p in who_did_it.PEOPLE)
    verbs = ", ".join(f"{v[0]} {v[1]}" for v in who_did_it.VERBS)
    ba = " ".join(v[0] for v in who_did_it.VERBS if v[0] in who_did_it.BA_VERBS)
    zh_places = " ".join(who_did_it.ZH_PLACE_SUFFIXES)
    en_places = ", ".join(e for _, e in who_did_it.PLACES)
    labels = ", ".join(f"{i} {label}" for i, label in enumerate(who_did_it.LABELS))
    return f"""**Agents and patients** ({len(who_did_it.PEOPLE)}; Chinese, then English subject /
object form): {people}.

**Labels** (`id2label`, the agent): {labels}.

**Verbs** ({len(who_did_it.VERBS)}; Chinese, English): {verbs}. With 把: {ba}.

**Fillers.** Time: {" ".join(t.replace(" ", "") for t in who_did_it.ZH_PAST_TIMES
                             + who_did_it.ZH_FUTURE_TIMES)} /
{", ".join(who_did_it.EN_PAST_TIMES + who_did_it.EN_FUTURE_TIMES)}. Place: 在 + {zh_places}
(+ 里 / 上; 在学校旁边的公园里 with {" ".join(who_did_it.ZH_NEAR)} 的) / {en_places}. Manner:
{" ".join(who_did_it.ZH_MANNERS)} / {", ".join(who_did_it.EN_MANNERS)}. Before the sentence:
{", ".join(c.replace(" ", "") for c in who_did_it.ZH_CLAUSES)} /
{", ".join(who_did_it.EN_CLAUSES)}. Grammar words: 把 被 了 过 会 的, was were will be by.

Anything else is `<unk>` (or, for Chinese characters of these words in other combinations, the
single characters: 明小 → 明 小), and the model's answer on it means nothing."""


def extrapolation_by_language(metrics):
    parts = []
    for entry in metrics["extrapolation"]["bins"]:
        low, high = entry["tokens"]
        cells = [f"{language} {extrapolation_cell(entry, language)}" for language in ("zh", "en")
                 if language in entry]
        parts.append(f"{low}–{high}: " + ", ".join(cells))
    return "; ".join(parts)


def notes(kind, metrics):
    if kind == "none":
        pairs = metrics["heldout"]["swapped_pairs"]
        overall = metrics["heldout"]["sentences"]["overall"]
        # One sentence of each same-token pair, both of each marked pair.
        ceiling = pairs["permutation"]["total"] + 2 * pairs.get("marked", {"total": 0})["total"]
        return (
            "**Why it fails, by construction.** With no position encoding and mean pooling the "
            "model sees a bag of tokens: 我打你 and 你打我 are the same input to it, and its two "
            "outputs are equal (the training script asserts it; the largest logit difference "
            f"over the held-out same-token pairs is {metrics['permutation_pair_max_logit_gap']:.1e}"
            "). Of such a pair at most one sentence can be right, so \"both right\" is 0 % by "
            "construction. What it does get right it gets from words that mark the role: "
            "English pronoun case (I / me, he / him) and was / were. The best any order-blind "
            "model can do on this held-out set is one sentence of every same-token pair and "
            f"both of every marked pair: {ceiling}/{overall['total']} "
            f"({100 * ceiling / overall['total']:.2f} %); this model gets "
            f"{overall['correct']}/{overall['total']}.")
    if kind == "alibi":
        pairs = metrics["heldout"]["swapped_pairs"]
        mirror = pairs.get("mirror", {"both_right": 0, "total": 0})
        mirror_text = (f"{100 * mirror['both_right'] / mirror['total']:.1f} % "
                       f"({mirror['both_right']}/{mirror['total']})" if mirror["total"] else "-")
        return (
            "**Symmetric ALiBi and the sentence marks.** tinyenc's encoder ALiBi (like the "
            "reference: `-m_h·|i-j|`) depends on distance, not direction. Without anything fixed "
            "at the ends, a sequence and its reversal would give exactly the same output under "
            "mean pooling, and for a bare three-word sentence the swap *is* the reversal: "
            "我打你 / 你打我, Xiaoming ▁ hit ▁ Xiaohong / Xiaohong ▁ hit ▁ Xiaoming. That is why "
            "every sentence here is `<s> … </s>`: reversing the words leaves the marks where "
            "they are, so the sequence is not reversed, and each word's distances to `<s>` and "
            "to `</s>` say which end it is near. The row \"one's words are the other's "
            f"reversed\" counts those pairs; this model gets both right in {mirror_text}.")
    return ""


def card(kind, metrics, all_metrics, wall_seconds, parallel, folder):
    name = metrics["name"]
    architecture = metrics["architecture"]
    recipe = metrics["recipe"]
    sizes = ", ".join(f"`{f.name}` {size_kb(f)}" for f in sorted(folder.iterdir())
                      if f.is_file() and f.name != "README.md")
    return f"""# {name}: who did it? (position encoding: `{kind}`)

One of six tiny encoders that are identical except for their position encoding (`order-none`,
`order-sinusoidal`, `order-learned`, `order-rope`, `order-alibi`, `order-relative`), trained to
answer the seed article's question: in 我打你 / 你打我, "I hit you" / "you hit me", **who did
it?** The words are the same; only their order says who the agent is.

This one uses **{kind}**: {PE_TEXT[kind]}.

```sh
build/tinyenc run -m models/pretrained/{name} 我打你 你打我 狗咬人 人咬狗 "she hit him"
```

## Task and data

Input: a Chinese or English sentence in which an agent does something to a patient. Output: the
agent, one of {len(who_did_it.LABELS)} labels: {", ".join(who_did_it.LABELS)}.

The corpus is generated (`models/train/who_did_it.py`, seed 20260812):
{len(who_did_it.PEOPLE)} people, pronouns, family, names and animals, {len(who_did_it.VERBS)}
verbs, time, place, manner and "after class" fillers, the aspect markers 了 and 过, the future
(会, will), and five constructions, two of which put the patient first:

| construction | example | agent |
| --- | --- | --- |
| zh-active | 昨天下午小明在公园里追了小红 | 小明 |
| zh-ba | 小明把小红打了 | 小明 |
| zh-bei (被 passive) | 小红被小明打了 | 小明 |
| en-active | yesterday Xiaoming hit Xiaohong at school | Xiaoming |
| en-passive | Xiaohong was hit by Xiaoming | Xiaoming |

Training: {metrics['train_sentences']:,} sentences of at most
{who_did_it.MAX_TRAIN_TOKENS} tokens (`<s>` and `</s>` included), two per agent–verb–patient
combination. Held out: 160 combinations and their swaps (the seed's 我-打-你 and 你-打-我 and ten
English pronoun pairs such as she/he, we/they among them), which never occur in training, in
any language or construction. Every held-out sentence has a swapped twin (agent and patient
exchanged, everything else the same): {metrics['heldout_sentences']:,} sentences in
{metrics['heldout_sentences'] // 2:,} pairs, 6 random variants of each combination and
construction. Variant 0 of the first 48 combinations, {metrics['golden_sentences']} sentences,
is `heldout_golden.json`.

## Known words

{known_words()}

The tokenizer (`tokenizer.model`, sentencepiece, {metrics['vocab_size']} pieces) makes every
Chinese word of the lexicon one piece (小明, 老师, 我们, 公园, 打扰, and single characters such
as 狗 打 人), every Chinese character of them a piece too (明小 → 明 小), every English word
one piece, and a space between English words the piece `▁` (no dummy prefix), so that swapping
two words swaps tokens and nothing else: 我打你 → 我 打 你; 小明被小红打了 → 小明 被 小红 打 了;
"Xiaoming hit Xiaohong" → Xiaoming ▁ hit ▁ Xiaohong. It has `<pad>` (0),
`<unk>` (1), `<s>` (2) and `</s>` (3), and every sentence is seen between the last two, in
training as in tinyenc (whose sentencepiece template is `<s> a </s>`): 我打你 → `<s> 我 打 你
</s>`. Reordering the words never moves them.

## Model

tinyenc family (`config.json`), post-LN Transformer encoder: d_model
{architecture['hidden_size']}, {architecture['num_hidden_layers']} layers,
{architecture['num_attention_heads']} heads, FFN {architecture['intermediate_size']} (GELU),
LayerNorm on the embeddings, **mean pooling**, a linear head over the
{len(who_did_it.LABELS)} agents. Position encoding:
`{json.dumps(metrics['position_encoding'], ensure_ascii=False)}`.

**{metrics['parameters']:,} parameters.** Folder: {folder_bytes(folder) / 1024:.0f} KB
({sizes}).

## Training

Exactly as the other five: PyTorch {metrics['torch']} (Debian python3-torch) on the CPU,
`tools/golden/reference_encoder.py`'s `ReferenceEncoder` (tinyenc's semantics), seed
{recipe['seed']}; AdamW, lr {recipe['learning_rate']}, weight decay {recipe['weight_decay']} on
matrices, {recipe['warmup_steps']} warm-up steps then cosine decay, {recipe['steps']} steps of
batch {recipe['batch_size']} (length-bucketed), gradient clipping {recipe['gradient_clip']}, no
dropout; the last step is the model (nothing is selected on the held-out set). Training
accuracy {100 * metrics['train_accuracy']:.2f} %.

```sh
/usr/bin/python3 models/train/train_all.py
```

regenerates the corpus, the tokenizer, all six models, their goldens and these cards. It took
**{wall_seconds} s wall time** on 2 CPU cores of an AMD EPYC (Zen 3) machine shared with other
work ({parallel} models at a time, one thread each; this model's training loop: {metrics['train_seconds']:.0f} s). One model
alone: `/usr/bin/python3 models/train/prepare_data.py`, then
`/usr/bin/python3 models/train/train_order_model.py --kind {kind}`.

## Held-out accuracy

{accuracy_table(metrics)}

## Length extrapolation

Training saw sentences of at most {who_did_it.MAX_TRAIN_TOKENS} tokens; the position tables
allow {metrics['extrapolation']['position_limit']} (`max_position_embeddings`; the learned table
has that many rows, of which only the first {who_did_it.MAX_TRAIN_TOKENS} were ever trained).
`models/pretrained/extrapolation.jsonl` holds held-out combinations in longer sentences (stacked
time, place, manner and "after class" fillers: 下课以后昨天下午小明在学校旁边的公园里突然追了小红);
accuracy by length, all six models (PyTorch; "cannot": past the learned table):

{extrapolation_table(all_metrics, kind)}

Chinese reaches fewer tokens than English (one token a word; English adds `▁` between words). By
language, this model: {extrapolation_by_language(metrics)}.

## Swapped pairs: both sentences right

The sharpest test of order: a pair such as 我打你 / 你打我 counts only if the model names a
different agent for each. Held-out pairs, all six models:

{swapped_table(all_metrics, kind)}

{notes(kind, metrics)}

## The seed's sentences

{examples_table(metrics)}

## Parity with the engine

`heldout_golden.json` holds the {metrics['golden_sentences']} golden held-out sentences, their
ids, PyTorch's logits and PyTorch's accuracy tables. `tests/models/pretrained_order_test.cc`
runs this folder through tinyenc (`load_model`, `load_tokenizer_from_folder`, `Encoder`) and
checks the ids, the logits (within 1e-4), the prediction for every sentence and the accuracy
tables (exactly). Smallest top-1 margin over the golden sentences:
{metrics['golden_min_margin']:.3g}.
"""


def pronouns(sentences):
    entries = sentences["english_pronouns"].values()
    return {"correct": sum(e["correct"] for e in entries),
            "total": sum(e["total"] for e in entries)}


def summary_table(all_metrics):
    rows = ["| model | PE | parameters | held-out | active | 被-passive | English passive | "
            "English pronouns | swapped pairs both right | same-token pairs both right |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for kind in KINDS:
        m = all_metrics[kind]
        s, p = m["heldout"]["sentences"], m["heldout"]["swapped_pairs"]
        cell = lambda e, key="correct": f"{100 * e[key] / e['total']:.2f} %"  # noqa: E731
        rows.append(f"| [order-{kind}](order-{kind}/README.md) | {kind} | {m['parameters']:,} | "
                    f"{cell(s['overall'])} | {cell(s['by_group']['active'])} | "
                    f"{cell(s['by_group']['被-passive'])} | "
                    f"{cell(s['by_group']['English passive'])} | "
                    f"{cell(pronouns(s))} | {cell(p['all'], 'both_right')} | {cell(p['permutation'], 'both_right')} |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--models", default=str(REPO / "models" / "pretrained"))
    parser.add_argument("--wall-seconds", default="?")
    parser.add_argument("--parallel", default="2")
    args = parser.parse_args()
    out, models = pathlib.Path(args.out), pathlib.Path(args.models)
    all_metrics = {kind: json.loads((out / "metrics" / f"order-{kind}.json").read_text())
                   for kind in KINDS}
    for kind in KINDS:
        folder = models / f"order-{kind}"
        # Twice: the card states the folder's size, its own included.
        for _ in range(2):
            text = card(kind, all_metrics[kind], all_metrics, args.wall_seconds, args.parallel,
                        folder)
            (folder / "README.md").write_text(text, encoding="utf-8")
    readme = models / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    for name, table in (("results", summary_table(all_metrics)),
                        ("extrapolation", extrapolation_table(all_metrics))):
        begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
        if begin in text and end in text:
            text = (text[:text.index(begin) + len(begin)] + "\n" + table + "\n"
                    + text[text.index(end):])
    readme.write_text(text, encoding="utf-8")
    print(summary_table(all_metrics))
    print(extrapolation_table(all_metrics))


if __name__ == "__main__":
    main()
