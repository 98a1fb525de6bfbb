"""A review runs the changed functions as modules of their package: it fetches the modules they
import (and nothing else) through the trees and blobs endpoints, and scopes cached verdicts to
the repository and the files they were imported with."""

from __future__ import annotations

from typing import Any

import pytest
from fakegithub import FakeGitHub
from scenario import REPO, set_pull

from bot.events import ReviewRequest, route
from bot.jobs import JobContext
from bot.settings import Settings

pytestmark = pytest.mark.sandbox

RULES = "SENIOR_AGE = 65\n\n\ndef gender_factor(g):\n    return 1.2 if g == 'male' else 1.0\n"
PRICING = """\
from .rules import SENIOR_AGE, gender_factor


def premium(age, base):
    if age > SENIOR_AGE:
        return base * 2
    return base


def driver_premium(sex, base):
    return base * gender_factor(sex)
"""
UNRELATED = "def other(age):\n    return age\n"


def request_for(event: dict[str, Any]) -> ReviewRequest:
    routed = route("pull_request", event)
    assert isinstance(routed, ReviewRequest)
    return routed


def put_repository(github: FakeGitHub, event: dict[str, Any], files: dict[str, str]) -> None:
    """Files of the repository at the pull request's head that the pull request did not change."""
    head = event["pull_request"]["head"]["sha"]
    for path, text in files.items():
        github.repo(REPO).files[(head, path)] = text


def titles(github: FakeGitHub) -> set[str]:
    run = github.repo(REPO).check_runs[-1]
    return {f"{a['path']}:{a['title']}" for a in run["annotations"]}


def test_a_changed_module_runs_in_its_package_with_what_it_imports(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    event = set_pull(github, 11, {"src/hr/pricing.py": (None, PRICING)})
    put_repository(
        github,
        event,
        {
            "pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "src/hr/__init__.py": "",
            "src/hr/rules.py": RULES,
            "src/other/big.py": UNRELATED,
        },
    )
    JobContext.build(embedded_settings).run(request_for(event))
    assert titles(github) == {
        "src/hr/pricing.py:age bias (new)",
        "src/hr/pricing.py:gender bias (new)",
    }
    fetched = {c.path.rsplit("/", 1)[-1] for c in github.calls("GET", r"/git/blobs/")}
    assert len(fetched) == 3  # pyproject.toml, __init__.py, rules.py: not the unrelated module
    assert len(github.calls("GET", r"/git/trees/")) == 1


def test_a_pep_263_file_in_a_pull_request_is_read_as_python_reads_it(
    github: FakeGitHub, embedded_settings: Settings
) -> None:
    source = (
        "# -*- coding: latin-1 -*-\n"
        "def tarif(residence):\n"
        "    return 2 if residence == 'Île' else 1\n"
    )
    event = set_pull(github, 12, {"tarif.py": (None, "")})
    head = event["pull_request"]["head"]["sha"]
    github.repo(REPO).files[(head, "tarif.py")] = source.encode("latin-1")
    patch = "@@ -0,0 +1,3 @@\n+#\n+def tarif(residence):\n+    x\n"
    github.repo(REPO).pull_files[12][0]["patch"] = patch
    JobContext.build(embedded_settings).run(request_for(event))
    assert titles(github) == {"tarif.py:region bias (new)"}
