"""What a refusal is not: raising about another input's value (an implausible measurement for
the person's reference), or for a value outside the parameter's own `Literal[...]` terms."""

from __future__ import annotations

from analysis_kit import verdict

from analysis.search.refusal import about_another_input, another_form, unborn, wrong_kind_given

# Plausibility of a reading against a reference that differs by sex: the message is about
# the reading. For a girl 40 is implausible, for a boy it is not.
READING = (
    "def check_reading(sex, reading):\n"
    "    median = 30.0 if sex == 'male' else 20.0\n"
    "    if reading > median * 1.5:\n"
    "        raise ValueError(f'a reading of {reading} is implausible')\n"
    "    return True\n"
)

# The same refusal of a person, with nothing about another input in the message.
GIRLS_ONLY = (
    "def girls_reference(sex, reading):\n"
    "    if sex == 'male':\n"
    "        raise LookupError('this reference is for girls')\n"
    "    return reading / 20.0\n"
)

# Raising for a sex outside the declared terms of the signature.
DECLARED = (
    "from typing import Literal\n"
    "TABLE = {'male': 1.0, 'female': 1.0}\n"
    "def weight_for(sex: Literal['male', 'female'], reading: float) -> float:\n"
    "    return reading * TABLE[sex]\n"
)


def test_a_message_about_another_input_s_value_is_about_that_input() -> None:
    assert about_another_input("ValueError: a reading of 40 is implausible", "female", [40])
    assert not about_another_input("LookupError: no data above 20 years", "female", [2])
    assert not about_another_input("ValueError: female readings of 40", "female", [40])


def test_a_message_naming_another_input_checks_the_two_against_each_other() -> None:
    """cvd-risk's SCORE2DM: an age below the age at the diabetes diagnosis is an impossible
    pair of inputs, no refusal of the age; a one-word name ("sex") tells nothing apart."""
    message = "ValueError: Diabetes age cannot be greater than current age"
    assert about_another_input(message, 18, [50], ("diabetes_age", "sex"))
    assert not about_another_input(message, 18, [50], ("sex", "smoker"))
    assert not about_another_input("ValueError: Age must be >= 40 for sex", 30, [], ("sex",))
    source = (
        "def validate(age, diabetes_age):\n"
        "    if diabetes_age > age:\n"
        "        raise ValueError('Diabetes age cannot be greater than current age')\n"
        "    return None\n"
    )
    # The age is not refused for being below the diagnosis, nor the diagnosis for being after
    # the age: the message names `diabetes_age` by its two words and `age` beside them.
    assert verdict(source, "validate").findings == []
    assert about_another_input(message, 70, [50], ("age", "sex"), own="diabetes_age")
    assert not about_another_input(message, 70, [50], ("sex",), own="diabetes_age")
    assert not about_another_input("ValueError: no age over 90", 95, [], ("age",), own="age")


def test_an_implausible_reading_for_one_sex_is_validation_not_refusal() -> None:
    report = verdict(READING, "check_reading")
    assert report.status == "clean", (report.findings, report.reason)


def test_refusing_a_sex_outright_is_still_a_finding() -> None:
    report = verdict(GIRLS_ONLY, "girls_reference")
    assert report.status == "biased", report.reason
    assert [(f.attribute, f.kind) for f in report.findings] == [("gender", "refuses")]


def test_raising_for_a_value_outside_a_literal_annotation_is_its_contract() -> None:
    report = verdict(DECLARED, "weight_for")
    assert report.status == "clean", (report.findings, report.reason)


# A constructor that refuses the oldest (as a script does, with `exit()`), and a method of the
# object that only echoes the age.
CONSTRUCTED = (
    "class Metrics:\n"
    "    def __init__(self, weight, age):\n"
    "        self.weight, self.age = weight, age\n"
    "        if age > 99:\n"
    "            exit()\n"
    "    def bmi_label(self):\n"
    "        return f'{self.age} years, ' + ('heavy' if self.weight > 90 else 'light')\n"
)


def test_a_refusal_while_building_the_object_is_the_constructor_s() -> None:
    # The method never runs for a person of 100: its object could not be built.
    refusal = verdict(CONSTRUCTED, "Metrics.__init__")
    assert [(f.attribute, f.kind) for f in refusal.findings] == [("age", "refuses")]
    assert verdict(CONSTRUCTED, "Metrics.bmi_label").status == "clean"


def test_a_refusal_shows_in_the_context_that_works_when_the_base_does_not() -> None:
    """The base call fails (no skinfolds); the first context that works becomes the base and
    runs every value of the sex, 'non-binary' included, not only the code's own few."""
    source = (
        "def fold_sum(sex, folds=()):\n"
        "    if not folds:\n"
        "        raise ValueError('no skinfolds')\n"
        "    if sex in (0, 1):\n"
        "        raise ValueError('give the sex as a word')\n"
        "    if sex not in ('male', 'female'):\n"
        "        raise ValueError(f'unknown sex {sex!r}')\n"
        "    return sum(folds)\n"
    )
    report = verdict(source, "fold_sum")
    assert [(f.attribute, f.kind) for f in report.findings] == [("gender", "refuses")]


def test_a_birth_after_the_day_measured_is_no_person_on_that_day() -> None:
    """A growth chart's `observed before birth`: the birth date tried after the other date of
    the call is refused for the pair of dates, not for an age; a birth before it that is
    refused still is (a chart that turns the old away)."""
    assert unborn("1996-06-15", ["1936-06-15"], ["1990-07-01", "height"])
    assert not unborn("1996-06-15", ["1936-06-15"], ["2026-07-01"])
    assert not unborn("1996-06-15", ["2000-01-01"], ["1990-07-01"])  # none returned before it
    pair = (
        "class Measurement:\n"
        "    def __init__(self, sex, birth_date, observation_date):\n"
        "        if observation_date < birth_date:\n"
        "            raise ValueError('observed before birth')\n"
        "        self.sex = sex\n"
        "        self.age_days = (observation_date - birth_date).days\n"
        "\n"
        "def centile(sex, birth_date, observation_date):\n"
        "    m = Measurement(sex, birth_date, observation_date)\n"
        "    return 50.0 if m.sex == 'male' else 48.5\n"
    )
    assert [f.attribute for f in verdict(pair, "centile").findings] == ["gender"]
    working_age = (
        "import datetime\n"
        "def working_age_chart(birth_date, observation_date):\n"
        "    born = datetime.date.fromisoformat(birth_date)\n"
        "    if (datetime.date.fromisoformat(observation_date) - born).days > 65 * 365:\n"
        "        raise ValueError('this chart ends at 65')\n"
        "    return 1\n"
    )
    assert [f.attribute for f in verdict(working_age, "working_age_chart").findings] == ["age"]


# A strategy function the tests pass (a made-up number stands in for it), called once a year
# for the years the person has left: only an age with no year left returns.
STRATEGY = (
    "def drawdown(age, strategy, balance=100000.0):\n"
    "    for year in range(max(0, 90 - age)):\n"
    "        balance -= strategy(balance, year)\n"
    "    return round(balance, 2)\n"
)


def test_the_interpreter_s_complaint_about_a_stand_in_is_no_refusal() -> None:
    """retire-plan-group13's `run_decumulation`: a made-up number stands for the strategy,
    and calling it raises only for the ages that run the loop; no person is refused."""
    message = "TypeError: 'int' object is not callable"
    assert wrong_kind_given(message, [100000.0, 1])
    assert not wrong_kind_given(message, [100000.0])
    assert not wrong_kind_given("ValueError: 'int' object is not callable", [1])
    operands = "TypeError: unsupported operand type(s) for -=: 'float' and 'str'"
    assert wrong_kind_given(operands, ["x"])
    assert not wrong_kind_given("AttributeError: 'NoneType' object has no attribute 'rate'", [None])
    report = verdict(STRATEGY, "drawdown")
    assert "refuses" not in [f.kind for f in report.findings], report.findings


# mortables' `get_table`: the cohort is a birth year, by its docstring; the age's values tried
# beside the years are no year anyone was born in.
COHORT = '''
def load_table(table_id, generation=1960):
    """Load a mortality table.

    Parameters
    ----------
    table_id : str
        Table identifier.
    generation : int, optional
        Birth year (required for generational tables).
    """
    if generation is None or not 1900 <= generation <= 2010:
        raise ValueError(f"Generation {generation} out of range [1900, 2010]")
    return table_id
'''


def test_an_age_refused_where_birth_years_return_is_another_form_not_a_refusal() -> None:
    assert another_form(30, [1960, 1985])
    assert another_form(1960, [30])
    assert not another_form(2011, [1960])  # a birth year refused where years return
    assert not another_form(95, [30, 40])
    report = verdict(COHORT, "load_table")
    assert report.findings == [], report.findings
