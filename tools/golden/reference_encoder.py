"""A PyTorch encoder with tinyenc's semantics, used to make golden outputs, to train the shipped
models and to benchmark against. Layers with no position term inside attention (PE none,
sinusoidal, learned) are torch.nn.TransformerEncoderLayer itself; RoPE, ALiBi and T5 relative
bias need the attention written out, which `Layer` does with plain torch ops (and
`check_layer_matches_torch` shows it equals nn.TransformerEncoderLayer when it adds nothing).

The model saves as a tinyenc-family folder: config.json + model.safetensors with BERT's names.
"""
import json
import math
import pathlib

import torch
import torch.nn as nn
import torch.nn.functional as F

import safetensors_io

ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


def default_config(**overrides):
    config = {
        "model_type": "tinyenc",
        "vocab_size": 50,
        "hidden_size": 32,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "intermediate_size": 64,
        "type_vocab_size": 0,
        "max_position_embeddings": 64,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
        "norm_first": False,
        "embedding_layer_norm": True,
        "pooling": "mean",
        "position_encoding": {"kind": "none"},
        "id2label": {"0": "a", "1": "b", "2": "c"},
    }
    config.update(overrides)
    return config


# --- position encodings, written from the papers -------------------------------------------

def seed_sinusoidal_table(d_model, max_len, base=10000.0, layout="interleaved"):
    """The seed article's PositionalEncoding table (float32), in either layout."""
    position = torch.arange(0, max_len).unsqueeze(1).float()
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    pe = torch.zeros(max_len, d_model)
    if layout == "interleaved":
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
    else:
        pe[:, : d_model // 2] = torch.sin(position * div_term)
        pe[:, d_model // 2:] = torch.cos(position * div_term)
    return pe


def rope_cos_sin(seq, rotary_dim, theta):
    inv_freq = 1.0 / (theta ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    freqs = torch.outer(torch.arange(seq).float(), inv_freq)  # [T, rotary_dim/2]
    return freqs.cos(), freqs.sin()


def apply_rope(x, cos, sin, rotary_dim, pairing):
    """x [B, H, T, head_dim]; rotates the first rotary_dim dims (Su et al.)."""
    rot, rest = x[..., :rotary_dim], x[..., rotary_dim:]
    if pairing == "half":  # GPT-NeoX / LLaMA rotate_half
        c = torch.cat([cos, cos], dim=-1)
        s = torch.cat([sin, sin], dim=-1)
        x1, x2 = rot[..., : rotary_dim // 2], rot[..., rotary_dim // 2:]
        rotated = rot * c + torch.cat([-x2, x1], dim=-1) * s
    else:  # GPT-J / RoFormer: pairs (2i, 2i+1)
        c = cos.repeat_interleave(2, dim=-1)
        s = sin.repeat_interleave(2, dim=-1)
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
        rotate_every_two = torch.stack([-x2, x1], dim=-1).flatten(-2)
        rotated = rot * c + rotate_every_two * s
    return torch.cat([rotated, rest], dim=-1)


def alibi_slopes(n):
    """Press et al.'s reference get_slopes."""
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def t5_bucket(relative_position, num_buckets, max_distance):
    """Hugging Face T5Attention._relative_position_bucket, bidirectional."""
    num_buckets //= 2
    buckets = (relative_position > 0).to(torch.long) * num_buckets
    n = torch.abs(relative_position)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, n, large)


# --- the model -------------------------------------------------------------------------------

class Layer(nn.Module):
    """One encoder layer with the attention written out (q k^T / sqrt(d) + bias, softmax, v)."""

    def __init__(self, config):
        super().__init__()
        d, f = config["hidden_size"], config["intermediate_size"]
        self.heads = config["num_attention_heads"]
        self.norm_first = config["norm_first"]
        self.activation = ACTIVATIONS[config["hidden_act"]]
        self.in_proj = nn.Linear(d, 3 * d)
        self.out_proj = nn.Linear(d, d)
        self.norm1 = nn.LayerNorm(d, eps=config["layer_norm_eps"])
        self.linear1 = nn.Linear(d, f)
        self.linear2 = nn.Linear(f, d)
        self.norm2 = nn.LayerNorm(d, eps=config["layer_norm_eps"])

    def attention(self, x, pad_mask, bias, rope):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.in_proj(x).split(d, dim=-1)
        q, k, v = (y.view(b, t, h, d // h).transpose(1, 2) for y in (q, k, v))
        if rope is not None:
            q, k = rope(q), rope(k)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        if bias is not None:
            scores = scores + bias
        scores = scores.masked_fill(pad_mask[:, None, None, :], float("-inf"))
        context = torch.softmax(scores, dim=-1) @ v
        self.last_attention = torch.softmax(scores, dim=-1)
        return self.out_proj(context.transpose(1, 2).reshape(b, t, d))

    def forward(self, x, pad_mask, bias=None, rope=None):
        if self.norm_first:
            x = x + self.attention(self.norm1(x), pad_mask, bias, rope)
            return x + self.linear2(self.activation(self.linear1(self.norm2(x))))
        x = self.norm1(x + self.attention(x, pad_mask, bias, rope))
        return self.norm2(x + self.linear2(self.activation(self.linear1(x))))


def torch_layer(config):
    return nn.TransformerEncoderLayer(
        config["hidden_size"], config["num_attention_heads"], config["intermediate_size"],
        dropout=0.0, activation=ACTIVATIONS[config["hidden_act"]],
        layer_norm_eps=config["layer_norm_eps"], batch_first=True, norm_first=config["norm_first"])


class ReferenceEncoder(nn.Module):
    def __init__(self, config, use_torch_layers=None):
        super().__init__()
        self.config = config
        d = config["hidden_size"]
        pe = config["position_encoding"]
        kind = pe["kind"]
        self.word_embeddings = nn.Embedding(config["vocab_size"], d)
        if kind == "learned":
            self.position_embeddings = nn.Embedding(config["max_position_embeddings"], d)
        if config["type_vocab_size"] > 0:
            self.token_type_embeddings = nn.Embedding(config["type_vocab_size"], d)
        if config["embedding_layer_norm"]:
            self.embedding_norm = nn.LayerNorm(d, eps=config["layer_norm_eps"])
        if kind == "sinusoidal":
            self.register_buffer("sinusoidal", seed_sinusoidal_table(
                d, config["max_position_embeddings"], pe.get("base", 10000.0),
                pe.get("layout", "interleaved")))
        if kind == "relative":
            self.relative_bias = nn.Embedding(pe.get("num_buckets", 32), config["num_attention_heads"])
        if use_torch_layers is None:
            use_torch_layers = kind in ("none", "sinusoidal", "learned")
        self.use_torch_layers = use_torch_layers
        make = torch_layer if use_torch_layers else Layer
        self.layers = nn.ModuleList(make(config) for _ in range(config["num_hidden_layers"]))
        if config["norm_first"]:
            self.final_norm = nn.LayerNorm(d, eps=config["layer_norm_eps"])
        if config["pooling"] == "pooler":
            self.pooler = nn.Linear(d, d)
        self.classifier = nn.Linear(d, len(config["id2label"]))

    def position_ids(self, lengths, seq):
        padding_idx = self.config["position_encoding"].get("padding_idx", -1)
        t = torch.arange(seq)[None, :].expand(len(lengths), seq)
        if padding_idx < 0:
            return t
        real = t < lengths[:, None]
        return torch.where(real, t + padding_idx + 1, torch.full_like(t, padding_idx))

    def embed(self, ids, lengths, token_types):
        config, pe = self.config, self.config["position_encoding"]
        x = self.word_embeddings(ids)
        if pe.get("scale_embeddings", False):
            x = x * math.sqrt(config["hidden_size"])
        positions = self.position_ids(lengths, ids.shape[1])
        if pe["kind"] == "sinusoidal":
            x = x + self.sinusoidal[positions]
        elif pe["kind"] == "learned":
            x = x + self.position_embeddings(positions)
        if config["type_vocab_size"] > 0:
            types = token_types if token_types is not None else torch.zeros_like(ids)
            x = x + self.token_type_embeddings(types)
        if config["embedding_layer_norm"]:
            x = self.embedding_norm(x)
        return x

    def attention_terms(self, seq):
        pe, heads = self.config["position_encoding"], self.config["num_attention_heads"]
        kind = pe["kind"]
        i = torch.arange(seq)
        distance = i[None, :] - i[:, None]  # j - i
        if kind == "alibi":
            slopes = torch.tensor(alibi_slopes(heads))
            return -slopes[:, None, None] * distance.abs()[None].float(), None
        if kind == "relative":
            buckets = t5_bucket(distance, pe.get("num_buckets", 32), pe.get("max_distance", 128))
            return self.relative_bias(buckets).permute(2, 0, 1), None
        if kind == "rope":
            head_dim = self.config["hidden_size"] // heads
            rotary_dim = pe.get("rotary_dim", 0) or head_dim
            cos, sin = rope_cos_sin(seq, rotary_dim, pe.get("theta", 10000.0))
            return None, lambda x: apply_rope(x, cos, sin, rotary_dim, pe.get("pairing", "half"))
        return None, None

    def forward(self, ids, lengths, token_types=None, keep_layers=False):
        """ids [B, T] (padded), lengths [B]. Returns hidden, pooled, logits (and layer inputs)."""
        seq = ids.shape[1]
        pad_mask = torch.arange(seq)[None, :] >= lengths[:, None]
        x = self.embed(ids, lengths, token_types)
        bias, rope = self.attention_terms(seq)
        states = []
        for layer in self.layers:
            states.append(x)
            if self.use_torch_layers:
                x = layer(x, src_key_padding_mask=pad_mask)
            else:
                x = layer(x, pad_mask, bias, rope)
        if self.config["norm_first"]:
            x = self.final_norm(x)
        states.append(x)
        pooling = self.config["pooling"]
        if pooling == "mean":
            real = (~pad_mask).float()[:, :, None]
            pooled = (x * real).sum(1) / real.sum(1)
        else:
            pooled = x[:, 0]
            if pooling == "pooler":
                pooled = torch.tanh(self.pooler(pooled))
        logits = self.classifier(pooled)
        return (x, pooled, logits, states) if keep_layers else (x, pooled, logits)

    # --- export ------------------------------------------------------------------------------

    def tensors(self):
        """The weights under tinyenc's (BERT's) names, as numpy float32 arrays."""
        out = {}
        put = lambda name, tensor: out.__setitem__(name, tensor.detach().float().numpy())
        put("embeddings.word_embeddings.weight", self.word_embeddings.weight)
        if hasattr(self, "position_embeddings"):
            put("embeddings.position_embeddings.weight", self.position_embeddings.weight)
        if hasattr(self, "token_type_embeddings"):
            put("embeddings.token_type_embeddings.weight", self.token_type_embeddings.weight)
        if hasattr(self, "embedding_norm"):
            put("embeddings.LayerNorm.weight", self.embedding_norm.weight)
            put("embeddings.LayerNorm.bias", self.embedding_norm.bias)
        if hasattr(self, "relative_bias"):
            put("encoder.relative_attention_bias.weight", self.relative_bias.weight)
        d = self.config["hidden_size"]
        for n, layer in enumerate(self.layers):
            p = f"encoder.layer.{n}."
            if self.use_torch_layers:  # nn.MultiheadAttention packs q, k, v into in_proj
                in_w, in_b = layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
                out_proj = layer.self_attn.out_proj
            else:
                in_w, in_b, out_proj = layer.in_proj.weight, layer.in_proj.bias, layer.out_proj
            for part, name in enumerate(("query", "key", "value")):
                put(p + f"attention.self.{name}.weight", in_w[part * d:(part + 1) * d])
                put(p + f"attention.self.{name}.bias", in_b[part * d:(part + 1) * d])
            put(p + "attention.output.dense.weight", out_proj.weight)
            put(p + "attention.output.dense.bias", out_proj.bias)
            put(p + "attention.output.LayerNorm.weight", layer.norm1.weight)
            put(p + "attention.output.LayerNorm.bias", layer.norm1.bias)
            put(p + "intermediate.dense.weight", layer.linear1.weight)
            put(p + "intermediate.dense.bias", layer.linear1.bias)
            put(p + "output.dense.weight", layer.linear2.weight)
            put(p + "output.dense.bias", layer.linear2.bias)
            put(p + "output.LayerNorm.weight", layer.norm2.weight)
            put(p + "output.LayerNorm.bias", layer.norm2.bias)
        if hasattr(self, "final_norm"):
            put("encoder.LayerNorm.weight", self.final_norm.weight)
            put("encoder.LayerNorm.bias", self.final_norm.bias)
        if hasattr(self, "pooler"):
            put("pooler.dense.weight", self.pooler.weight)
            put("pooler.dense.bias", self.pooler.bias)
        put("classifier.weight", self.classifier.weight)
        put("classifier.bias", self.classifier.bias)
        return out

    def save(self, folder):
        folder = pathlib.Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(json.dumps(self.config, indent=2, ensure_ascii=False) + "\n")
        safetensors_io.write(folder / "model.safetensors", self.tensors(), {"format": "pt"})


def check_layer_matches_torch(config, seed=0):
    """The written-out Layer equals nn.TransformerEncoderLayer (same weights, padded batch)."""
    torch.manual_seed(seed)
    reference = torch_layer(config).eval()
    ours = Layer(config).eval()
    ours.in_proj.weight.data.copy_(reference.self_attn.in_proj_weight)
    ours.in_proj.bias.data.copy_(reference.self_attn.in_proj_bias)
    ours.out_proj.load_state_dict(reference.self_attn.out_proj.state_dict())
    for name in ("norm1", "norm2", "linear1", "linear2"):
        getattr(ours, name).load_state_dict(getattr(reference, name).state_dict())
    x = torch.randn(3, 6, config["hidden_size"])
    mask = torch.arange(6)[None, :] >= torch.tensor([6, 3, 1])[:, None]
    with torch.no_grad():
        a = reference(x, src_key_padding_mask=mask)
        b = ours(x, mask)
    real = ~mask
    return float((a[real] - b[real]).abs().max())
