"""The three error types of the rules engine.

`MalformedAction` means the input is not an action of the vocabulary at all; `IllegalAction` means it is
a well-formed action that the rules forbid now. `MalformedRecord` is for a deal record that cannot be
read. All derive from `RulesError`, and none is raised after the state has been changed.
"""


class RulesError(Exception):
    """Base class of every error raised by the rules engine."""

    @property
    def reason(self) -> str:
        """The sentence that explains the error."""
        return str(self.args[0]) if self.args else self.__class__.__name__


class MalformedAction(RulesError):  # noqa: N818 (public API name)
    """The action is not a word of the ruleset's vocabulary, or its arguments do not parse."""


class IllegalAction(RulesError):  # noqa: N818 (public API name)
    """The action is well formed but the rules do not allow it now; the message names the rule."""


class MalformedRecord(RulesError):  # noqa: N818 (public API name)
    """A deal record is not valid JSON of the documented shape, or its cards are inconsistent."""
