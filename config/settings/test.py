"""Settings for the test suite: real PostgreSQL and Redis, as in production."""

from __future__ import annotations

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, env

DATABASES["default"] = env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/lakeport")
DATABASES["default"]["CONN_MAX_AGE"] = 0
DATABASES["default"]["TEST"] = {"NAME": env("LAKEPORT_TEST_DB", default="test_lakeport")}
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/15")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user creation in tests
# One key for every process a test starts (gunicorn workers must agree on session signatures).
SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-signing-key-for-the-suite-not-for-any-server")
# A fixed test key so encrypted fixtures are reproducible; production refuses to start without a real one.
LAKEPORT_SECRET_KEYS = env.list(
    "LAKEPORT_SECRET_KEYS", default=["o1cQ3W2-OM0oTzqY1xs8nLzZ3a1ayTz0H5m2G0cOqdk="]
)
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=CELERY_BROKER_URL)
# The suite runs as root with 0700 pytest temp dirs engines could not enter: engines run as the test's user,
# except in tests/security/test_engine_isolation.py, whose workers give each team's engine its own user.
LAKEPORT_ENGINE_USER = env("LAKEPORT_ENGINE_USER", default="")
# SQL GUARD: fixtures make warehouses in pytest's temp dirs; the cross-team overlap check still applies there.
LAKEPORT_TEAM_DATA_ROOTS = [*LAKEPORT_TEAM_DATA_ROOTS, __import__("tempfile").gettempdir()]  # noqa: F405
# FAIR SHARE: the suite's schedules fire every minute (the two-beats race needs many ticks); the rule's own tests
# set the production default back (tests/security/test_fair_share.py).
LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS = env.int("LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS", default=60)
