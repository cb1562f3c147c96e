"""Declarative apply (`apply -f`, `POST /apply/`): one document of catalogs, jobs and schedules made true at once.

Orchestration above the catalogs, jobs and schedules apps: it calls their services, and none of them imports it."""
