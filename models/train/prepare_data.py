#!/usr/bin/python3
"""Writes the "who did it?" corpus (who_did_it.py) and trains its sentencepiece tokenizer with
Debian's `spm_train`.

    OUT/corpus/train.jsonl      training sentences {text, label, construction}
    OUT/corpus/heldout.jsonl    held-out sentences, in swapped pairs {..., pair, variant}
    OUT/tokenizer/spm_input.txt the training texts, one a line (what spm_train reads)
    OUT/tokenizer/symbols.txt   every Chinese word and character and every English word
    OUT/corpus/extrapolation.jsonl, and models/pretrained/extrapolation.jsonl: held-out
                                combinations in longer sentences {text, label (the label
                                string), tokens}
    OUT/tokenizer/tokenizer.model, tokenizer.vocab

The tokenizer is built so that swapping two words swaps tokens and nothing else:
  * every Chinese word of the lexicon is a user-defined symbol: single characters (我, 狗, 打) and
    words (小明, 老师, 我们, 公园, 打扰), so 小明 is one piece and moves as one unit; every
    Chinese character is a symbol too, so any other text of those characters still tokenizes
    (明小 → 明 小). sentencepiece matches user-defined symbols greedily, longest first; the
    corpus is checked to hold no two neighbouring words that a longer symbol would join (a
    sentence's pieces are its words' pieces, one after the other);
  * each English word is a user-defined symbol without the ▁ word-boundary mark, and
    --add_dummy_prefix=false keeps the first word from getting one: a space is its own token ▁,
    so "Xiaoming hit Xiaohong" is Xiaoming ▁ hit ▁ Xiaohong and its swap
    Xiaohong ▁ hit ▁ Xiaoming holds the same tokens. (With the dummy prefix, English words would
    all read ▁word, but every Chinese sentence would gain a leading ▁ that no swap moves: an
    anchor at position 0 that only Chinese has.)
  * --bos_id=2 --eos_id=3: the pieces <s> and </s>. tinyenc's loader wraps every text in them
    (the template `<s> a </s>` of a sentencepiece model with both), and sentence_ids() below does
    the same for training, so the model sees a fixed token at each end of every sentence. Without
    them, symmetric ALiBi (-m|i-j|) with mean pooling gives a sequence and its reversal the same
    output, and for 我打你 / 你打我 the swap is the reversal; with them, reversing the words is
    no longer reversing the sequence. Word-order-blind models stay blind: the specials never move.
    --pad_id=0 --unk_id=1 give padding and unknown words an id.
Unknown words and characters become <unk>.

Usage: /usr/bin/python3 models/train/prepare_data.py [--out DIR] [--seed N]
"""
import argparse
import json
import pathlib
import subprocess

import who_did_it

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]


def is_cjk(text):
    return any(0x2E80 <= ord(c) <= 0x9FFF for c in text)


def write_jsonl(path, items):
    with open(path, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


def spm_command(folder):
    # Relative paths: spm_train records them in the model's trainer_spec, and the model's bytes
    # should not depend on where the repository is checked out.
    return ["spm_train", "--input=spm_input.txt", "--model_prefix=tokenizer",
            "--model_type=unigram", f"--vocab_size={symbol_count(folder) + 5}",
            "--character_coverage=1.0", "--add_dummy_prefix=false",
            "--user_defined_symbols_file=symbols.txt", "--pad_id=0", "--unk_id=1",
            "--bos_id=2", "--eos_id=3", "--num_threads=1", "--random_seed=1"]


def sentence_ids(processor, text):
    """The ids of one sentence as the model sees them, and as tinyenc's sentencepiece tokenizer
    gives them: <s>, the text's pieces, </s>."""
    return [processor.bos_id()] + processor.encode(text) + [processor.eos_id()]


def symbol_count(folder):
    return len((folder / "symbols.txt").read_text(encoding="utf-8").split())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--seed", type=int, default=20260812)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    (out / "corpus").mkdir(parents=True, exist_ok=True)
    (out / "tokenizer").mkdir(parents=True, exist_ok=True)

    train, heldout = who_did_it.make_corpus(seed=args.seed)
    extrapolation = who_did_it.make_extrapolation(seed=args.seed)
    write_jsonl(out / "corpus" / "train.jsonl", train)
    write_jsonl(out / "corpus" / "heldout.jsonl", heldout)
    write_jsonl(out / "corpus" / "extrapolation.jsonl", extrapolation)
    texts = [item["text"] for item in train]
    tokenizer = out / "tokenizer"
    (tokenizer / "spm_input.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    lexicon = who_did_it.chinese_words()
    used = {w for item in train for w in item["words"] if is_cjk(w)}
    assert used <= lexicon, sorted(used - lexicon)
    characters = sorted({c for text in texts for c in text if is_cjk(c)} |
                        {c for word in lexicon for c in word})
    multi = sorted(w for w in lexicon if len(w) > 1)
    words = sorted({w for text in texts for w in text.split() if not is_cjk(w)})
    (tokenizer / "symbols.txt").write_text("\n".join(characters + multi + words) + "\n",
                                           encoding="utf-8")

    # <pad>, <unk>, <s>, </s>, the symbols, and ▁ (a space between English words).
    command = spm_command(tokenizer)
    with open(tokenizer / "spm_train.log", "w") as log:
        subprocess.run(command, cwd=tokenizer, check=True, stdout=log, stderr=subprocess.STDOUT)
    print(f"corpus: {len(train)} training, {len(heldout)} held-out and {len(extrapolation)} "
          f"extrapolation sentences; tokenizer: {len(characters)} characters, {len(multi)} "
          f"Chinese words, {len(words)} English words, {symbol_count(tokenizer) + 5} "
          f"pieces ({' '.join(command)})")
    check_tokenizer(tokenizer / "tokenizer.model", train, heldout, extrapolation)
    # What `tinyenc order --extrapolate` reads: one JSON a line, the label as in id2label.
    with open(REPO / "models" / "pretrained" / "extrapolation.jsonl", "w",
              encoding="utf-8") as f:
        for item in extrapolation:
            f.write(json.dumps({"text": item["text"], "label": who_did_it.LABELS[item["label"]],
                                "tokens": item["tokens"]}, ensure_ascii=False) + "\n")


def longest_match(text, lexicon):
    """Left to right, the longest lexicon word at each point (how `tinyenc order` segments
    Chinese with the model's vocabulary): the corpus must read the same this way."""
    longest = max(len(w) for w in lexicon)
    out, at = [], 0
    while at < len(text):
        size = next(n for n in range(min(longest, len(text) - at), 0, -1)
                    if n == 1 or text[at:at + n] in lexicon)
        out.append(text[at:at + size])
        at += size
    return out


def check_tokenizer(model, train, heldout, extrapolation):
    """Every sentence tokenizes into its words' pieces, one after the other (no symbol spans two
    words), without <unk>, as many tokens as who_did_it counted, between <s> and </s>; swapped
    pairs that hold the same words hold the same tokens; extrapolation sentences are longer than
    every training sentence."""
    import sentencepiece
    processor = sentencepiece.SentencePieceProcessor(model_file=str(model))
    assert [processor.id_to_piece(i) for i in range(4)] == ["<pad>", "<unk>", "<s>", "</s>"]
    space = processor.piece_to_id("▁")
    lexicon = who_did_it.chinese_words()
    for item in train + heldout + extrapolation:
        ids = sentence_ids(processor, item["text"])
        assert len(ids) == item["tokens"], (item["text"], len(ids), item["tokens"])
        assert processor.unk_id() not in ids, item["text"]
        expected = []
        for index, word in enumerate(item["words"]):
            if index and not item["construction"].startswith("zh"):
                expected.append(space)
            word_ids = processor.encode(word)
            if is_cjk(word):
                assert len(word_ids) == 1, (word, processor.encode(word, out_type=str))
            expected += word_ids
        assert ids[1:-1] == expected, (item["text"], processor.encode(item["text"], out_type=str))
        if item["construction"].startswith("zh"):
            assert longest_match(item["text"], lexicon) == item["words"], item["text"]
    trained = {w for item in train for w in item["words"]}
    for item in heldout + extrapolation:
        assert set(item["words"]) <= trained, (item["text"], set(item["words"]) - trained)
    longest = max(item["tokens"] for item in train + heldout)
    assert longest <= who_did_it.MAX_TRAIN_TOKENS, longest
    ids = [sentence_ids(processor, item["text"]) for item in heldout]
    for index in range(0, len(heldout), 2):
        (a, first), (b, second) = (ids[index], heldout[index]), (ids[index + 1], heldout[index + 1])
        assert first["pair"] == second["pair"]
        same_words = sorted(first["words"]) == sorted(second["words"])
        assert same_words == (sorted(a) == sorted(b)), (first["text"], second["text"])
    piece = lambda text: processor.encode(text, out_type=str)  # noqa: E731
    assert [processor.id_to_piece(i) for i in sentence_ids(processor, "我打你")] == [
        "<s>", "我", "打", "你", "</s>"]
    assert piece("小明被小红打了") == ["小明", "被", "小红", "打", "了"]
    assert piece("明小") == ["明", "小"]
    assert piece("狗咬人") == ["狗", "咬", "人"]
    assert piece("昨天下午在公园里小明追了小红") == [
        "昨天", "下午", "在", "公园", "里", "小明", "追", "了", "小红"]
    assert piece("Xiaoming hit Xiaohong") == ["Xiaoming", "▁", "hit", "▁", "Xiaohong"]


if __name__ == "__main__":
    main()
