#!/usr/bin/python3
"""Golden tables from the seed article's PyTorch PositionalEncoding module, run verbatim.

Writes tests/golden/seed_pe/: for d_model in (4, 16, 512) the module's float32 table
(`pe.pe[0]`, positions 0..4999; d_model=512 subsampled, keeping the first and last 64 rows,
where float32 angle rounding matters most) and its div_term.

Run with ATEN_CPU_CAPABILITY=default (this script sets it for its own child process).
PyTorch 1.13's vectorized (AVX2/AVX-512) float32 exp is not correctly rounded: on its default
dispatch about 1 in 10 div_term entries is one ulp away from expf's, and since the angle is
pos * div_term, the table moves by up to ~5e-4 near position 5000. The reference path calls the
C library (expf, sinf, cosf) element by element, which is what tinyenc's scalar specification
does. The vectorized path's div_term and last rows are written too (`vectorized`), so a test can
document how far the two PyTorch paths are apart.

Usage: /usr/bin/python3 tools/golden/seed_pe_module.py [--out tests/golden/seed_pe]
Needs Debian's python3-torch; the engine and its tests never do.
"""
import argparse
import json
import math
import os
import pathlib
import subprocess
import sys

# The module exactly as the seed article prints it.
SEED_MODULE = '''
import math
import torch
import torch.nn as nn

class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(
            torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model)
        )
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer('pe', pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]
'''

D_MODELS = (4, 16, 512)
MAX_LEN = 5000
EDGE_ROWS = 64  # rows kept at each end of a subsampled table


def kept_positions(d_model):
    if d_model <= 16:
        return list(range(MAX_LEN))
    middle = range(EDGE_ROWS, MAX_LEN - EDGE_ROWS, 97)
    return sorted(set(range(EDGE_ROWS)) | set(middle) | set(range(MAX_LEN - EDGE_ROWS, MAX_LEN)))


def tables_in_this_process():
    """Builds the module for each d_model with whatever capability this process runs."""
    import torch
    namespace = {}
    exec(SEED_MODULE, namespace)
    capability = torch.__config__.show().split("CPU capability usage:")[1].split()[0]
    result = {"torch": torch.__version__, "capability": capability, "tables": {}}
    for d_model in D_MODELS:
        module = namespace["PositionalEncoding"](d_model)
        table = module.pe[0]
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        result["tables"][d_model] = (table.numpy().copy(), div_term.numpy().copy())
    return result


def child(capability, path):
    os.environ["ATEN_CPU_CAPABILITY"] = capability
    import pickle
    with open(path, "wb") as f:
        pickle.dump(tables_in_this_process(), f)


def run_child(capability, tmp):
    path = tmp / f"{capability}.pickle"
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    subprocess.run([sys.executable, __file__, "--child", capability, str(path)], check=True, env=env)
    import pickle
    with open(path, "rb") as f:
        return pickle.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[2] /
                                              "tests" / "golden" / "seed_pe"))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    import tempfile
    import numpy as np
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        reference = run_child("default", pathlib.Path(tmp))
        vectorized = run_child("avx2", pathlib.Path(tmp))

    meta = {
        "generator": "tools/golden/seed_pe_module.py",
        "torch": reference["torch"],
        "reference_capability": reference["capability"],
        "vectorized_capability": vectorized["capability"],
        "max_len": MAX_LEN,
        "format": "d<D>.f32: little-endian float32 rows of D values, one per entry of positions",
        "tables": [],
    }
    for d_model in D_MODELS:
        table, div_term = reference["tables"][d_model]
        vec_table, vec_div_term = vectorized["tables"][d_model]
        positions = kept_positions(d_model)
        table[positions].astype("<f4").tofile(out / f"d{d_model}.f32")
        last = list(range(MAX_LEN - EDGE_ROWS, MAX_LEN))
        vec_table[last].astype("<f4").tofile(out / f"d{d_model}.vectorized.f32")
        meta["tables"].append({
            "d_model": d_model,
            "file": f"d{d_model}.f32",
            "positions": positions,
            # float32 values printed as the shortest decimal that reads back to the same float
            "div_term": [float(np.format_float_positional(x, unique=True)) for x in div_term],
            "vectorized": {
                "file": f"d{d_model}.vectorized.f32",
                "positions": last,
                "div_term": [float(np.format_float_positional(x, unique=True))
                             for x in vec_div_term],
                "div_term_entries_differing": int((div_term != vec_div_term).sum()),
                "max_abs_table_difference": float(np.abs(table - vec_table).max()),
            },
        })
    (out / "seed_pe.json").write_text(json.dumps(meta, separators=(",", ":")) + "\n")
    for entry in meta["tables"]:
        v = entry["vectorized"]
        print(f"d_model={entry['d_model']}: {len(entry['positions'])} rows kept; vectorized path "
              f"differs in {v['div_term_entries_differing']}/{entry['d_model'] // 2} div_term "
              f"entries, table max |diff| {v['max_abs_table_difference']:.3g}")


if __name__ == "__main__":
    main()
