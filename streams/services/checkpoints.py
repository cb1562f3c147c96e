"""Platform-managed checkpoint directories: `<LAKEPORT_STREAM_CHECKPOINT_DIR>/<team>/job-<id>/gen-<n>/`.

Created by the supervising worker, owned by the engine user (when the platform runs as root) and closed to
everyone else; a reset starts a new generation and the older ones are deleted when it first starts.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from django.conf import settings

from jobs.engines.scratch import open_dir, owned_subdir, remove_entry
from jobs.engines.users import own_tree


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
    if pw is not None:
        own_tree(path.parents[1], pw)  # a team that had a shared engine user gets its checkpoints back
    # Through descriptors, never following a link: the team's engine owns these and could swap one for a link.
    with open_dir(root) as root_fd, owned_subdir(root_fd, team, pw) as team_fd, \
            owned_subdir(team_fd, path.parent.name, pw) as job_fd:
        with owned_subdir(job_fd, path.name, pw):
            pass
        for old in os.listdir(job_fd):
            number = old.removeprefix("gen-")
            if old.startswith("gen-") and number.isdigit() and int(number) < generation:
                remove_entry(job_fd, old)
    return path
