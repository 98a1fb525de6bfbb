"""A function that asks for the person at its own prompts (`age = int(input("Your age: "))`)
takes them from standard input: each `input()` it calls is an input of its own, named by the
variable it is kept in or by its prompt, a number when `int()` or `float()` reads it, typed
at the prompt by the harness (analysis/inputs/answers.py, harness/runner.py ANSWERS)."""

from __future__ import annotations

from analysis_kit import model_of, verdict

# A student's calorie calculator, as interactive scripts write one.
CALORIES = """\
def advice():
    name = input("Name: ")
    age = int(input("Your age: "))
    sex = input("Sex (M/F)? ").strip().upper()
    weight = float(input("Weight in kg: "))
    base = 10 * weight - 5 * age
    bmr = base - 161 if sex == "F" else base + 5
    print(f"{name}: {bmr:.0f} kcal")


def region_fee():
    reply = input("Where do you live (urban/rural)? ")
    return 20 if reply == "rural" else 10


def same_for_all():
    age = int(input("Age: "))
    return "welcome" if age >= 0 else "welcome"
"""


def test_each_prompt_is_an_input_named_by_where_its_answer_is_kept() -> None:
    model = model_of(CALORIES, "advice")
    assert [leaf.name for leaf in model.leaves] == ["name", "age", "sex", "weight"]
    assert [leaf.category for leaf in model.protected] == ["age", "gender"]
    assert all(isinstance(v, int) for v in next(x for x in model.leaves if x.name == "age").pool)


def test_what_the_answers_decide_is_proved_from_the_prompts() -> None:
    report = verdict(CALORIES, "advice")
    assert sorted(f.attribute for f in report.findings) == ["age", "gender"], report.reason
    assert {f.parameter for f in report.findings} == {"<stdin>[1]", "<stdin>[2]"}
    # named by its prompt when no variable keeps it
    assert [f.attribute for f in verdict(CALORIES, "region_fee").findings] == ["region"]
    assert verdict(CALORIES, "same_for_all").status == "clean"
