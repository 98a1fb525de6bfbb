"""Rows of people as tuples: a list whose items a loop unpacks (`for name, age in people`),
a row read at positions its module names (`row[SEX_COL]`) or unpacked whole (`name, age =
person`): each item is what the name it goes to says (analysis/facts/item_reads.py
`unpacked_rows`, tuple_reads.py `named_position`, inputs/leaves.py `named_row`)."""

from __future__ import annotations

from analysis_kit import model_of, verdict

ROWS = """\
SEX_COL = 3


def adults(people):
    return [name for name, age in people if age >= 30]


def ranked(people):
    return sorted(name for i, (name, ethnicity) in enumerate(people) if ethnicity != "Black")


def rate(row):
    return 1.2 if row[SEX_COL] == "female" else 1.0


def label(person):
    name, age = person
    return name.upper() if age > 60 else name


def risk_row(x):
    age, sex, chol = x[0], x[1], x[2]
    return (2.0 if age > 60 else 1.0) * (1.2 if sex == 1 else 1.0) + chol / 100


def pairs(points):
    return [x + y for x, y in points]


class Patient:
    def __init__(self, characteristics: list, ts: float = 1.0):
        self.age = characteristics[0]
        self.weight = characteristics[2]
        self.gender = characteristics[3]
        self.lbm = 1.1 * self.weight if self.gender == 1 else 1.07 * self.weight
        self.ts = ts

    def clearance(self, dose):
        return dose * self.lbm / (1 + max(self.age - 53, 0) / 100)


def first_two(pair: tuple[float, float]):
    record = {}
    record["age"] = pair[0]
    return record["age"] * pair[1]
"""


def protected(name: str) -> list[tuple[str, str | None]]:
    return [(leaf.display, leaf.category) for leaf in model_of(ROWS, name).protected]


def test_the_items_a_loop_unpacks_are_named_by_their_locals() -> None:
    assert protected("adults") == [("people[0][1]", "age")]
    assert protected("ranked") == [("people[0][1]", "race")]
    assert protected("pairs") == []
    assert verdict(ROWS, "adults").biased_attributes == ["age"]


def test_a_row_read_at_a_named_position_or_unpacked_is_what_its_names_say() -> None:
    assert protected("rate") == [("row[3]", "gender")]
    assert protected("label") == [("person[1]", "age")]
    assert verdict(ROWS, "rate").biased_attributes == ["gender"]
    assert verdict(ROWS, "label").biased_attributes == ["age"]


def test_a_row_whose_items_are_taken_one_by_one_is_named_by_their_locals() -> None:
    assert protected("risk_row") == [("x[0]", "age"), ("x[1]", "gender")]
    assert verdict(ROWS, "risk_row").biased_attributes == ["age", "gender"]


def test_a_declared_list_whose_items_go_to_named_fields_is_a_row() -> None:
    # `patient: list` read as `self.age = patient[0]`, `self.gender = patient[3]`: the
    # annotation says only that it is a list; the fields it fills say what is where.
    assert protected("Patient.__init__") == [
        ("characteristics[0]", "age"), ("characteristics[3]", "gender"),
    ]  # fmt: skip
    assert protected("first_two") == [("pair[0]", "age")]
    assert verdict(ROWS, "Patient.clearance").biased_attributes == ["age", "gender"]
