"""`manage.py runjob --team T --file script.sql`: run a script through the job path and print its results.

A job of another kind runs through the handler its app registered (jobs/management/kinds.py): a streaming job
(`--kind streaming`, or an existing one named by `--job`) is started instead, through the stream services the
API's stream/start/ uses, and followed until it is RUNNING; `--stop` stops it gracefully
(streams/management/runjob.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import DomainError
from jobs.management.kinds import RunjobCall, runjob_handler
from jobs.models import Engine, JobKind, JobRun, RunStatus, SqlJob
from jobs.selectors import run_log_page
from jobs.services.jobs import job_create, job_update
from jobs.services.runs import run_submit
from teams.management.actor import CliActor, add_as_argument, cli_actor
from teams.models import Role, Team


class Command(BaseCommand):
    help = ("Run a Spark SQL script as a job run of a team (same claim, engine and recording as the workers). "
            "A streaming job is started on the workers instead and followed until it is RUNNING (FAILED: exit 1 "
            "with its error); --stop stops it. `manage.py stream` has status, restart and reset.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--team", required=True, help="Team name.")
        parser.add_argument("--file", help="The SQL script ('-' reads standard input); without it, --job names an "
                                           "existing job whose saved script runs.")
        parser.add_argument("--job", help="Job name to create or update (default: runjob-<file stem>).")
        parser.add_argument("--kind", choices=[k.value for k in JobKind],
                            help="Kind of the job created or updated (default: batch for a new job, else unchanged).")
        parser.add_argument("--stop", action="store_true",
                            help="Stop the streaming job gracefully (the batch in flight finishes) and wait until "
                                 "it is STOPPED.")
        parser.add_argument("--timeout", type=float, default=300.0,
                            help="Seconds to wait for a streaming job to be RUNNING (or STOPPED with --stop).")
        # None when not given: an existing job keeps its own (the defaults below are for a job being created)
        parser.add_argument("--engine", choices=[e.value for e in Engine],
                            help=f"Engine of the job (default: '{Engine.DEFAULT}' for a new job, else unchanged).")
        parser.add_argument("--default-catalog",
                            help="Default catalog of the job ('' for none; default: none for a new job, else "
                                 "unchanged).")
        parser.add_argument("--via-worker", action="store_true",
                            help="Enqueue to the Celery workers and wait, instead of running in this process.")
        parser.add_argument("--max-rows", type=int, default=50, help="Rows of the result to print.")
        add_as_argument(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        team = Team.objects.filter(name=opts["team"]).first()
        if team is None:
            raise CommandError(f"No team named '{opts['team']}'.")
        if opts["stop"] and opts["file"]:
            raise CommandError("--stop stops a streaming job as it is: give --job, not --file.")
        # every path writes (the job, a run, a stream action): the API's developer role, checked before any of it
        actor = cli_actor(username=opts["as_user"], team=team, required=Role.DEVELOPER, doing="runjob")
        job = self._job(team, opts, actor) if opts["file"] else self._existing(team, opts["job"])
        handler = runjob_handler(job.kind)
        if handler is not None:  # a streaming job: started on the workers, as the API's stream/start/ does
            handler(RunjobCall(job=job, actor=actor, stop=opts["stop"], timeout=opts["timeout"], out=self.stdout,
                               err=self.stderr))
            return
        if opts["stop"]:
            raise CommandError(f"Job '{job.name}' is a batch job: --stop is for streaming jobs (a batch run is "
                               "cancelled with the API's runs/{id}/cancel/).")
        try:
            submission = run_submit(job=job, user=actor.user, enqueue=opts["via_worker"])
        except DomainError as exc:  # a bad parameter
            raise CommandError(exc.summary()) from None
        run = submission.run
        self.stderr.write(f"run {run.id} of job '{job.name}' in team '{team.name}'")
        offset = 0
        if opts["via_worker"]:
            while True:
                run.refresh_from_db()
                offset = self._print_log(run, offset)
                if run.is_finished:
                    break
                time.sleep(0.5)
        else:
            from jobs.services.execution import run_execute

            run_execute(run_id=run.id, worker="runjob@local")
            run.refresh_from_db()
            offset = self._print_log(run, offset)
        self._print_result(run, opts["max_rows"])
        if run.status != RunStatus.SUCCEEDED:
            raise CommandError(f"run {run.id} {run.status}: {(run.error or {}).get('message', '')}")

    def _job(self, team: Team, opts: dict[str, Any], actor: CliActor) -> SqlJob:
        """The job named --job (or after the file), created or updated with the script of --file; an existing job
        changes only the options given (its engine, default catalog and kind stay as they are otherwise)."""
        sql = sys.stdin.read() if opts["file"] == "-" else self._read(opts["file"])
        name = opts["job"] or f"runjob-{Path(opts['file']).stem if opts['file'] != '-' else 'stdin'}"[:200]
        given = {"engine": opts["engine"], "default_catalog": opts["default_catalog"], "kind": opts["kind"]}
        fields: dict[str, Any] = {"sql": sql, **{key: value for key, value in given.items() if value is not None}}
        try:
            job = SqlJob.objects.filter(team=team, name=name).first()
            if job is not None:
                return job_update(job=job, data=fields)
            return job_create(team=team, user=actor.user, name=name, **fields)
        except DomainError as exc:  # an empty or oversized script, an unknown catalog, a bad parameter
            raise CommandError(exc.summary()) from None

    def _existing(self, team: Team, name: str | None) -> SqlJob:
        """The saved job named `name` (runs its own script: no --file)."""
        if not name:
            raise CommandError("Give --file (a script to run), or --job naming a saved job.")
        job = SqlJob.objects.filter(team=team, name=name).select_related("team").first()
        if job is None:
            raise CommandError(f"No job named '{name}' in team '{team.name}'.")
        return job

    def _read(self, path: str) -> str:
        try:
            return Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None

    def _print_log(self, run: JobRun, offset: int) -> int:
        page = run_log_page(run=run, offset=offset)
        for line in page.lines:
            self.stderr.write(f"[{line['level']}] {line['message']}")
        return page.next_offset

    def _print_result(self, run: JobRun, max_rows: int) -> None:
        result = run.result
        if not result or not result.get("columns"):
            return
        names = [c["name"] for c in result["columns"]]
        rows = [["NULL" if v is None else str(v) for v in row] for row in result["rows"][:max_rows]]
        widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
        self.stdout.write(" | ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)))
        self.stdout.write("-+-".join("-" * w for w in widths))
        for row in rows:
            self.stdout.write(" | ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
        more = len(result["rows"]) - len(rows)
        tail = f" (+{more} not shown)" if more > 0 else ""
        self.stdout.write(f"({len(result['rows'])} row(s){', truncated' if result.get('truncated') else ''}{tail})")
