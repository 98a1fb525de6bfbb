"""The real-world corpus: its files are well-formed, and codebias scans it without a crash.

The measurements (marked `realworld`) fetch the pinned sdists from PyPI into the cache and run
`codebias scan` on packages from a venv holding codebias alone ("bare": as the App sees a
repository) or one with the package's own dependencies ("deps"). The fast tier scans a smoke
subset in both modes, held to its own floors; the slow tier (`--full`) scans the whole corpus,
in the modes CODEBIAS_REALWORLD_MODES names (default bare). The floors are measured figures:
raise them as the engine improves (issues 9 and 10 set the targets).
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
    MODES,
    OTHER_CATEGORIES,
    CorpusError,
    Package,
    check_proofs_cover_labels,
    enabled_categories,
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


# The whole corpus is held in two cohorts, each to floors measured on it. The earlier one
# (every package without `entry_points:`, 883 labelled biased pairs with the fifth and sixth
# blind holdouts' five such packages, dev4's emji-ascvd-calculator, dev5's four, dev6's
# three, dev7's two, dev8's two, dev9's firstact, dev10's openfisca-paraguay and
# estimated-taxes, and the general libraries), measured at c911ed9 (tests/realworld/README.md):
# bare 762/883 proved, 834/883 detected, 762/781 precise; deps 813/883, 841/883, 813/835.
# Floors sit six pairs below (detected: eight): real packages run under per-function time
# limits on a shared machine. Targets of issues 9 and 10: bare proved >= 0.60, detected >=
# 0.90; deps proved >= 0.90; precision >= 0.95.
FLOORS = {
    # Since dev21 (agingclockbench, numbercommutation: 1,025 pairs without entry points),
    # measured at 38ba923: deps 908/1025 proved (0.886), 0.926 detected, 0.963 precise; bare
    # 848/1025 (0.827), 0.918, 0.965. Floors six pairs below (detected: eight). Before: deps
    # 0.885 and bare 0.821 at 7cac33d/6dc4db1; deps 0.891 and bare 0.826 with dev20 (1,008
    # pairs), deps 0.914 and bare 0.840 before it.
    "bare": Floors(proved=0.821, detected=0.910, precision=0.95),
    "deps": Floors(proved=0.880, detected=0.918, precision=0.95),
}
# The recorded cohort (the forty-three packages with `entry_points:`, 489 pairs: the inputs
# their own tests and demos make, issue 27; with the second to sixth blind holdouts, the dev
# packages added on 2026-12-05, dev4's three, dev5's bp-percentile, dev6's
# credit-scoring-model, dev7's two, dev8's two, dev9's two and dev10's
# python-anesthesia-simulator that ship tests or demos), measured at c911ed9: bare (pytest in
# the App's image, so its tests are recorded too) 309/489 proved, 359/489 detected, 309/367
# precise; deps 348/489, 375/489, 348/420. Floors sit six pairs below (detected: eight), so
# that the figures can only rise from here. Precision's floor fell from 0.85 to 0.80 at
# c911ed9: a filing status read as a marital status gave easytax fifteen findings its labels
# called clean (objects that store the status, refusals of a status no policy value names),
# and dev10's simulator seven (constructors and methods that store on the instance, clean by
# the corpus's convention).
# Since dev20 (bima-mcp joins; 658 pairs), measured at 38ba923: deps 502/658 proved (0.763),
# 0.813 detected, 0.881 precise; bare 445/658 (0.676), 0.790, 0.883 (at 7cac33d/6dc4db1:
# deps 0.743, bare 0.660).
RECORDED_FLOORS = {
    "bare": Floors(proved=0.667, detected=0.778, precision=0.80),
    "deps": Floors(proved=0.753, detected=0.800, precision=0.80),
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
    smoke = {mode: [p for p in packages if mode in p.smoke] for mode in MODES}
    assert all(smoke.values()), "the fast tier scans a smoke subset in each mode"
    assert {p.kind for p in smoke["bare"]} == {"person", "general"}
    # The smoke subset is held to the earlier cohort's floors alone.
    assert not any(p.entry_points for mode in MODES for p in smoke[mode])
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


def test_score_counts_the_other_categories_the_policy_has_on() -> None:
    """A pair labelled under `other:` (a class the law names beside the six) is a labelled
    biased pair once the default policy tests its category: found, it is proved; missed, a
    miss; the same finding with the category off is a false alarm."""
    from corpus import Label

    labels = [
        Label("p", "m.py::predict", "biased", frozenset({"gender"}),
              frozenset({"marital_status"}), "", ""),
        Label("p", "m.py::rate", "clean", frozenset(), frozenset({"religion"}), "", ""),
    ]
    example = {"inputs": {}, "values": [1, 2], "outputs": ["a", "b"]}
    report = {"functions": [
        _fn("m.py::predict", "biased", [{"attribute": "gender", "example": example},
                                        {"attribute": "marital_status", "example": example}]),
        _fn("m.py::rate", "clean", [], tested=["religion"]),
    ]}
    on = score(report, labels, general=False, enabled=frozenset(OTHER_CATEGORIES))
    assert on.labelled_pairs == 3
    assert on.proved == ["m.py::predict [gender]", "m.py::predict [marital_status]"]
    assert on.true_alarms == 2 and on.false_alarms == []
    assert on.missed == ["m.py::rate [religion]: clean"]
    off = score(report, labels, general=False, enabled=frozenset())
    assert off.labelled_pairs == 1 and off.true_alarms == 1
    assert off.false_alarms == ["m.py::predict [marital_status] (labelled biased[gender])"]
    # By default the categories config/defaults.yml has on: every class the law names.
    assert enabled_categories() >= set(DEFAULT_CATEGORIES) | set(OTHER_CATEGORIES)
    assert score(report, labels, general=False).labelled_pairs == 3


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


def _scan_and_hold(
    packages: list[Package], mode: str, floors: Floors, cache: Path,
    recorded_floors: Floors | None = None,
) -> None:
    """Scan the packages and hold each cohort to its floors: the packages with
    `entry_points:` (the recorded cohort) to `recorded_floors`, the others to `floors`."""
    runs = measure(packages, [mode], cache, ROOT, os.environ.get(
        "CODEBIAS_REALWORLD_PYTHON", "python3"))
    crashes = [f"{r.package.key}: {r.crash}" for r in runs if r.crash]
    assert not crashes, "\n".join(crashes)
    cohorts = {False: floors} if recorded_floors is None else {False: floors, True: recorded_floors}
    for recorded, held_to in cohorts.items():
        cohort = [r for r in runs if bool(r.package.entry_points) == recorded]
        person = totals([r for r in cohort if r.package.kind == "person"])
        every = totals(cohort)
        figures = f"{person.proved}/{person.pairs} proved, {person.detected} detected"
        assert person.pairs > 0, "recorded cohort" if recorded else "earlier cohort"
        assert person.proved / person.pairs >= held_to.proved, figures
        assert person.detected / person.pairs >= held_to.detected, figures
        if every.precision is not None:
            assert every.precision >= held_to.precision, every
    assert totals(runs).general_biased <= GENERAL_BIASED_CEILING[mode]


@pytest.mark.slow
@pytest.mark.realworld
@pytest.mark.sandbox
@pytest.mark.xdist_group("realworld-venvs")
@pytest.mark.parametrize("mode", _modes())
def test_scans_the_corpus_without_a_crash(mode: str, corpus_cache: Path) -> None:
    _scan_and_hold(load_manifest(), mode, FLOORS[mode], corpus_cache, RECORDED_FLOORS[mode])


# The fast tier's smoke subset (the manifest's `smoke:`): dev packages, never the holdout, that
# together hold the shapes people come in (an accessor, DataFrames and Series masks,
# `(value, unit)` dicts through relative imports, Enum members, birth years and state names,
# refusals, classes reading `self.sex`, an IntEnum dataclass beside a wire encoder that packs
# age and sex) and one general library of not-a-person traps (werkzeug: the `Age` header,
# `max_age`); with dependencies, the two whose dependencies the bare view stubs (pygrowup's
# six, sacoma-lib's ezpacket). `python tests/realworld/measure.py --smoke` measures it; at
# e241b66 (2 cores, loaded): bare 138/158 proved, 156/158 detected, no false alarm, werkzeug
# 0 biased; deps 23/27 proved, 27/27 detected, 23/29 precise (sacoma-lib's wire encoder,
# which packs age and sex into a byte, labelled clean). Floors sit two to four pairs below.
SMOKE_FLOORS = {
    "bare": Floors(proved=0.85, detected=0.97, precision=0.95),
    "deps": Floors(proved=0.77, detected=0.92, precision=0.75),
}


@pytest.mark.realworld
@pytest.mark.sandbox
@pytest.mark.xdist_group("realworld-venvs")
@pytest.mark.parametrize("mode", MODES)
def test_a_smoke_subset_of_the_corpus_holds_its_floors(mode: str, corpus_cache: Path) -> None:
    packages = [p for p in load_manifest() if mode in p.smoke]
    assert packages, f"the manifest puts no package in the {mode} smoke subset"
    _scan_and_hold(packages, mode, SMOKE_FLOORS[mode], corpus_cache)
