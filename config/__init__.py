"""Lakeport's Django project package; loading Celery here makes `@shared_task` bind to our app."""

from __future__ import annotations

from config.celery import app as celery_app

__all__ = ("celery_app",)
