"""The Celery queues, one per kind of work, so one kind can never make another wait (docs/deploy.md).

Runs wait on engines for seconds to hours; editor calls (validate, preview, completion, live preview) must answer
a person within the web's deadline; beat's ticks (schedules, streams, the run reaper) must run on time; stream
supervisors hold a thread for as long as their stream runs. Each queue has workers of its own (`make run`,
docker-compose.yml), so a backlog in one never delays another.
"""

from __future__ import annotations

RUN_QUEUE = "lakeport"  # runs (the historical name: brokers of existing deployments already hold it)
EDITOR_QUEUE = "lakeport.editor"
BEAT_QUEUE = "lakeport.beat"
STREAM_QUEUE = "lakeport.streams"
ALL_QUEUES = (RUN_QUEUE, EDITOR_QUEUE, BEAT_QUEUE, STREAM_QUEUE)

# Task name → queue; config/celery.py installs it as `task_routes` (beat sends its ticks without a queue).
TASK_QUEUES = {
    "jobs.run_execute": RUN_QUEUE,
    "jobs.sql_interactive": EDITOR_QUEUE,
    "jobs.sql_live_preview": EDITOR_QUEUE,
    "jobs.runs_reap": BEAT_QUEUE,
    "schedules.tick": BEAT_QUEUE,
    "streams.tick": BEAT_QUEUE,
    "streams.supervise": STREAM_QUEUE,
    "alerts.deliver": BEAT_QUEUE,  # short sends with a deadline each (LAKEPORT_ALERT_SEND_TIMEOUT)
}
