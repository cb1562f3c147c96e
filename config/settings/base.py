"""Settings shared by every environment; each section reads its integration from the environment."""

from __future__ import annotations

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()
env_file = BASE_DIR / ".env"
if env_file.exists():
    environ.Env.read_env(str(env_file))

# GENERAL
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
TIME_ZONE = "UTC"
USE_TZ = True
LANGUAGE_CODE = "en-us"
DATA_DIR = Path(env("LAKEPORT_DATA_DIR", default=str(BASE_DIR / "var")))
# `make run` generates var/django-secret-key once (like the Fernet key); with neither it nor the variable, each
# process draws a random key: no well-known key ever signs a session.
_SECRET_FILE = DATA_DIR / "django-secret-key"
SECRET_KEY = env("DJANGO_SECRET_KEY", default="") or (
    _SECRET_FILE.read_text().strip() if _SECRET_FILE.is_file() else secrets.token_urlsafe(50))

# DATABASES
# SQLite by default so `make run` needs no external service; DATABASE_URL switches to PostgreSQL.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'lakeport.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the worker's threads and beat write at once: WAL lets readers run beside the writer,
    # IMMEDIATE takes the write lock at BEGIN (no deadlock upgrading a read lock), and a writer waits up to
    # `timeout` seconds for the lock instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": env.int("LAKEPORT_SQLITE_TIMEOUT", default=30),
    })
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# APPS
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "axes",
    "teams",
    "grants",
    "catalogs",
    "jobs",
    "schedules",
    "lineage",
    "streams",
    "alerts",
    "declarative",
    "iceberg_rest",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.metrics.RequestMetricsMiddleware",  # API latency by route for /metrics (first: it times the rest)
    "core.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # turns a sign-in lockout into teams.throttling's 429
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

# STATIC (the built frontend is served by whitenoise)
STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []

# SECURITY
# Request bodies above 1 MiB are refused with 413 before any view reads them.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("LAKEPORT_MAX_BODY_BYTES", default=1024 * 1024)
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the SPA reads it to send X-CSRFToken
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Keys that encrypt catalog secrets at rest (Fernet, comma-separated, newest first: rotation adds a key in front).
LAKEPORT_SECRET_KEYS = env.list("LAKEPORT_SECRET_KEYS", default=[])
# Local directories a catalog may point at (Delta warehouses, Hive conf dirs); anything else is refused.
LAKEPORT_ALLOWED_LOCAL_ROOTS = env.list(
    "LAKEPORT_ALLOWED_LOCAL_ROOTS", default=[str(DATA_DIR), __import__("tempfile").gettempdir()]
)
# Seconds a connection test or metadata call may take before it is abandoned.
LAKEPORT_CONNECT_TIMEOUT = env.float("LAKEPORT_CONNECT_TIMEOUT", default=10.0)

# SIGN-IN THROTTLING (django-axes)
# Failed sign-ins are counted per user name and, separately, per client address; reaching the limit locks that
# name or address for the cool-off. Bearer tokens do not sign in, so integrations are never locked out.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("LAKEPORT_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = __import__("datetime").timedelta(seconds=env.int("LAKEPORT_LOGIN_LOCKOUT_SECONDS", default=900))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "teams.throttling.lockout_response"
AXES_VERBOSE = False

# REST FRAMEWORK
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "teams.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON bodies only (a form or multipart body is a 415); a view that takes another type says so (apply: YAML).
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.SafeJSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_PAGINATION_CLASS": "core.api.pagination.StandardPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "core.api.schema.LakeportAutoSchema",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Lakeport API",
    "DESCRIPTION": (
        "Catalog management and Spark SQL jobs. Bodies are JSON; every error is `{\"error\": {\"code\", "
        "\"message\", \"details\"}}`. The version follows semver: a breaking change bumps the major version "
        "and is listed in docs/api/CHANGELOG.md."
    ),
    # The contract's version (docs/api/CHANGELOG.md; released schemas in docs/api/openapi-<version>.json).
    "VERSION": "1.8.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Several models have a `kind`: each choice set keeps a stable name (the typed clients' type names).
    "ENUM_NAME_OVERRIDES": {"KindEnum": "jobs.models.JobKind", "AlertChannelKindEnum": "alerts.models.ChannelKind",
                            "AlertDeliveryKindEnum": "alerts.models.DeliveryKind",
                            "AlertEventEnum": "alerts.models.AlertEvent"},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "core.api.schema.add_examples"],
}

# CELERY
# Redis in every real deployment; `make run` without CELERY_BROKER_URL uses kombu's filesystem transport
# so a worker process still runs beside the web server with no external service.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = DATA_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_queue_dir / "processed"),
        "control_folder": str(_queue_dir / "control"),  # kombu's default is ./control, wherever the process runs
        "store_processed": False,
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Only editor calls (validate, preview) keep a result: the web process polls it; runs write PostgreSQL.
CELERY_RESULT_BACKEND = env(
    "CELERY_RESULT_BACKEND",
    default=CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else f"file://{DATA_DIR / 'results'}",
)
CELERY_RESULT_EXPIRES = 600
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "lakeport"
# A worker writes a heartbeat row this often; /healthz calls a worker alive if one is younger than 3 beats.
LAKEPORT_WORKER_HEARTBEAT_SECONDS = env.int("LAKEPORT_WORKER_HEARTBEAT_SECONDS", default=10)

# SPARK
# The master every run uses unless a job says otherwise; local[*] runs inside the worker with no cluster.
SPARK_MASTER = env("SPARK_MASTER", default="local[*]")
# JDBC driver jars (Debian's libpostgresql-jdbc-java and libmariadb-java install them here).
SPARK_JDBC_JARS = env.list(
    "SPARK_JDBC_JARS",
    default=["/usr/share/java/postgresql.jar", "/usr/share/java/mariadb-java-client.jar"],
)

# JOBS
# Engine for jobs that say "default": warm (the team's long-lived engine, a new session per run) or isolated
# (an engine of the run's own, stopped when it ends). Either way user SQL runs only in engine processes.
LAKEPORT_JOB_ENGINE = env("LAKEPORT_JOB_ENGINE", default="warm")

# SCHEDULES
# How often beat runs the schedule tick; a tick later than the grace period counts as missed (catch-up policy).
LAKEPORT_SCHEDULE_TICK_SECONDS = env.float("LAKEPORT_SCHEDULE_TICK_SECONDS", default=15.0)
LAKEPORT_SCHEDULE_GRACE_SECONDS = env.int("LAKEPORT_SCHEDULE_GRACE_SECONDS", default=120)

# FAIR SHARE (docs/jobs.md "Fair share"): one team's load must never make another team wait.
# Runs of one team RUNNING at once; more stay QUEUED (never failed) and start when one of its runs ends.
LAKEPORT_TEAM_MAX_RUNS = env.int("LAKEPORT_TEAM_MAX_RUNS", default=4)
# Editor calls (validate, preview, live preview) of one team in flight at once; one more answers 503 naming this.
LAKEPORT_TEAM_MAX_EDITOR_CALLS = env.int("LAKEPORT_TEAM_MAX_EDITOR_CALLS", default=2)
# A run's statement running longer than this is cancelled and the run FAILS naming the limit (0: no limit).
LAKEPORT_MAX_STATEMENT_SECONDS = env.float("LAKEPORT_MAX_STATEMENT_SECONDS", default=3600.0)
# A schedule whose cron fires more often than this is refused (400) on create, update and apply -f.
LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS = env.int("LAKEPORT_MIN_SCHEDULE_INTERVAL_SECONDS", default=300)
# Per-team exceptions an operator grants, JSON by team name, e.g. {"etl": {"max_runs": 8, "max_statement_seconds":
# 14400, "max_editor_calls": 4, "min_schedule_interval_seconds": 60}}; a key left out keeps the default above.
LAKEPORT_TEAM_LIMITS = env.json("LAKEPORT_TEAM_LIMITS", default={})
# How long a run of a team at its limit waits before it asks again (a run's end also wakes the next one at once).
LAKEPORT_TEAM_SLOT_WAIT_SECONDS = env.float("LAKEPORT_TEAM_SLOT_WAIT_SECONDS", default=5.0)

# LINEAGE
# Capture datasets and column lineage from each statement's analyzed plan (off: runs record no lineage).
LAKEPORT_LINEAGE_CAPTURE = env.bool("LAKEPORT_LINEAGE_CAPTURE", default=True)
# OpenLineage transport (openlineage-python config as JSON: {"type": "file", "log_file_path": "…", "append": true},
# {"type": "http", "url": "…"}, {"type": "console"}); empty sends no events.
LAKEPORT_OPENLINEAGE_TRANSPORT = env.json("LAKEPORT_OPENLINEAGE_TRANSPORT", default={})

# STREAMING JOBS (streams/, docs/streaming-jobs.md)
# Metrics of micro-batches are kept this long, then pruned by the streams tick.
LAKEPORT_STREAM_METRICS_RETENTION_HOURS = env.float("LAKEPORT_STREAM_METRICS_RETENTION_HOURS", default=24.0)
# A stream is "falling behind" when its source lag grew over each of its last N batches.
LAKEPORT_STREAM_FALLING_BEHIND_BATCHES = env.int("LAKEPORT_STREAM_FALLING_BEHIND_BATCHES", default=5)
# The supervisor's lease on a stream: renewed every heartbeat; an expired lease is taken over by another worker.
LAKEPORT_STREAM_LEASE_SECONDS = env.float("LAKEPORT_STREAM_LEASE_SECONDS", default=30.0)
LAKEPORT_STREAM_HEARTBEAT_SECONDS = env.float("LAKEPORT_STREAM_HEARTBEAT_SECONDS", default=3.0)
# How often beat looks for streams to resume (lease expired, desired running) and prunes metrics.
LAKEPORT_STREAM_TICK_SECONDS = env.float("LAKEPORT_STREAM_TICK_SECONDS", default=10.0)
# A driver that dies is restarted after min(base * 2^(n-1), max) seconds, n consecutive failures, up to the budget;
# a batch that completes resets the count. Past the budget the stream is FAILED with the last error.
LAKEPORT_STREAM_RESTART_BACKOFF_SECONDS = env.float("LAKEPORT_STREAM_RESTART_BACKOFF_SECONDS", default=2.0)
LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS = env.float("LAKEPORT_STREAM_RESTART_BACKOFF_MAX_SECONDS", default=60.0)
LAKEPORT_STREAM_RESTART_BUDGET = env.int("LAKEPORT_STREAM_RESTART_BUDGET", default=5)
# Platform-managed checkpoints: <dir>/<team>/job-<id>/gen-<n>/ (a reset starts a new generation).
LAKEPORT_STREAM_CHECKPOINT_DIR = env("LAKEPORT_STREAM_CHECKPOINT_DIR", default=str(DATA_DIR / "checkpoints"))

# ENGINES
# Engines (one Spark driver process per team) a worker process keeps; a run waits QUEUED when all are busy.
LAKEPORT_ENGINES_PER_WORKER = env.int("LAKEPORT_ENGINES_PER_WORKER", default=4)
# An engine with no run for this long is stopped (its memory goes back to the machine).
LAKEPORT_ENGINE_IDLE_SECONDS = env.int("LAKEPORT_ENGINE_IDLE_SECONDS", default=600)
# How long a run that found every engine busy waits before it asks again.
LAKEPORT_ENGINE_WAIT_SECONDS = env.float("LAKEPORT_ENGINE_WAIT_SECONDS", default=2.0)
# The OS user engines run as when the worker runs as root, created on demand (jobs/engines/users.py): with
# `{team_id}` one user per team, so no team's engine can read another's memory or files; a plain name is one user
# for every team; empty runs them as the worker's own user.
LAKEPORT_ENGINE_USER = env("LAKEPORT_ENGINE_USER", default="lakeport-t{team_id}")
# > 0: team n's engine user gets uid base + n (the same on every machine, for shared storage); 0: useradd --system.
LAKEPORT_ENGINE_UID_BASE = env.int("LAKEPORT_ENGINE_UID_BASE", default=0)
# The interpreter engines run with; empty picks the worker's own, or the system Python of the same version with
# the virtualenv's packages when the engine user cannot reach the worker's (pyenv under /root).
LAKEPORT_ENGINE_PYTHON = env("LAKEPORT_ENGINE_PYTHON", default="")
# Per-team scratch directories (working directory, temp files, Spark local dirs): outside var/, which holds keys.
LAKEPORT_ENGINE_SCRATCH_DIR = env(
    "LAKEPORT_ENGINE_SCRATCH_DIR", default=str(Path(__import__("tempfile").gettempdir()) / "lakeport-engines")
)
# Engines on local and standalone masters start from a Spark home without the jars they never load (ML,
# Kubernetes, YARN, Connect; Hive's unless Hive support is on): ~15 MiB less per idle engine. Off: the full one.
LAKEPORT_ENGINE_LEAN_CLASSPATH = env.bool("LAKEPORT_ENGINE_LEAN_CLASSPATH", default=True)
# The address engines bind their driver and Spark UI to; loopback keeps the UI away from the network.
LAKEPORT_ENGINE_BIND_ADDRESS = env("LAKEPORT_ENGINE_BIND_ADDRESS", default="127.0.0.1")
# A class-data-sharing archive of Spark's classes for engine JVMs (jobs/engines/cds.py): a much faster cold start.
LAKEPORT_ENGINE_CDS = env.bool("LAKEPORT_ENGINE_CDS", default=True)
# Signing in starts the engines of the user's (at most two) teams where they write SQL, in the background.
LAKEPORT_ENGINE_WARM_ON_SIGN_IN = env.bool("LAKEPORT_ENGINE_WARM_ON_SIGN_IN", default=True)
# An editor worker keeps Spark's SQL parser in a small JVM (~100 MB, started by the first validation that finds an
# engine starting) so that validation while a team's engine starts answers with a syntax check at once
# (jobs/engines/parser.py); off, it waits for the engine as before.
LAKEPORT_EDITOR_PARSE_SERVER = env.bool("LAKEPORT_EDITOR_PARSE_SERVER", default=True)
# Spark event logs per team ("{team}" in the path), for a history server once an engine is gone; "" keeps none.
LAKEPORT_SPARK_EVENT_LOG_DIR = env("LAKEPORT_SPARK_EVENT_LOG_DIR", default="")
# The longest an editor call (validate, preview) waits for a worker's engine, first engine start included.
LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS = env.float("LAKEPORT_INTERACTIVE_TIMEOUT_SECONDS", default=120.0)
# A live preview of a streaming statement stops by itself after this many seconds or rows (engine time is shared).
LAKEPORT_LIVE_PREVIEW_SECONDS = env.float("LAKEPORT_LIVE_PREVIEW_SECONDS", default=30.0)
LAKEPORT_LIVE_PREVIEW_ROWS = env.int("LAKEPORT_LIVE_PREVIEW_ROWS", default=500)
# A RUNNING run whose process stopped heartbeating is failed ("worker lost") or re-queued within this bound.
LAKEPORT_REAPER_INTERVAL_SECONDS = env.int("LAKEPORT_REAPER_INTERVAL_SECONDS", default=120)
# QUEUED runs not picked up after this long are re-enqueued from PostgreSQL (a broker restart loses messages).
LAKEPORT_REQUEUE_AFTER_SECONDS = env.int("LAKEPORT_REQUEUE_AFTER_SECONDS", default=60)
# Spark SQL conf keys a job may override; an admin widens the list through the environment.
LAKEPORT_SPARK_CONF_ALLOWLIST = env.list(
    "LAKEPORT_SPARK_CONF_ALLOWLIST",
    default=[
        "spark.sql.shuffle.partitions", "spark.sql.session.timeZone", "spark.sql.ansi.enabled",
        "spark.sql.adaptive.enabled", "spark.sql.adaptive.coalescePartitions.enabled",
        "spark.sql.autoBroadcastJoinThreshold", "spark.sql.files.maxPartitionBytes",
        "spark.sql.caseSensitive", "spark.sql.legacy.timeParserPolicy", "spark.sql.maxPlanStringLength",
    ],
)
# Metastore (Hive persistent) functions a job may call, by name as written (`fn` or `db.fn`); empty: none. A
# persistent function may load a jar as code in the team's engine, so only an operator allows one (issue 28).
LAKEPORT_ALLOWED_HIVE_FUNCTIONS = env.list("LAKEPORT_ALLOWED_HIVE_FUNCTIONS", default=[])
# Static conf of every engine (the guard's own switches always win), e.g. "spark.driver.memory=2g,spark.ui.enabled=false".
LAKEPORT_SPARK_STATIC_CONF = env.dict("LAKEPORT_SPARK_STATIC_CONF", default={})
# Largest script a job may hold, and rows kept from the last query of a run.
LAKEPORT_MAX_SCRIPT_BYTES = env.int("LAKEPORT_MAX_SCRIPT_BYTES", default=1024 * 1024)
LAKEPORT_RESULT_PREVIEW_ROWS = env.int("LAKEPORT_RESULT_PREVIEW_ROWS", default=1000)
# Largest result (JSON bytes) a run keeps or a preview answers; beyond it rows are cut and the result flagged.
LAKEPORT_RESULT_MAX_BYTES = env.int("LAKEPORT_RESULT_MAX_BYTES", default=4 * 1024 * 1024)
# Requests of one web process that may wait for a run's end at once (`?wait=`); one more is answered at once.
LAKEPORT_RUN_WAITERS = env.int("LAKEPORT_RUN_WAITERS", default=2)

# SQL GUARD
# Local data directories (Delta warehouses, Hive conf dirs) a team's catalogs may use, as templates with {team}:
# data paths belong to one team, and no two teams' catalogs may point into each other's.
LAKEPORT_TEAM_DATA_ROOTS = env.list("LAKEPORT_TEAM_DATA_ROOTS", default=[str(DATA_DIR / "teams" / "{team}")])
# CATALOG REACH: hosts (names, IPs or CIDRs) catalogs may connect to; empty = any host but the platform's own
# database, broker and result backend, which no catalog may reach (catalogs/types/endpoints.py).
LAKEPORT_CATALOG_ALLOWED_HOSTS = env.list("LAKEPORT_CATALOG_ALLOWED_HOSTS", default=[])

# ALERTS (docs/alerts.md)
# Links in alerts point at the browser app here (the run's or the job's page).
LAKEPORT_PUBLIC_URL = env("LAKEPORT_PUBLIC_URL", default="http://localhost:8000")
# Every send (webhook POST, SMTP conversation) is abandoned after this many seconds.
LAKEPORT_ALERT_SEND_TIMEOUT = env.float("LAKEPORT_ALERT_SEND_TIMEOUT", default=10.0)
# Hosts (names, IPs or CIDRs) alert webhooks may be sent to; empty = any host but the platform's own database,
# broker and result backend (alerts/endpoints.py; checked on save and before every send).
LAKEPORT_ALERT_ALLOWED_HOSTS = env.list("LAKEPORT_ALERT_ALLOWED_HOSTS", default=[])
# A failed send is retried after this many seconds, doubled each time (capped at an hour), up to the maximum.
LAKEPORT_ALERT_RETRY_SECONDS = env.float("LAKEPORT_ALERT_RETRY_SECONDS", default=30.0)
LAKEPORT_ALERT_MAX_ATTEMPTS = env.int("LAKEPORT_ALERT_MAX_ATTEMPTS", default=12)
# A delivery still "sending" after this long lost its sender (a killed worker): it is sent again (at most once more).
LAKEPORT_ALERT_CLAIM_SECONDS = env.float("LAKEPORT_ALERT_CLAIM_SECONDS", default=120.0)
# A channel is sent at most this many alerts a minute (a storm of failures must not flood a chat or a mailbox).
LAKEPORT_ALERT_CHANNEL_PER_MINUTE = env.int("LAKEPORT_ALERT_CHANNEL_PER_MINUTE", default=20)
# How often beat sends the outbox task (retries; new alerts are sent right after their commit).
LAKEPORT_ALERT_TICK_SECONDS = env.float("LAKEPORT_ALERT_TICK_SECONDS", default=15.0)
# E-mail channels: Django's SMTP backend with the server from the environment.
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="lakeport@localhost")

# METRICS (docs/alerts.md, "Metrics")
# /metrics answers only a request with `Authorization: Bearer <this token>`; unset, /metrics is a 404.
LAKEPORT_METRICS_TOKEN = env("LAKEPORT_METRICS_TOKEN", default="")

# LOGGING
# Event-style logs; production switches the formatter to JSON. The redaction filter guards every handler.
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact": {"()": "core.logging.RedactSecretsFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
        },
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "py4j": {"level": "WARNING"},
    },
}
