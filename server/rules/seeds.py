"""Loading the ruleset data files from the top-level `seeds/` folder."""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

#: `WHIST_SEEDS_DIR` overrides where the ruleset data files are read from.
SEEDS_DIR = Path(os.environ.get("WHIST_SEEDS_DIR", Path(__file__).resolve().parents[2] / "seeds"))


@cache
def load_seed(name: str) -> dict[str, Any]:
    """The parsed contents of `seeds/<name>.toml`."""
    with open(SEEDS_DIR / f"{name}.toml", "rb") as handle:
        return tomllib.load(handle)
