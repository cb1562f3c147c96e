"""The platform's Django library, below every app: domain errors, the API's error body, parsers, pagination,
validation and schema, the Celery queues and task sending, request middleware and log redaction.

`config` is the composition root (settings, URLs, the Celery app) and imports the apps; `core` imports none."""
