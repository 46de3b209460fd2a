"""Settings defaults that depend on where the package lives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from retriever.config import Settings
from retriever.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def _cache_dir(path_entry: Path) -> str:
    code = "import retriever.config as c; print(c.DEFAULT_CACHE_DIR)"
    res = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(path_entry)})
    return res.stdout.strip()


def test_default_cache_dir_does_not_depend_on_the_import_path() -> None:
    """Through the top-level link or through submission/, a checkout uses the repo's cache/ (it used to
    be submission/cache/ for the second)."""
    assert _cache_dir(ROOT) == _cache_dir(ROOT / "submission") == str(ROOT / "cache")


def test_the_encoder_setting() -> None:
    assert Settings().encoder == Settings.from_env({}).encoder == "auto"
    assert Settings.from_env({"RETRIEVER_ENCODER": "numpy"}).encoder == "numpy"
    assert Settings.from_env({"RETRIEVER_ENCODER": " onnx "}).encoder == "onnx"
    with pytest.raises(ConfigError, match="RETRIEVER_ENCODER='torch' is not one of auto, onnx, numpy"):
        Settings.from_env({"RETRIEVER_ENCODER": "torch"})
