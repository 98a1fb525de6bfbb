"""What the engine is held to on each corpus split: floors that only rise, and the misses
known today, one by one.

Measured with `python tests/corpus/measure.py --verbose` (default sandboxed executor) at
4b90274 (issue 14): see tests/corpus/README.md, "Floors". A floor is the measured
figure rounded down; when the engine does better, raise it. A known miss is listed with
what the engine said; it stays an xfail until fixed (then remove it here: an unlisted
miss, or a listed one that is fixed and breaks again, fails the suite).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Floor:
    exact: int  # functions whose whole report matches their label
    precision: float  # dynamic findings, per (function, attribute) pair
    recall: float
    static_precision: float
    static_recall: float


FLOORS = {
    # 191 functions, 122 tp, 0 fp, 0 fn; static 1.000/1.000 (with law_classes*.py, issue 30)
    "train": Floor(exact=191, precision=1.0, recall=1.0, static_precision=1.0, static_recall=1.0),
    # 79 functions, 50 tp, 0 fp, 2 fn; static 1.000/1.000 (with law_classes*.py, issue 30)
    "validation": Floor(
        exact=77, precision=1.0, recall=0.961, static_precision=1.0, static_recall=1.0
    ),
    # 81 functions, 46 tp, 0 fp, 4 fn; static 0.800/1.000 (relabelled for the categories
    # now on by default)
    "holdout": Floor(exact=75, precision=1.0, recall=0.92, static_precision=0.8, static_recall=1.0),
    # 110 functions, 74 tp, 0 fp, 1 fn; static 1.000/1.000 (checked_measurements.py added)
    "shapes": Floor(exact=108, precision=1.0, recall=0.986, static_precision=1.0, static_recall=1.0),
    # 42 functions, 25 tp, 1 fp, 6 fn; static 0.500/1.000 (not tuned on: the split's misses
    # are not read; relabelled for the categories now on by default). The one static finding
    # against its label is on a function labelled biased for that very attribute (a US
    # state as the region made its input protected; its calls all raise), counted here
    # because the label wants it proved.
    "shapes_holdout": Floor(
        exact=35, precision=0.961, recall=0.806, static_precision=0.5, static_recall=1.0
    ),
}

KNOWN_MISSES = {
    "validation/llm_plain.py::screen_application": "education not found (age, gender are)",
    "validation/mobility.py::surge_multiplier": "region through a regex on the zip code: clean",
    "holdout/ad_targeting.py::frequency_capped": "every call raised (AttributeError): unverified",
    "holdout/admissions.py::validate_application": "every call raised (ValueError): unverified",
    "holdout/dating.py::should_show": "age and gender not found: clean",
    "holdout/hr_analytics.py::anonymise": "'skipped' (no protected input), expected clean",
    "holdout/payroll.py::bonus": "gender not found (age is)",
    "holdout/triage.py::Patient.shock_index_alert": "age (self.age) not found: clean",
    "shapes/hiring_pools.py::experienced": "'skipped' (no protected input), expected clean",
    "shapes/hiring_pools.py::promotion_picks": "'skipped', expected age",
    "shapes_holdout/admissions_cohort.py::top_offers": "region found statically, not proved",
    "shapes_holdout/admissions_cohort.py::interview_order": "'skipped', expected race",
    "shapes_holdout/admissions_cohort.py::scholarship_panel_ok": "gender not found: clean",
    "shapes_holdout/housing_accessors.py::lease_length": "'skipped', expected age",
    "shapes_holdout/housing_accessors.py::senior_unit_eligible": "age not found: clean",
    "shapes_holdout/housing_accessors.py::pet_deposit": "religion not found: clean",
    # The one false alarm: a zone lookup that is not about people, flagged for region.
    "shapes_holdout/infra_traps.py::nearest_zone": "false alarm: biased[region], expected skipped",
}
