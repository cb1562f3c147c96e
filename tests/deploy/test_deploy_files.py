"""What can be checked of the deployment here (no Docker engine): the compose file, the image, prod settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import yaml
from cryptography.fernet import Fernet

from tests.support.paths import REPO

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
SECRET_NAMES = re.compile(r"(?i)(password|secret|token|key)")


def test_compose_has_every_service_of_the_stack() -> None:
    assert {"postgres", "redis", "web", "worker", "beat", "metastore", "spark-master", "spark-worker"} <= set(SERVICES)


def test_every_long_running_service_has_a_health_check() -> None:
    for name, service in SERVICES.items():
        if name == "migrate":
            continue
        assert "healthcheck" in service, name
        assert service["healthcheck"]["test"], name


def test_build_context_and_dockerfile_exist_and_copy_real_paths() -> None:
    dockerfile = REPO / SERVICES["web"]["build"]["dockerfile"]
    assert (REPO / SERVICES["web"]["build"]["context"]).is_dir() and dockerfile.is_file()
    for line in dockerfile.read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            for src in line.split()[1:-1]:
                assert (REPO / src).exists(), f"Dockerfile copies missing {src}"


def test_service_commands_refer_to_existing_scripts_and_modules() -> None:
    for name, service in SERVICES.items():
        command = service.get("command") or []
        for part in command:
            if part.startswith("platform/"):
                assert (REPO / part).is_file(), f"{name}: {part} missing"
        if command[:1] == ["gunicorn"]:
            assert command[1] == "config.wsgi" and (REPO / "config/wsgi.py").is_file()
        if command[:1] == ["celery"]:
            assert command[1:3] == ["-A", "config"] and (REPO / "config/celery.py").is_file()


def test_no_secret_value_is_written_in_the_compose_file() -> None:
    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and SECRET_NAMES.search(str(key)) and "KEYS_ENV" not in str(key):
                    assert value.startswith("${") or "${" in value, f"{path}.{key} holds a literal secret"
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}[{i}]")

    walk(COMPOSE, "compose")
    dockerfile = (REPO / "platform/docker/Dockerfile").read_text()
    assert not re.search(r"^ENV .*(SECRET|PASSWORD)", dockerfile, re.M), "a secret is baked into the image"


def _bare_env(**values: str) -> dict[str, str]:
    """A production-like environment: what a process manager would pass, none of the test run's variables."""
    return {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ} | values


def test_production_settings_pass_check_deploy() -> None:
    env = {
        **_bare_env(),
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": Fernet.generate_key().decode() * 2,
        "DJANGO_ALLOWED_HOSTS": "lakeport.example.com",
        "LAKEPORT_SECRET_KEYS": Fernet.generate_key().decode(),
        "DATABASE_URL": "sqlite:////tmp/lakeport-check-deploy.sqlite3",
    }
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_production_refuses_to_start_without_keys() -> None:
    env = _bare_env(DJANGO_SETTINGS_MODULE="config.settings.production", DJANGO_ALLOWED_HOSTS="x")
    out = subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "DJANGO_SECRET_KEY" in out.stderr
