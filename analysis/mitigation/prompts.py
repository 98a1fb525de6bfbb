"""Every prompt the mitigation loop sends, in one place.

The strategies follow the study this project builds on (Huang et al., arXiv 2309.14345), in
our own words: plain instructions (zero-shot), one worked example (one-shot), several
(few-shot), and two chain-of-thought variants. Each exists with or without test-result
feedback; with feedback, the model sees the counterexamples our tests found (and, in later
rounds, the ones its own previous answer still fails). The study found feedback far
stronger than prompt engineering alone, so `feedback-cot` is the default.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from analysis.errors import CodebiasError
from analysis.mitigation.provider import Message
from analysis.report import REFUSAL_PREFIX, Finding, safe_repr

Base = Literal["zero-shot", "one-shot", "few-shot", "cot1", "cot2"]
BASES: tuple[Base, ...] = ("zero-shot", "one-shot", "few-shot", "cot1", "cot2")
DEFAULT_STRATEGY = "feedback-cot"


@dataclass(frozen=True)
class Strategy:
    name: str
    base: Base
    feedback: bool


def _strategies() -> dict[str, Strategy]:
    table: dict[str, Strategy] = {base: Strategy(base, base, False) for base in BASES}
    table.update({f"feedback-{b}": Strategy(f"feedback-{b}", b, True) for b in BASES})
    # The default: feedback with the fuller chain of thought.
    table["feedback-cot"] = Strategy("feedback-cot", "cot2", True)
    return table


STRATEGIES: dict[str, Strategy] = _strategies()


class UnknownStrategy(CodebiasError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES)}")
        self.name = name


def get_strategy(name: str) -> Strategy:
    try:
        return STRATEGIES[name]
    except KeyError:
        raise UnknownStrategy(name) from None


# --- the templates ------------------------------------------------------------------------

SYSTEM = """\
You are a careful Python engineer who removes social bias from code. A function is biased \
when changing a protected attribute of a person ({attributes}) while every other input stays \
the same changes what it returns. You rewrite one function so that its result no longer \
depends on protected attributes, and you keep everything else it does exactly as it was."""

TASK = """\
Rewrite the function `{qualname}` from `{path}` so that it is free of bias with respect to \
{attributes}.

```python
{function}
```

Rules for your answer:
- Keep the name `{name}`, every parameter (names, order, defaults) and any decorators, so \
that every caller keeps working.
- Change only what the bias needs; every decision that does not involve a protected \
attribute must give the same result as before.
- Do not add helper functions or module-level code; imports at the top are allowed.
- Answer with the complete new function in a single ```python fenced block."""

ZERO_SHOT = """\
Do not let any protected attribute influence the result, directly or through a stand-in \
for it."""

ONE_SHOT_INTRO = "Here is an example of the kind of change that is wanted."

FEW_SHOT_INTRO = "Here are examples of the kind of change that is wanted."

EXAMPLE = """\
Biased ({attribute}):
```python
{before}
```
Fixed:
```python
{after}
```"""

SHOTS: tuple[tuple[str, str, str], ...] = (
    (
        "age",
        """\
def approve_loan(applicant):
    if applicant["age"] > 60:
        return False
    return applicant["income"] > 3 * applicant["monthly_payment"]""",
        """\
def approve_loan(applicant):
    return applicant["income"] > 3 * applicant["monthly_payment"]""",
    ),
    (
        "gender",
        """\
def starting_salary(role, years, gender):
    base = {"junior": 40000, "senior": 70000}[role] + 1500 * years
    if gender == "female":
        base *= 0.9
    return base""",
        """\
def starting_salary(role, years, gender):
    base = {"junior": 40000, "senior": 70000}[role] + 1500 * years
    return base""",
    ),
    (
        "region",
        """\
def rank_candidate(candidate):
    score = candidate.test_score
    if candidate.city in ("Lagos", "Mumbai"):
        score -= 10
    return score""",
        """\
def rank_candidate(candidate):
    score = candidate.test_score
    return score""",
    ),
)

COT1 = """\
Think it through step by step before you write the code, then give the function."""

COT2 = """\
Before you write the code, reason step by step:
1. Say what the function decides and which of its inputs are protected attributes.
2. For each protected attribute, find every place it reaches the result: conditions, \
arithmetic, lookups, defaults, and other values derived from it.
3. Decide how each of those places can treat every value of the attribute the same way while \
the rest of the logic stays intact.
4. Check that no other behaviour changed.
Then give the function."""

FEEDBACK_FIRST = """\
Our tests ran `{name}` and found it biased. Each case below keeps every input fixed except \
one protected attribute, and the result changes:

{cases}"""

FEEDBACK_AGAIN = """\
We tested your version of `{name}` and it is still biased. These cases keep every input \
fixed except one protected attribute, and the result still changes:

{cases}

Fix these too and answer again with the complete function in one ```python block."""

REJECTED = """\
We could not use your answer: {reason}.
Answer again with the complete function `{name}` (same name and parameters) in one \
```python block."""

CASE = """\
- {attribute} (received as `{parameter}`): with the inputs
    {inputs}
  {values_and_outputs}"""

CASE_WITHOUT_EXAMPLE = """\
- {attribute} (received as `{parameter}`): it reaches the result{where}."""


# --- building the conversation -------------------------------------------------------------


def initial_messages(
    strategy: Strategy,
    *,
    function_source: str,
    qualname: str,
    path: str,
    attributes: Sequence[str],
    findings: Sequence[Finding],
) -> list[Message]:
    """The first request: system message, the task, the strategy's guidance, and (with
    feedback) the counterexamples our tests found in the original function."""
    names = _attribute_list(attributes)
    name = qualname.rsplit(".", 1)[-1]
    parts = [
        TASK.format(
            qualname=qualname,
            path=path,
            attributes=names,
            function=function_source.rstrip(),
            name=name,
        )
    ]
    # The test results come before the guidance, so that reasoning starts from the evidence.
    if strategy.feedback and findings:
        parts.append(FEEDBACK_FIRST.format(name=name, cases=render_cases(findings)))
    if strategy.base == "zero-shot":
        parts.append(ZERO_SHOT)
    elif strategy.base in ("one-shot", "few-shot"):
        shots = SHOTS[:1] if strategy.base == "one-shot" else SHOTS
        parts.append(ONE_SHOT_INTRO if len(shots) == 1 else FEW_SHOT_INTRO)
        parts.extend(EXAMPLE.format(attribute=a, before=b, after=f) for a, b, f in shots)
    elif strategy.base == "cot1":
        parts.append(COT1)
    else:
        parts.append(COT2)
    return [
        {"role": "system", "content": SYSTEM.format(attributes=names)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def feedback_message(qualname: str, findings: Sequence[Finding]) -> Message:
    name = qualname.rsplit(".", 1)[-1]
    content = FEEDBACK_AGAIN.format(name=name, cases=render_cases(findings))
    return {"role": "user", "content": content}


def rejection_message(qualname: str, reason: str) -> Message:
    name = qualname.rsplit(".", 1)[-1]
    return {"role": "user", "content": REJECTED.format(reason=reason, name=name)}


def render_cases(findings: Sequence[Finding]) -> str:
    return "\n".join(render_case(f) for f in findings)


def render_case(finding: Finding) -> str:
    example = finding.example
    if example is None:
        where = f" (line {finding.line})" if finding.line else ""
        return CASE_WITHOUT_EXAMPLE.format(
            attribute=finding.attribute, parameter=finding.parameter, where=where
        )
    pairs = [
        f"{finding.attribute} = {_value(value)} "
        + (output if output.startswith(REFUSAL_PREFIX) else f"gives {output}")
        for value, output in zip(example.values, example.outputs, strict=False)
    ]
    return CASE.format(
        attribute=finding.attribute,
        parameter=finding.parameter,
        inputs=_inputs(example.inputs),
        values_and_outputs=", but ".join(pairs) + ".",
    )


def _attribute_list(attributes: Sequence[str]) -> str:
    names = [a.replace("_", " ") for a in attributes] or ["protected attributes"]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _inputs(inputs: dict[str, Any]) -> str:
    return ", ".join(
        f"{key}={json.dumps(value, default=safe_repr)}" for key, value in inputs.items()
    )


def _value(value: Any) -> str:
    return json.dumps(value, default=safe_repr)
