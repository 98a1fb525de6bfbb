"""An input its name says nothing of carries a category when the code compares it with a
strong word of one (`kind == "female"`, `status in ("senior_citizen", ...)`): a tax
calculator's class of taxpayers, an insurer's `kind`. A weak word (a region's "urban"), a
word of no category and a name that is excluded say nothing."""

from __future__ import annotations

import textwrap

from analysis_kit import leaf, model_of, verdict

SOURCE = textwrap.dedent("""\
    def tax(income, taxpayer_category):
        if taxpayer_category == "senior_citizen":
            return income * 0.1
        if taxpayer_category == "super_senior_citizen":
            return income * 0.05
        return income * 0.2


    def premium(base, kind):
        if kind == "female":
            return base * 0.9
        return base


    def rate(person):
        return 0.1 if person["category"] == "senior citizen" else 0.2


    def zone_fee(base, zone):
        return base + (5 if zone == "urban" else 0)


    def file_kind(path, mode):
        return path + (".csv" if mode == "table" else ".txt")
""")


def test_an_input_compared_with_a_strong_word_of_a_category_carries_it() -> None:
    assert leaf(model_of(SOURCE, "tax"), "taxpayer_category").category == "age"
    assert leaf(model_of(SOURCE, "premium"), "kind").category == "gender"
    assert leaf(model_of(SOURCE, "rate"), "person['category']").category == "age"


def test_weak_words_and_words_of_no_category_say_nothing() -> None:
    assert leaf(model_of(SOURCE, "zone_fee"), "zone").category is None
    assert leaf(model_of(SOURCE, "file_kind"), "mode").category is None


def test_the_class_of_taxpayers_and_the_kind_are_proved_biased() -> None:
    for name, category in (("tax", "age"), ("premium", "gender")):
        report = verdict(SOURCE, name)
        assert report.status == "biased", (name, report.reason)
        assert {f.attribute for f in report.findings} == {category}
