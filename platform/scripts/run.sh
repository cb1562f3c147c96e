#!/usr/bin/env bash
# `make run`: install what is missing, migrate, create the demo team, then serve the platform on
# http://127.0.0.1:8000 with a Celery worker beside it. Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash platform/scripts/ensure-python.sh
bash platform/scripts/ensure-system.sh
bash platform/scripts/build-jvm.sh
if [ -f frontend/package.json ]; then bash platform/scripts/build-frontend.sh; fi
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.local}
export PYSPARK_PYTHON="$PWD/.venv/bin/python"
# var/ holds the keys and the database: closed to engine users (which may only pass through to var/teams/).
umask 077
mkdir -p var/broker/processed var/results
chmod 711 var
find var -maxdepth 1 -mindepth 1 ! -name teams -exec chmod go-rwx {} +
# A local key for catalog secrets, made once and kept in var/ (production takes it from the environment).
if [ -z "${LAKEPORT_SECRET_KEYS:-}" ]; then
  [ -f var/secret-keys ] || .venv/bin/python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())" > var/secret-keys
  chmod 600 var/secret-keys
  export LAKEPORT_SECRET_KEYS=$(cat var/secret-keys)
fi
# Django's signing key, made once and kept in var/ the same way (settings read var/django-secret-key).
if [ -z "${DJANGO_SECRET_KEY:-}" ] && [ ! -s var/django-secret-key ]; then
  .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(50))" > var/django-secret-key
  chmod 600 var/django-secret-key
fi
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py collectstatic --noinput -v0
.venv/bin/python manage.py bootstrap_demo
# Something to look at in the first minute: a Delta catalog with three small tables, a job, a paused schedule.
.venv/bin/python manage.py create_demo_data

pids=()
cleanup() { trap - INT TERM EXIT; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup INT TERM EXIT
# One worker per queue (core/queues.py), so a team's long runs or a burst of previews never delay another team's
# preview or beat's ticks. Run and editor workers start one engine process per team (as the team's own user
# lakeport-t<id> when run as root); their threads mostly wait on engines, and per-team limits keep one team from taking them all.
worker() { .venv/bin/celery -A config worker --loglevel=INFO --pool=threads --without-mingle --without-gossip "$@" & pids+=($!); }
worker --concurrency="${LAKEPORT_RUN_THREADS:-16}" --hostname "runs@%h" -Q lakeport
worker --concurrency="${LAKEPORT_EDITOR_THREADS:-8}" --hostname "editor@%h" -Q lakeport.editor
worker --concurrency=4 --hostname "ticks@%h" -Q lakeport.beat
worker --concurrency="${LAKEPORT_STREAM_THREADS:-16}" --hostname "streams@%h" -Q lakeport.streams
# Beat schedules the run reaper (lost workers, lost broker messages).
.venv/bin/celery -A config beat --loglevel=INFO --schedule var/celerybeat-schedule &
pids+=($!)
echo "[run] Lakeport on http://127.0.0.1:${PORT:-8000}  (Ctrl-C stops everything)"
# 16 threads per web process, 12 of which may hold a `?wait=` for a run's end: a client waiting costs a sleeping
# thread, a client polling because no waiter slot was free costs a request every few hundred ms (bench/concurrent_runs.py).
export LAKEPORT_RUN_WAITERS=${LAKEPORT_RUN_WAITERS:-12}
.venv/bin/gunicorn config.wsgi --bind "127.0.0.1:${PORT:-8000}" --workers 2 --threads "${LAKEPORT_WEB_THREADS:-16}" --access-logfile - &
pids+=($!)
# Team demo's first query should not wait for its engine to start: ask the editor worker to start it now.
.venv/bin/python manage.py engine_warm --team demo >/dev/null 2>&1 &
wait -n "${pids[@]}"
