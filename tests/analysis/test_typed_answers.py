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


# A quote script that asks through a helper of its own, which asks again until the answer is
# valid (the age prompt in another language: "Surucu Yasi", kept in `yas`).
HELPERS = """\
def ask_number(message, minimum=0):
    while True:
        try:
            value = int(input(message))
        except ValueError:
            print("a number, please")
            continue
        if value >= minimum:
            return value
        print("too small")


def ask_text(message):
    return input(message).strip().lower()


def quote():
    yas = ask_number("> Surucu Yasi: ", 18)
    cars = ask_number("> Cars: ")
    where = ask_text("Do you live in a city or the countryside (urban/rural)? ")
    factor = 1.45 if yas < 26 else 1.0
    print(f"premium: {1000 * factor * cars * (1.2 if where == 'urban' else 1.0):.0f}")


def greeting():
    yas = ask_number("Age: ", 18)
    print("welcome" if yas >= 0 else "welcome")
"""


def test_a_helper_asking_at_the_prompt_it_is_handed_is_a_prompt() -> None:
    model = model_of(HELPERS, "quote")
    assert [leaf.name for leaf in model.leaves] == ["yas", "cars", "where"]
    assert [leaf.category for leaf in model.protected] == ["age", "region"]
    age = next(x for x in model.leaves if x.name == "yas")
    assert all(isinstance(v, int) for v in age.pool)  # the helper reads a number


def test_answers_typed_at_a_helper_s_prompts_prove_what_they_decide() -> None:
    report = verdict(HELPERS, "quote")
    assert sorted(f.attribute for f in report.findings) == ["age", "region"], report.reason
    assert verdict(HELPERS, "greeting").status == "clean"
    # The helper itself is asked at its own `input()`: one answer, its message no person.
    assert [leaf.name for leaf in model_of(HELPERS, "ask_number").leaves] == [
        "message",
        "minimum",
        "value",
    ]


# A prompt kept in a name before it is asked, an f-string showing the default that Enter
# keeps, the answer read as `input(prompt) or default`.
DEFAULTS = """\
def retirement(existing):
    while True:
        default = existing.get("last", "M")
        prompt = f"Podaj płeć (M/K) [{default}]: "
        answer = (input(prompt) or default).upper()
        if answer in ("M", "K"):
            break
    return 65 if answer == "M" else 60
"""


def test_a_prompt_kept_in_a_name_and_an_answer_with_a_default_are_read() -> None:
    model = model_of(DEFAULTS, "retirement")
    assert [leaf.category for leaf in model.protected] == ["gender"]
    assert verdict(DEFAULTS, "retirement").biased_attributes == ["gender"]


# The default Enter keeps is the sex's: only an empty answer shows it (dni-do-emerytury's
# `input(f"... [{default_age}]: ") or str(default_age)`).
ENTER_KEEPS = """\
def configure():
    sex = input("Płeć (M/K): ").strip().upper()
    default_age = 65 if sex == "M" else 60
    age = int(input(f"Wiek emerytalny [{default_age}]: ") or default_age)
    return {"sex": sex, "retirement_age": age}
"""


def test_an_answer_with_a_default_is_also_left_empty() -> None:
    assert verdict(ENTER_KEEPS, "configure").biased_attributes == ["gender"]
