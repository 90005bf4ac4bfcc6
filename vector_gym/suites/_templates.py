"""Chat templates of the built-in suites (one place the suite files import them from).

The template *type* (:class:`~vector_gym.policies.templates.ChatTemplate`) and the rendering
live in :mod:`vector_gym.policies.templates`; which template a benchmark uses is the suite's
business (``Suite.templates``), handed to policies by the caller (``templates=``).
"""

from __future__ import annotations

from vector_gym.policies.templates import (
    SVGEDITBENCH_V1,
    SVGEDITBENCH_V1_PATCH,
    SVGEDITBENCH_V2,
    SVGEDITBENCH_V2_PATCH,
    VECTOR_BENCH,
    VECTOR_BENCH_PATCH,
    ChatTemplate,
)

__all__ = [
    "ChatTemplate",
    "SVGEDITBENCH_V1",
    "SVGEDITBENCH_V1_PATCH",
    "SVGEDITBENCH_V2",
    "SVGEDITBENCH_V2_PATCH",
    "VECTOR_BENCH",
    "VECTOR_BENCH_PATCH",
]
