"""Minimal safetensors writer and reader (the format is a u64 little-endian header length, a JSON
header of {name: {dtype, shape, data_offsets}}, then the raw little-endian data). Debian has no
`safetensors` package; this is all the golden and training scripts need."""
import json
import struct

import numpy as np

_DTYPES = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16"}


def write(path, tensors, metadata=None):
    """tensors: {name: numpy array}; written in name order, F32 unless the array is float16."""
    header = {}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        if array.dtype not in _DTYPES:
            array = array.astype("<f4")
        data = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # keep the data area 8-byte aligned, as Hugging Face does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = {"F32": "<f4", "F16": "<f2"}[entry["dtype"]]
        tensors[name] = np.frombuffer(data[base + begin:base + end], dtype=dtype).reshape(entry["shape"])
    return tensors
