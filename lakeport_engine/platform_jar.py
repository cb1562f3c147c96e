"""The platform's own JVM classes (platform/jvm, built by platform/scripts/build-jvm.sh) for every Spark driver."""

from __future__ import annotations

from pathlib import Path

# platform/jvm/build is git-ignored: a fresh clone builds it in setup (ensure-python.sh, test.sh, run.sh).
PLATFORM_JAR = Path(__file__).resolve().parents[1] / "platform" / "jvm" / "build" / "lakeport-spark.jar"


def platform_jars() -> list[str]:
    """The platform jar for `spark.jars` when it was built; none without a JDK compiler (readers fall back)."""
    return [str(PLATFORM_JAR)] if PLATFORM_JAR.is_file() else []


# The JVM agent that makes an engine's JVM non-dumpable (platform/jvm/native/nodump.c), built beside the jar.
NODUMP_AGENT = PLATFORM_JAR.parent / "liblakeport-nodump.so"


def nodump_agent_option() -> str:
    """`-agentpath:…` for a driver JVM when the agent was built, else "" (the JVM then stays dumpable)."""
    return f"-agentpath:{NODUMP_AGENT}" if NODUMP_AGENT.is_file() else ""
