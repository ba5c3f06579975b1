#!/usr/bin/python3
"""tools/convert_checkpoint.py on tiny torch-saved state dicts: every tensor comes back with its
name, shape and exact values; tied tensors are copied; F16/BF16 are widened or kept; shards and
bad input. Exits 77 (CTest: skipped) without python3-torch."""
import contextlib
import importlib.util
import io
import json
import os
import struct
import sys
import tempfile
import unittest

try:
    import torch
except ImportError:
    print("python3-torch is not installed: skipped")
    sys.exit(77)

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                    "convert_checkpoint.py")


def read_safetensors(path):
    """An independent reader: header, then each tensor rebuilt from its bytes."""
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    formats = {"F32": ("f", 4), "F16": ("e", 2), "I64": ("q", 8), "BF16": ("H", 2), "BOOL": ("?", 1)}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        code, size = formats[entry["dtype"]]
        begin, end = entry["data_offsets"]
        count = (end - begin) // size
        values = struct.unpack(f"<{count}{code}", data[base + begin:base + end])
        tensors[name] = (entry["dtype"], entry["shape"], list(values), (base + begin) % 4)
    return header, tensors, length


_spec = importlib.util.spec_from_file_location("convert_checkpoint", TOOL)
convert_checkpoint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(convert_checkpoint)


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(*args):
    """The tool's main() in this process (importing torch once keeps the test fast)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            returncode = convert_checkpoint.main(list(args))
        except SystemExit as exit:
            returncode = exit.code
    return Result(returncode, stdout.getvalue(), stderr.getvalue())


class ConvertCheckpointTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = self.dir.name
        torch.manual_seed(0)
        embeddings = torch.randn(6, 4)
        self.state = {
            "bert.embeddings.word_embeddings.weight": embeddings,
            "cls.predictions.decoder.weight": embeddings,  # tied: same storage
            "bert.encoder.layer.0.attention.self.query.weight": torch.randn(4, 4).t(),  # strided
            "bert.embeddings.position_ids": torch.arange(5).unsqueeze(0),
            "half": torch.tensor([1.0, -2.0, 2.0 ** -24, 65504.0], dtype=torch.float16),
            "brain": torch.tensor([1.0, -3.140625, float("inf")], dtype=torch.bfloat16),
            "double": torch.tensor([0.1], dtype=torch.float64),
            "scalar": torch.tensor(5.0),
            "mask": torch.tensor([True, False]),
        }
        torch.save(self.state, os.path.join(self.folder, "pytorch_model.bin"))

    def tearDown(self):
        self.dir.cleanup()

    def output(self):
        return os.path.join(self.folder, "model.safetensors")

    def test_round_trip_widens_to_f32(self):
        result = run(self.folder)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("9 tensors", result.stdout)
        self.assertIn("shared storage, written as copies: bert.embeddings.word_embeddings.weight, "
                      "cls.predictions.decoder.weight", result.stdout)
        header, tensors, length = read_safetensors(self.output())
        self.assertEqual((8 + length) % 8, 0)
        self.assertEqual(header["__metadata__"], {"format": "pt"})
        self.assertEqual(sorted(tensors), sorted(self.state))
        offsets = sorted(tuple(entry["data_offsets"]) for name, entry in header.items()
                         if name != "__metadata__")
        self.assertEqual(offsets[0][0], 0)  # tensors tile the data area
        for (_, end), (begin, _) in zip(offsets, offsets[1:]):
            self.assertEqual(end, begin)
        for name, original in self.state.items():
            dtype, shape, values, misalignment = tensors[name]
            self.assertEqual(shape, list(original.shape), name)
            if original.is_floating_point():
                self.assertEqual(dtype, "F32", name)
                self.assertEqual(misalignment, 0, name)
                # Exact: F32 is copied and F16/BF16 widen without rounding; the float64 tensor
                # is rounded to F32 once, as .to(torch.float32) rounds it.
                self.assertEqual(values, original.to(torch.float32).flatten().tolist(), name)
        self.assertEqual(tensors["bert.embeddings.position_ids"][:3],
                         ("I64", [1, 5], [0, 1, 2, 3, 4]))
        self.assertEqual(tensors["mask"][:3], ("BOOL", [2], [True, False]))
        self.assertEqual(tensors["half"][2], [1.0, -2.0, 2.0 ** -24, 65504.0])
        self.assertEqual(tensors["brain"][2], [1.0, -3.140625, float("inf")])
        self.assertEqual(tensors["scalar"][1:3], ([], [5.0]))

    def test_keep_dtype(self):
        result = run(self.folder, "--keep-dtype")
        self.assertEqual(result.returncode, 0, result.stderr)
        _, tensors, _ = read_safetensors(self.output())
        self.assertEqual(tensors["half"][0], "F16")
        self.assertEqual(tensors["half"][2], [1.0, -2.0, 2.0 ** -24, 65504.0])
        self.assertEqual(tensors["brain"][0], "BF16")
        self.assertEqual(tensors["brain"][2], [0x3F80, 0xC049, 0x7F80])
        self.assertEqual(tensors["double"][0], "F32")

    def test_shards(self):
        os.remove(os.path.join(self.folder, "pytorch_model.bin"))
        names = sorted(self.state)
        first, second = names[:4], names[4:]
        torch.save({n: self.state[n] for n in first}, os.path.join(self.folder, "a.bin"))
        torch.save({n: self.state[n] for n in second}, os.path.join(self.folder, "b.bin"))
        weight_map = {**{n: "a.bin" for n in first}, **{n: "b.bin" for n in second}}
        with open(os.path.join(self.folder, "pytorch_model.bin.index.json"), "w") as f:
            json.dump({"weight_map": weight_map}, f)
        result = run(self.folder)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(read_safetensors(self.output())[1]), names)

    def test_refuses_to_overwrite(self):
        self.assertEqual(run(self.folder).returncode, 0)
        result = run(self.folder)
        self.assertEqual(result.returncode, 1)
        self.assertIn("exists (use --force to overwrite)", result.stderr)
        self.assertEqual(run(self.folder, "--force").returncode, 0)

    def test_bad_input(self):
        empty = os.path.join(self.folder, "empty")
        os.mkdir(empty)
        result = run(empty)
        self.assertEqual(result.returncode, 1)
        self.assertIn("neither pytorch_model.bin nor pytorch_model.bin.index.json found",
                      result.stderr)
        torch.save([1, 2], os.path.join(empty, "pytorch_model.bin"))
        result = run(empty)
        self.assertEqual(result.returncode, 1)
        self.assertIn("expected a state dict (name -> tensor), got list", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(empty, "model.safetensors")))


if __name__ == "__main__":
    unittest.main()
