"""Scoring one scan of one package: counts, unverified reasons, and agreement with the labels.

Pure functions over the JSON report (schemas/report.schema.json) and the labels; nothing here
runs anything, so the test suite checks the arithmetic on small hand-made reports.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from corpus import Label, enabled_categories

# Reasons as the engine words them today, folded into a few groups for the table; anything
# else is kept verbatim (cut short) so a new kind of reason shows up rather than hiding.
_REASON_GROUPS: tuple[tuple[str, str], ...] = (
    (r"attempted relative import", "relative import"),
    (r"No module named '([\w.]+)'", "missing module"),
    (r"ImportError", "import error"),
    (r"every call raised", "every call raised"),
    (r"could not be parsed|does not parse|SyntaxError|syntax error", "syntax error"),
    (r"time(d)? ?out|timeout|budget", "time/budget"),
    (r"cannot build|could not build|no value", "inputs not built"),
)


def reason_group(reason: str | None) -> str:
    text = reason or "(no reason)"
    for pattern, group in _REASON_GROUPS:
        if re.search(pattern, text, re.IGNORECASE):
            return group
    return text[:60]


def module_of(reason: str | None) -> str | None:
    """The top-level module a 'No module named X' reason names, if any."""
    found = re.search(r"No module named '([\w.]+)'", reason or "")
    return found.group(1).split(".")[0] if found else None


def is_dynamic(finding: dict[str, Any]) -> bool:
    """A finding proved by a counterexample (reports may or may not carry `method`)."""
    return finding.get("method", "dynamic") == "dynamic" and "example" in finding


def function_key(report_function: dict[str, Any]) -> str:
    path = str(report_function["path"]).removeprefix("./")
    return f"{path}::{report_function['qualname']}"


@dataclass
class Score:
    """One package, one mode: what the engine did and how it compares with the labels."""

    functions: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    unverified: Counter[str] = field(default_factory=Counter)  # reason group -> functions
    missing_modules: Counter[str] = field(default_factory=Counter)
    biased_functions: int = 0
    labelled_pairs: int = 0  # (function, attribute) pairs labelled biased, categories tested
    proved: list[str] = field(default_factory=list)  # pairs with status biased + dynamic finding
    detected: list[str] = field(default_factory=list)  # pairs with any finding (dynamic or static)
    missed: list[str] = field(default_factory=list)  # labelled pairs not detected, with why
    true_alarms: int = 0  # proved (function, attribute) pairs that a label says biased
    false_alarms: list[str] = field(default_factory=list)  # proved pairs against the labels
    # Static findings (never `biased`, counted in `detected`) on pairs the labels say are not
    # biased, or any in a general library: what "detected" costs a reader.
    static_alarms: list[str] = field(default_factory=list)
    not_reported: list[str] = field(default_factory=list)  # labelled functions absent

    @property
    def tested(self) -> int:
        return self.statuses["biased"] + self.statuses["clean"]

    @property
    def biased_findings(self) -> int:
        return self.true_alarms + len(self.false_alarms)


def score(
    report: dict[str, Any],
    labels: list[Label],
    *,
    general: bool,
    enabled: frozenset[str] | None = None,
) -> Score:
    """Compare a report with a package's labels.

    A biased finding counts as true only when a label says biased for that attribute (in
    `biased[...]`, or under `other:` for a category `enabled`: by default, those the built-in
    policy tests); on a general library every biased finding is a false alarm (their expected
    result is zero), and on a person package an unlabelled function's biased finding is one too.
    """
    tested = enabled_categories() if enabled is None else enabled
    expected = {label.function: label.biased_for(tested) for label in labels}
    out = Score()
    by_key = {function_key(f): f for f in report.get("functions", [])}
    out.functions = len(by_key)
    for fn in by_key.values():
        out.statuses[fn["status"]] += 1
        if fn["status"] in ("unverified", "error"):
            out.unverified[f"{fn['status']}: {reason_group(fn.get('reason'))}"] += 1
            module = module_of(fn.get("reason"))
            if module:
                out.missing_modules[module] += 1
        if fn["status"] == "biased":
            out.biased_functions += 1
    labelled = {label.function: label for label in labels}
    for key, fn in by_key.items():
        label = labelled.get(key)
        # Counted per (function, attribute) pair, as tests/corpus/measure.py counts: two
        # parameters carrying the same attribute make one finding here.
        proved_here = {
            f["attribute"] for f in fn.get("findings", [])
            if fn["status"] == "biased" and is_dynamic(f)
        }
        biased_for = expected.get(key, frozenset())
        for attribute in sorted(proved_here):
            pair = f"{key} [{attribute}]"
            if not general and attribute in biased_for:
                out.true_alarms += 1
            else:
                why = "unlabelled" if label is None else f"labelled {label.verdict}"
                if label is not None and label.verdict == "biased":
                    why = f"labelled biased[{', '.join(sorted(label.attributes))}]"
                out.false_alarms.append(f"{pair} ({why})")
        judged = {
            f["attribute"] for f in fn.get("findings", []) if not is_dynamic(f)
        } - proved_here
        for attribute in sorted(judged):
            wrong = general or (label is not None and attribute not in biased_for)
            if wrong:
                out.static_alarms.append(f"{key} [{attribute}]")
    for label in labels:
        if not expected[label.function]:
            continue
        fn = by_key.get(label.function)
        if fn is None:
            out.not_reported.append(label.function)
        for attribute in sorted(expected[label.function]):
            out.labelled_pairs += 1
            pair = f"{label.function} [{attribute}]"
            if fn is None:
                out.missed.append(f"{pair}: not in the report")
                continue
            found = [f for f in fn.get("findings", []) if f["attribute"] == attribute]
            dynamic = [f for f in found if is_dynamic(f)]
            if fn["status"] == "biased" and dynamic:
                out.proved.append(pair)
            if found:
                out.detected.append(pair)
            if not (fn["status"] == "biased" and dynamic):
                tested = attribute in (fn.get("attributes_tested") or [])
                why = fn["status"]
                if not tested:
                    why += f", {attribute} not among its inputs"
                reason = fn.get("reason")
                out.missed.append(f"{pair}: {why}" + (f" ({reason[:90]})" if reason else ""))
    return out


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "n/a"
