"""Layering `.codebias.yml` files: repository over organisation over defaults, `extends`."""

from __future__ import annotations

import pytest

from config.layering import load_policy, resolve_layers
from config.policy import PolicyError


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    calls: list[str] = []

    def fetch(repo: str, path: str) -> str | None:
        calls.append(repo)
        return files.get(repo)

    fetch.calls = calls  # type: ignore[attr-defined]
    return fetch


def test_no_files_gives_the_built_in_defaults() -> None:
    policy = load_policy("o/r", reader({}))
    assert policy.fail_on == "new" and policy.protected["age"].enabled


def test_repository_overrides_the_organisation_which_overrides_defaults() -> None:
    policy = load_policy(
        "o/r",
        reader(
            {
                "o/.github": "fail_on: none\nprotected: {religion: {enabled: false}}\n",
                "o/r": "fail_on: any\n",
            }
        ),
    )
    assert policy.fail_on == "any"
    assert not policy.protected["religion"].enabled  # from the org (on by default)
    assert "sex" in policy.protected["gender"].synonyms  # defaults kept under a deep merge


def test_deep_merge_keeps_sibling_keys_of_a_nested_mapping() -> None:
    policy = load_policy("o/r", reader({"o/r": "protected: {age: {synonyms: [dob_year]}}\n"}))
    assert policy.protected["age"].synonyms == ("dob_year",)
    assert policy.protected["age"].values  # values still from the defaults


def test_extends_replaces_the_implicit_organisation_layer() -> None:
    fetch = reader(
        {
            "o/.github": "fail_on: none\n",
            "shared/policies": "fail_on: any\n",
            "o/r": "extends: shared/policies\n",
        }
    )
    assert load_policy("o/r", fetch).fail_on == "any"
    assert "o/.github" not in fetch.calls


def test_extends_is_followed_in_turn() -> None:
    files = {
        "o/r": "extends: a/b\n",
        "a/b": "extends: c/d\nfail_on: any\n",
        "c/d": "fail_on: none\nreview_drafts: true\n",
    }
    layers = resolve_layers("o/r", reader(files))
    assert [layer.source for layer in layers] == [
        "c/d/.codebias.yml",
        "a/b/.codebias.yml",
        "o/r/.codebias.yml",
    ]
    policy = load_policy("o/r", reader(files))
    assert policy.fail_on == "any" and policy.review_drafts


@pytest.mark.parametrize(
    "files,message",
    [
        ({"o/r": "extends: a/b\n", "a/b": "extends: o/r\n"}, "loops back"),
        ({"o/r": "extends: missing/repo\n"}, "which has no .codebias.yml"),
        ({"o/r": "extends: not a repo\n"}, "must be `owner/repo`"),
        ({"o/r": "fail_on: sometimes\n"}, "o/r/.codebias.yml: fail_on"),
        (
            {"o/.github": "budget: {executions_per_function: 1}\n"},
            "o/.github/.codebias.yml: budget",
        ),
        ({"o/r": "fail_on: [\n"}, "not valid YAML"),
        ({"o/r": "- a list\n"}, "must be a mapping"),
        ({"o/r": "unknown_key: 1\n"}, "unknown_key"),
    ],
)
def test_broken_policies_raise_errors_that_name_the_file(
    files: dict[str, str], message: str
) -> None:
    with pytest.raises(PolicyError, match=message.replace("[", r"\[")):
        load_policy("o/r", reader(files))


def test_the_org_dotgithub_repository_is_not_layered_over_itself() -> None:
    fetch = reader({"o/.github": "fail_on: any\n"})
    assert load_policy("o/.github", fetch).fail_on == "any"
    assert fetch.calls == ["o/.github"]


def test_chains_deeper_than_the_limit_are_refused() -> None:
    files = {f"o/r{i}": f"extends: o/r{i + 1}\n" for i in range(10)}
    with pytest.raises(PolicyError, match="deeper than"):
        load_policy("o/r0", reader(files))
