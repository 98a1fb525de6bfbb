"""Echo masking: a protected value handed back unchanged is not a difference in output.

A function that returns its record, a field of it, or a sentence quoting it, shows a
different output for a different age, yet its decision does not change: the engine masks
echoes of the value being varied (harness.canonical / mask_text in the child; compared by
Outcome.same in the parent), so such functions are clean. Masking must not hide a decision
made next to the echo, and must not mask what is only similar (300 is not an echo of 30).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from analysis_kit import verdict
from harness_kit import InProcessHarness, in_process_harness
from hypothesis import example, given, settings
from hypothesis import strategies as st

from analysis.execution.harness import output as output
from analysis.execution.harness import runner as child
from analysis.execution.process import Outcome
from analysis.search.search import ambiguous, spellings

# An enum of age bands, as india-tax-guru's models declare one.
AGE_BANDS = (
    "import dataclasses, enum\n"
    "class AgeBand(enum.Enum):\n"
    "    BELOW_60 = 'below_60'\n"
    "    SENIOR = 'senior_60_80'\n"
)

ECHOES = {
    "fields of a returned dict": "def f(name, age):\n    return {'name': name, 'age': age}\n",
    "a sentence quoting it": "def f(name, sex):\n    return f'{name} ({sex})'\n",
    "the record itself": "def f(applicant):\n    return applicant if applicant['age'] else None\n",
    "a list of the record's fields": (
        "def f(applicant):\n    return [applicant['name'], applicant['race']]\n"
    ),
    "printed by a function returning nothing": (
        "def f(name, age):\n    print(f'{name} is {age}')\n"
    ),
    "a tuple with a constant": (
        "def f(customer_region):\n    return ('region', customer_region)\n"
    ),
    # Normalised echoes (issue 10): case, whitespace and str() of the value are echoes too.
    "upper": "def f(sex):\n    return sex.upper()\n",
    "strip and lower": (
        "def f(row):\n    return {'sex': str(row['sex']).strip().lower(), 'id': row['id']}\n"
    ),
    "title": "def f(name, race):\n    return f'{name}: {race.title()}'\n",
    # medcalc-bench's explanations: fixed text that names both values, then the echo.
    "fixed text naming every value": (
        "def f(p):\n"
        "    return {'score': 0, 'text': 'Sex: Male = 0 points, Female = +1 point. '\n"
        "            + f\"The patient's gender is {p['sex']}. Nothing about m was given.\"}\n"
    ),
    # india-tax-guru's profile builder: an enum member copied into a dataclass, whose repr
    # writes it `<AgeBand.SENIOR: 'senior'>`.
    "an enum member in a dataclass's repr": (
        AGE_BANDS
        + "@dataclasses.dataclass\n"
        "class Profile:\n"
        "    income: int\n"
        "    age_band: AgeBand\n"
        "def f(income: int, age_band: AgeBand):\n"
        "    return Profile(income, age_band)\n"
    ),
    # athleteprofiler's Athlete.__str__: the age worked out of the birth date is the birth
    # date in other words. (A title or pronoun chosen by the sex is not: train/records.py's
    # `greeting` is biased.)
    "an age worked out of a birth date": (
        "import datetime\n"
        "def f(name, date_of_birth):\n"
        "    born = datetime.date.fromisoformat(date_of_birth)\n"
        "    days = (datetime.date.today() - born).days\n"
        "    return f'{name} is {days // 365} years old'\n"
    ),
    # india-tax-guru's `_with_salary` / `_profile_from_dict`: a flag copied into the record
    # returned. A bare True is everywhere; the flag under its own name is the echo.
    "a flag in a dataclass's repr under its own name": (
        "import dataclasses\n"
        "@dataclasses.dataclass\n"
        "class Profile:\n"
        "    income: int\n"
        "    is_resident: bool\n"
        "    is_senior: bool = True\n"
        "def f(profile: Profile):\n"
        "    return dataclasses.replace(profile, income=profile.income + 1)\n"
    ),
    "flags of a list of records carried along": (
        "def f(tenants):\n"
        "    return [{'is_female': t['is_female'], 'rent': t['rent'] * 12} for t in tenants]\n"
    ),
    "a flag in a returned dict under its own name": (
        "def f(applicant):\n"
        "    return {'fee': 10, 'is_female': applicant['is_female'], 'urgent': True}\n"
    ),
    # pypreg's scores: the frame handed back with its flag column, a score added.
    "a column of flags carried along in a frame": (
        "def f(df):\n"
        "    out = df[['patient', 'pregnancy']].copy()\n"
        "    out['score'] = df['visits'] * 2\n"
        "    return out\n"
    ),
    # opie-engine's `_request_id`: a digest of the whole request changes with every input.
    "a digest of the inputs": (
        "import hashlib, json\n"
        "def f(applicant):\n"
        "    text = json.dumps({'age': applicant['age'], 'sex': applicant['sex']})\n"
        "    return hashlib.sha256(text.encode()).hexdigest()[:12]\n"
    ),
    "a result carrying a digest of its request": (
        "import dataclasses, hashlib\n"
        "@dataclasses.dataclass\n"
        "class Quote:\n"
        "    request_id: str\n"
        "    premium: int\n"
        "def f(age, cover):\n"
        "    digest = hashlib.md5(f'{age}/{cover}'.encode()).hexdigest().upper()\n"
        "    return Quote(digest, cover * 2)\n"
    ),
}


@pytest.mark.parametrize("source", ECHOES.values(), ids=list(ECHOES))
def test_a_function_that_only_echoes_its_protected_input_is_clean(source: str) -> None:
    report = verdict(source)
    assert report.status == "clean", (report.status, report.findings, report.reason)
    assert report.executions > 0


DECISIONS = {
    "a decision beside the echo": (
        "def f(name, age):\n    return {'age': age, 'senior': age >= 65}\n"
    ),
    "a sentence that changes with the value": (
        "def f(gender):\n"
        "    return f'{gender}: ' + ('approved' if gender == 'male' else 'review')\n"
    ),
    "arithmetic on the value": "def f(age):\n    return age * 2\n",
    "a decision on the age worked out of a birth date": (
        "import datetime\n"
        "def f(date_of_birth):\n"
        "    born = datetime.date.fromisoformat(date_of_birth)\n"
        "    years = (datetime.date.today() - born).days // 365\n"
        "    return f'{years} years: ' + ('senior rate' if years >= 65 else 'standard rate')\n"
    ),
    "a rate beside an enum member in a dataclass": (
        AGE_BANDS
        + "@dataclasses.dataclass\n"
        "class Profile:\n"
        "    age_band: AgeBand\n"
        "    rate: float\n"
        "def f(age_band: AgeBand):\n"
        "    return Profile(age_band, 0.1 if age_band is AgeBand.SENIOR else 0.2)\n"
    ),
    "a flag beside a decision on it": (
        "def f(applicant):\n"
        "    female = applicant['is_female']\n"
        "    return {'is_female': female, 'fee': 10 if female else 12}\n"
    ),
    "a decision beside a digest of the inputs": (
        "import hashlib\n"
        "def f(age, cover):\n"
        "    digest = hashlib.sha1(f'{age}/{cover}'.encode()).hexdigest()\n"
        "    return {'id': digest, 'premium': cover * (2 if age >= 60 else 1)}\n"
    ),
    "the flag's value under another name": (
        "def f(is_resident: bool):\n"
        "    return {'is_resident': is_resident, 'rebate': is_resident}\n"
    ),
}


@pytest.mark.parametrize("source", DECISIONS.values(), ids=list(DECISIONS))
def test_masking_never_hides_a_decision_made_next_to_the_echo(source: str) -> None:
    assert verdict(source).status == "biased"


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as running:
        yield running


def test_the_child_masks_the_varied_value_in_returned_and_printed_output(
    h: InProcessHarness,
) -> None:
    h.load("def f(name, age):\n    print('age', age)\n    return {'name': name, 'age': age}\n")
    outcome = h.call("Ann", 30, mask=(30,))
    assert outcome["repr"] == "{'age': 30, 'name': 'Ann'}"
    assert outcome["masked"] == "{'age': <protected>, 'name': 'Ann'}"
    assert outcome["stdout_masked"] == "age <protected>\n"


@pytest.mark.parametrize("stub", [[], ["pandas"]], ids=["pandas", "stand-in"])
def test_a_frame_returned_whole_masks_its_values_not_its_row_labels(
    h: InProcessHarness, stub: list[str]
) -> None:
    # cvd-risk's validate_dataframe(df) returns df: an age 0 tried against 1 masked the row
    # labels 0 and 1 too, and the two tables read differently.
    h.load("def f(df):\n    return df\n", stub=stub, stub_missing=False)
    texts = []
    for age in (0, 1):
        frame = {"__cb__": "frame", "columns": {"age": [age, 60], "sex": ["male", "female"]}}
        outcome = h.call(frame, mask=(age,))
        assert outcome["ok"], outcome
        texts.append(outcome["masked"])
    assert texts[0] == texts[1]
    assert texts[0] == "{'age': {0: <protected>, 1: 60}, 'sex': {0: 'male', 1: 'female'}}"


def test_two_echoes_of_different_values_compare_the_same() -> None:
    # The parent's side: raw outputs differ, masked ones agree, so the outputs are the same.
    a = Outcome(True, "{'age': 30}", "{'age': <protected>}")
    b = Outcome(True, "{'age': 70}", "{'age': <protected>}")
    assert a.same(b)
    assert not Outcome(True, "1", "1").same(Outcome(True, "2", "2"))


@pytest.mark.parametrize(
    ("value", "masks", "text"),
    [
        ("aged 30", [30], "'aged <protected>'"),
        ("aged 300", [30], "'aged 300'"),  # not an echo: a different number
        ("id 130", [30], "'id 130'"),
        ({"sex": "female"}, ["female"], "{'sex': <protected>}"),
        (["female", "male"], ["female"], "[<protected>, 'male']"),
        (30.0, [30], "<protected>"),  # the same number, as a float
        (True, [True], "True"),  # booleans are never masked: they are decisions
        ("True", [True], "'True'"),
        ("id 8f4adf062c7b", [30], "'id <digest>'"),  # a digest: hex digits and letters
        ("id 8F4ADF062C7B", [30], "'id <digest>'"),
        ("20240131", [30], "'20240131'"),  # digits alone are a number or a date
        ("901460738703", [30], "'<digest>'"),  # ...but not twelve of them in a text
        ("id 901460738703", [30], "'id 901460738703'"),
        ("deadbeef", [30], "'deadbeef'"),  # letters alone are a word
        ("ab12cd3", [30], "'ab12cd3'"),  # under eight characters
        ("8f4adf062c7b", [], "'8f4adf062c7b'"),  # the raw output is never masked
    ],
)
def test_what_counts_as_an_echo(value: object, masks: list[object], text: str) -> None:
    assert child.canonical(value, masks) == text


def test_bytes_that_encode_the_value_are_an_echo_but_their_length_is_not() -> None:
    # A device protocol's packet: the age written in a byte is the value, not a decision.
    packer = (
        "import struct\n"
        "def f(height_cm, age, is_male):\n"
        "    return struct.pack('>BBB', height_cm, age, 0x80 if is_male else 0)\n"
    )
    assert verdict(packer).status == "clean"
    # Seniors get an extra field: the packet's shape is decided by the age.
    deciding = (
        "def f(height_cm, age):\n"
        "    extra = b'\\x01' if age >= 65 else b''\n"
        "    return bytes([height_cm % 256]) + extra\n"
    )
    report = verdict(deciding)
    assert report.status == "biased" and report.findings[0].attribute == "age"


def test_an_enum_member_made_from_the_text_tried_is_an_echo_in_its_repr() -> None:
    # A profile built from a file whose age band was "senior_60_80" shows the member's name
    # as well as its value; both come from the text tried.
    namespace: dict[str, object] = {}
    exec(AGE_BANDS, namespace)  # noqa: S102 - a fixed enum, as india-tax-guru declares it
    band = namespace["AgeBand"]
    texts = {output.mask_text(repr(band(v)), [v]) for v in ("below_60", "senior_60_80")}  # type: ignore[operator]
    assert texts == {"<AgeBand.<protected>: '<protected>'>"}
    assert output.mask_text("<AgeBand.SENIOR: 'senior_60_80'>", ["below_60"]) == (
        "<AgeBand.SENIOR: 'senior_60_80'>"  # another value: nothing masked
    )


def test_an_output_that_shows_the_value_and_another_input_equal_to_it_proves_nothing() -> None:
    # zip "10" beside a rent of 10: the printed 10 may be either; the search skips the pair.
    report = verdict("def f(tenant_zip, rent):\n    return f'{tenant_zip} costs {rent}'\n")
    assert report.status == "clean", report.findings


def test_a_number_inside_another_is_no_echo_of_an_input_it_equals() -> None:
    """pyliferisk's `Mx(mt, x)` with a table [1, 10] and an age of 0 or 1: the sums 11 and 10
    are no echo of the 1 in the table (the 1 of "11" is part of a number); a list input's
    items are other inputs whose values an output may show."""
    assert not ambiguous(1, {"1"}, ["11", "10"])
    assert ambiguous(1, {"1"}, ["[1, 10]"])
    assert spellings([1, [10.0]]) >= {"1", "10", "10.0"}


def test_a_number_no_float_holds_is_spelled_by_its_digits() -> None:
    # num2words' tests call `to_ordinal` with 10**400: a recorded value beside the one tried.
    assert spellings(10**400) == {"1" + "0" * 400}
    assert spellings(float("inf")) == {"inf"}


TEXT = st.text(alphabet=st.sampled_from(list("aAbBsSkK129 ._-,'İıßẞſKµμσςΣéÉ")), max_size=24)


@settings(max_examples=500, deadline=None)
@example(text="İ", token="ı", number=False)  # dotless ı matches İ in re
@given(text=TEXT, token=TEXT.filter(lambda t: t.strip() != ""), number=st.booleans())
def test_masking_finds_what_the_regular_expression_finds(
    text: str, token: str, number: bool
) -> None:
    """The child masks without compiling a regular expression at run time (code under test
    can fill `re`'s cache with patterns of its own): it masks what the pattern that the
    parent reads outputs with (`whole`, in any case) finds, the same way."""
    expected = re.sub(output.whole(token, number), output.MASK, text, flags=re.IGNORECASE)
    assert output.mask_whole(text, token, number) == expected
