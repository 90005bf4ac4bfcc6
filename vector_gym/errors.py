"""Exception hierarchy of vector_gym.

Everything a *policy* writes is scored, never raised: a hostile or broken output
yields reward 0 with a named failure reason. These exceptions are for programmer
errors and corrupt inputs that the *user* controls (a bad config, a corpus file
that fails its integrity check, an unknown task id).
"""

from __future__ import annotations

__all__ = [
    "VectorGymError",
    "SVGParseError",
    "CorpusError",
    "IntegrityError",
    "UnknownTaskError",
    "ConfigError",
    "ScorerError",
]


class VectorGymError(Exception):
    """Base class of every error raised by vector_gym."""


class SVGParseError(VectorGymError):
    """An SVG text could not be turned into a tree; ``reason`` names why (see ``vector_gym.svg.parse``)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


class CorpusError(VectorGymError):
    """A task file or corpus is malformed (missing field, wrong type); the message names the file."""


class IntegrityError(CorpusError):
    """A corpus does not match its recorded integrity hash."""


class UnknownTaskError(VectorGymError, KeyError):
    """A task id that the corpus does not contain."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class ConfigError(VectorGymError, ValueError):
    """An invalid configuration value; the message names the field, expected and actual value."""


class ScorerError(VectorGymError):
    """A suite's scorer raised or broke its protocol (a bug in the scorer, not a bad answer).

    Scorers never raise for policy output (bad output scores 0 with a named reason), so an
    exception from one is the scorer's own failure: it is not turned into 0-reward rows (that
    would record policy failures that never happened, and finished rows that a resumed run never
    redoes). The message names the suite, the scorer and the original error (``__cause__``).
    """
