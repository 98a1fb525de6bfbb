"""Reading GitHub's per-file patches: changed lines, lines a comment may sit on, path scope."""

from __future__ import annotations

import difflib

from hypothesis import given
from hypothesis import strategies as st

from bot.changes import parse_patch


def github_patch(old: list[str], new: list[str]) -> str:
    lines = difflib.unified_diff([x + "\n" for x in old], [x + "\n" for x in new], n=3)
    return "".join(list(lines)[2:])


@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=15),
    st.lists(st.sampled_from(["a", "b", "c", "e"]), max_size=15),
)
def test_added_lines_are_exactly_the_new_lines_and_lie_in_the_diff(
    old: list[str], new: list[str]
) -> None:
    added, commentable = parse_patch("x.py", github_patch(old, new))
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    expected = {
        j + 1
        for tag, _, _, j1, j2 in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for j in range(j1, j2)
    }
    assert added == expected
    assert added <= commentable <= set(range(1, len(new) + 1))


def test_context_lines_are_commentable_but_not_added() -> None:
    patch = "@@ -1,3 +1,4 @@\n def f(x):\n-    return 1\n+    y = 2\n+    return y\n ok\n"
    assert parse_patch("a.py", patch) == ({2, 3}, {1, 2, 3, 4})


def test_empty_or_garbage_patch_has_no_lines() -> None:
    assert parse_patch("a.py", "") == (set(), set())
    assert parse_patch("a.py", "@@ nonsense") == (set(), set())
