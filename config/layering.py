"""Which `.codebias.yml` files make a repository's policy, and in what order.

From lowest to highest: the built-in defaults, the organisation's `<owner>/.github`
repository's `.codebias.yml` (or whatever the repository's file names in `extends`, followed
in turn), then the repository's own file. Files are always read from each repository's
default branch, never from a pull request's head, so a pull request cannot loosen its own
policy. The reader is injected (`Fetch`): this module knows nothing of GitHub.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from config.policy import Policy, PolicyError, build_policy, parse_layer

CONFIG_PATH = ".codebias.yml"
MAX_DEPTH = 5
REPO_RE = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$")

# (owner/repo, path) -> the file's text on that repository's default branch, None if absent.
Fetch = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Layer:
    source: str  # "owner/repo/.codebias.yml"
    data: dict[str, Any]


def resolve_layers(repo: str, fetch: Fetch) -> list[Layer]:
    """The layers above the defaults, lowest first; PolicyError on a broken chain."""
    chain: list[Layer] = []
    seen: set[str] = set()
    current: str | None = repo
    explicit = True
    while current is not None:
        if current.lower() in seen:
            raise PolicyError(f"{repo}: `extends` loops back to {current}")
        if len(seen) >= MAX_DEPTH:
            raise PolicyError(f"{repo}: `extends` goes deeper than {MAX_DEPTH} repositories")
        seen.add(current.lower())
        source = f"{current}/{CONFIG_PATH}"
        text = fetch(current, CONFIG_PATH)
        if text is None:
            if explicit and current != repo:
                raise PolicyError(
                    f"{chain[0].source}: extends {current}, which has no {CONFIG_PATH}"
                )
            data: dict[str, Any] = {}
        else:
            data = parse_layer(text, source)
        extends = data.pop("extends", None)
        chain.append(Layer(source, data))
        if extends is not None:
            if not isinstance(extends, str) or not REPO_RE.match(extends):
                raise PolicyError(f"{source}: extends: must be `owner/repo`, not {extends!r}")
            current, explicit = extends, True
        elif current == repo and not repo.lower().endswith("/.github"):
            # No `extends`: the organisation's shared defaults, when it has any.
            current, explicit = f"{repo.split('/')[0]}/.github", False
        else:
            current = None
    chain.reverse()
    return [layer for layer in chain if layer.data or layer.source.startswith(repo + "/")]


def load_policy(repo: str, fetch: Fetch) -> Policy:
    """The repository's policy: each layer checked alone (errors name the file), then merged."""
    layers = resolve_layers(repo, fetch)
    for layer in layers:
        build_policy([layer.data], source=layer.source)
    return build_policy([layer.data for layer in layers], source=f"{repo} (merged policy)")
