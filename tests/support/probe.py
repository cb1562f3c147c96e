"""A test-only native probe: what a process of some OS user can reach, tried the way code run in an engine would.

`Probe.run(user, tries)` runs the probe as `user` (uid, gid, no supplementary groups, no capabilities: what code
executing in that user's engine has) and answers, for each `(kind, target)`, "ok" or the errno's name:

- `mem <pid|self>`: open /proc/<pid>/mem and read 64 bytes at the start of the process's first readable mapping
  (from /proc/<pid>/maps when readable, else the address 0x400000);
- `read <path>`: open a file and read from it;
- `list <path>`: open a directory and read an entry;
- `ptrace <pid>`: PTRACE_SEIZE the process (detached at once when the kernel allows it).

Compiled with `cc` when the machine has one; otherwise the same tries run in the system Python through ctypes.
"""

from __future__ import annotations

import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

C_SOURCE = r"""
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

static void report(const char *kind, const char *target, int err) {
    printf("%s %s %s\n", kind, target, err ? strerrorname_np(err) : "ok");
}

static int try_mem(const char *pid) {
    char path[64], line[512];
    uintptr_t start = 0x400000, end = 0;
    snprintf(path, sizeof path, "/proc/%s/maps", pid);
    FILE *maps = fopen(path, "r");
    if (maps) {
        while (fgets(line, sizeof line, maps)) {
            char perms[8];
            if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &start, &end, perms) == 3 && perms[0] == 'r') break;
        }
        fclose(maps);
    }
    snprintf(path, sizeof path, "/proc/%s/mem", pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno;
    char buf[64];
    int err = pread(fd, buf, sizeof buf, (off_t)start) == (ssize_t)sizeof buf ? 0 : errno;
    close(fd);
    return err;
}

static int try_read(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno;
    char buf[64];
    int err = read(fd, buf, sizeof buf) >= 0 ? 0 : errno;
    close(fd);
    return err;
}

static int try_list(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return errno;
    errno = 0;
    readdir(dir);
    int err = errno;
    closedir(dir);
    return err;
}

static int try_ptrace(const char *pid) {
    pid_t target = (pid_t)atoi(pid);
    if (ptrace(PTRACE_SEIZE, target, 0, 0) != 0) return errno;
    ptrace(PTRACE_DETACH, target, 0, 0);
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *kind = argv[i], *target = argv[i + 1];
        int err = !strcmp(kind, "mem") ? try_mem(target) : !strcmp(kind, "read") ? try_read(target)
                : !strcmp(kind, "list") ? try_list(target) : !strcmp(kind, "ptrace") ? try_ptrace(target) : EINVAL;
        report(kind, target, err);
    }
    return 0;
}
"""

PY_SOURCE = r"""
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17

def attempt(kind, target):
    if kind == "mem":
        start = 0x400000
        try:
            with open(f"/proc/{target}/maps") as maps:
                for line in maps:
                    span, perms = line.split()[:2]
                    if perms.startswith("r"):
                        start = int(span.split("-")[0], 16)
                        break
        except OSError:
            pass
        with open(f"/proc/{target}/mem", "rb") as mem:
            mem.seek(start)
            mem.read(64)
    elif kind == "read":
        with open(target, "rb") as fh:
            fh.read(64)
    elif kind == "list":
        os.listdir(target)
    elif kind == "ptrace":
        if libc.ptrace(PTRACE_SEIZE, int(target), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "ptrace")
        libc.ptrace(PTRACE_DETACH, int(target), 0, 0)

args = sys.argv[1:]
for kind, target in zip(args[::2], args[1::2]):
    try:
        attempt(kind, target)
        print(kind, target, "ok")
    except OSError as exc:
        print(kind, target, errno.errorcode.get(exc.errno, str(exc.errno)))
"""

Try = tuple[str, str]


@dataclass(frozen=True)
class Probe:
    """The probe's command (a compiled binary, or the system Python and a script), readable by every user."""

    command: tuple[str, ...]

    @classmethod
    def build(cls, directory: Path) -> Probe:
        """Compile the probe into `directory` (which other users must be able to traverse)."""
        directory.mkdir(parents=True, exist_ok=True)
        cc = shutil.which("cc")
        if cc is not None:
            (directory / "probe.c").write_text(C_SOURCE)
            subprocess.run([cc, "-O1", "-o", str(directory / "probe"), str(directory / "probe.c")], check=True,
                           capture_output=True, timeout=120)
            (directory / "probe").chmod(0o755)
            return cls((str(directory / "probe"),))
        (directory / "probe.py").write_text(PY_SOURCE)
        (directory / "probe.py").chmod(0o644)
        return cls(("/usr/bin/python3", str(directory / "probe.py")))

    def run(self, user: pwd.struct_passwd, tries: list[Try]) -> dict[Try, str]:
        """Each try's outcome ("ok" or an errno name such as EACCES) for a process of `user` without privileges."""
        command = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
                   "--inh-caps=-all", *self.command, *(part for attempt in tries for part in attempt)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True, cwd="/")
        outcome = {}
        for line in done.stdout.splitlines():
            kind, rest = line.split(" ", 1)
            target, result = rest.rsplit(" ", 1)
            outcome[(kind, target)] = result
        return outcome
