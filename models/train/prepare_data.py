#!/usr/bin/python3
"""Writes the "who did it?" corpus (who_did_it.py) and trains its sentencepiece tokenizer with
Debian's `spm_train`.

    OUT/corpus/train.jsonl      training sentences {text, label, construction}
    OUT/corpus/heldout.jsonl    held-out sentences, in swapped pairs {..., pair, variant}
    OUT/tokenizer/spm_input.txt the training texts, one a line (what spm_train reads)
    OUT/tokenizer/symbols.txt   every Chinese character and English word of the corpus
    OUT/tokenizer/tokenizer.model, tokenizer.vocab

The tokenizer is built so that swapping two words swaps tokens and nothing else:
  * each Chinese character is a user-defined symbol, so 我打你 is 我 打 你 and never 我打 你;
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
    write_jsonl(out / "corpus" / "train.jsonl", train)
    write_jsonl(out / "corpus" / "heldout.jsonl", heldout)
    texts = [item["text"] for item in train]
    tokenizer = out / "tokenizer"
    (tokenizer / "spm_input.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    characters = sorted({c for text in texts for c in text if is_cjk(c)})
    words = sorted({w for text in texts for w in text.split() if not is_cjk(w)})
    (tokenizer / "symbols.txt").write_text("\n".join(characters + words) + "\n", encoding="utf-8")

    # <pad>, <unk>, <s>, </s>, the symbols, and ▁ (a space between English words).
    command = spm_command(tokenizer)
    with open(tokenizer / "spm_train.log", "w") as log:
        subprocess.run(command, cwd=tokenizer, check=True, stdout=log, stderr=subprocess.STDOUT)
    print(f"corpus: {len(train)} training and {len(heldout)} held-out sentences; tokenizer: "
          f"{len(characters)} characters, {len(words)} words, {symbol_count(tokenizer) + 5} "
          f"pieces ({' '.join(command)})")
    check_tokenizer(tokenizer / "tokenizer.model", heldout)


def check_tokenizer(model, heldout):
    """Every held-out sentence tokenizes without <unk>, between <s> and </s>; swapped pairs that
    hold the same words hold the same tokens."""
    import sentencepiece
    processor = sentencepiece.SentencePieceProcessor(model_file=str(model))
    assert [processor.id_to_piece(i) for i in range(4)] == ["<pad>", "<unk>", "<s>", "</s>"]
    ids = [sentence_ids(processor, item["text"]) for item in heldout]
    assert all(processor.unk_id() not in row for row in ids), "held-out text with <unk>"
    for index in range(0, len(heldout), 2):
        (a, first), (b, second) = (ids[index], heldout[index]), (ids[index + 1], heldout[index + 1])
        assert first["pair"] == second["pair"]
        same_words = sorted(first["text"].split()) == sorted(second["text"].split())
        if first["construction"].startswith("zh"):
            same_words = sorted(first["text"]) == sorted(second["text"])
        assert same_words == (sorted(a) == sorted(b)), (first["text"], second["text"])
    assert [processor.id_to_piece(i) for i in sentence_ids(processor, "我打你")] == [
        "<s>", "我", "打", "你", "</s>"]
    assert processor.encode("Xiaoming hit Xiaohong", out_type=str) == [
        "Xiaoming", "▁", "hit", "▁", "Xiaohong"]


if __name__ == "__main__":
    main()
