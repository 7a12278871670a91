"""The portable backend: one spawned child per question, a spare kept warm, over pipes read by threads (parent.py,
worker.py)."""
