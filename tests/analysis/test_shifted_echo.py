"""A date moved a fixed distance from the birth date is the birth date in another form; a
date chosen by the birth date is a decision."""

from __future__ import annotations

from analysis_kit import verdict

from analysis.search.shifted import (
    aged_echo,
    banded_echo,
    moved_numbers,
    shifted_echo,
    swapped_echo,
)
from analysis.values import DateValue

SOURCE = (
    "from datetime import date, timedelta\n"
    "def due_date(birth_date: date, weeks: int) -> date:\n"
    "    early = 280 - weeks * 7 if weeks > 0 else 0\n"
    "    return birth_date + timedelta(days=early)\n"
    "def review_date(birth_date: date) -> date:\n"
    "    if birth_date.year < 1960:\n"
    "        return date(2030, 1, 1)\n"
    "    return birth_date + timedelta(days=30)\n"
)


def test_outputs_moved_as_far_as_the_inputs_are_an_echo() -> None:
    a, b = DateValue("2000-01-10"), DateValue("2000-01-01")
    assert shifted_echo(a, b, "datetime.date(2000, 1, 20)", "datetime.date(2000, 1, 11)")
    assert not shifted_echo(a, b, "datetime.date(2000, 1, 20)", "datetime.date(2000, 1, 12)")
    assert not shifted_echo(
        a, b, "('late', datetime.date(2000, 1, 20))", "('early', datetime.date(2000, 1, 11))"
    )
    # 58 years after a birth date a year apart: across 29 February 2040, 366 days apart.
    born_a, born_b = DateValue("1982-01-01"), DateValue("1983-01-01")
    at_58 = "datetime.date(2040, 1, 1)"
    assert shifted_echo(born_a, born_b, at_58, "datetime.date(2041, 1, 1)")
    assert not shifted_echo(born_a, born_b, at_58, "datetime.date(2041, 2, 1)")


def test_a_due_date_from_the_birth_date_is_clean() -> None:
    report = verdict(SOURCE, "due_date")
    assert report.status == "clean", (report.findings, report.reason)


def test_a_date_chosen_by_the_birth_date_is_still_biased() -> None:
    report = verdict(SOURCE, "review_date")
    assert report.status == "biased", report.reason


def test_an_echo_beside_an_equal_number_is_an_echo_either_way() -> None:
    """Age 45 kept beside a sum of 45: masking hides both 45s of one output and one 41 of the
    other; written with the other's age, each output is the other."""
    a = "Calc({'age': 45, 'sum_folds': 45})"
    b = "Calc({'age': 49, 'sum_folds': 45})"
    assert swapped_echo(49, 45, b, a) and not swapped_echo(45, 49, a, b)
    assert swapped_echo(45, 49, "{'age': 45.0}", "{'age': 49.0}")
    assert not swapped_echo(45, 49, "('young', 45)", "('old', 49)")
    assert swapped_echo(4, 49, "{'age': 4, 'n': 14}", "{'age': 49, 'n': 14}")  # not the 4 of 14
    assert swapped_echo("male", "female", "{'sex': 'male'}", "{'sex': 'female'}")
    # A float as the harness writes it: a table's cells, one of which held the value tried
    # (the values of a recorded column are its other rows').
    a, b = 40.64457778561263, 41.59796743351159
    cells = "{'age': {0: %s, 1: 50.5, 2: 41.597967434}}"
    assert swapped_echo(a, b, cells % "40.644577786", cells % "41.597967434")
    assert not swapped_echo(a, b, "('young', 40.644577786)", "('old', 41.597967434)")
    assert swapped_echo(45.0, 49.0, "[45, 50.5]", "[49, 50.5]")


def test_a_date_kept_beside_a_fixed_day_is_an_echo() -> None:
    """`Child(birth_date, measured_on)` keeps both as dates: only the birth date moves."""
    a, b = "1996-06-15", "2010-06-15"
    kept = "Child({'birth': datetime.date(%s, 6, 15), 'measured': datetime.date(2026, 1, 2)})"
    assert shifted_echo(a, b, kept % 1996, kept % 2010)
    moved_too = kept.replace("2026, 1, 2", "2026, 1, 3") % 2010
    assert not shifted_echo(a, b, kept % 1996, moved_too)


def test_a_value_kept_as_its_enum_member_is_an_echo() -> None:
    """`self.sex = Sex(sex)`: the instance shows `Sex.MALE` for "male"."""
    assert swapped_echo("male", "female", "Child({'sex': Sex.MALE})", "Child({'sex': Sex.FEMALE})")
    assert not swapped_echo("male", "female", "(Sex.MALE, 1.0)", "(Sex.FEMALE, 1.1)")
    assert not swapped_echo("male", "female", "MALE_RATE", "FEMALE_RATE")  # no member: a name


# opie-engine's `attained_age_for_month`: the insured's age carried forward by the policy
# years passed. A score that moves with the age at another rate, or jumps, is a decision.
AGES = (
    "def attained_age(issue_age: int, month: int) -> int:\n"
    "    return issue_age + (month - 1) // 12\n"
    "def loading(issue_age: int, month: int) -> float:\n"
    "    return 1.5 * issue_age + month\n"
    "def band(issue_age: int, month: int) -> int:\n"
    "    return issue_age + month if issue_age < 60 else 100\n"
    "def points(issue_age: int, month: int) -> int:\n"
    "    return month + (1 if issue_age >= 65 else 0)\n"
)


def test_a_number_moved_as_far_as_the_age_is_an_echo() -> None:
    assert moved_numbers([40, 45, 70], ["43", "48", "73.0"])
    assert not moved_numbers([40, 45, 70], ["43", "48", "75"])
    assert not moved_numbers([64, 65], ["0", "1"])  # two values: a point added at 65
    assert not moved_numbers([40, 45, 70], ["'43'", "48", "73"])
    assert not moved_numbers([[40], [45], [70]], ["43", "48", "73"])  # lists: no numbers
    # A projection from the starting age: each year moves with it, a constant stays.
    assert moved_numbers([16, 30, 45], ["[16, 17, 18]", "[30, 31, 32]", "[45, 46, 47]"])
    assert moved_numbers([16, 30, 45], ["(16, 100)", "(30, 100)", "(45, 100)"])
    assert not moved_numbers([16, 30, 45], ["[16, 0.1]", "[30, 0.2]", "[45, 0.4]"])
    assert not moved_numbers([16, 30, 45], ["[16, 17]", "[30, 31, 32]", "[45, 46, 47]"])
    assert not moved_numbers([16, 30, 45], ["'16'", "'30'", "'45'"])  # text: no numbers
    report = verdict(AGES, "attained_age")
    assert report.status == "clean", (report.findings, report.reason)
    for decision in ("loading", "band", "points"):
        assert verdict(AGES, decision).status == "biased", decision


BANDS = '''\
def age_bucket(age):
    low = (age // 10) * 10
    return f"{low}-{low + 9}"


def band_price(age):
    low = (age // 10) * 10
    return {"band": f"{low}-{low + 9}", "price": 100 + low * 2}


def age_group(age):
    if age >= 70:
        return "70+"
    if age < 18:
        return "under 18"
    low = (age // 10) * 10
    return f"{low}-{low + 9}"


def group_and_fee(age):
    return {"age": age, "group": age_group(age), "fee": 10 if age >= 70 else 20}
'''


def test_the_band_that_holds_the_age_is_an_echo() -> None:
    assert banded_echo(29, 30, "'20-29'", "'30-39'")
    assert banded_echo(64.5, 65, "(60, 64.99)", "(65, 69.99)")
    assert not banded_echo(29, 30, "'30-39'", "'20-29'")  # a band away from the age
    assert not banded_echo(29, 30, "('20-29', 140)", "('30-39', 160)")  # a price beside it
    # A percentage beside the time it was issued at: two numbers changed, no band.
    assert not banded_echo(59, 60, "Offer(5, 1765123456.7)", "Offer(20, 1765123457.1)")
    assert not banded_echo(59, 60, "(5, 1765123456.7)", "(20, 1765123457.1)")
    assert verdict(BANDS, "age_bucket").status == "clean"
    assert verdict(BANDS, "band_price").biased_attributes == ["age"]


def test_an_open_band_that_holds_the_age_is_an_echo() -> None:
    """'70+' and 'under 18' hold an age as '60-69' does (health-engine's `age_bucket`); the
    age beside its band is an echo too, a fee beside them is not."""
    assert banded_echo(69, 70, "'60-69'", "'70+'")
    assert banded_echo(17, 18, "'U18'", "'18 and over'")
    assert banded_echo(40, 45, "{'age': 40, 'band': '40-44'}", "{'age': 45, 'band': '>44'}")
    assert not banded_echo(40, 45, "'>44'", "'40-44'")
    assert banded_echo(70, 79, "{'age': 70, 'group': '70-74'}", "{'age': 79, 'group': '75-79'}")
    assert not banded_echo(69, 70, "'70+'", "'60-69'")  # each band away from its age
    assert not banded_echo(17, 18, "('under 18', 20)", "('18+', 10)")  # a fee beside it
    assert not banded_echo(69, 70, "'Adult (18-69)'", "'Senior (70+)'")  # named otherwise
    # A cell's name built from the age (hccinfhir's `category='F0_34'`, hccpy's `AGE0_MALE`).
    assert banded_echo(34, 35, "Demo(age=34, category='F0_34')", "Demo(age=35, category='F35_44')")
    assert banded_echo(0, 1, "('AGE0_MALE', 'Infant')", "('AGE1_MALE', 'Infant')")
    assert not banded_echo(0, 1, "('AGE0_MALE', 'Infant')", "('AGE1_MALE', 'Child')")
    assert not banded_echo(16, 30, "('AGE16', 18)", "('AGE30', 30)")  # a floor at 18
    assert verdict(BANDS, "age_group").status == "clean"
    assert verdict(BANDS, "group_and_fee").biased_attributes == ["age"]


BIRTH_DATES = '''\
from datetime import date


def age_on(dob: date, today: date = date(2026, 12, 7)) -> int:
    return today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))


def senior_rate(dob: date, today: date = date(2026, 12, 7)) -> float:
    return 0.5 if age_on(dob, today) >= 65 else 1.0


def get_age_on_date(dob, today):
    age = today.year - dob.year
    if (today.month, today.day) < (dob.month, dob.day):
        age -= 1
    return age
'''


def test_the_age_a_birth_date_gives_is_an_echo() -> None:
    a, b = DateValue("1986-05-28"), DateValue("1985-05-28")
    assert aged_echo(a, b, "40", "41")
    assert aged_echo(a, b, "{'age': 40, 'name': 'Ann'}", "{'age': 41, 'name': 'Ann'}")
    assert not aged_echo(a, b, "{'age': 40, 'fee': 10}", "{'age': 41, 'fee': 12}")
    assert not aged_echo(DateValue("1961-05-28"), DateValue("1960-05-28"), "0.5", "1.0")
    # hr-birthday-letters' `get_age_on_date(dob, on)`: counted to a day of 2019 the caller
    # names, a birth date after it gives a negative age; a point and a sentinel are none.
    born, later = DateValue("1996-06-15"), DateValue("2026-08-29")
    assert aged_echo(born, later, "23", "-7")
    assert aged_echo(born, DateValue("1936-06-15"), "-6", "54")  # on a day of 1990
    assert not aged_echo(born, later, "23", "-1")
    assert not aged_echo(DateValue("1990-01-01"), DateValue("1991-01-01"), "-1", "0")
    assert verdict(BIRTH_DATES, "age_on").status == "clean"
    report = verdict(BIRTH_DATES, "get_age_on_date")
    assert report.status == "clean", (report.findings, report.reason)
    assert verdict(BIRTH_DATES, "senior_rate").biased_attributes == ["age"]

