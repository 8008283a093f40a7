"""A built wheel, installed into a fresh virtual environment, works from an unrelated directory.

The wheel is built from a copy of the project (so the checkout gets no build/ folder), with the
setuptools already installed (no download). The fresh environment sees the test environment's
packages through a path file, for the dependencies only: the `server` package it imports must be the
installed one. From an empty directory, with no WHIST_* variable, it replays a deal record with
`whist-replay` (the ruleset data is package data) and starts the server, which serves the web client
(package data too) and /health.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "rules" / "records" / "whist" / "seeded_dealer_0.json"


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh environment with the project's wheel installed; returns its bin folder and a clean env."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for name in ("server", "seeds", "client_web"):  # links stay links: the wheel must follow them
        shutil.copytree(ROOT / name, source / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("WHIST_", "PYTHON", "PIP_"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    built = _run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                  "--no-index", "-w", str(base / "dist")], base, env)
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = next((base / "dist").glob("whist_server-*.whl"))
    target = base / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=True).create(target)
    bin_dir = target / ("Scripts" if os.name == "nt" else "bin")
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(_run([str(bin_dir / "python"), "-c", purelib], base, env).stdout.strip())
    # The dependencies (websockets, pydantic...) come from the test environment, after the venv's own.
    (site / "test-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    installed = _run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install",
                      "--no-deps", "--no-index", str(wheel)], base, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return bin_dir, env


@pytest.mark.slow
def test_the_installed_wheel_imports_its_own_copy_of_the_package(installed: tuple[Path, dict[str, str]],
                                                                tmp_path: Path) -> None:
    bin_dir, env = installed
    found = _run([str(bin_dir / "python"), "-c", "import server.rules; print(server.rules.__file__)"],
                 tmp_path, env)
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).is_relative_to(bin_dir.parent), found.stdout


@pytest.mark.slow
def test_whist_replay_from_an_unrelated_directory(installed: tuple[Path, dict[str, str]],
                                                  tmp_path: Path) -> None:
    bin_dir, env = installed
    shutil.copy2(RECORD, tmp_path / "deal.json")
    replayed = _run([str(bin_dir / "whist-replay"), "replay", "deal.json"], tmp_path, env)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert json.loads(replayed.stdout)["status"] == "complete"
    verified = _run([str(bin_dir / "whist-replay"), "verify", "deal.json"], tmp_path, env)
    assert json.loads(verified.stdout)["verified"] is True, verified.stdout + verified.stderr


@pytest.mark.slow
def test_the_installed_server_starts_and_serves_the_web_client(installed: tuple[Path, dict[str, str]],
                                                              tmp_path: Path) -> None:
    bin_dir, env = installed
    with subprocess.Popen([str(bin_dir / "python"), "-m", "server", "--port", "0"], cwd=tmp_path, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()  # blocks until the server has started (or exits)
            assert "listening on http://" in line, line
            url = line.split("listening on ", 1)[1].strip()
            with urllib.request.urlopen(url, timeout=30) as response:
                page = response.read().decode("utf-8")
                assert response.status == 200 and "<html" in page.lower()
            with urllib.request.urlopen(url + "health", timeout=30) as response:
                assert response.status == 200
        finally:
            process.terminate()
            process.wait(timeout=60)
