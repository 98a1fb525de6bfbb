"""A protected value the code takes inside lists, through a helper no rule follows: built
bare, each of its values raised ("'int' object is not subscriptable"), and the bias went
unseen; the errors now tell the lists it is held in (analysis/search/nesting.py)."""

from __future__ import annotations

from analysis_kit import model_of, verdict

from analysis.execution.process import Limits, ProcessExecutor, Target
from analysis.search.nesting import nest_leaves

# A household's children's ages, one list per household (a benefit model, vectorised).
HOUSEHOLDS = '''
def _children(dependent_ages, n):
    if dependent_ages is None:
        return [[8] for _ in range(n)]
    return [list(dependent_ages[i]) for i in range(n)]

def school_meals(household_size, annual_income, dependent_ages=None):
    sizes = household_size if isinstance(household_size, list) else [household_size]
    counted = []
    for kids in _children(dependent_ages, len(sizes)):
        counted.append(sum(1 for a in kids if {rule} and annual_income < 40000))
    return counted
'''


def test_ages_held_in_a_list_per_household_are_proved_biased() -> None:
    report = verdict(HOUSEHOLDS.format(rule="5 <= a <= 18"), "school_meals")
    assert report.status == "biased", report.reason
    finding = next(f for f in report.findings if f.attribute == "age" and not f.is_static)
    assert finding.example is not None
    held = finding.example.inputs["dependent_ages"]
    assert isinstance(held, list) and isinstance(held[0], list) and isinstance(held[0][0], int)


def test_the_same_shape_without_the_rule_is_clean() -> None:
    report = verdict(HOUSEHOLDS.format(rule="a is not None"), "school_meals")
    assert report.status == "clean", report.reason
    assert "age" in report.attributes_tested


def test_the_lists_are_those_the_errors_ask_for() -> None:
    once = HOUSEHOLDS.replace("list(dependent_ages[i])", "list(dependent_ages)")
    source = once.format(rule="a > 64")
    model = model_of(source, "school_meals")
    ages = next(leaf for leaf in model.leaves if leaf.display == "dependent_ages")
    target = Target(source=source, filename="case.py", qualname="school_meals")
    with ProcessExecutor().open(target, Limits(session_timeout=30.0)) as session:
        assert nest_leaves(model, session, [ages]) == [ages]
    assert ages.nesting == 1


def test_a_value_that_fails_for_another_reason_stays_bare() -> None:
    source = (
        "def premium(age, region):\n"
        "    if age > 200:\n"
        "        return 1\n"
        "    raise ValueError(f'no tariff for {region}')\n"
    )
    model = model_of(source, "premium")
    age = next(leaf for leaf in model.leaves if leaf.display == "age")
    target = Target(source=source, filename="case.py", qualname="premium")
    with ProcessExecutor().open(target, Limits(session_timeout=30.0)) as session:
        assert nest_leaves(model, session, [age]) == []
    assert age.nesting == 0
