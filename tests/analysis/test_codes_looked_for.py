"""A mapping the code looks codes up in holds them: `dx in cc_dct` for each code of a list,
`CODES & cc_dct.keys()`. hccpy's age/sex edits move a diagnosis to another condition category
by age or sex, and only a beneficiary who has that diagnosis shows it; made-up numbers and
texts (`'D66 degree'`) hold no code, and every call came out the same (clean).

And an output's items past the first sixty are compared by a digest of their texts: the edit
moves the 200th code of the dict."""

from __future__ import annotations

from analysis_kit import model_of, pools, verdict

EDITS = '''\
def apply_edits(cc_dct, age, sex):
    elst0 = ["D66", "D67"]
    elst1 = ["J410", "J411", "J418", "J42"]
    if sex == "F":
        for dx in (dx for dx in elst0 if dx in cc_dct):
            cc_dct[dx] = ["HCC48"]
    if age < 18:
        for dx in (dx for dx in elst1 if dx in cc_dct):
            cc_dct[dx] = ["HCC112"]
    return cc_dct


def apply_set_edits(cc_dct, age, sex):
    e_set0 = {"D66", "D67"}
    e_set1 = {"J410", "J411"}
    if sex == "F":
        for dx in e_set0 & cc_dct.keys():
            cc_dct[dx] = ["HCC112"]
    if age < 18:
        for dx in e_set1 & cc_dct.keys():
            del cc_dct[dx]
    return cc_dct


def same_for_all(cc_dct, age, sex):
    elst0 = ["D66", "D67"]
    for dx in (dx for dx in elst0 if dx in cc_dct):
        cc_dct[dx] = ["HCC48"]
    return cc_dct, age >= 0, sex is not None


def pairs_held(codes, age):
    for pair in [[1, 2], [3, 4]]:
        if pair in codes:
            return age > 60
    return [5, 6] in codes and age > 60


def many_codes(sex):
    codes = {f"K{i:03d}": i for i in range(300)}
    if sex == "female":
        codes["K200"] = -1
    return codes
'''


def test_the_codes_looked_for_are_in_the_mapping() -> None:
    built = pools(model_of(EDITS, "apply_edits"))["cc_dct"]
    assert {"D66", "J410"} <= set(next(v for v in built if isinstance(v, dict))), built
    for name in ("apply_edits", "apply_set_edits"):
        report = verdict(EDITS, name)
        assert sorted(report.biased_attributes) == ["age", "gender"], (name, report.reason)
    assert verdict(EDITS, "same_for_all").status == "clean"


def test_lists_looked_for_are_held_too() -> None:
    # `[5, 6] in codes`: a list is no key (drgpy's tables crashed the harvest, unhashable).
    assert {"codes", "age"} <= set(pools(model_of(EDITS, "pairs_held")))
    assert verdict(EDITS, "pairs_held").biased_attributes == ["age"]


def test_a_difference_past_the_items_shown_is_still_one() -> None:
    assert verdict(EDITS, "many_codes").biased_attributes == ["gender"]
