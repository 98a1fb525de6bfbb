"""`codebias review --pr N`: the App's check run and review from a workflow's GITHUB_TOKEN,
against the fake GitHub, with the real engine and sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from botsupport import APP_ID, free_port
from fakegithub import TOKEN, FakeGitHub
from fleetgithub import Fault, FleetGitHub
from scenario import BASE, HEAD, HEAD_FIXED, PATH, REPO, set_pull

from bot.cli import main

pytestmark = pytest.mark.sandbox


@pytest.fixture
def ci(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return github


def test_review_posts_the_apps_check_run_and_review_then_updates_them(
    ci: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    set_pull(ci, 7, {PATH: (BASE, HEAD)})
    assert main(["review", "--pr", "7"]) == 1
    repo = ci.repo(REPO)
    (check,) = repo.check_runs
    assert check["conclusion"] == "failure" and check["status"] == "completed"
    assert {a["title"] for a in check["annotations"]} == {
        "gender bias (new)",
        "age bias (new)",
    }
    assert len(repo.reviews) == 1 and len(repo.review_comments) == 2
    assert "failure; 3 functions tested, 2 biased" in capsys.readouterr().err

    # The next push removes the gender rule: its comment is resolved, nothing is repeated.
    set_pull(ci, 7, {PATH: (BASE, HEAD_FIXED)})
    assert main(["review", "--pr", "7"]) == 1
    assert len(repo.reviews) == 1
    resolved = [c for c in repo.review_comments if c["body"].startswith("✅ **Resolved**")]
    assert len(resolved) == 1


def test_a_policy_that_does_not_fail_passes_with_a_neutral_check(ci: FakeGitHub) -> None:
    ci.repo(REPO).files[("main", ".codebias.yml")] = "fail_on: none\n"
    set_pull(ci, 7, {PATH: (BASE, HEAD)})
    assert main(["review", "--pr", "7"]) == 0
    assert ci.repo(REPO).check_runs[-1]["conclusion"] == "neutral"


def test_an_invalid_policy_gets_a_neutral_check_and_exit_2(
    ci: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    ci.repo(REPO).files[("main", ".codebias.yml")] = "fail_on: sometimes\n"
    set_pull(ci, 7, {PATH: (BASE, HEAD)})
    assert main(["review", "--pr", "7"]) == 2
    check = ci.repo(REPO).check_runs[-1]
    assert check["conclusion"] == "neutral" and check["output"]["title"] == "Invalid .codebias.yml"
    assert "octo-org/hiring/.codebias.yml: fail_on" in capsys.readouterr().err


def test_a_draft_is_left_alone_unless_the_policy_asks(ci: FakeGitHub) -> None:
    set_pull(ci, 7, {PATH: (BASE, HEAD)}, draft=True)
    assert main(["review", "--pr", "7"]) == 0
    assert ci.repo(REPO).check_runs == []


@pytest.mark.parametrize(
    ("unset", "message"),
    [
        ("GITHUB_TOKEN", "GITHUB_TOKEN is not set"),
        ("GITHUB_REPOSITORY", "GITHUB_REPOSITORY must be owner/repo"),
    ],
)
def test_missing_variables_exit_2_naming_them(
    ci: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    unset: str,
    message: str,
) -> None:
    monkeypatch.delenv(unset)
    assert main(["review", "--pr", "7"]) == 2
    assert message in capsys.readouterr().err


@pytest.fixture
def faulty(app_keys: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[FleetGitHub]:
    """The `ci` setting against a fake GitHub that answers scripted faults."""
    fake = FleetGitHub(public_key=app_keys[1], app_id=APP_ID).start()
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    set_pull(fake, 7, {PATH: (BASE, HEAD)})
    yield fake
    fake.stop()


def test_bad_credentials_exit_3_saying_so(
    ci: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_not_a_token_github_knows")
    set_pull(ci, 7, {PATH: (BASE, HEAD)})
    assert main(["review", "--pr", "7"]) == 3
    err = capsys.readouterr().err
    assert "GitHub answered 401 (bad credentials) to GET" in err and "/pulls/7" in err
    assert "GITHUB_TOKEN" in err and "permission" not in err and "fork" not in err
    assert "Traceback" not in err


def test_a_token_without_write_permission_exits_3_naming_the_permissions(
    faulty: FleetGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    faulty.fail(
        Fault("POST", r"/check-runs$", 403, message="Resource not accessible by integration")
    )
    assert main(["review", "--pr", "7"]) == 3
    err = capsys.readouterr().err
    assert "GitHub answered 403 to POST" in err and "Resource not accessible" in err
    assert "`checks: write`" in err and "a pull request from a fork gets a read-only token" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "api_url",
    [f"http://127.0.0.1:{free_port()}", "http://codebias-test.invalid"],
    ids=["closed_port", "unknown_host"],
)
def test_github_out_of_reach_exits_4_with_its_own_message(
    ci: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    api_url: str,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", api_url)
    assert main(["review", "--pr", "7"]) == 4
    err = capsys.readouterr().err
    assert f"codebias: error: cannot reach GitHub at {api_url}" in err
    assert "GITHUB_API_URL" in err
    assert "answered None" not in err and "Traceback" not in err


def test_github_failing_with_500_exits_4_without_a_traceback(faulty: FleetGitHub) -> None:
    faulty.fail(Fault("GET", r"/pulls/7/files$", 500, message="Server Error", times=5))
    done = subprocess.run(  # stderr as a CI log shows it, logging included
        [sys.executable, "-m", "bot.cli", "review", "--pr", "7"],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4
    err = done.stderr
    assert "GitHub failed: it answered 500 to GET" in err and "/pulls/7/files" in err
    assert "Traceback" not in err
    (check,) = faulty.repo(REPO).check_runs  # never left spinning
    assert check["conclusion"] == "neutral"


def test_an_internal_error_exits_3_never_1(
    ci: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """1 means "bias found" (docs: exit code 3 for an internal error in every command): a
    review that breaks must not read as a verdict, and the Action must not pass it quietly."""
    set_pull(ci, 7, {PATH: (BASE, HEAD)})
    ci.repo(REPO).pulls[7]["number"] = "seven"  # an answer of the wrong shape
    assert main(["review", "--pr", "7"]) == 3
    err = capsys.readouterr().err
    assert "internal error" in err
