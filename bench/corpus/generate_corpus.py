#!/usr/bin/python3
"""Writes a corpus of one text per line for `tinyenc run -i` and `tinyenc bench --corpus`:
English and Chinese, with the lengths of real embedding workloads. Nothing of it is committed;
it is made from text that ships with Debian and from the order models' sentence generator.

Lengths are counted in bert-base-uncased WordPiece tokens, [CLS] and [SEP] included (what the
model sees), with the vocabulary in $TINYENC_TESTDATA/wordpiece/ (default ../shared/testdata
beside the repository). Each line draws a target length, then text is put together to meet it:

  84 %  5-40 tokens    lognormal around 18 (search queries, titles, short sentences)
  15 %  41-128 tokens  log-uniform (paragraph-length passages)
   1 %  520-1500 tokens, uniform: longer than a 512-position model, so they must be chunked

English (80 % of the lines): sentences of the licence texts every Debian system has
(/usr/share/common-licenses/*) and of the copyright files of the packages
tools/install-deps.sh installs, unwrapped and split into sentences. A line starts at a
sentence; long lines join the sentences that follow it, and a line that would overshoot its
target is cut at a word. Chinese (20 %): clauses from models/train/who_did_it.py
(昨天小明在学校打了小红), joined with ， and ended with 。.

The same seed and the same source files give the same corpus, byte for byte; a summary of the
lengths it reached goes to standard error. 20,000 lines take about a second.

  /usr/bin/python3 bench/corpus/generate_corpus.py -o corpus.txt
  /usr/bin/python3 bench/corpus/generate_corpus.py --lines 200000 --seed 7 -o big.txt
"""
import argparse
import bisect
import glob
import hashlib
import math
import os
import pathlib
import random
import re
import stat
import sys
import tempfile
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "train"))

import who_did_it  # noqa: E402  the order models' corpus generator

# The packages of tools/install-deps.sh (without options) whose copyright files are read, in this
# order after the common licences; those not installed are skipped.
PACKAGES = ["cmake", "g++", "clang", "libdnnl-dev", "libsentencepiece-dev", "libgtest-dev",
            "libbenchmark-dev", "nlohmann-json3-dev", "libcli11-dev", "libicu-dev", "libxml2-dev"]
DEFAULT_SOURCES = ["/usr/share/common-licenses/*"] + \
    [f"/usr/share/doc/{package}/copyright" for package in PACKAGES]

CHINESE_SHARE = 0.2
SHORT, MEDIUM, LONG = (5, 40), (41, 128), (520, 1500)
MEDIUM_SHARE, LONG_SHARE = 0.15, 0.01


# --- bert-base-uncased WordPiece, to count tokens ----------------------------------------------

def default_vocab():
    testdata = os.environ.get("TINYENC_TESTDATA", str(ROOT.parent / "shared" / "testdata"))
    return pathlib.Path(testdata) / "wordpiece" / "bert_base_uncased_vocab.txt"


def is_punctuation(char):
    """BERT's _is_punctuation: ASCII non-alphanumerics count as punctuation, as do Unicode P*."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def is_chinese(code):
    """BERT's _is_chinese_char: the CJK Unified Ideographs blocks (one token each)."""
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F
            or 0x2B820 <= code <= 0x2CEAF or 0xF900 <= code <= 0xFAFF
            or 0x2F800 <= code <= 0x2FA1F)


class WordPieceCounter:
    """How many tokens BertTokenizer (do_lower_case) makes of a whitespace-free word; the text
    put into the corpus is already clean (no control characters), and a line's count is the sum
    of its words' counts because whitespace always separates tokens."""

    def __init__(self, vocab_path):
        try:
            self.vocab = set(pathlib.Path(vocab_path).read_text(encoding="utf-8").splitlines())
        except OSError as error:
            sys.exit(f"generate_corpus.py: {vocab_path}: cannot read the bert-base-uncased "
                     f"vocabulary ({error.strerror}); set TINYENC_TESTDATA or --vocab")
        if "[UNK]" not in self.vocab:
            sys.exit(f"generate_corpus.py: {vocab_path}: not a BERT vocab.txt (no [UNK])")
        self.cache = {}

    def pieces(self, word):
        """Greedy longest-match-first WordPiece of one basic token."""
        if len(word) > 100:  # max_input_chars_per_word
            return 1
        count, start = 0, 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:
                return 1  # the whole word is [UNK]
            count += 1
            start = end
        return count

    def count(self, word):
        cached = self.cache.get(word)
        if cached is not None:
            return cached
        text = unicodedata.normalize("NFD", word.lower())
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        total, current = 0, []
        for char in text:
            if is_punctuation(char) or is_chinese(ord(char)):
                if current:
                    total += self.pieces("".join(current))
                    current = []
                total += 1
            else:
                current.append(char)
        if current:
            total += self.pieces("".join(current))
        self.cache[word] = total
        return total


# --- English: sentences of the licence and copyright texts ------------------------------------

# A full stop after one of these does not end a sentence.
ABBREVIATIONS = {"e.g", "i.e", "etc", "inc", "ltd", "co", "corp", "no", "vs", "mr", "mrs", "dr",
                 "st", "jr", "sr", "u.s", "art", "sec", "fig", "cf", "al", "approx", "incl"}
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def source_files(patterns):
    files, seen = [], set()
    for pattern in patterns:
        for name in sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]:
            path = pathlib.Path(name)
            if not path.is_file():
                continue
            real = path.resolve()
            if real in seen:  # GPL -> GPL-3 and the like
                continue
            seen.add(real)
            files.append(path)
    return files


def paragraphs(text):
    """Paragraphs of a hard-wrapped text, unwrapped: blank lines (and Debian's " ." lines)
    separate them; rules of dashes or equals signs are dropped."""
    paragraph = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped == "." or re.fullmatch(r"[-=_*#~+. ]{3,}", stripped):
            if paragraph:
                yield " ".join(paragraph)
                paragraph = []
            continue
        paragraph.append(stripped)
    if paragraph:
        yield " ".join(paragraph)


def sentences_of(paragraph):
    parts, start = [], 0
    for match in SENTENCE_END.finditer(paragraph):
        before = paragraph[start:match.start()].rstrip("\"')]")
        last_word = before.split()[-1].rstrip(".!?").lower() if before.split() else ""
        # "1." and "a." are list markers, "e.g." is not an end.
        if last_word in ABBREVIATIONS or len(last_word) <= 1 or last_word.isdigit():
            continue
        parts.append(paragraph[start:match.start()])
        start = match.end()
    parts.append(paragraph[start:])
    return [" ".join(p.split()) for p in parts if p.strip()]


def english_sentences(patterns, counter):
    """[(words, each word's tokens, the sentence's tokens)] of every sentence with a letter in
    it, in file order; and a description of the sources."""
    files = source_files(patterns)
    if not files:
        sys.exit("generate_corpus.py: no English source text found (looked for "
                 f"{', '.join(patterns)}); Debian's base-files package installs "
                 "/usr/share/common-licenses; or pass --sources FILE...")
    digest = hashlib.sha256()
    sentences = []
    for path in files:
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            sys.exit(f"generate_corpus.py: {path}: cannot read ({error.strerror})")
        digest.update(path.name.encode() + b"\0" + text.encode())
        text = "".join(c if c.isprintable() or c in "\n" else " " for c in text)
        for paragraph in paragraphs(text):
            for sentence in sentences_of(paragraph):
                if not any(c.isalpha() for c in sentence):
                    continue
                words = sentence.split()
                counts = [counter.count(w) for w in words]
                sentences.append((words, counts, sum(counts)))
    if len(sentences) < 100:
        sys.exit(f"generate_corpus.py: only {len(sentences)} sentences in {len(files)} source "
                 "files; need at least 100")
    return sentences, f"{len(files)} files, sha256 {digest.hexdigest()[:16]}"


# --- Chinese: the order models' sentence generator ----------------------------------------------

TRIPLES = who_did_it.all_triples()  # agent, verb, patient
CHINESE_CONSTRUCTIONS = [[c for c in who_did_it.constructions_for(verb) if c.startswith("zh")]
                         for verb in range(len(who_did_it.VERBS))]


def chinese_clause(rng):
    agent, verb, patient = rng.choice(TRIPLES)
    construction = rng.choice(CHINESE_CONSTRUCTIONS[verb])
    return who_did_it.sentence(construction, agent, verb, patient,
                               who_did_it.draw_frame(rng, construction))


def chinese_line(rng, target, counter):
    """Clauses joined with ， up to the target, ended with 。 (each character, and each mark, is
    one token)."""
    clauses, total = [], 2 + 1  # [CLS] [SEP] and the final 。
    while True:
        clause = chinese_clause(rng)
        cost = counter.count(clause) + (1 if clauses else 0)
        if clauses and total + cost > target:
            break
        clauses.append(clause)
        total += cost
        if total >= target:
            break
    return "，".join(clauses) + "。", total


# --- lines --------------------------------------------------------------------------------------

def draw_target(rng):
    roll = rng.random()
    if roll < LONG_SHARE:
        return rng.randint(*LONG)
    if roll < LONG_SHARE + MEDIUM_SHARE:
        low, high = MEDIUM
        return min(high, int(math.exp(rng.uniform(math.log(low), math.log(high + 1)))))
    low, high = SHORT
    while True:
        target = round(rng.lognormvariate(math.log(18), 0.45))
        if low <= target <= high:
            return target


def english_line(rng, target, sentences):
    """Consecutive sentences from a random one until the target is met; the last cut at a word
    when it would overshoot by more than a few tokens."""
    words, total = [], 2  # [CLS] [SEP]
    index = rng.randrange(len(sentences))
    slack = max(3, target // 10)
    while total < target:
        sentence_words, counts, sentence_total = sentences[index % len(sentences)]
        index += 1
        if total + sentence_total <= target + slack:
            words += sentence_words
            total += sentence_total
            continue
        for word, count in zip(sentence_words, counts):
            if total >= target or total + count > target + slack:
                break
            words.append(word)
            total += count
        if total < target - slack and not words:
            continue  # one long token; take the next sentence
        break
    return " ".join(words), total


def generate(lines, seed, sentences, counter):
    rng = random.Random(seed)
    out, lengths = [], []
    while len(out) < lines:
        target = draw_target(rng)
        if rng.random() < CHINESE_SHARE:
            text, length = chinese_line(rng, target, counter)
        else:
            text, length = english_line(rng, target, sentences)
        if length < SHORT[0]:
            continue  # a cut that left a word or two
        out.append(text)
        lengths.append(length)
    return out, lengths


def summary(lengths, positions):
    ordered = sorted(lengths)
    share = lambda low, high: 100 * (bisect.bisect_right(ordered, high)
                                     - bisect.bisect_left(ordered, low)) / len(ordered)
    percentile = lambda p: ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
    return (f"{len(lengths)} lines, {sum(lengths)} tokens ([CLS] [SEP] included); "
            f"<5: {share(0, 4):.1f} %, 5-40: {share(5, 40):.1f} %, 41-128: {share(41, 128):.1f} %, "
            f"129-{positions}: {share(129, positions):.1f} %, >{positions}: "
            f"{share(positions + 1, 10**9):.1f} %; p50 {percentile(50)}, p90 {percentile(90)}, "
            f"p99 {percentile(99)}, max {ordered[-1]}")


def write_lines(path, lines):
    """Standard output for '-'; a device or FIFO (/dev/null) is written in place; a regular file
    is replaced only once complete, keeping its mode."""
    data = "".join(line + "\n" for line in lines)
    if path == "-":
        sys.stdout.write(data)
        return
    target = pathlib.Path(path)
    if target.is_symlink() or (target.exists() and not target.is_file()):
        with open(target, "w", encoding="utf-8") as f:
            f.write(data)
        return
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o644
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                             suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as f:
            f.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("--lines", type=int, default=20000, help="lines to write (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--output", default="-", help="output file ('-': standard output)")
    parser.add_argument("--sources", nargs="+", default=DEFAULT_SOURCES,
                        help="English text files or glob patterns (default: the common licences "
                             "and the copyright files of the build dependencies)")
    parser.add_argument("--vocab", default=None,
                        help="bert-base-uncased vocab.txt (default: $TINYENC_TESTDATA/wordpiece/"
                             "bert_base_uncased_vocab.txt)")
    parser.add_argument("--positions", type=int, default=512,
                        help="the model's positions, for the summary's last bucket (default 512)")
    args = parser.parse_args()
    if args.lines < 1:
        parser.error("--lines: must be at least 1")
    output = pathlib.Path(args.output)
    if args.output != "-" and not output.parent.is_dir():
        parser.error(f"-o: {output.parent}: no such folder")

    counter = WordPieceCounter(args.vocab or default_vocab())
    sentences, sources = english_sentences(args.sources, counter)
    lines, lengths = generate(args.lines, args.seed, sentences, counter)
    write_lines(args.output, lines)
    print(f"generate_corpus.py: {summary(lengths, args.positions)}; English from {sources} "
          f"({len(sentences)} sentences), seed {args.seed}", file=sys.stderr)


if __name__ == "__main__":
    main()
