"""A group of people (a household, a team) reached through a group API: what the rule asks
of the members (`any`, `all`, `sum`, `min`, `max`, `nb_persons`) is answered over the one
member tried, so a rule over the members' ages runs and its bias shows."""

from __future__ import annotations

from analysis_kit import model_of, verdict

from analysis.shapes import display, every_item

SOURCE = (
    "def childcare_credit(family, period, parameters):\n"
    "    rates = parameters(period).credits.childcare\n"
    "    ages = family.members('age', period)\n"
    "    toddler = family.any(ages < 4)\n"
    "    school = family.all(ages >= 4) * (family.nb_persons() > 1)\n"
    "    return toddler * rates.full + school * rates.partial\n"
)


def test_a_rule_over_a_group_s_member_ages_is_found_biased() -> None:
    report = verdict(SOURCE, "childcare_credit")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings} == {"age"}


def test_a_value_tried_on_every_item_is_shown_on_every_item() -> None:
    """With the peers alike, a finding names the attribute of every item: `[*]`."""
    source = (
        "def shortlist(applicants):\n"
        "    return [a['name'] for a in applicants if a['gender'] == 'female']\n"
    )
    model = model_of(source, "shortlist")
    gender = next(leaf for leaf in model.leaves if leaf.category == "gender")
    assert display(every_item(gender.path, model)) == "applicants[*]['gender']"
    assert gender.display == "applicants[0]['gender']"
