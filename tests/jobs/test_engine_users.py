"""Engine users and directories without Spark: per-team user names, their creation by racing workers, and the scratch
directory's sweep of what dead engines left (live engines' directories kept, links never followed)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pwd
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

from jobs.engines.scratch import claim_scratch, scratch_dir, sweep_scratch
from jobs.engines.users import EngineUserError, close_platform_files, engine_user_name, ensure_os_user, own_tree
from streams.services.checkpoints import prepare_checkpoint

TEST_USER = "lakeport-test-race"


def test_the_user_name_template_gives_each_team_its_own_valid_user() -> None:
    assert engine_user_name(template="lakeport-t{team_id}", team_id=7) == "lakeport-t7"
    assert engine_user_name(template="lakeport-t{team_id}", team_id=8) == "lakeport-t8"
    with pytest.raises(EngineUserError, match="not a valid OS user name"):
        engine_user_name(template="Lakeport {team_id}", team_id=7)
    with pytest.raises(EngineUserError, match="at most 32"):
        engine_user_name(template="lakeport-engine-of-the-team-number-{team_id}", team_id=7)


@pytest.fixture
def removed_user() -> Iterator[str]:
    """A user name that does not exist before the test and is deleted after it."""
    if os.geteuid() != 0:
        pytest.fail("creating OS users needs root (the suite runs as root)")
    subprocess.run(["userdel", TEST_USER], capture_output=True, check=False)
    yield TEST_USER
    subprocess.run(["userdel", TEST_USER], capture_output=True, check=False)


def test_workers_racing_to_create_a_teams_user_all_get_the_one_user(removed_user: str, tmp_path: Path) -> None:
    # Four workers of one machine start the team's first engine at once: each thread takes its own descriptor of
    # the lock file (as separate processes would), and each must end with the same, single user.
    results: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def create() -> None:
        start.wait()
        try:
            results.append(ensure_os_user(removed_user, lock_path=tmp_path / "users.lock").pw_uid)
        except BaseException as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(set(results)) == 1
    passwd = subprocess.run(["getent", "passwd"], capture_output=True, text=True, check=True).stdout
    entries = [line for line in passwd.splitlines() if line.startswith(f"{removed_user}:")]
    assert len(entries) == 1
    name, _, uid, gid, _, home, shell = entries[0].split(":")
    assert int(uid) == results[0] and int(uid) < 1000  # a system user
    assert home == "/nonexistent" and shell == "/usr/sbin/nologin"
    assert ensure_os_user(removed_user, lock_path=tmp_path / "users.lock").pw_uid == results[0]  # idempotent


def _dirs(root: Path, team: str) -> set[str]:
    return {f"{sub}/{p.name}" for sub in ("tmp", "spark-local") for p in (root / team / sub).iterdir()}


@contextlib.contextmanager
def _live_holder(fd: int) -> Iterator[subprocess.Popen[bytes]]:
    """A process holding the instance lock `fd`, as an engine does for its life."""
    proc = subprocess.Popen(["sleep", "600"], pass_fds=(fd,))
    os.close(fd)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_new_engine_removes_what_dead_engines_left_and_keeps_live_ones(tmp_path: Path) -> None:
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path)):
        live = claim_scratch("acme", None)
        other_team = claim_scratch("globex", None)
        dead = claim_scratch("acme", None)
        for inst in (live, other_team, dead):
            (inst.local / f"blockmgr-{inst.instance}").mkdir()
            (inst.local / f"spark-{inst.instance}").mkdir()
            (inst.tmp / "liblz4-java.so").write_bytes(b"x")
        os.close(dead.lock_fd)  # the dead engine's process is gone: its lock with it
        # an engine of the layout before instances wrote straight into spark-local/ and tmp/
        (tmp_path / "acme" / "spark-local" / "blockmgr-old").mkdir()
        (tmp_path / "acme" / "tmp" / "hsperf-old").write_text("x")
        with _live_holder(live.lock_fd), _live_holder(other_team.lock_fd):
            fresh = claim_scratch("acme", None)
            assert _dirs(tmp_path, "acme") == {f"{s}/{i}" for s in ("tmp", "spark-local")
                                               for i in (live.instance, fresh.instance)}
            assert (live.local / f"blockmgr-{live.instance}").is_dir()
            assert (other_team.local / f"blockmgr-{other_team.instance}").is_dir()
            assert (other_team.tmp / "liblz4-java.so").is_file()
            os.close(fresh.lock_fd)
            assert sweep_scratch("acme") == [fresh.instance]  # a clean stop: its own directories go
        assert sorted(sweep_scratch("acme")) == [live.instance]
        assert _dirs(tmp_path, "acme") == set() and scratch_dir("acme").is_dir()


def test_a_link_planted_in_the_scratch_directory_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "platform"
    (outside / "blockmgr-keep").mkdir(parents=True)
    (outside / "secret-keys").write_text("k")
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path / "scratch")):
        first = claim_scratch("acme", None)
        os.close(first.lock_fd)
        local = tmp_path / "scratch" / "acme" / "spark-local"
        for entry in local.iterdir():
            entry.rmdir()
        local.rmdir()
        local.symlink_to(outside)  # the engine swapped its spark-local for a link to the platform's files
        (tmp_path / "scratch" / "acme" / "tmp" / "evil").symlink_to(outside)
        claim_scratch("acme", None)
    assert sorted(p.name for p in outside.iterdir()) == ["blockmgr-keep", "secret-keys"]
    assert not local.is_symlink() and local.is_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="changing owners needs root")
def test_directories_are_the_engine_users_and_closed_to_others(tmp_path: Path) -> None:
    nobody = pwd.getpwnam("nobody")
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path / "scratch"),
                           LAKEPORT_STREAM_CHECKPOINT_DIR=str(tmp_path / "checkpoints")):
        inst = claim_scratch("acme", nobody)
        os.close(inst.lock_fd)
        gen = prepare_checkpoint(team="acme", job_id=3, generation=2, user="nobody")
    for path in (tmp_path / "scratch" / "acme", inst.tmp, inst.local, gen, gen.parent, gen.parent.parent):
        info = path.stat()
        assert (info.st_uid, info.st_mode & 0o777) == (nobody.pw_uid, 0o700), path
    locks = tmp_path / "scratch" / ".locks"
    assert locks.stat().st_uid == 0 and locks.stat().st_mode & 0o077 == 0  # engines never touch the locks


@pytest.mark.skipif(os.geteuid() != 0, reason="changing owners needs root")
def test_a_teams_directory_of_the_shared_user_is_given_to_its_own_user(tmp_path: Path) -> None:
    nobody = pwd.getpwnam("nobody")
    tree = tmp_path / "teams" / "acme"
    (tree / "lake" / "sales").mkdir(parents=True)
    (tree / "lake" / "sales" / "part-0.parquet").write_bytes(b"x")
    (tree / "link").symlink_to("/etc/passwd")
    own_tree(tree, nobody)
    for path in (tree, tree / "lake", tree / "lake" / "sales", tree / "lake" / "sales" / "part-0.parquet"):
        assert path.stat().st_uid == nobody.pw_uid, path
    assert (tree / "link").lstat().st_uid == nobody.pw_uid and Path("/etc/passwd").stat().st_uid == 0


def test_the_platforms_own_files_are_closed_and_team_roots_stay_reachable(tmp_path: Path) -> None:
    data = tmp_path / "var"
    (data / "teams").mkdir(parents=True)
    (data / "broker").mkdir()
    for name in ("secret-keys", "lakeport.sqlite3"):
        (data / name).write_text("x")
        (data / name).chmod(0o644)  # a platform started without `make run`'s umask
    env = tmp_path / ".env"
    env.write_text("LAKEPORT_SECRET_KEYS=x")
    env.chmod(0o644)
    data.chmod(0o755)
    close_platform_files(data, env)
    assert data.stat().st_mode & 0o777 == 0o711  # passed through to teams/, never listed
    for path in (data / "secret-keys", data / "lakeport.sqlite3", data / "broker", env):
        assert path.stat().st_mode & 0o077 == 0, path
    assert (data / "teams").stat().st_mode & 0o001  # engines still reach their roots


def test_an_operators_scratch_directory_under_the_data_dir_stays_reachable(tmp_path: Path) -> None:
    data = tmp_path / "var"
    (data / "engines").mkdir(parents=True)
    (data / "engines").chmod(0o711)
    (data / "secret-keys").write_text("x")
    close_platform_files(data, tmp_path / ".env", keep=[data / "engines"])
    assert (data / "engines").stat().st_mode & 0o777 == 0o711
    assert (data / "secret-keys").stat().st_mode & 0o077 == 0


def test_an_instance_lock_is_taken_before_its_directories_exist(tmp_path: Path) -> None:
    with override_settings(LAKEPORT_ENGINE_SCRATCH_DIR=str(tmp_path)):
        inst = claim_scratch("acme", None)
    probe = os.open(tmp_path / ".locks" / "acme" / f"{inst.instance}.lock", os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(probe)
        os.close(inst.lock_fd)


def test_a_link_planted_in_a_stream_checkpoint_directory_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "other-team" / "job-1"
    (outside / "gen-1").mkdir(parents=True)  # another team's older checkpoint generation
    with override_settings(LAKEPORT_STREAM_CHECKPOINT_DIR=str(tmp_path / "checkpoints")):
        prepare_checkpoint(team="acme", job_id=5, generation=1, user=None)
        job = tmp_path / "checkpoints" / "acme" / "job-5"
        (job / "gen-1").rmdir()
        job.rmdir()
        job.symlink_to(outside)  # the engine swapped its job directory for a link
        gen = prepare_checkpoint(team="acme", job_id=5, generation=2, user=None)
    assert (outside / "gen-1").is_dir() and not (outside / "gen-2").exists()
    assert not job.is_symlink() and gen.is_dir() and gen.parent == job
