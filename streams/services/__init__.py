"""Writes of streams: users' lifecycle actions (lifecycle.py), the worker's supervision (supervisor.py), metrics
(metrics.py), checkpoints (checkpoints.py) and the periodic tick (tick.py)."""
