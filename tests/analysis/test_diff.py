from analysis.scan.diff import changed_lines, lines_for, patch_lines

DIFF = """diff --git a/pkg/hiring.py b/pkg/hiring.py
--- a/pkg/hiring.py
+++ b/pkg/hiring.py
@@ -1,2 +1,4 @@
 def f(age):
-    return age > 3
+    if age > 65:
+        return False
+    return True
"""


def test_changed_lines_are_the_added_target_lines() -> None:
    assert changed_lines(DIFF) == {"pkg/hiring.py": {2, 3, 4}}


def test_lines_for_matches_a_scanned_path_by_its_trailing_parts() -> None:
    changed = changed_lines(DIFF)
    assert lines_for(changed, "/checkout/pkg/hiring.py") == {2, 3, 4}
    assert lines_for(changed, "other/hiring_v2.py") == set()


def test_patch_lines_reads_a_github_file_patch() -> None:
    patch = "@@ -0,0 +1,2 @@\n+def g(sex):\n+    return sex\n"
    assert patch_lines(patch) == {1, 2}
