#!/usr/bin/python3
"""Convert a PyTorch checkpoint folder (pytorch_model.bin, or shards listed in
pytorch_model.bin.index.json) into model.safetensors, the only weights format tinyenc reads.

The safetensors format is simple enough to write by hand (Debian has no `safetensors` package):
an 8-byte little-endian header length N, N bytes of JSON
  {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}, ...,
   "__metadata__": {"format": "pt"}}
padded with spaces, then the tensors' bytes back to back, little-endian, in row-major order.

Floating-point tensors are written as F32 unless --keep-dtype keeps F16 and BF16 (F64 is always
narrowed to F32). Integer and bool tensors (buffers such as position_ids) keep their dtype.
Tensors that share storage (tied embeddings) are written as separate copies, because the format
has no aliasing. Needs Debian's python3-torch; runs with /usr/bin/python3.
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import torch

# torch dtype -> safetensors dtype name
_DTYPE_NAMES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
_WEIGHTS = "pytorch_model.bin"
_INDEX = "pytorch_model.bin.index.json"


def fail(message):
    print(f"convert_checkpoint: {message}", file=sys.stderr)
    sys.exit(1)


def load_state_dict(path):
    """Tensors only: weights_only refuses pickled code, which a model file has no business in."""
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types; the message is what matters here
        fail(f"{path}: cannot load: {error}")
    if isinstance(loaded, dict) and "state_dict" in loaded and isinstance(loaded["state_dict"], dict):
        loaded = loaded["state_dict"]  # a training checkpoint that wraps the state dict
    if not isinstance(loaded, dict):
        fail(f"{path}: expected a state dict (name -> tensor), got {type(loaded).__name__}")
    for name, value in loaded.items():
        if not isinstance(name, str) or not isinstance(value, torch.Tensor):
            fail(f"{path}: entry {name!r} is not a tensor ({type(value).__name__})")
    return loaded


def read_checkpoint(folder):
    """The state dict of `folder`: one pytorch_model.bin, or the shards its index lists."""
    single = os.path.join(folder, _WEIGHTS)
    index = os.path.join(folder, _INDEX)
    if os.path.exists(single):
        return load_state_dict(single)
    if not os.path.exists(index):
        fail(f"{folder}: neither {_WEIGHTS} nor {_INDEX} found")
    with open(index, encoding="utf-8") as f:
        try:
            weight_map = json.load(f)["weight_map"]
        except (ValueError, KeyError, TypeError) as error:
            fail(f"{index}: weight_map: {error}")
    tensors = {}
    for shard in sorted(set(weight_map.values())):
        tensors.update(load_state_dict(os.path.join(folder, shard)))
    missing = sorted(set(weight_map) - set(tensors))
    if missing:
        fail(f"{index}: weight_map names tensors no shard holds: {', '.join(missing[:5])}")
    return tensors


def stored_tensor(name, tensor, keep_dtype):
    """The tensor as it will be written: on the CPU, contiguous, its own copy, target dtype."""
    if tensor.dtype not in _DTYPE_NAMES:
        fail(f"tensor {name!r}: dtype {tensor.dtype} has no safetensors equivalent")
    if tensor.is_floating_point():
        if tensor.dtype == torch.float64 or not keep_dtype:
            tensor = tensor.to(torch.float32)
    # clone(): tied tensors share storage, and the format has no aliasing.
    return tensor.detach().cpu().contiguous().clone()


def tensor_bytes(tensor):
    if tensor.dtype == torch.bfloat16:  # numpy has no bfloat16: write its 16 bits as they are
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def write_safetensors(path, tensors, metadata):
    """Writes `tensors` (name -> contiguous CPU tensor); atomic via rename."""
    if sys.byteorder != "little":
        fail("this writer assumes a little-endian host (safetensors is little-endian)")
    header = {}
    blobs = []
    offset = 0
    # Widest elements first: with the data area 8-byte aligned, every tensor then starts at a
    # multiple of its element size, and a reader can use F32 data in place.
    for name in sorted(tensors, key=lambda n: (-tensors[n].element_size(), n)):
        data = tensor_bytes(tensors[name])
        header[name] = {"dtype": _DTYPE_NAMES[tensors[name].dtype],
                        "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    # Pad to 8 bytes so that the data area, and each F32 tensor in it, is aligned in a mapping.
    text += b" " * (-(8 + len(text)) % 8)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".model.safetensors.")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 would make the model private
        with os.fdopen(handle, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for blob in blobs:
                f.write(blob)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def shared_groups(state_dict):
    """Names of tensors that share storage with another, grouped (for the report)."""
    by_storage = {}
    for name, tensor in state_dict.items():
        if tensor.numel() > 0:
            key = (tensor.untyped_storage().data_ptr() if hasattr(tensor, "untyped_storage")
                   else tensor.storage().data_ptr())
            by_storage.setdefault(key, []).append(name)
    return [sorted(names) for names in by_storage.values() if len(names) > 1]


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Convert a PyTorch checkpoint folder (pytorch_model.bin or its sharded "
                    "index) into model.safetensors for tinyenc.")
    parser.add_argument("folder", help="folder with pytorch_model.bin (and config.json)")
    parser.add_argument("--output", help="output file (default: FOLDER/model.safetensors)")
    parser.add_argument("--keep-dtype", action="store_true",
                        help="keep F16 and BF16 tensors as they are instead of widening to F32")
    parser.add_argument("--force", action="store_true", help="overwrite an existing output")
    args = parser.parse_args(argv)

    if not os.path.isdir(args.folder):
        fail(f"{args.folder}: not a folder")
    output = args.output or os.path.join(args.folder, "model.safetensors")
    if os.path.exists(output) and not args.force:
        fail(f"{output}: exists (use --force to overwrite)")

    state_dict = read_checkpoint(args.folder)
    shared = shared_groups(state_dict)
    tensors = {name: stored_tensor(name, tensor, args.keep_dtype)
               for name, tensor in state_dict.items()}
    write_safetensors(output, tensors, {"format": "pt"})

    counts = {}
    for tensor in tensors.values():
        counts[_DTYPE_NAMES[tensor.dtype]] = counts.get(_DTYPE_NAMES[tensor.dtype], 0) + 1
    summary = ", ".join(f"{count} {dtype}" for dtype, count in sorted(counts.items()))
    print(f"{output}: {len(tensors)} tensors ({summary})")
    for names in shared:
        print(f"  shared storage, written as copies: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
