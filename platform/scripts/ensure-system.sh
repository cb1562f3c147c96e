#!/usr/bin/env bash
# System packages the platform needs: Java 17 for Spark (a JDK: build-jvm.sh compiles the platform's own reader)
# and the JDBC driver jars from Debian.
# Installs only what is missing; apt-get runs only on a machine that lacks something.
set -euo pipefail
missing=()
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
[ -f /usr/share/java/postgresql.jar ] || missing+=(libpostgresql-jdbc-java)
[ -f /usr/share/java/mariadb-java-client.jar ] || missing+=(libmariadb-java)
for extra in "$@"; do
  case "$extra" in
    # Debian's Chromium for the e2e tests (Playwright drives /usr/bin/chromium; it never downloads a browser)
    chromium) [ -x /usr/bin/chromium ] || missing+=(chromium fonts-liberation) ;;
  esac
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Engines (the processes that run a team's SQL) run as their team's own unprivileged user when the platform runs
# as root; the worker creates those users on demand (lakeport-t<team id>, jobs/engines/users.py). Every engine user
# runs the project's code and virtualenv: it may list the project's top level (Python must, to import from it;
# var/ and .env stay closed) and pass through (never list) the directories above.
# Homes are left closed (a project there needs LAKEPORT_ENGINE_USER= instead).
if [ "$(id -u)" = 0 ]; then
  chmod o+rx "$(pwd -P)"
  dir=$(dirname "$(pwd -P)")
  while [ "$dir" != "/" ]; do
    case "$dir" in
      /root|/home/*) echo "[setup] warning: engines cannot pass through $dir (a home directory); left closed" ;;
      *) [ -n "$(find "$dir" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$dir" ;;
    esac
    dir=$(dirname "$dir")
  done
  # A top-level .env holds platform secrets: the platform's own user only.
  if [ -f .env ]; then chmod 600 .env; fi
fi
