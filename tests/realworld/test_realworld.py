"""The real-world corpus: its files are well-formed, and codebias scans it without a crash.

The measurement (marked `realworld`) fetches the pinned sdists from PyPI into the cache and runs
`codebias scan` on each package from a venv holding codebias alone ("bare": as the App sees a
repository). The "with dependencies" mode builds one venv per package (several minutes the
first time) and runs only when CODEBIAS_REALWORLD_MODES includes "deps". The floors below are
the baseline figures: raise them as the engine improves (issues 9 and 10 set the targets).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from corpus import (
    DEFAULT_CATEGORIES,
    CorpusError,
    check_proofs_cover_labels,
    load_labels,
    load_manifest,
    load_proofs,
    parse_label,
)
from score import reason_group, score
from table import totals


def _measure_module() -> object:
    """measure.py under a name of its own: tests/corpus has a measure.py too, and both are
    imported by bare name from folders put on sys.path, so the first would shadow the other."""
    spec = importlib.util.spec_from_file_location(
        "realworld_measure", Path(__file__).with_name("measure.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["realworld_measure"] = module
    spec.loader.exec_module(module)
    return module


_measure = _measure_module()
ROOT = _measure.ROOT  # type: ignore[attr-defined]
crash_reason = _measure.crash_reason  # type: ignore[attr-defined]
measure = _measure.measure  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Floors:
    proved: float  # share of labelled biased (function, attribute) pairs with status biased
    detected: float  # share with any finding (dynamic or static)
    precision: float  # biased findings labelled biased for that attribute / all biased findings


# Baseline, engine at 07164ff (see tests/realworld/README.md). Targets of issues 9 and 10:
# bare proved >= 0.60, detected >= 0.90; deps proved >= 0.90; precision >= 0.95.
FLOORS = {
    # Measured 2026-12-01 (tests/realworld/README.md, "Now") with the new holdout in the
    # corpus (148 pairs, 64 of them holdout): bare 62/148 proved, 122/148 detected, 62/62
    # precise; deps 87/148, 125/148, 87/87. Floors sit two pairs below: real packages run
    # under per-function time limits on a shared machine. Re-measured the same day with
    # five new dev packages (259 pairs; README "Now: after issue 10's third session"):
    # bare 140/259 proved, 209/259 detected, 140/140 precise; deps 167/259, 215/259, 167/174.
    # With four more dev packages (369 pairs; README "Now: after issue 10's fourth session"):
    # bare 206/369 proved, 311/369 detected, 206/206 precise; deps 254/369, 313/369, 254/260.
    # With three more dev packages (406 pairs; README "Now: after issue 10's fifth session"):
    # bare 253/406 proved, 364/406 detected, 253/253 precise; deps 307/406, 363/406, 307/313.
    # Floors sit four pairs below (detected: six), for a function near its time limit.
    # After issue 10's sixth session (407 pairs, README "Now: after issue 10's sixth
    # session"): bare 262/407 proved, 373/407 detected, 262/262 precise; deps 317/407,
    # 372/407, 317/323.
    # After issue 10's seventh session (724 pairs: cvd-risk's 286 and the new holdout's 34
    # joined; the bare view has numpy, pandas and scipy, as the App's image): bare 535/724
    # proved, 644/724 detected, 535/539 precise; deps 569/724, 644/724, 569/579. Floors six
    # pairs below (detected: eight).
    # After issue 10's eighth session (724 pairs, five sacoma-lib ages and four cvd-risk pairs
    # relabelled): bare 584/724 proved, 685/724 detected, 584/588 precise; deps 618/724,
    # 685/724, 618/628. Floors six pairs below (detected: eight).
    # After issue 10's ninth session (724 pairs, no relabel): bare 618/724 proved, 689/724
    # detected, 618/622 precise; deps 652/724, 689/724, 652/662. Floors six pairs below
    # (detected: eight).
    "bare": Floors(proved=0.845, detected=0.940, precision=0.95),
    "deps": Floors(proved=0.892, detected=0.940, precision=0.95),
}
# Biased functions allowed in the general libraries: the target, zero, holds since cloud
# regions, HTTP headers and redirects are no longer taken for people (issue 10 item 6).
GENERAL_BIASED_CEILING = {"bare": 0, "deps": 0}


# -- the files -------------------------------------------------------------------------------


def test_manifest_is_well_formed() -> None:
    packages = load_manifest()
    person = [p for p in packages if p.kind == "person"]
    general = [p for p in packages if p.kind == "general"]
    assert len(person) >= 3 and len(general) >= 3
    assert {p.split for p in person} == {"dev", "holdout"}
    assert any(p.speed for p in general), "one general library is the speed target"
    for package in packages:
        assert package.url.startswith("https://files.pythonhosted.org/"), package.name
        assert package.url.endswith(package.sdist), package.name


def test_labels_and_proofs_are_well_formed() -> None:
    problems: list[str] = []
    for package in load_manifest():
        labels = load_labels(package.name)  # raises CorpusError on a malformed entry
        proofs = load_proofs(package.name)
        if package.kind == "person":
            assert labels, f"{package.name}: a person package needs labels"
        else:
            assert all(label.verdict != "biased" for label in labels), package.name
        problems += check_proofs_cover_labels(labels, proofs)
    assert not problems, "\n".join(problems)


def test_entry_points_are_read_and_checked(tmp_path: Path) -> None:
    """`entry_points:` (issue 27) says how a package's repository runs its own functions: each
    entry has a known kind and a command; a malformed one is a CorpusError naming the package."""
    listed = [p for p in load_manifest() if p.entry_points]
    assert listed, "packages that ship tests or demos list them"
    for package in listed:
        assert all(point.run.strip() for point in package.entry_points), package.name
    entry = {"name": "x", "version": "1", "sdist": "x-1.tar.gz",
             "url": "https://files.pythonhosted.org/x-1.tar.gz", "sha256": "0" * 64,
             "licence": "MIT", "kind": "person", "split": "dev", "import_root": ".",
             "import_name": "x", "why": "a test",
             "entry_points": [{"kind": "tests", "run": "pytest -q tests", "result": "passes"}]}
    manifest = tmp_path / "manifest.yml"
    manifest.write_text(yaml.safe_dump({"packages": [entry]}))
    (point,) = load_manifest(manifest)[0].entry_points
    assert (point.kind, point.run, point.result) == ("tests", "pytest -q tests", "passes")
    for bad in ({"kind": "notebook", "run": "x"}, {"kind": "tests"}, {"kind": "demo", "run": " "}):
        entry["entry_points"] = [bad]
        manifest.write_text(yaml.safe_dump({"packages": [entry]}))
        with pytest.raises(CorpusError, match="entry point"):
            load_manifest(manifest)


def test_label_grammar_rejects_what_it_cannot_read() -> None:
    assert parse_label("biased[age, gender]", "x") == ("biased", frozenset({"age", "gender"}))
    for bad in ("biased", "biased[]", "clean[age]", "biased[religion]", "unsure"):
        with pytest.raises(CorpusError):
            parse_label(bad, "x")
    assert set(DEFAULT_CATEGORIES) == {"age", "gender", "race", "region", "education", "occupation"}


# -- the scoring -----------------------------------------------------------------------------


def _fn(key: str, status: str, findings: list[dict[str, object]], reason: str | None = None,
        tested: list[str] | None = None) -> dict[str, object]:
    path, qualname = key.split("::")
    return {"path": path, "qualname": qualname, "status": status, "findings": findings,
            "reason": reason, "attributes_tested": tested or []}


def test_score_counts_proved_detected_and_false_alarms() -> None:
    from corpus import Label

    def label(fn: str, verdict: str, attrs: set[str]) -> Label:
        return Label("p", fn, verdict, frozenset(attrs), frozenset(), "", "")

    labels = [label("a.py::f", "biased", {"age", "gender"}), label("a.py::g", "clean", set()),
              label("a.py::h", "biased", {"race"})]
    example = {"inputs": {}, "values": [1, 2], "outputs": ["a", "b"]}
    dynamic = {"attribute": "age", "example": example}
    report = {"functions": [
        _fn("./a.py::f", "biased", [dynamic, dynamic, {"attribute": "gender"}], tested=["age"]),
        _fn("a.py::g", "biased", [dynamic], tested=["age"]),
        _fn("a.py::h", "unverified", [], "cannot run: ImportError: attempted relative import"),
    ]}
    s = score(report, labels, general=False)
    assert s.labelled_pairs == 3
    assert s.proved == ["a.py::f [age]"]
    assert s.detected == ["a.py::f [age]", "a.py::f [gender]"]
    assert s.true_alarms == 1 and s.false_alarms == ["a.py::g [age] (labelled clean)"]
    assert s.unverified == {"unverified: relative import": 1}
    general = score(report, [], general=True)
    assert general.true_alarms == 0 and len(general.false_alarms) == 2
    # A static finding counts as detected; against a label (or in a general library) it is
    # a static alarm, never a false `biased` one.
    static = {"attribute": "region", "method": "static"}
    report["functions"].append(_fn("a.py::g2", "clean", [static]))
    labels.append(label("a.py::g2", "clean", set()))
    s = score(report, labels, general=False)
    assert s.static_alarms == ["a.py::g2 [region]"]
    every = score(report, [], general=True).static_alarms
    assert every == ["a.py::f [gender]", "a.py::g2 [region]"]


def test_crash_reasons() -> None:
    biased = {"functions": [{"status": "biased"}]}
    assert crash_reason(0, "", {"functions": []}) is None
    assert crash_reason(1, "", biased) is None
    assert crash_reason(1, "", {"functions": []}) is not None  # exit 1 without bias
    assert crash_reason(3, "", biased) is not None
    assert crash_reason(2, "no sandbox", None) is not None
    assert crash_reason(0, "Traceback (most recent call last):\nKeyError: 1", biased) is not None
    assert reason_group("cannot run: ModuleNotFoundError: No module named 'scipy'") == (
        "missing module"
    )


# -- the measurement -------------------------------------------------------------------------


def _modes() -> list[str]:
    return [m for m in os.environ.get("CODEBIAS_REALWORLD_MODES", "bare").split(",") if m]


@pytest.mark.realworld
@pytest.mark.sandbox
@pytest.mark.parametrize("mode", _modes())
def test_scans_the_corpus_without_a_crash(mode: str, corpus_cache: Path) -> None:
    runs = measure(load_manifest(), [mode], corpus_cache, ROOT, os.environ.get(
        "CODEBIAS_REALWORLD_PYTHON", "python3"))
    crashes = [f"{r.package.key}: {r.crash}" for r in runs if r.crash]
    assert not crashes, "\n".join(crashes)
    floors = FLOORS[mode]
    person = totals([r for r in runs if r.package.kind == "person"])
    every = totals(runs)
    assert person.pairs > 0
    assert person.proved / person.pairs >= floors.proved
    assert person.detected / person.pairs >= floors.detected
    if every.precision is not None:
        assert every.precision >= floors.precision
    assert every.general_biased <= GENERAL_BIASED_CEILING[mode]
