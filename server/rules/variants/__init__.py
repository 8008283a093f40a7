"""The rulesets. Importing this package registers each of them by name."""

from . import solo_whist  # noqa: F401
