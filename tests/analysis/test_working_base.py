"""A base call that runs, walked to from the errors of the calls that fail
(analysis/search/working_base.py): a constructor that checks each value in turn (a sex of two
words, a measurement within its method's range, a child under twenty) fails every made-up
call and every random mixture; each check passed shows the next one's error, and the walk
follows them to a call that runs, around which the search then proves the bias."""

from __future__ import annotations

from pathlib import Path

from analysis_kit import leaf, model_of, verdict

from analysis.execution.process import Outcome
from analysis.search.working_base import error_kind, forward, unquoted_alternatives

# The corpus's validating measurements (a labelled shapes file): every made-up call failed.
CHECKED = (Path(__file__).parents[1] / "corpus/shapes/checked_measurements.py").read_text()


def test_a_check_failed_with_other_values_is_the_same_check() -> None:
    ctx_a = {(("param", "method"),): "height", (("param", "value"),): 0.5}
    ctx_b = {(("param", "method"),): "weight", (("param", "value"),): 10.0}
    same_a = error_kind("ValueError: a height of 0.5 is implausible", ctx_a)
    assert same_a == error_kind("ValueError: a weight of 10.0 is implausible", ctx_b)
    assert same_a != error_kind("ValueError: the charts end at 20 years", ctx_a)


def test_a_change_whose_error_speaks_of_it_is_a_step_back() -> None:
    model = model_of(CHECKED, "sds")
    sex = leaf(model, "measurement.sex")
    ctx = {sex.path: "Male"}
    back = Outcome(
        False,
        error="InputError: building the inputs raised ValueError: sex must be 'male' or 'female'",
    )
    on = Outcome(
        False, error="InputError: building the inputs raised ValueError: the charts end at 20 years"
    )
    seen = {"ValueError: a <value> of # is implausible"}
    assert forward([((sex, "Male"),)], [ctx], [back], seen) is None
    assert forward([((sex, "Male"),), ((sex, "female"),)], [ctx, ctx], [back, on], seen) == 1


def test_a_key_error_of_a_value_tried_is_a_lookup_to_walk_past_not_a_missing_field() -> None:
    # `TAX[year][status]`: with the year moved into the table, the status tried is looked up
    # (KeyError: 'married'), the next check; a key no input holds is a field the record
    # lacks, learnt elsewhere (missing_fields), not walked around.
    model = model_of(CHECKED, "sds")
    sex, method = leaf(model, "measurement.sex"), leaf(model, "measurement.method")
    ctx = {sex.path: "married", method.path: "height"}
    looked_up = Outcome(False, error="KeyError: 'married'")
    missing = Outcome(False, error="KeyError: 'c3'")
    assert forward([((method, "height"),)], [ctx], [looked_up], set()) == 0
    assert forward([((method, "height"),)], [ctx], [missing], set()) is None


def test_the_walk_reaches_a_call_that_runs_and_the_bias_is_proved() -> None:
    # Every made-up call raised ("a height of 0.0 is implausible") and the function ended
    # unverified; the walk passes the range (a weight of 10), then the age (a younger child).
    report = verdict(CHECKED, "sds")
    assert [f.attribute for f in report.findings] == ["gender"]
    assert report.status == "biased"


def test_an_attribute_kept_from_two_arguments_is_read_through_each() -> None:
    # `self.days = (observation_date - birth_date).days`: both dates are inputs of their own
    # (they used to share one path, `self.days`, and overwrite each other), and reading
    # `self.days` reads the birth date.
    model = model_of(CHECKED, "Measurement.is_infant")
    paths = [lf.path for lf in model.leaves]
    assert len(paths) == len(set(paths))
    assert [lf.category for lf in model.protected if lf.name == "birth_date"] == ["age"]
    assert [f.attribute for f in verdict(CHECKED, "Measurement.is_infant").findings] == ["age"]


GROWTH = """\
import json

SEXES = json.loads('{"boy": 0.5, "girl": 0.4}')


def growth_velocity(sex, age_months, height_cm):
    if sex not in SEXES:
        raise ValueError(f"sex must be one of {sorted(SEXES)}")
    if not 0 <= age_months <= 240:
        raise ValueError("age_months out of range")
    return round(height_cm * SEXES[sex] / (age_months + 1), 3)
"""


def test_the_values_an_error_offers_are_tried_and_join_the_pool() -> None:
    # The spellings the code accepts are in a table its source does not spell out; the
    # error lists them, and the sex is then varied between them.
    found = {f.attribute: f.example.values for f in verdict(GROWTH, "growth_velocity").findings}
    assert found["gender"] == ["boy", "girl"]


UNQUOTED = """\
def check_sex(value):
    if len(value) != 1 or value not in "mf":
        raise TypeError("define sex as m or f")
    return "mf".index(value)


def heart_risk(age, sex, cholesterol):
    base = 0.1 * age + 0.02 * cholesterol
    if check_sex(sex) == 0:
        base += 3
    return round(base, 2)
"""


def test_the_words_an_error_offers_unquoted_are_tried() -> None:
    # No spelling of the sex is in the code ("mf" is one text); the message offers two
    # words with no quotes, and every made-up sex ("male", "M") failed.
    found = {f.attribute: f.example.values for f in verdict(UNQUOTED, "heart_risk").findings}
    assert sorted(found["gender"]) == ["f", "m"]
    assert unquoted_alternatives("one of M, F or X; not M/F/X") == ["M", "F", "X", "M", "F", "X"]
    assert unquoted_alternatives("could not convert string to float") == []


def test_an_error_that_names_the_category_speaks_of_the_input() -> None:
    # The input is `gender`, its check says "sex": the message names its category, not it.
    source = UNQUOTED.replace("age, sex, cholesterol", "age, gender, cholesterol")
    source = source.replace("check_sex(sex)", "check_sex(gender)")
    found = {f.attribute: f.example.values for f in verdict(source, "heart_risk").findings}
    assert sorted(found["gender"]) == ["f", "m"]


# athlib's WMA age grader: a table read from its JSON file on the first call, keyed "m" and
# "f"; every call with "male" or "Female" raises KeyError.
RESPELT = '''
import json


class Grader:
    _data = None

    def data(self):
        if not self._data:
            self._data = json.loads('{"m": {"5K": 777.0}, "f": {"5K": 857.0}}')
        return self._data

    def world_best(self, gender, event):
        return self.data()[gender][event]


grader = Grader()


def wma_world_best(gender, event="5K"):
    return grader.world_best(gender, event)
'''


def test_a_text_a_table_has_no_key_for_is_tried_as_the_table_spells_it() -> None:
    report = verdict(RESPELT, "wma_world_best")
    assert report.biased_attributes == ["gender"], report.reason
