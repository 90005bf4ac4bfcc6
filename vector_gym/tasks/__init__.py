"""Task records, corpus loaders and generators (layer 3).

Nothing here scores or renders. See :class:`Task` and :func:`load_vector_bench`.
"""

from vector_gym.tasks.task import RequestedEdit, Task, corpus_hash
from vector_gym.tasks.vector_bench import load_vector_bench

__all__ = ["RequestedEdit", "Task", "corpus_hash", "load_vector_bench"]
