"""Platform-managed checkpoint directories: `<LAKEPORT_STREAM_CHECKPOINT_DIR>/<team>/job-<id>/gen-<n>/`.

Created by the supervising worker, owned by the engine user (when the platform runs as root) and closed to
everyone else; a reset starts a new generation and the older ones are deleted when it first starts.
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

from django.conf import settings


def checkpoint_dir(*, team: str, job_id: int, generation: int) -> Path:
    """Where generation `generation` of job `job_id`'s checkpoint lives."""
    return Path(settings.LAKEPORT_STREAM_CHECKPOINT_DIR).resolve() / team / f"job-{job_id}" / f"gen-{generation}"


def prepare_checkpoint(*, team: str, job_id: int, generation: int, user: str | None) -> Path:
    """Create the generation's directory for the engine user and delete the job's older generations."""
    path = checkpoint_dir(team=team, job_id=job_id, generation=generation)
    root = path.parents[2]
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o711)  # engines pass through to their team's directory, never list the others
    pw = pwd.getpwnam(user) if user else None
    for directory in (path.parents[1], path.parents[0], path):
        directory.mkdir(exist_ok=True)
        if pw is not None:
            os.chown(directory, pw.pw_uid, pw.pw_gid)
        directory.chmod(0o700)
    for old in path.parent.glob("gen-*"):
        if old.name != path.name and old.name.removeprefix("gen-").isdigit() and \
                int(old.name.removeprefix("gen-")) < generation:
            shutil.rmtree(old, ignore_errors=True)
    return path
