"""What a pull request changed, from the `patch` of each file in `GET .../pulls/{n}/files`.

GitHub's `patch` is the unified diff of one file without its `---`/`+++` header. A review
comment may sit only on a line of that diff: on the RIGHT side, an added or a context line
of some hunk. Anything else is answered with 422, so placement is checked here first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet


@dataclass
class FileChange:
    path: str
    status: str  # added | modified | renamed | copied | changed | removed | unchanged
    previous_path: str | None
    added: set[int] = field(default_factory=set)  # head line numbers added or modified
    commentable: set[int] = field(default_factory=set)  # head lines that lie inside the diff


def parse_patch(path: str, patch: str) -> tuple[set[int], set[int]]:
    """(added lines, commentable lines) of the head version, 1-based."""
    text = f"--- a/{path}\n+++ b/{path}\n{patch}"
    if not text.endswith("\n"):
        text += "\n"
    try:
        patched = PatchSet(text)
    except UnidiffParseError:
        return set(), set()
    added: set[int] = set()
    commentable: set[int] = set()
    for pfile in patched:
        for hunk in pfile:
            for line in hunk:
                if line.target_line_no is None:
                    continue
                commentable.add(line.target_line_no)
                if line.is_added:
                    added.add(line.target_line_no)
    return added, commentable


def file_change(entry: dict[str, Any]) -> FileChange:
    path = str(entry["filename"])
    added, commentable = parse_patch(path, str(entry.get("patch") or ""))
    return FileChange(
        path=path,
        status=str(entry.get("status") or "modified"),
        previous_path=entry.get("previous_filename"),
        added=added,
        commentable=commentable,
    )
