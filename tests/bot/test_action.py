"""The GitHub Action (action.yml) run step by step as a runner runs it, against the fake GitHub.

Each `run:` step is executed by bash with the env the runner gives it (inputs, the event, the
step outputs written to $GITHUB_OUTPUT so far), in a real git repository holding a pull
request's base and head commits. `uses:` steps are the runner's: actions/setup-python is
left out (this interpreter is used), the SARIF upload is checked for what it would upload.
The install step is left out here (its pip install takes a minute): the `codebias` it would
put on the PATH is a shim running this checkout; tests/test_scripts.py runs the step itself.
The project's Python is the `python` first on the runner's PATH, as on a real runner.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from botsupport import free_port
from fakegithub import TOKEN, FakeGitHub
from interpreters import SHADOWING_PACKAGES, make_venv, older_python
from scenario import BASE, HEAD, PATH, REPO, set_pull

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
SARIF_SCHEMA = json.loads((ROOT / "schemas/sarif-2.1.0.json").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKENS = re.compile(
    r"\s*(?:(?P<string>'[^']*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<call>\w+\(\))"
    r"|(?P<name>[A-Za-z_][\w.-]*))"
)

OPERATORS = {"&&": " and ", "||": " or ", "!": " not "}


@dataclass
class Step:
    name: str
    outcome: str  # success | failure | skipped
    code: int | None = None
    output: str = ""


@dataclass
class Runner:
    """The few parts of the Actions runner a composite action's steps rely on."""

    workspace: Path
    temp: Path
    event: dict[str, Any]
    inputs: dict[str, str]
    env: dict[str, str]
    steps: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    uploaded: list[Path] = field(default_factory=list)

    def context(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "github": {
                "action_path": str(ROOT),
                "event": self.event,
                "token": TOKEN,
            },
            "steps": self.steps,
            "runner": {"temp": str(self.temp)},
        }

    def lookup(self, name: str) -> Any:
        value: Any = self.context()
        for part in name.split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        return value

    def evaluate(self, expression: str) -> Any:
        """GitHub's expression syntax, as much of it as action.yml uses."""
        python = []
        for match in TOKENS.finditer(expression):
            if match["string"] is not None:
                python.append(repr(match["string"][1:-1]))
            elif match["op"] is not None:
                python.append(OPERATORS.get(match["op"], match["op"]))
            elif match["call"] is not None:
                assert match["call"] in ("always()", "success()"), match["call"]
                python.append("True")
            else:
                python.append(repr(self.lookup(match["name"])))
        return eval("".join(python), {"__builtins__": {}})  # noqa: S307 - our own action.yml

    def substitute(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: str(self.evaluate(m.group(1))), text)

    def run(self) -> list[Step]:
        done: list[Step] = []
        for index, spec in enumerate(ACTION["runs"]["steps"]):
            name = spec.get("name", f"step {index}")
            failed = any(s.outcome == "failure" for s in done)
            condition = spec.get("if", "success()")
            if failed and "always()" not in condition or not self.evaluate(condition):
                done.append(Step(name, "skipped"))
                continue
            if "uses" in spec:
                done.append(self.uses(name, spec))
            elif spec.get("id") == "install":
                done.append(Step(name, "skipped"))  # see the module's docstring
            else:
                done.append(self.shell(index, name, spec))
        return done

    def uses(self, name: str, spec: dict[str, Any]) -> Step:
        action = spec["uses"].split("@")[0]
        if action == "actions/setup-python":
            return Step(name, "skipped")
        assert action == "github/codeql-action/upload-sarif", action
        sarif = Path(self.substitute(spec["with"]["sarif_file"]))
        jsonschema.validate(json.loads(sarif.read_text()), SARIF_SCHEMA)
        self.uploaded.append(sarif)
        return Step(name, "success")

    def shell(self, index: int, name: str, spec: dict[str, Any]) -> Step:
        assert spec["shell"] == "bash"
        assert "${{" not in spec["run"], "scripts read values from env: only"
        outputs = self.temp / f"output-{index}"
        outputs.write_text("")
        env = {
            **self.env,
            **{k: self.substitute(str(v)) for k, v in (spec.get("env") or {}).items()},
            "GITHUB_OUTPUT": str(outputs),
            "RUNNER_TEMP": str(self.temp),
        }
        script = self.temp / f"step-{index}.sh"
        script.write_text(spec["run"])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if "id" in spec:
            values = dict(
                line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line
            )
            self.steps[spec["id"]] = {"outputs": values}
        outcome = "success" if done.returncode == 0 else "failure"
        return Step(name, outcome, done.returncode, done.stdout + done.stderr)


def git(workspace: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def pull_request_checkout(workspace: Path, base: str, head: str) -> tuple[str, str]:
    """A repository whose HEAD is the pull request's head, its base one commit before."""
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "config", "user.email", "ci@example.com")
    git(workspace, "config", "user.name", "CI")
    (workspace / PATH).parent.mkdir(parents=True, exist_ok=True)
    (workspace / "README.md").write_text("A repository under review.\n")
    (workspace / PATH).write_text(base)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "base")
    base_sha = git(workspace, "rev-parse", "HEAD")
    (workspace / PATH).write_text(head)
    git(workspace, "commit", "-q", "-am", "head")
    return base_sha, git(workspace, "rev-parse", "HEAD")


@pytest.fixture
def runner(tmp_path: Path, github: FakeGitHub) -> Runner:
    return make_runner(tmp_path, github, BASE, HEAD)


def make_runner(tmp_path: Path, github: FakeGitHub, base: str, head: str) -> Runner:
    """A runner on a pull request that turns PATH's `base` text into `head`."""
    workspace, temp, bin_dir = tmp_path / "work", tmp_path / "temp", tmp_path / "bin"
    for folder in (workspace, temp, bin_dir):
        folder.mkdir()
    base_sha, head_sha = pull_request_checkout(workspace, base, head)
    set_pull(github, 7, {PATH: (base, head)})
    # `codebias` as the install step would put it on the PATH, from this checkout.
    shim = bin_dir / "codebias"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bot.cli "$@"\n')
    shim.chmod(0o755)
    # The Python already set up (no python-version): this one, unless a test puts another
    # first on the PATH.
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "OPENAI_", "ANTHROPIC_", "CODEBIAS_"))
    }
    env = {
        **inherited,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": github.url,
        "GITHUB_WORKSPACE": str(workspace),
    }
    event = {"pull_request": {"number": 7, "base": {"sha": base_sha}, "head": {"sha": head_sha}}}
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    return Runner(workspace, temp, event, defaults, env)


def outcomes(steps: list[Step]) -> dict[str, str]:
    return {step.name: step.outcome for step in steps}


def test_the_action_scans_the_changes_uploads_sarif_reviews_and_fails_on_bias(
    runner: Runner, github: FakeGitHub
) -> None:
    runner.inputs |= {"review": "true", "token": TOKEN}
    steps = runner.run()
    assert outcomes(steps) == {
        "Set up Python": "skipped",
        "Find the project's Python": "success",
        "Install codebias and its sandbox": "skipped",
        "Diff the pull request against its base": "success",
        "Scan the changed functions": "success",
        "Upload to code scanning": "success",
        "Post the review": "success",
        "Verdict": "failure",
    }, "\n".join(s.output for s in steps)
    assert runner.steps["scan"]["outputs"]["exit-code"] == "1"

    (sarif,) = runner.uploaded
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    found = {
        (r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], r["ruleId"])
        for r in results
    }
    # Only what the pull request changed: salary_offer's new gender rule, the new function.
    assert found == {
        ("salary_offer", "codebias/gender"),
        ("eligible_for_training", "codebias/age"),
    }

    repo = github.repo(REPO)
    (check,) = repo.check_runs
    assert check["name"] == "codebias" and check["conclusion"] == "failure"
    assert len(repo.reviews) == 1
    assert {c["path"] for c in repo.review_comments} == {PATH}
    assert "codebias found bias that the policy fails on" in steps[-1].output


def test_without_review_and_without_failing_the_job_only_the_sarif_is_made(
    runner: Runner, github: FakeGitHub
) -> None:
    runner.inputs |= {"fail-on-bias": "false"}
    steps = runner.run()
    assert outcomes(steps)["Post the review"] == "skipped"
    assert outcomes(steps)["Verdict"] == "success", steps[-1].output
    assert runner.steps["scan"]["outputs"]["exit-code"] == "1"
    assert github.repo(REPO).check_runs == [] and github.repo(REPO).reviews == []


def test_a_pull_request_without_python_changes_passes(runner: Runner) -> None:
    (runner.workspace / "README.md").write_text("Only the documentation changed.\n")
    git(runner.workspace, "commit", "-q", "-am", "docs")
    runner.event["pull_request"]["base"]["sha"] = git(runner.workspace, "rev-parse", "HEAD~1")
    steps = runner.run()
    assert outcomes(steps)["Verdict"] == "success", "\n".join(s.output for s in steps)
    assert runner.steps["scan"]["outputs"]["exit-code"] == "0"


def test_github_out_of_reach_fails_the_review_step(runner: Runner, github: FakeGitHub) -> None:
    """A wrong GITHUB_API_URL or an outage must not pass as a fork's read-only token does."""
    runner.inputs |= {"review": "true", "token": TOKEN}
    runner.env["GITHUB_API_URL"] = f"http://127.0.0.1:{free_port()}"
    steps = runner.run()
    review = next(step for step in steps if step.name == "Post the review")
    assert (review.outcome, review.code) == ("failure", 4), review.output
    assert "cannot reach GitHub" in review.output
    assert "::error::" in review.output


def test_a_read_only_token_only_warns_and_keeps_the_sarif(
    runner: Runner, github: FakeGitHub
) -> None:
    # The fake GitHub answers an unknown token 401; GitHub answers a fork's token 403 on
    # writes: both are 3, a refusal, which the Action reports as a warning.
    runner.inputs |= {"review": "true", "token": "ghs_token_of_a_fork", "fail-on-bias": "false"}
    steps = runner.run()
    assert outcomes(steps)["Post the review"] == "success"
    review = next(step for step in steps if step.name == "Post the review")
    assert "::warning::" in review.output
    assert runner.uploaded


PRICING = """\
from analysis.risk import loading


def premium(age: int, base: float) -> float:
    return base + loading(age)
"""


def test_the_code_runs_with_the_projects_python_and_its_own_config_and_analysis_packages(
    tmp_path: Path, github: FakeGitHub
) -> None:
    """The project's environment holds top-level `config` and `analysis` packages (as a
    `config==0.5.1` dependency installs one): codebias, in its own environment, proves the
    bias they decide, in the scan and in the review."""
    runner = make_runner(tmp_path, github, "", PRICING)
    project_python = make_venv(tmp_path / "project-env", SHADOWING_PACKAGES)
    runner.env["PATH"] = f"{project_python.parent}:{runner.env['PATH']}"
    runner.inputs |= {"review": "true", "token": TOKEN}
    steps = runner.run()
    assert runner.steps["python"]["outputs"]["path"] == str(project_python)
    assert runner.steps["scan"]["outputs"]["exit-code"] == "1", "\n".join(
        s.output for s in steps
    )
    (sarif,) = runner.uploaded
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert {
        (r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], r["ruleId"])
        for r in results
    } == {("premium", "codebias/age")}
    (check,) = github.repo(REPO).check_runs
    assert check["conclusion"] == "failure"
    assert [c["path"] for c in github.repo(REPO).review_comments] == [PATH]


def test_a_project_python_older_than_codebias_needs_stops_the_action_with_the_reason(
    runner: Runner,
) -> None:
    old = older_python()
    if old is None:
        pytest.skip("no Python older than 3.11 is installed on this machine")
    (runner.temp.parent / "bin" / "python").unlink()
    (runner.temp.parent / "bin" / "python").symlink_to(old)
    steps = runner.run()
    found = next(step for step in steps if step.name == "Find the project's Python")
    assert (found.outcome, found.code) == ("failure", 2), found.output
    assert "::error::" in found.output and "needs Python 3.11 or newer" in found.output
    assert outcomes(steps)["Scan the changed functions"] == "skipped"
