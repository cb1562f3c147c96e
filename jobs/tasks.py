"""Celery tasks for SQL job runs (thin: they take ids and call services)."""
