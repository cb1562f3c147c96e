/*
 * A JVM agent that makes the engine's JVM non-dumpable as it starts (-agentpath:liblakeport-nodump.so).
 *
 * The engine's Python process calls prctl(PR_SET_DUMPABLE, 0) itself, but spark-submit exec()s the JVM and exec
 * makes a process dumpable again: without this agent the team's own OS user could read the JVM's memory and
 * environment (/proc/<pid>/mem, environ) or ptrace it. Java cannot call prctl; an agent runs in the JVM's own
 * process before any user code does. A JVM where the call fails refuses to start (Agent_OnLoad != 0).
 */
#include <jni.h>
#include <stdio.h>
#include <sys/prctl.h>

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)vm; (void)options; (void)reserved;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        perror("lakeport-nodump: prctl(PR_SET_DUMPABLE)");
        return 1;
    }
    return 0;
}
