"""A recorded call as the search's base (analysis/evidence/bases.py, pool.py): the protected
leaves found inside the recorded arguments by the usual naming rules, and the values tried
at each, of the recorded value's own kind and spelling."""

from __future__ import annotations

import ast
import datetime
from typing import Any

from analysis.evidence.bases import known_categories, lend_values, recorded_model
from analysis.evidence.calls import FunctionKey, RecordedCall, RecordedParam
from analysis.evidence.described import Reader
from analysis.evidence.pool import around_number
from analysis.facts.module import ModuleFacts
from analysis.inputs.builder import InputBuilder
from analysis.shapes import InputModel, Leaf
from analysis.source.functions import find_function
from analysis.values import DateValue, EnumMember
from config.policy import default_policy


def scalar(value: Any, kind: str | None = None, **extra: Any) -> dict[str, Any]:
    kind = kind or {bool: "bool", int: "int", float: "float", str: "str"}[type(value)]
    return {"t": "scalar", "kind": kind, "v": value, **extra}


def model(source: str, *params: tuple[str, str, dict[str, Any]], qualname: str = "f") -> InputModel:
    tree = ast.parse(source)
    info = find_function(tree, qualname)
    assert info is not None
    reader = Reader()
    position = 0
    recorded = []
    for name, how, node in params:
        where: int | str = name if how == "kw" else position
        position += how != "kw"
        recorded.append(RecordedParam(name, how, where, reader.node(node)))  # type: ignore[arg-type]
    call = RecordedCall("c1", FunctionKey("case.py", qualname), "tests/t.py::test", tuple(recorded))
    policy = default_policy()
    builder = InputBuilder(ModuleFacts(tree), policy)
    # As the replay does: the synthesised model first, whose categories the call's paths take.
    known = known_categories(builder.build(info))
    return recorded_model(call, info, builder, policy, known=known)


def leaves(m: InputModel) -> dict[str, Leaf]:
    return {leaf.display: leaf for leaf in m.protected}


FRAME = {
    "t": "frame", "type": "DataFrame", "rows": 3,
    "columns": [
        ["sex", {"dtype": "object", "values": [scalar("M"), scalar("F"), scalar("M")]}],
        ["AGEP", {"dtype": "int64", "values": [scalar(34), scalar(70), scalar(12)]}],
        ["income", {"dtype": "int64", "values": [scalar(10)]}],
    ],
}  # fmt: skip


def test_a_frame_s_protected_columns_give_the_first_row_and_every_row() -> None:
    found = leaves(model("def f(df):\n    return df\n", ("df", "arg", FRAME)))
    assert sorted(found) == ["df['AGEP'][*]", "df['AGEP'][0]", "df['sex'][*]", "df['sex'][0]"]
    assert found["df['sex'][0]"].path == (("param", "df"), ("key", "sex"), ("rows", 0))
    assert found["df['sex'][0]"].pool == ["M", "F"]  # the data set's own codes, one letter
    ages = found["df['AGEP'][0]"].pool
    assert ages[0] == 34 and all(isinstance(a, int) for a in ages)
    assert 70 in ages and min(ages) <= 18 and max(ages) >= 90  # the peers', and the range


def test_the_age_axis_of_a_table_is_no_person_but_a_frame_of_people_s_ages_is() -> None:
    # A mortality table: one row per age, 0 to 120; the first five recorded step by one.
    table = {
        "t": "frame", "type": "DataFrame", "rows": 121,
        "columns": [
            ["age", {"dtype": "int64", "values": [scalar(a) for a in range(5)]}],
            ["qx", {"dtype": "float64", "values": [scalar(0.001 * (a + 1)) for a in range(5)]}],
        ],
    }  # fmt: skip
    assert leaves(model("def f(table):\n    return table\n", ("table", "arg", table))) == {}
    ages = {"t": "seq", "type": "list", "len": 100, "items": [scalar(a) for a in range(0, 25, 5)]}
    assert leaves(model("def f(ages):\n    return ages\n", ("ages", "arg", ages))) == {}
    # Twelve people whose ages a test spread out, not evenly: each a person.
    people = {
        "t": "frame", "type": "DataFrame", "rows": 12,
        "columns": [["age", {"dtype": "int64",
                             "values": [scalar(a) for a in (30, 45, 52, 61, 70)]}]],
    }  # fmt: skip
    found = leaves(model("def f(people):\n    return people\n", ("people", "arg", people)))
    assert sorted(found) == ["people['age'][*]", "people['age'][0]"]


def test_records_objects_and_lists_of_people_by_their_keys_and_fields() -> None:
    person = {"t": "map", "type": "dict", "len": 3, "items": [
        ["name", scalar("Ann")], ["gender", scalar("Male")],
        ["profile", {"t": "object", "type": "Profile", "how": "dataclass",
                     "fields": [["date_of_birth", scalar("1980-05-01", "date")]]}],
    ]}  # fmt: skip
    people = {"t": "seq", "type": "list", "items": [person, person], "len": 2}
    found = leaves(model("def f(applicants):\n    return 1\n", ("applicants", "arg", people)))
    assert sorted(found) == [
        "applicants[*]['gender']",
        "applicants[*]['profile'].date_of_birth",
        "applicants[0]['gender']",
        "applicants[0]['profile'].date_of_birth",
    ]
    # Text stays text in the spelling recorded: "Male" is tried as "Female", not "female".
    assert found["applicants[0]['gender']"].pool[:3] == ["Male", "Female", "Non-binary"]
    dates = found["applicants[0]['profile'].date_of_birth"].pool
    assert dates[0] == DateValue("1980-05-01") and DateValue("1950-05-01") in dates


def test_a_value_says_its_category_where_no_name_does_but_not_in_a_name_field() -> None:
    # `{"g": "female"}`, a column `c3` of "Hispanic" and "Asian": the key says nothing, the
    # recorded values do. A first name "Christian" is no religion; `White` alone a colour.
    record = {"t": "map", "type": "dict", "len": 4, "items": [
        ["g", scalar("female")], ["first_name", scalar("Christian")],
        ["colour", scalar("White")], ["n", scalar("Ann")],
    ]}  # fmt: skip
    found = leaves(model("def f(person):\n    return 1\n", ("person", "arg", record)))
    assert list(found) == ["person['g']"]
    assert found["person['g']"].category == "gender"
    assert found["person['g']"].pool[:2] == ["female", "male"]
    races = [scalar(v) for v in ("Hispanic", "Asian", "Other")]
    directions = [scalar(v) for v in ("north", "south", "east")]
    cohort = {
        "t": "frame", "type": "DataFrame", "rows": 3,
        "columns": [
            ["c3", {"dtype": "object", "values": races}],
            ["c4", {"dtype": "object", "values": directions}],
        ],
    }  # fmt: skip
    found = leaves(model("def f(df):\n    return df\n", ("df", "arg", cohort)))
    assert sorted(found) == ["df['c3'][*]", "df['c3'][0]"]
    assert found["df['c3'][0]"].category == "race"


def test_a_value_field_carries_its_parent_s_category() -> None:
    measured = {"t": "map", "type": "dict", "len": 2,
                "items": [["value", scalar(17)], ["unit", scalar("years")]]}  # fmt: skip
    patient = {"t": "map", "type": "dict", "len": 1, "items": [["age", measured]]}
    found = leaves(model("def f(patient):\n    return 1\n", ("patient", "arg", patient)))
    assert list(found) == ["patient['age']['value']"]


def test_a_declared_literal_enum_and_flag_keep_to_their_own_values() -> None:
    applicant = {"t": "object", "type": "A", "how": "pydantic", "fields": [
        ["sex", scalar("M", choices=["M", "F", "X"])],
        ["race", {"t": "enum", "type": "Race", "member": "WHITE", "members": ["WHITE", "BLACK"]}],
        ["is_female", scalar(False)],
    ]}  # fmt: skip
    found = leaves(model("def f(a):\n    return 1\n", ("a", "arg", applicant)))
    assert found["a.sex"].pool == ["M", "F", "X"] and found["a.sex"].declared == ("M", "F", "X")
    assert found["a.race"].pool == [EnumMember("Race", "WHITE"), EnumMember("Race", "BLACK")]
    assert found["a.is_female"].pool == [False, True]


def test_values_from_the_code_come_first_and_keep_their_spelling() -> None:
    source = "def f(p):\n    if p['sex'] == 'FEMALE':\n        return 1\n    return p['age'] > 64\n"
    person = {"t": "map", "type": "dict", "len": 2,
              "items": [["sex", scalar("MALE")], ["age", scalar(30)]]}  # fmt: skip
    found = leaves(model(source, ("p", "arg", person)))
    assert found["p['sex']"].pool[:2] == ["MALE", "FEMALE"]
    assert found["p['age']"].pool[:4] == [30, 63, 64, 65]


def test_a_year_of_birth_is_tried_as_other_years() -> None:
    # 1950 is past every age: a year of birth, tried as the code's years and the policy's
    # ages as years (never as an age of 30, which `< 1960` would read as born in year 30).
    source = "def f(p):\n    return p['dob_year'] < 1960\n"
    person = {"t": "map", "type": "dict", "len": 1, "items": [["dob_year", scalar(1950)]]}
    pool = leaves(model(source, ("p", "arg", person)))["p['dob_year']"].pool
    assert pool[:4] == [1950, 1959, 1960, 1961]
    assert all(1900 <= year <= datetime.date.today().year for year in pool)


def test_a_name_the_docstring_calls_an_age_is_an_age_in_the_recorded_call_too() -> None:
    source = (
        "def annuity(mt, x):\n"
        '    """Args:\n        mt: the table\n        x: the age of the annuitant\n    """\n'
        "    return mt[x]\n"
    )
    table = {"t": "seq", "type": "list", "len": 2, "items": [scalar(0.1), scalar(0.2)]}
    args = ("mt", "arg", table), ("x", "arg", scalar(40))
    found = leaves(model(source, *args, qualname="annuity"))
    assert list(found) == ["x"] and found["x"].category == "age"


def test_weak_categories_count_only_where_the_code_is_about_people() -> None:
    request = {"t": "map", "type": "dict", "len": 1, "items": [["region", scalar("us-east-1")]]}
    source = "def upload_file(bucket, headers):\n    return 1\n"
    found = leaves(model(source, ("bucket", "arg", scalar("b")), ("headers", "arg", request),
                         qualname="upload_file"))  # fmt: skip
    assert found == {}


def test_keywords_a_call_passed_through_kwargs_say_what_the_function_is_about() -> None:
    # num2words' `__chunk_cardianl(self, hundreds, tens, ones, chunk_num, **kwargs)`, called
    # with `case`, `plural`, `gender`: a numeral's grammatical gender, no person's.
    source = "def chunk(hundreds, **kwargs):\n    return kwargs['gender']\n"
    numeral = model(
        source,
        ("hundreds", "arg", scalar(1)),
        ("plural", "kw", scalar(False)),
        ("gender", "kw", scalar("m")),
        qualname="chunk",
    )
    assert leaves(numeral) == {}
    person = model(
        source, ("hundreds", "arg", scalar(1)), ("gender", "kw", scalar("m")), qualname="chunk"
    )
    assert list(leaves(person)) == ["gender"]


def test_a_class_method_s_cls_is_not_passed_again() -> None:
    source = "class Q:\n    @classmethod\n    def f(cls, age):\n        return age\n"
    m = model(source, ("cls", "arg", {"t": "opaque", "type": "type"}), ("age", "arg", scalar(40)),
              qualname="Q.f")  # fmt: skip
    assert [p.name for p in m.params] == ["age"]
    args, kwargs = m.assemble({})
    assert args == [{"__cb__": "recorded", "call": "c1", "param": 1, "set": []}]


def test_a_context_sets_only_the_leaves_it_names_and_shows_the_changed_value() -> None:
    source = "def f(df, rate=1):\n    return df\n"
    m = model(source, ("df", "arg", FRAME), ("rate", "kw", scalar(2)))
    leaf = leaves(m)["df['sex'][0]"]
    args, kwargs = m.assemble({leaf.path: "F"})
    assert args == [{"__cb__": "recorded", "call": "c1", "param": 0,
                     "set": [[[["key", "sex"], ["rows", 0]], "F"]]}]  # fmt: skip
    assert kwargs == {"rate": {"__cb__": "recorded", "call": "c1", "param": "rate", "set": []}}
    shown = m.plain({leaf.path: "F"})
    assert shown["df"]["sex"] == ["F", "F", "M"] and shown["rate"] == 2


def test_another_input_s_number_is_moved_in_its_own_arithmetic() -> None:
    # num2words' tests pass 10**400, past any float: doubled, times ten and halved as a whole
    # number; the code's 1000.0 tried as 1000.
    values = around_number(10**400, [1000.0, 2.5]).values
    assert values[0] == 10**400
    assert {1000, 2.5, 2 * 10**400, 10**401, 10**400 // 2, 0} == set(values[1:])
    assert around_number(1.5, []).values == [1.5, 3.0, 15.0, 0.75, 0]


def test_an_age_recorded_as_its_band_is_tried_as_other_bands_so_written() -> None:
    source = "def f(p):\n    return TABLE.get(p['age_bucket'] + '|' + p['sex'])\n"
    person = {"t": "map", "type": "dict", "len": 2,
              "items": [["age_bucket", scalar("30-39")], ["sex", scalar("M")]]}  # fmt: skip
    pool = leaves(model(source, ("p", "arg", person)))["p['age_bucket']"].pool
    assert pool[0] == "30-39" and {"60-69", "70-79", "65+"} <= set(pool)
    person["items"][0] = ["age_bucket", scalar("18 - 24")]
    pool = leaves(model(source, ("p", "arg", person)))["p['age_bucket']"].pool
    assert pool[0] == "18 - 24" and "25 - 31" in pool and "60 - 66" in pool


def test_a_parameter_takes_the_values_the_project_passed_by_its_name() -> None:
    source = "def score(metric_key, value, sex):\n    return lookup(metric_key, value, sex)\n"
    tree = ast.parse(source)
    info = find_function(tree, "score")
    assert info is not None
    synthesised = InputBuilder(ModuleFacts(tree), default_policy()).build(info)
    reader = Reader()
    passed = (
        RecordedParam("metric_key", "arg", 0, reader.node(scalar("rhr"))),  # type: ignore[arg-type]
        RecordedParam("sex", "arg", 1, reader.node(scalar("M"))),  # type: ignore[arg-type]
    )
    call = RecordedCall("c1", FunctionKey("case.py", "lookup"), "README.md example", passed)
    lend_values(synthesised, [call])
    by_name = {leaf.name: leaf for leaf in synthesised.leaves}
    key = by_name["metric_key"]
    assert key.pool[key.typical] == "rhr" and key.from_code == 1
    assert "rhr" not in by_name["value"].pool  # another name: nothing lent
    assert by_name["sex"].pool[0] != "M" or by_name["sex"].from_code  # protected: its own pool
