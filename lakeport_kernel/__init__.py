"""Lakeport's shared kernel: Django-free code both the platform and the Spark runtime use.

`secretbox` seals and opens catalog secrets (Fernet); `redaction` masks every secret value it was told about.
It imports nothing of the project: `lakeport_engine` (engines, runner) and the Django apps both build on it.
"""
