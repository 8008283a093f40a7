"""Loading the ruleset data files, shipped inside the package as `server/rules/data/<name>.toml`.

In the source tree `server/rules/data` is a symbolic link to the top-level `seeds/` folder, where the
files are edited; a built wheel holds real copies (package data, see pyproject.toml), so an installed
engine reads them from any directory with no environment variable.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib.resources import files
from typing import Any

#: The folder of the data files, as an importlib resource of this package.
DATA = files(__package__ or "server.rules") / "data"


@cache
def load_seed(name: str) -> dict[str, Any]:
    """The parsed contents of the data file `<name>.toml`."""
    return tomllib.loads((DATA / f"{name}.toml").read_text(encoding="utf-8"))


def seed_names() -> list[str]:
    """The names of every data file shipped, without `.toml`."""
    return sorted(entry.name[: -len(".toml")] for entry in DATA.iterdir() if entry.name.endswith(".toml"))
