from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "SQL jobs"

    def ready(self) -> None:
        # row filter and column mask expressions are checked on save with Spark's parser (docs/access.md)
        from grants.hooks import register_expression_parser
        from jobs import heartbeat, signals  # noqa: F401  (connect the worker and sign-in signals)
        from jobs.engines.parser import statement_parse_error

        register_expression_parser(statement_parse_error)
