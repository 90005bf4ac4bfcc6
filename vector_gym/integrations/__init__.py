"""Trainer integrations (layer 6): ``vector_gym.integrations.trl`` for TRL's GRPOTrainer.

Submodules are imported explicitly; importing this package imports nothing heavy.
"""
