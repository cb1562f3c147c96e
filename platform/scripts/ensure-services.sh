#!/usr/bin/env bash
# Start PostgreSQL, Redis, NATS JetStream and MariaDB on 127.0.0.1 when they are not already answering (tests need them).
set -euo pipefail
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
apt_install() { export DEBIAN_FRONTEND=noninteractive; $SUDO apt-get update -qq; $SUDO apt-get install -y -qq "$@" >/dev/null; }
wait_for() { # name, command
  for _ in $(seq 1 60); do eval "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "[services] $1 did not come up" >&2; return 1
}

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql
  echo "[services] starting PostgreSQL"
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  wait_for PostgreSQL "pg_isready -q -h 127.0.0.1 -p 5432"
fi
# Tests connect as 'postgres' over TCP; make sure that works without a password (trust) or say why not.
psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null || {
  echo "[services] cannot connect to PostgreSQL as postgres@127.0.0.1 (tests expect trust auth)" >&2; exit 1; }

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  echo "[services] starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping"
fi

# NATS with JetStream for stream catalogs (tests/streaming); the Debian package, file storage under /var/lib.
if ! (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
  command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || apt_install nats-server
  echo "[services] starting NATS JetStream"
  $SUDO mkdir -p /var/lib/nats-server /var/log 2>/dev/null || true
  PATH="$PATH:/usr/sbin" nohup nats-server -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server \
    -l /var/log/nats-server.log >/dev/null 2>&1 &
  wait_for NATS "(exec 3<>/dev/tcp/127.0.0.1/4222)"
fi

if ! mysqladmin -h 127.0.0.1 -P 3306 -uroot ping >/dev/null 2>&1; then
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || apt_install mariadb-server
  echo "[services] starting MariaDB"
  $SUDO mkdir -p /run/mysqld && $SUDO chown mysql:mysql /run/mysqld 2>/dev/null || true
  $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  wait_for MariaDB "mysqladmin -h 127.0.0.1 -P 3306 -uroot ping"
fi
