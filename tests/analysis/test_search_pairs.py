"""Bias that shows only when two other inputs hold at once, one of them itself protected: a
reference that differs by sex for one kind of measurement past an age. The search tries
pairs that include another protected input, not only pairs of the unprotected ones."""

from __future__ import annotations

import ast
import time

from analysis_kit import model_of, verdict

from analysis.execution.process import Limits, ProcessExecutor, Target
from analysis.search.contexts import contexts, protected_pairs, typical
from analysis.search.search import Search
from analysis.shapes import SPREAD, Leaf
from analysis.source.functions import find_function
from analysis.static.review import acting_with, condition_scopes

SOURCE = (
    "GIRTH = 'girth'\n"
    "OTHERS = ('arm', 'leg', 'chest', 'waist')\n"
    "def missing_reference(age, method, sex, unit='cm', scale=1):\n"
    "    if unit not in ('cm', 'mm', 'in') or scale not in (1, 10, 100):\n"
    "        raise ValueError('unknown unit')\n"
    "    if age > 21 or age < 2:\n"
    "        return True, 'none outside 2 to 21'\n"
    "    if method in OTHERS or age in (5, 10, 15) or unit != 'cm' or scale != 1:\n"
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


def _search(source: str, qualname: str) -> Search:
    model = model_of(source, qualname)
    target = Target(source=source, filename="case.py", qualname=qualname)
    with ProcessExecutor().open(target, Limits()) as session:
        found = Search(model, session, model.protected, 5000, time.monotonic() + 20)
        found.run()
    return found


def test_pairs_with_another_protected_input_come_only_after_a_proof() -> None:
    clean = "def f(age, sex, plan):\n    return plan == 'gold' and age == age and sex == sex\n"
    assert _search(clean, "f").paired is False  # a clean function does not pay for them
    assert _search(SOURCE, "missing_reference").paired is True


def test_pairs_with_another_protected_input_start_from_the_one_proved() -> None:
    # The sex matters only past an age: the age is proved first, and each pair moves it.
    model = model_of(SOURCE, "missing_reference")
    base = {leaf.path: typical(leaf) for leaf in model.leaves}
    (age,) = [leaf for leaf in model.protected if leaf.display == "age"]
    contexts = list(protected_pairs(model, base, {"age"}))
    assert contexts and all(ctx[age.path] != base[age.path] for ctx in contexts)
    assert list(protected_pairs(model, base, set())) == []


def test_a_leaf_without_values_from_the_code_tries_a_spread_of_its_pool() -> None:
    # After the base context (its whole pool), a few values from one end to the other.
    ages = Leaf((("param", "age"),), "age", "age", [30, *range(0, 100, 5)], "age")
    assert ages.focus == ages.spread
    assert len(ages.spread) <= SPREAD and {30, 0, 95} <= set(ages.spread)
    words = Leaf((("param", "sex"),), "sex", "sex", ["male", "female", "M", "F", "x", "y", "z"])
    assert words.spread[0] == "male" and "z" in words.spread


def test_pairs_are_only_tried_where_one_condition_reads_them_with_an_open_input() -> None:
    """The age and the sex of `missing_reference` meet in one `if` with the method: those
    pairs stay. Where the sex is never read in a condition beside the age (it is only kept),
    no pair with the age can show it."""
    apart = (
        "def f(age, sex, plan):\n"
        "    rate = 2 if age > 60 else 1\n"
        "    if plan == 'gold':\n"
        "        rate += 1\n"
        "    return {'rate': rate, 'sex': sex}\n"
    )
    for source, qualname, wanted in ((SOURCE, "missing_reference", True), (apart, "f", False)):
        model = model_of(source, qualname)
        info = find_function(ast.parse(source), qualname)
        assert info is not None
        base = {leaf.path: typical(leaf) for leaf in model.leaves}
        sex = [leaf for leaf in model.protected if leaf.display == "sex"]
        scopes = condition_scopes(info.node, model.leaves)
        found = list(protected_pairs(model, base, {"age"}, sex, scopes))
        assert bool(found) is wanted, qualname
        assert list(protected_pairs(model, base, {"age"}, sex))  # without scopes: all pairs


# cvd-risk's HEART score: the troponin's threshold is the sex's, in a helper handed both; the
# troponin is one of many inputs, each of which the search would vary before it.
TROPONIN = (
    "def troponin_points(hstni, sex):\n"
    "    url = 34.0 if sex.lower() == 'male' else 16.0\n"
    "    return 0 if hstni < url else 1 if hstni < 3 * url else 2\n"
    "def heart(patient):\n"
    "    points = 1 if patient['ecg_normal'] else 0\n"
    "    points += 1 if patient['symptoms'] > 2 else 0\n"
    "    points += 1 if patient['risk_factors'] >= 3 else 0\n"
    "    return points + troponin_points(patient['hstni'], patient['sex'])\n"
)


def test_an_input_handed_to_a_call_with_a_protected_one_is_varied_first() -> None:
    model = model_of(TROPONIN, "heart")
    fn = find_function(ast.parse(TROPONIN), "heart")
    assert fn is not None
    acting = acting_with(fn.node, model.leaves)
    assert acting == {"patient['hstni']"}
    variations = contexts(model, first=acting)
    base = next(variations)
    varied = next(variations)
    assert [leaf.display for leaf in model.leaves if varied[leaf.path] != base[leaf.path]] == [
        "patient['hstni']"
    ]


def test_an_input_whose_condition_guards_the_protected_one_is_varied_first() -> None:
    """rcpchgrowth's create_chart: the reference picks which chart is made, and only some
    charts differ by sex. The reference acts with the sex though no call takes both."""
    source = (
        "def chart(method, units, reference, sex):\n"
        "    if units not in ('cm', 'in'):\n"
        "        raise ValueError(units)\n"
        "    if method == 'ofc':\n"
        "        return 'head'\n"
        "    if reference == 'trisomy-21':\n"
        "        return 'ds-' + ('boys' if sex == 'male' else 'girls')\n"
        "    return 'uk-who'\n"
    )
    model = model_of(source, "chart")
    fn = find_function(ast.parse(source), "chart")
    assert fn is not None
    acting = acting_with(fn.node, model.leaves)
    assert "reference" in acting and "units" not in acting
    variations = contexts(model, first=acting)
    base = next(variations)
    varied = next(variations)
    assert [leaf.display for leaf in model.leaves if varied[leaf.path] != base[leaf.path]] == [
        "reference"
    ]
