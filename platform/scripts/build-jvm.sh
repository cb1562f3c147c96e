#!/usr/bin/env bash
# The platform's own JVM classes (platform/jvm/src: the deletion-vector parquet reader of the embedded Delta
# connector), compiled against the pyspark wheel's jars into platform/jvm/build/lakeport-spark.jar.
# Idempotent: does nothing when the jar is newer than every source. No JDK compiler: says so and leaves no jar
# (the connector then filters deleted rows with SQL expressions instead).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=platform/jvm/src
out=platform/jvm/build
jar="$out/lakeport-spark.jar"
# The JVM agent that keeps an engine's JVM non-dumpable (platform/jvm/native/nodump.c), built with gcc against
# the JDK's jni.h; without gcc or the headers it is not built and engines' JVMs stay dumpable to their own user.
agent="$out/liblakeport-nodump.so"
native=platform/jvm/native/nodump.c
if [ ! -f "$agent" ] || [ "$native" -nt "$agent" ]; then
  jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac || command -v java || echo /nonexistent)")")")
  if command -v gcc >/dev/null 2>&1 && [ -f "$jdk/include/jni.h" ]; then
    mkdir -p "$out"
    gcc -shared -fPIC -O2 -Wall -Werror -I"$jdk/include" -I"$jdk/include/linux" -o "$agent.tmp" "$native"
    chmod 755 "$out" "$agent.tmp" && mv -f "$agent.tmp" "$agent"
    echo "[setup] built $agent"
  else
    echo "[setup] no gcc or JDK headers: $agent not built (engine JVMs stay dumpable to their own user)" >&2
  fi
fi
if [ -f "$jar" ] && [ -z "$(find "$src" -newer "$jar" -type f | head -1)" ]; then
  exit 0
fi
if ! command -v javac >/dev/null 2>&1; then
  echo "[setup] no javac: $jar not built (run platform/scripts/ensure-system.sh)" >&2
  exit 0
fi
python=${PYTHON:-.venv/bin/python}  # the image has no virtualenv: its Dockerfile sets PYTHON
jars=$("$python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
echo "[setup] building $jar"
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
find "$src" -name '*.java' -print0 | xargs -0 javac -nowarn --release 17 -d "$classes" -cp "$jars/*"
mkdir -p "$out"
# Built beside, then renamed: a running engine never sees half a jar.
jar --create --file "$jar.tmp" -C "$classes" .
chmod 755 "$out" && chmod 644 "$jar.tmp"  # engines (another user, umask 077 under make run) load it
mv -f "$jar.tmp" "$jar"
