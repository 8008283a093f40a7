"""The rulesets. Importing this package registers each of them by name."""

from . import belge_club, couleur, solo_whist  # noqa: F401
