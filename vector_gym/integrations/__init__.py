"""Trainer integrations (layer 7), each a thin adapter over a :class:`~vector_gym.suites.Suite`.

Submodules are imported explicitly and import their framework lazily; importing this package
imports nothing heavy:

- ``trl``: reward functions for every suite (weights reproduce ``suite.reward``), datasets,
  tool environment for ``environment_factory``, ``grpo_trainer``, generated-task streams with a
  curriculum, held-out evaluation callback;
- ``verl``: ``compute_score``, parquet in verl's layout, the multi-turn agent loop;
- ``verifiers``: v1 taskset/env and classic ``load_environment`` (id ``vector-gym-verifiers``);
- ``openenv``: ``python -m vector_gym.integrations.openenv --suite NAME --port N``;
- ``skyrl``: a ``skyrl_gym`` ``BaseTextEnv`` and its rows;
- ``datasets``: lossless ``to_dataset`` / ``from_dataset``;
- ``vision``: rendered observations for vision-language policies;
- ``_episode``: the shared multi-turn protocol (:class:`~vector_gym.integrations._episode.EditSession`).
"""
