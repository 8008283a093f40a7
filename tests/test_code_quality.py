"""The code standard as tests: `mypy --strict` and `ruff` are clean over the whole project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_strict_is_clean_on_the_server_package() -> None:
    result = _run("mypy")  # strict settings and the package list live in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean_on_the_whole_project() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
