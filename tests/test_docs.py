"""The documents agree with each other and with the code: figures, settings, references."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def tracked() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def latency(doc: str, mode: str) -> tuple[float, float]:
    """(median, p99) in ms for `mode` ("RQ" or "in-process pool") as a document states them."""
    line = next(line for line in doc.splitlines() if "ms" in line and mode in line)
    part = line[line.index(mode) :]
    numbers = [float(n) for n in re.findall(r"(\d+(?:\.\d+)?) ms", part)]
    return numbers[0], numbers[1]


@pytest.mark.parametrize("mode", ["RQ", "in-process pool"])
def test_webhook_latency_figures_agree_everywhere(mode: str) -> None:
    readme = text("README.md")
    paragraph = readme[readme.index("**Webhook answer time**") :].split("\n\n")[0]
    figures = {
        "README.md": latency(paragraph.replace("\n", " "), mode),
        "deploy/README.md": latency(text("deploy/README.md").split("## Webhook latency")[1], mode),
        "benchmarks/RESULTS.md": latency(
            text("benchmarks/RESULTS.md").split("## Webhook answer time")[1], mode
        ),
    }
    assert len(set(figures.values())) == 1, figures


def test_no_document_points_outside_the_repository() -> None:
    """interfaces.md and the machine's /work folders are not part of a clone."""
    offenders = []
    for path in tracked():
        if path.suffix not in (".md", ".py", ".yml", ".yaml", ".json") or "corpus" in path.parts:
            continue
        if path == Path(__file__):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "interfaces.md" in line or "/work/" in line:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_compose_passes_every_llm_setting_the_code_reads() -> None:
    read = set(re.findall(r"CODEBIAS_LLM_\w+", text("bot/llm/__init__.py")))
    compose = yaml.safe_load(text("deploy/compose.yml"))
    passed = set(compose["x-app"]["environment"])
    assert read and read <= passed, read - passed
    deploy = text("deploy/README.md")
    assert all(name in deploy for name in read)


@pytest.mark.parametrize(
    "needle",
    [
        "https://<ghes-host>/settings/apps/new",  # App registration on GitHub Enterprise Server
        "https://<ghes-host>/api/v3/app-manifests/<code>/conversions",
        "GITHUB_API_URL=https://<ghes-host>/api/v3",
        "App names are unique across all of GitHub",
        "the installation must include\n   the `<org>/.github` repository",
        "the browser shows\n   `Not Found`",  # what the redirect page shows
        "kind: Ingress",
    ],
)
def test_deployment_notes_cover_what_new_operators_ask(needle: str) -> None:
    assert needle in text("deploy/README.md")


def test_the_ingress_example_routes_to_the_service_that_exists() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", text("deploy/README.md"), re.DOTALL)
    (example,) = [yaml.safe_load(b) for b in blocks if "kind: Ingress" in b]
    backend = example["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    services = [
        doc
        for doc in yaml.safe_load_all(text("deploy/kubernetes/codebias.yml"))
        if doc and doc["kind"] == "Service"
    ]
    ports = {s["metadata"]["name"]: [p["port"] for p in s["spec"]["ports"]] for s in services}
    assert backend["port"]["number"] in ports[backend["name"]]


def test_the_readme_names_every_input_of_the_action() -> None:
    action = yaml.safe_load(text("action.yml"))
    readme = text("README.md")
    assert [name for name in action["inputs"] if f"`{name}`" not in readme] == []


def test_fix_exit_codes_are_documented_where_users_and_the_code_look() -> None:
    readme = text("README.md")
    section = " ".join(readme[readme.index("Exit codes of `fix`") :].split("\n\n")[0].split())
    for code, meaning in [
        ("`0`", "fixed"),
        ("`1`", "not fixed"),
        ("`2`", "usage"),
        ("`3`", "provider failed"),
    ]:
        assert code in section and meaning in section
    from bot.commands import fix

    assert (fix.EXIT_OK, fix.EXIT_NOT_FIXED, fix.EXIT_USAGE, fix.EXIT_FAILED) == (0, 1, 2, 3)


def test_the_pre_commit_snippets_pin_the_released_tag() -> None:
    """A hook on `rev: main` changes under its users at every push; pre-commit pins tags."""
    version = re.search(r'^version = "([^"]+)"', text("pyproject.toml"), re.MULTILINE)
    assert version is not None
    for name in ("README.md", ".pre-commit-hooks.yaml"):
        revs = re.findall(r"^\s*#?\s*rev: (\S+)$", text(name), re.MULTILINE)
        assert revs == [f"v{version[1]}"], (name, revs)


def test_review_exit_codes_are_documented_and_the_action_fails_on_unreachable() -> None:
    readme = " ".join(text("README.md").split())
    from bot.commands import review

    assert f"{review.EXIT_GITHUB} GitHub refused a request" in readme
    assert f"{review.EXIT_UNREACHABLE} GitHub could not be reached or failed" in readme
    step = next(
        s
        for s in yaml.safe_load(text("action.yml"))["runs"]["steps"]
        if "codebias review" in s.get("run", "")
    )
    assert f'[ "$code" = {review.EXIT_UNREACHABLE} ]' in step["run"]
    assert f"exit {review.EXIT_UNREACHABLE}" in step["run"]
