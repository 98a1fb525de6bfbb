"""A program that takes the person on its command line (`main(argv=None)` with an argparse
parser, or `int(sys.argv[1])`) reads them from `sys.argv`: each option its parser declares
is an input named where argparse keeps it, typed by `type=`, closed to `choices=`; a
sub-command's options follow its name; each `sys.argv[i]` read is the i-th word. The harness
writes them into `sys.argv`, and what the program prints before returning 0 is its output
(analysis/inputs/command_line.py, harness/runner.py COMMAND_LINE)."""

from __future__ import annotations

from analysis_kit import leaf, model_of, verdict

from analysis.execution.harness.runner import command_words

# A calorie calculator's command line, its parser built by a helper, as tools write one.
CALORIES = """\
import argparse
import sys


def build_parser():
    parser = argparse.ArgumentParser(description="Daily calories")
    parser.add_argument("--weight", type=float, default=70.0)
    parser.add_argument("-a", "--age", type=int, required=True)
    parser.add_argument("--who", choices=["male", "female"], help="the patient's sex")
    parser.add_argument("--verbose", action="store_true")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    base = 10 * args.weight - 5 * args.age
    bmr = base + 5 if args.who == "male" else base - 161
    print(f"BMR: {bmr:.0f}")
    return 0


def same_for_all(argv=None):
    args = build_parser().parse_args(argv)
    print(f"{args.weight} kg")
    return 0


def fees():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="action")
    quote = commands.add_parser("quote")
    quote.add_argument("region", help="where the customer lives")
    commands.add_parser("version")
    args = parser.parse_args()
    if args.action == "quote":
        print(25 if args.region == "rural" else 10)


def script():
    age = int(sys.argv[1])
    print("senior" if age >= 65 else "adult")
"""


def test_each_option_is_an_input_named_typed_and_closed_as_its_parser_declares() -> None:
    model = model_of(CALORIES, "main")
    assert [x.category for x in model.protected] == ["age", "gender"]
    age, sex = leaf(model, "<argv>['--age']"), leaf(model, "<argv>['--who']")
    assert all(isinstance(v, int) for v in age.pool)
    assert sex.pool == ["male", "female"]  # choices=: nothing else is accepted
    assert leaf(model, "argv").pool == [None]  # so argparse reads sys.argv


def test_what_the_options_decide_is_proved_from_the_printed_answer() -> None:
    report = verdict(CALORIES, "main")
    assert sorted(f.attribute for f in report.findings) == ["age", "gender"], report.reason
    assert "printed: 'BMR:" in report.findings[0].example.outputs[0]
    assert verdict(CALORIES, "same_for_all").status == "clean"


def test_a_sub_commands_options_follow_its_name() -> None:
    report = verdict(CALORIES, "fees")
    assert [(f.attribute, f.parameter) for f in report.findings] == [
        ("region", "<argv>['quote region']")
    ]
    words = {"<command>": "quote", "--debug": True, "quote region": "rural", "quote --x": False}
    assert command_words(words) == ["--debug", "quote", "rural"]
    assert command_words({**words, "<command>": "version"}) == ["--debug", "version"]


def test_words_of_sys_argv_are_inputs_by_position() -> None:
    model = model_of(CALORIES, "script")
    assert [x.display for x in model.protected] == ["<argv>['age']"]
    assert [f.attribute for f in verdict(CALORIES, "script").findings] == ["age"]
