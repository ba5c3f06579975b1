#!/usr/bin/python3
"""Regenerates everything models/pretrained/order-* holds, deterministically: the corpus, the
tokenizer, the six models (two at a time, one thread each), their held-out goldens, and the
model cards. Prints the wall time, which the model cards record.

Usage: /usr/bin/python3 models/train/train_all.py [--out DIR] [--parallel 2]
"""
import argparse
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
PYTHON = "/usr/bin/python3"
# Slowest first, so that the two workers finish together.
KINDS = ["relative", "alibi", "rope", "learned", "sinusoidal", "none"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    start = time.time()
    subprocess.run([PYTHON, str(HERE / "prepare_data.py"), "--out", args.out], check=True)

    waiting = list(KINDS)
    running = []
    failed = []
    while waiting or running:
        while waiting and len(running) < args.parallel:
            kind = waiting.pop(0)
            command = [PYTHON, str(HERE / "train_order_model.py"), "--kind", kind,
                       "--out", args.out, "--threads", "1"]
            running.append((kind, subprocess.Popen(command)))
        time.sleep(0.5)
        for kind, process in list(running):
            if process.poll() is not None:
                running.remove((kind, process))
                if process.returncode != 0:
                    failed.append(kind)
    if failed:
        sys.exit(f"training failed for: {', '.join(failed)}")

    seconds = time.time() - start
    print(f"corpus, tokenizer and six models in {seconds:.0f} s wall time")
    subprocess.run([PYTHON, str(HERE / "write_model_cards.py"), "--out", args.out,
                    "--wall-seconds", f"{seconds:.0f}", "--parallel", str(args.parallel)],
                   check=True)


if __name__ == "__main__":
    main()
