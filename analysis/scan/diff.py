"""Which lines a unified diff touches, so only the functions it changes are tested."""

from __future__ import annotations

from pathlib import PurePosixPath

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from analysis.errors import SourceError


def changed_lines(diff_text: str) -> dict[str, set[int]]:
    """Target-side line numbers added or changed, by the file's path in the diff (no a/ b/)."""
    try:
        patch = PatchSet(diff_text)
    except UnidiffParseError as exc:
        raise SourceError("diff", f"not a unified diff: {exc}") from None
    if not len(patch) and diff_text.strip():
        # unidiff reads any text without a file header as an empty diff: say so, rather than
        # test nothing and pass.
        raise SourceError(
            "diff", "not a unified diff: no `--- a/FILE` / `+++ b/FILE` header and no hunk"
        )
    lines: dict[str, set[int]] = {}
    for file in patch:
        if file.is_removed_file:
            continue
        path = strip_prefix(file.target_file)
        touched = lines.setdefault(path, set())
        for hunk in file:
            for line in hunk:
                if line.is_added and line.target_line_no is not None:
                    touched.add(line.target_line_no)
            # A pure deletion still changes the function around it.
            if hunk.removed and not hunk.added:
                touched.add(max(hunk.target_start, 1))
    return lines


def patch_lines(patch: str) -> set[int]:
    """Added lines of one file's patch as GitHub's pulls/files API gives it (hunks only)."""
    header = "--- a/file\n+++ b/file\n"
    return changed_lines(header + patch).get("file", set())


def strip_prefix(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def lines_for(changed: dict[str, set[int]], path: str, in_repository: bool = False) -> set[int]:
    """The changed lines of a scanned file. In a repository, `path` is the file's path from
    its root, which is how git names it in a diff, whatever the working folder: that path
    exactly. Elsewhere (`diff -ru old new`), the diff path that ends as `path` does."""
    if in_repository:
        return changed.get(path, set())
    scanned = PurePosixPath(path.replace("\\", "/")).parts
    for diff_path, lines in changed.items():
        parts = PurePosixPath(diff_path).parts
        n = min(len(parts), len(scanned))
        if n and parts[-n:] == scanned[-n:]:
            return lines
    return set()
