#!/usr/bin/python3
"""Writes a random-weight `mini` BERT sentence embedder as a Hugging Face folder: the model the
corpus benchmarks run.

  config.json                BertConfig (model_type bert): hidden 256, 4 layers, 4 heads,
                             intermediate 1024, 512 positions, 2 token types, GELU
  model.safetensors          BertModel's tensor names, float32, no pooler
  vocab.txt                  bert-base-uncased's, copied from $TINYENC_TESTDATA/wordpiece/
  tokenizer_config.json      BertTokenizer, do_lower_case
  modules.json, 1_Pooling/   sentence-transformers: Transformer, then mean pooling
  sentence_bert_config.json  max_seq_length 512

The weights are drawn the way BERT initialises them (normal, std 0.02; biases 0; LayerNorm
gamma 1, beta 0) from a fixed seed, in tools/golden/reference_encoder.py's ReferenceEncoder, the
PyTorch model bench/compare_pytorch.py runs too. compare_corpus.py rebuilds the same module
with `mini_model(seed)` instead of reading the folder back.

  /usr/bin/python3 bench/corpus/make_mini_model.py          # writes bench/corpus/out/mini, then:
  build/tinyenc info -m bench/corpus/out/mini
  build/tinyenc run -m bench/corpus/out/mini "hello world"
"""
import argparse
import json
import os
import pathlib
import shutil
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tools" / "golden"))

import compare_pytorch  # noqa: E402  the presets and the machine description

PRESET = "mini"
VOCAB_SIZE = 30522
POSITIONS = 512
INITIALIZER_RANGE = 0.02
LAYER_NORM_EPS = 1e-12


def default_vocab():
    testdata = os.environ.get("TINYENC_TESTDATA", str(ROOT.parent / "shared" / "testdata"))
    return pathlib.Path(testdata) / "wordpiece" / "bert_base_uncased_vocab.txt"


def mini_model(seed):
    """The ReferenceEncoder of the mini preset with BERT's initialisation, mean pooling, in
    eval mode (its layers are nn.TransformerEncoderLayer, so PyTorch runs its fused path)."""
    import torch
    import reference_encoder
    d, heads, layers, ffn = compare_pytorch.PRESETS[PRESET]
    config = reference_encoder.default_config(
        vocab_size=VOCAB_SIZE, hidden_size=d, num_attention_heads=heads, num_hidden_layers=layers,
        intermediate_size=ffn, type_vocab_size=2, max_position_embeddings=POSITIONS,
        layer_norm_eps=LAYER_NORM_EPS, hidden_act="gelu", pooling="mean",
        position_encoding={"kind": "learned", "max_positions": POSITIONS}, id2label={})
    torch.manual_seed(seed)
    with warnings.catch_warnings():  # the head of no labels is a zero-element Linear
        warnings.simplefilter("ignore", UserWarning)
        model = reference_encoder.ReferenceEncoder(config).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "norm" in name:  # LayerNorm: gamma 1, beta 0
                parameter.fill_(1.0 if name.endswith("weight") else 0.0)
            elif name.endswith("bias"):
                parameter.zero_()
            else:
                parameter.copy_(torch.randn(parameter.shape, generator=generator)
                                * INITIALIZER_RANGE)
    return model


def bert_config(model):
    c = model.config
    return {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": c["vocab_size"],
        "hidden_size": c["hidden_size"],
        "num_hidden_layers": c["num_hidden_layers"],
        "num_attention_heads": c["num_attention_heads"],
        "intermediate_size": c["intermediate_size"],
        "hidden_act": c["hidden_act"],
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": c["max_position_embeddings"],
        "type_vocab_size": c["type_vocab_size"],
        "initializer_range": INITIALIZER_RANGE,
        "layer_norm_eps": c["layer_norm_eps"],
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
    }


def write_folder(model, vocab, folder):
    import safetensors_io
    folder.mkdir(parents=True, exist_ok=True)
    d = model.config["hidden_size"]
    tensors = {name: array for name, array in model.tensors().items()
               if not name.startswith("classifier.")}  # BertModel has no head
    safetensors_io.write(folder / "model.safetensors", tensors, {"format": "pt"})
    shutil.copyfile(vocab, folder / "vocab.txt")
    files = {
        "config.json": bert_config(model),
        "tokenizer_config.json": {
            "tokenizer_class": "BertTokenizer", "do_lower_case": True,
            "tokenize_chinese_chars": True, "strip_accents": None,
            "model_max_length": POSITIONS, "unk_token": "[UNK]", "sep_token": "[SEP]",
            "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]"},
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling",
             "type": "sentence_transformers.models.Pooling"}],
        "1_Pooling/config.json": {
            "word_embedding_dimension": d, "pooling_mode_cls_token": False,
            "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
            "pooling_mode_mean_sqrt_len_tokens": False,
            "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False,
            "include_prompt": True},
        "sentence_bert_config.json": {"max_seq_length": POSITIONS, "do_lower_case": False},
    }
    for name, document in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2) + "\n")


def ensure_mini_model(folder, seed, vocab=None):
    """Writes the folder unless its stamp says it holds this seed's model already."""
    import torch
    folder = pathlib.Path(folder)
    vocab = pathlib.Path(vocab or default_vocab())
    if not vocab.is_file():
        sys.exit(f"make_mini_model.py: {vocab}: no bert-base-uncased vocabulary there; set "
                 "TINYENC_TESTDATA (the folder holding wordpiece/bert_base_uncased_vocab.txt)")
    stamp = {"preset": PRESET, "seed": seed, "torch": torch.__version__, "format": 1}
    stamp_file = folder / "stamp.json"
    if stamp_file.exists() and json.loads(stamp_file.read_text()) == stamp \
            and (folder / "vocab.txt").exists():
        return False
    stamp_file.unlink(missing_ok=True)
    write_folder(mini_model(seed), vocab, folder)
    stamp_file.write_text(json.dumps(stamp) + "\n")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[1:]))
    parser.add_argument("-o", "--output", default=str(ROOT / "bench" / "corpus" / "out" / "mini"),
                        help="model folder to write (default bench/corpus/out/mini)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vocab", default=None,
                        help="vocab.txt to copy (default $TINYENC_TESTDATA/wordpiece/"
                             "bert_base_uncased_vocab.txt)")
    args = parser.parse_args()
    written = ensure_mini_model(args.output, args.seed, args.vocab)
    print(f"make_mini_model.py: {args.output}: {'written' if written else 'up to date'} "
          f"(mini BERT, seed {args.seed}, mean pooling)")


if __name__ == "__main__":
    main()
