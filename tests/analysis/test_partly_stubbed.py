"""A function proved biased for one attribute whose other attribute could only be tried
through a stubbed module keeps a static finding for that one, and says why."""

from __future__ import annotations

from analysis_kit import verdict

SOURCE = (
    "import vendor_stats_missing as stats\n"
    "def reference(age, sex):\n"
    "    if age < 2:\n"
    "        return 'infant table'\n"
    "    if sex == 'female':\n"
    "        return stats.girls_table(age)\n"
    "    return 'boys table'\n"
)


def test_the_attribute_whose_calls_needed_a_stub_is_judged_statically() -> None:
    report = verdict(SOURCE, "reference")
    assert report.status == "biased", report.reason
    methods = {f.attribute: f.method for f in report.findings}
    assert methods == {"age": "dynamic", "gender": "static"}
    assert report.reason is not None and "vendor_stats_missing" in report.reason
