#!/usr/bin/python3
"""Expected sentencepiece encodings of tests/tokenizer/multilingual.txt, from Debian's
python3-sentencepiece (the same libsentencepiece 0.1.97 tinyenc links, reached through its own
Python binding), for the C++ test tests/tokenizer/multilingual_sentencepiece_test.cc.

For each shared test model (sentencepiece/test_model.model, sentencepiece/test_ja_model.model,
t5/t5_tokenizer_base.model, t5/spm_example.model) and each line of the text file: the ids, the
pieces, the byte offsets [begin, end) of every piece in the UTF-8 line, and decode(ids). The
Python binding reports offsets in code points; they are turned into bytes here, since tinyenc's
offsets are bytes.

The models are third-party files in the shared test data folder (TINYENC_TESTDATA, default
../shared/testdata beside the checkout); only the numbers they produce are committed.

Usage: /usr/bin/python3 tools/golden/sentencepiece_ids.py [--testdata DIR] [--out FILE]
Needs Debian's python3-sentencepiece.
"""
import argparse
import json
import os
import pathlib

import sentencepiece

REPO = pathlib.Path(__file__).resolve().parents[2]
MODELS = [
    "sentencepiece/test_model.model",
    "sentencepiece/test_ja_model.model",
    "t5/t5_tokenizer_base.model",
    "t5/spm_example.model",
]


def byte_offset(text, code_points):
    return len(text[:code_points].encode("utf-8"))


def encode(processor, text):
    proto = processor.encode(text, out_type="immutable_proto")
    pieces = list(proto.pieces)
    ids = [piece.id for piece in pieces]
    return {
        "text": text,
        "ids": ids,
        "pieces": [piece.piece for piece in pieces],
        "offsets": [[byte_offset(text, p.begin), byte_offset(text, p.end)] for p in pieces],
        "decoded": processor.decode(ids),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_testdata = os.environ.get("TINYENC_TESTDATA") or str(REPO.parent / "shared/testdata")
    parser.add_argument("--testdata", default=default_testdata)
    parser.add_argument("--texts", default=str(REPO / "tests/tokenizer/multilingual.txt"))
    parser.add_argument("--out", default=str(REPO / "tests/tokenizer/multilingual_expected.json"))
    args = parser.parse_args()

    with open(args.texts, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    result = {
        "about": "Expected sentencepiece encodings of tests/tokenizer/multilingual.txt, one entry "
                 "per line, written by tools/golden/sentencepiece_ids.py. offsets are byte "
                 "ranges [begin, end) of each piece in the UTF-8 line; no bos/eos added.",
        "sentencepiece_version": sentencepiece.__version__,
        "models": {},
    }
    for model in MODELS:
        processor = sentencepiece.SentencePieceProcessor(model_file=str(pathlib.Path(args.testdata) / model))
        result["models"][model] = [encode(processor, line) for line in lines]

    with open(args.out, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write(f'  "about": {json.dumps(result["about"])},\n')
        f.write(f'  "sentencepiece_version": {json.dumps(result["sentencepiece_version"])},\n')
        f.write('  "models": {\n')
        for m, model in enumerate(MODELS):
            f.write(f"    {json.dumps(model)}: [\n")
            cases = result["models"][model]
            for c, case in enumerate(cases):
                f.write("      " + json.dumps(case, ensure_ascii=False))
                f.write(",\n" if c + 1 < len(cases) else "\n")
            f.write("    ]" + (",\n" if m + 1 < len(MODELS) else "\n"))
        f.write("  }\n}\n")
    print(f"wrote {args.out}: {len(lines)} lines x {len(MODELS)} models")


if __name__ == "__main__":
    main()
