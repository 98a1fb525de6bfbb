"""Bias that shows only when two other inputs hold at once, one of them itself protected: a
reference that differs by sex for one kind of measurement past an age. The search tries
pairs that include another protected input, not only pairs of the unprotected ones."""

from __future__ import annotations

from analysis_kit import verdict

SOURCE = (
    "GIRTH = 'girth'\n"
    "OTHERS = ('arm', 'leg', 'chest', 'waist', 'hip', 'neck', 'wrist', 'thigh')\n"
    "def missing_reference(age, method, sex):\n"
    "    if age > 21 or age < 2:\n"
    "        return True, 'none outside 2 to 21'\n"
    "    if method in OTHERS or age in (5, 10, 15):\n"
    "        return False, 'a usual one'\n"
    "    if method == GIRTH and 18 <= age <= 19 and sex == 'female':\n"
    "        return True, 'none for girls this old'\n"
    "    return False, ''\n"
)


def test_a_sex_that_matters_for_one_method_past_an_age_is_found() -> None:
    report = verdict(SOURCE, "missing_reference")
    assert report.status == "biased", report.reason
    assert "gender" in {f.attribute for f in report.findings}
    (gender,) = [f for f in report.findings if f.attribute == "gender"]
    assert gender.example is not None
    assert gender.example.inputs["method"] == "girth"
    assert 18 <= gender.example.inputs["age"] <= 19
