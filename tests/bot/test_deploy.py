"""The deploy files, checked with what runs on this machine: Kubernetes' own API schemas
(kubernetes-validate), the Compose specification's schema (as vendored by check-jsonschema),
`docker compose config` when a Compose plugin is installed, and the Dockerfile read line by
line. The docker client here cannot build images, so the image itself is not run."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from bot.queue import QUEUE_NAME

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
KUBERNETES_VERSION = "1.30"


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    lines: list[tuple[str, str]] = []
    pending = ""
    for raw in (DEPLOY / "Dockerfile").read_text().splitlines():
        if raw.lstrip().startswith("#") or not raw.strip():
            continue
        pending += raw.rstrip("\\").strip() + " "
        if not raw.endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            lines.append((word.upper(), rest))
            pending = ""
    return lines


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list), f"{arguments} is not in exec form"
    return [str(v) for v in value]


def test_the_image_runs_under_an_init_as_a_non_root_user() -> None:
    instructions = dockerfile()
    installs = " ".join(a for i, a in instructions if i == "RUN" and "apt-get install" in a)
    assert "tini" in shlex.split(installs)
    assert {"bubblewrap", "libseccomp2"} <= set(shlex.split(installs))  # the sandbox's parts
    (entrypoint,) = [exec_form(a) for i, a in instructions if i == "ENTRYPOINT"]
    assert entrypoint[0].endswith("/tini") and entrypoint[-1] == "--"
    user = [a for i, a in instructions if i == "USER"][-1]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0  # numeric: runAsNonRoot can verify it
    # Every instruction after USER runs as that user; nothing switches back to root.
    after = instructions[[i for i, _ in instructions].index("USER") :]
    assert not any(i == "RUN" for i, _ in after)
    (cmd,) = [exec_form(a) for i, a in instructions if i == "CMD"]
    assert cmd[:2] == ["codebias", "serve"]


def test_the_image_can_run_a_repositorys_own_tests() -> None:
    """The recorder runs a pull request's pytest suite with the image's interpreter (issue 27):
    the extras the image installs must bring pytest, or every suite is "not run"."""
    import re
    import tomllib

    project = tomllib.loads((DEPLOY.parent / "pyproject.toml").read_text())["project"]
    installs = " ".join(a for i, a in dockerfile() if i == "RUN" and "pip install" in a)
    (extras,) = re.findall(r'"\.\[([a-z,]+)\]"', installs)
    wanted = [r for e in extras.split(",") for r in project["optional-dependencies"][e]]
    assert any(re.match(r"pytest\b", r) for r in wanted), wanted


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yml").read_text())
    return data


def test_compose_file_follows_the_compose_specification() -> None:
    import check_jsonschema

    schema_path = (
        Path(check_jsonschema.__file__).parent / "builtin_schemas" / "vendor" / "compose-spec.json"
    )
    schema = json.loads(schema_path.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(compose()), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_compose_workers_scale_and_stop_gracefully() -> None:
    services = compose()["services"]
    worker = services["worker"]
    # `docker compose up --scale worker=N` needs a service with no fixed name or host port.
    assert "container_name" not in worker and "ports" not in worker
    assert worker["command"] == ["codebias", "worker"]
    grace = int(worker["environment"]["CODEBIAS_SHUTDOWN_GRACE"])
    assert int(worker["stop_grace_period"].rstrip("s")) > grace
    assert "GITHUB_WEBHOOK_SECRET" not in worker["environment"]  # the worker never needs it
    assert "GITHUB_WEBHOOK_SECRET" in services["web"]["environment"]
    assert "--appendonly" in services["redis"]["command"]


def docker_compose() -> list[str] | None:
    for command in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(command[0]) is None:
            continue
        probe = subprocess.run([*command, "version"], capture_output=True, text=True)
        if probe.returncode == 0:
            return command
    return None


@pytest.mark.skipif(docker_compose() is None, reason="no Docker Compose on this machine")
def test_docker_compose_accepts_the_file(tmp_path: Path) -> None:
    command = docker_compose()
    assert command is not None
    env = {"GITHUB_APP_ID": "1", "GITHUB_WEBHOOK_SECRET": "s", "PATH": "/usr/bin:/bin"}
    copy = tmp_path / "deploy"
    (copy / "secrets").mkdir(parents=True)
    (copy / "secrets" / "app.pem").write_text("not a key\n")
    shutil.copy(DEPLOY / "compose.yml", copy / "compose.yml")
    done = subprocess.run(
        [*command, "-f", str(copy / "compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr


def manifests(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DEPLOY / "kubernetes" / name).read_text()) if d]


def test_kubernetes_manifests_validate_against_the_api_schemas() -> None:
    for resource in manifests("codebias.yml"):
        kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)


def by_kind(kind: str, name: str) -> dict[str, Any]:
    (found,) = [
        r for r in manifests("codebias.yml") if r["kind"] == kind and r["metadata"]["name"] == name
    ]
    return found


def test_kubernetes_workers_run_as_non_root_and_outlast_their_grace() -> None:
    config = by_kind("ConfigMap", "codebias")["data"]
    for name in ("codebias-web", "codebias-worker"):
        pod = by_kind("Deployment", name)["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] != 0
    worker = by_kind("Deployment", "codebias-worker")["spec"]["template"]["spec"]
    assert worker["terminationGracePeriodSeconds"] > int(config["CODEBIAS_SHUTDOWN_GRACE"])


def test_keda_scales_the_workers_on_the_review_queue() -> None:
    (scaled,) = manifests("keda-scaledobject.yml")
    assert scaled["apiVersion"] == "keda.sh/v1alpha1" and scaled["kind"] == "ScaledObject"
    spec = scaled["spec"]
    assert by_kind("Deployment", spec["scaleTargetRef"]["name"])
    assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]
    (trigger,) = spec["triggers"]
    assert trigger["type"] == "redis"
    meta = trigger["metadata"]
    assert meta["listName"] == f"rq:queue:{QUEUE_NAME}"  # the list RQ pushes jobs onto
    host = meta["address"].split(":")[0]
    assert by_kind("Service", host)["spec"]["ports"][0]["port"] == int(
        meta["address"].split(":")[1]
    )
    assert int(meta["listLength"]) >= 1
