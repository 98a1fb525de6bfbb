"""Value pools: each code construct puts its own values first in the pool of the input it
involves, so a rule the policy's defaults would never reach is still found.

Each case names a construct, a function using it, the leaf, and the values that must come
from the code (the first `from_code` values of the pool). A witness test then shows the
point: bias at a value only the code knows (`age == 47`, `region in {"Zanzibar"}`) is found.
"""

from __future__ import annotations

from typing import Any

import pytest
from analysis_kit import leaf, model_of, verdict

from config.policy import default_policy

CONSTRUCTS: dict[str, tuple[str, str, list[Any]]] = {
    "comparison, with both neighbours": (
        "def f(age):\n    return age > 65\n",
        "age",
        [64, 65, 66],
    ),
    "comparison of another input": (
        "def f(age, income):\n    return age > 65 and income >= 30000.5\n",
        "income",
        [29900.5, 30000.5, 30100.5],
    ),
    "comparison with a module constant": (
        "LIMIT = 55\ndef f(age):\n    return age > LIMIT\n",
        "age",
        [54, 55, 56],
    ),
    "`in` a set, with the usual spellings": (
        "def f(region):\n    return region in {'north', 'Lagos'}\n",
        "region",
        ["north", "North", "NORTH", "Lagos", "lagos", "LAGOS"],
    ),
    "keys of a lookup table": (
        "RATES = {'urban': 1.2, 'rural': 0.8}\n"
        "def f(region, base):\n    return base * RATES[region]\n",
        "region",
        ["urban", "rural"],
    ),
    "keys of a table read with .get": (
        "RATES = {'urban': 1.2, 'rural': 0.8}\n"
        "def f(region, base):\n    return base * RATES.get(region, 1)\n",
        "region",
        ["urban", "rural"],
    ),
    "match cases": (
        "def f(education):\n"
        "    match education:\n"
        "        case 'phd':\n            return 3\n"
        "        case 'msc':\n            return 2\n"
        "    return 0\n",
        "education",
        ["phd", "msc"],
    ),
    "a parameter's default": (
        "def f(age, tier='gold'):\n    return tier == 'gold' and age > 30\n",
        "tier",
        ["gold"],
    ),
    "a substring test": (
        "def f(education):\n    return 'degree' in education\n",
        "education",
        ["degree"],
    ),
    "a threshold solved through a birth year": (
        "def f(year_of_birth):\n    age = 2030 - year_of_birth\n    return age >= 18\n",
        "year_of_birth",
        [2011, 2012, 2013],
    ),
    "a key of a record": (
        "def f(applicant):\n    return applicant['age'] > 40\n",
        "applicant['age']",
        [39, 40, 41],
    ),
    "a helper's comparison, through its parameter": (
        "def helper(a):\n    return a > 48\ndef f(age):\n    return helper(age)\n",
        "age",
        [47, 48, 49],
    ),
    "sizes compared with len()": (
        "def f(gender, items):\n    return len(items) > 2 and gender == 'f'\n",
        "items",
        [["item0", "item1"], ["item0", "item1", "item2"]],
    ),
    "a Decimal threshold, the constructor imported under another name": (
        "from decimal import Decimal as Dec\n"
        "def f(age_months):\n    return Dec(age_months) <= Dec('36')\n",
        "age_months",
        [35, 36, 37],
    ),
}


@pytest.mark.parametrize(("source", "display", "wanted"), CONSTRUCTS.values(), ids=list(CONSTRUCTS))
def test_the_code_s_own_values_come_first_in_the_pool(
    source: str, display: str, wanted: list[Any]
) -> None:
    found = leaf(model_of(source), display)
    from_code = found.pool[: found.from_code]
    missing = [v for v in wanted if v not in from_code]
    assert not missing, f"{missing} not among the code's values {from_code}"
    assert found.guarded  # compared with constants: varied early by the search


def test_a_protected_pool_adds_the_policy_s_realistic_values() -> None:
    found = leaf(model_of("def f(age):\n    return age > 65\n"), "age")
    defaults = [v for v in default_policy().protected["age"].values if isinstance(v, int)]
    assert set(defaults) & set(found.pool[found.from_code :])


def test_a_protected_pool_drops_values_outside_the_realistic_range() -> None:
    found = leaf(model_of("def f(age):\n    return age < 0\n"), "age")
    category = default_policy().protected["age"]
    assert -1 not in found.pool
    assert all(
        category.minimum is None or v >= category.minimum
        for v in found.pool
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    )


def test_an_unprotected_input_without_constants_gets_ordinary_values_of_its_kind() -> None:
    model = model_of("def f(age, base):\n    return base * (2 if age > 60 else 1)\n")
    base = leaf(model, "base")
    assert base.from_code == 0 and not base.guarded
    assert len(base.pool) >= 3


def test_the_base_value_of_a_protected_leaf_is_an_ordinary_one_of_its_category() -> None:
    found = leaf(model_of("def f(age):\n    return age > 65\n"), "age")
    assert found.pool[found.typical] in default_policy().protected["age"].values


@pytest.mark.parametrize(
    ("source", "attribute"),
    [
        ("def f(age):\n    return 'flag' if age == 47 else 'ok'\n", "age"),
        ("def f(customer_region):\n    return customer_region in {'Zanzibar'}\n", "region"),
        ("def f(education):\n    return {'Hogwarts': 2}.get(education, 0)\n", "education"),
        (
            "def f(occupation):\n"
            "    match occupation:\n"
            "        case 'lamplighter':\n            return 0\n"
            "    return 1\n",
            "occupation",
        ),
        ("def f(year_of_birth):\n    return 2031 - year_of_birth >= 18\n", "age"),
    ],
    ids=["equality", "in a set", "table key", "match case", "birth year"],
)
def test_bias_at_a_value_only_the_code_knows_is_found(source: str, attribute: str) -> None:
    report = verdict(source)
    assert report.status == "biased", (report.status, report.reason)
    assert [f.attribute for f in report.findings] == [attribute]


@pytest.mark.parametrize(
    ("source", "witness"),
    [
        ("def f(age):\n    return 'senior' if age >= 65 else 'adult'\n", (64, 65)),
        ("def f(age):\n    return age > 65\n", (65, 66)),
        ("def f(applicant):\n    return applicant['age'] < 40\n", (39, 40)),
        ("def f(age_months):\n    return 1.5 if age_months <= 36 else 1.0\n", (36, 37)),
    ],
    ids=[">= 65", "> 65", "< 40 in a record", "<= 36 months"],
)
def test_the_witness_of_a_threshold_is_the_threshold_and_its_neighbour(
    source: str, witness: tuple[int, int]
) -> None:
    # The clearest counterexample a reader can check: the last value served one way and
    # the first served the other. The policy's ages alone (62, 65, 67...) would give a
    # witness too, only a wider one; this one needs the threshold's neighbours in the pool.
    report = verdict(source)
    (finding,) = report.findings
    assert finding.example is not None
    assert tuple(sorted(finding.example.values)) == witness, finding.example.values


def test_text_turned_into_a_decimal_gets_numbers() -> None:
    source = (
        "from decimal import Decimal\n"
        "def f(sex, reading):\n"
        "    assert reading not in ('', None)\n"
        "    return Decimal(reading) * (2 if sex == 'F' else 1)\n"
    )
    reading = leaf(model_of(source), "reading")
    assert any(isinstance(v, (int, float)) and v > 0 for v in reading.pool)


@pytest.mark.parametrize(
    ("source", "display", "refused"),
    [
        (  # `=None` in the signature, refused by an assert: no base value
            "def f(age=None, sex=None):\n"
            "    assert age is not None\n"
            "    assert sex is not None\n"
            "    return age > 3 and sex == 'F'\n",
            "age",
            [None],
        ),
        (  # only some spellings accepted: the base value is one of them
            "def f(age, sex=None):\n"
            "    assert sex.upper() in ['M', 'F']\n"
            "    return age > 3 and sex == 'F'\n",
            "sex",
            [v for v in default_policy().protected["gender"].values if v not in ("M", "F")],
        ),
        (  # an `if` that raises refuses the values it tests for
            "def f(sex, amount=''):\n"
            "    if amount in ('', None):\n"
            "        raise ValueError('no amount')\n"
            "    return float(amount) * (2 if sex == 'F' else 1)\n",
            "amount",
            ["", None],
        ),
        (  # limits: too short or too tall raises
            "def f(sex, height):\n"
            "    if height < 45:\n"
            "        raise ValueError('too short')\n"
            "    if height > 120:\n"
            "        raise ValueError('too tall')\n"
            "    return height * (2 if sex == 'F' else 1)\n",
            "height",
            [44, 121, 0, -1, 1],
        ),
    ],
    ids=["assert is not None", "assert in a list", "if ... raise", "limits"],
)
def test_the_base_value_is_none_the_code_refuses(
    source: str, display: str, refused: list[Any]
) -> None:
    found = leaf(model_of(source), display)
    assert found.pool[found.typical] not in refused, found.pool
    if display == "height":
        assert 45 <= found.pool[found.typical] <= 120, found.pool


def test_a_calculator_whose_tables_are_built_by_its_constructor_is_found_biased() -> None:
    source = (
        "from decimal import Decimal as D\n"
        "class Reading:\n"
        "    def __init__(self, age_months, sex, value):\n"
        "        self.age = D(age_months)\n"
        "        self.sex = sex.upper()\n"
        "        self.value = value\n"
        "    def medians(self, book):\n"
        "        group = 'boys' if self.sex == 'M' else 'girls'\n"
        "        key = group + ('_0' if self.age < D(24) else '_2')\n"
        "        return getattr(book, key)\n"
        "class Book:\n"
        "    def __init__(self, units='metric'):\n"
        "        self.units = units\n"
        "        medians = (('boys_0', 9), ('girls_0', 8), ('boys_2', 14), ('girls_2', 13))\n"
        "        for key, median in medians:\n"
        "            setattr(self, key, median)\n"
        "    def ratio(self, value=None, age_months=None, sex=None):\n"
        "        assert value not in ('', ' ', None)\n"
        "        assert age_months is not None\n"
        "        assert sex.upper() in ('M', 'F')\n"
        "        if D(value) <= D(0):\n"
        "            raise ValueError('a value above zero')\n"
        "        return D(value) / Reading(age_months, sex, value).medians(self)\n"
    )
    for qualname in ("Book.ratio", "Reading.medians"):
        report = verdict(source, qualname)
        assert report.status == "biased", (qualname, report.reason)
        assert {f.attribute for f in report.findings} == {"age", "gender"}, qualname


def test_a_list_computed_with_gets_lists_of_numbers() -> None:
    source = (
        "def f(months: list, sex):\n"
        "    gap = (months[1] - months[0]) / 12\n"
        "    return gap * (1.1 if sex == 'female' else 1.0)\n"
    )
    months = leaf(model_of(source), "months")
    assert [0, 1, 2, 3] in months.pool
    report = verdict(source)
    assert report.status == "biased", report.reason


def test_the_signature_s_default_survives_a_long_pool() -> None:
    words = ", ".join(repr(f"unit{i}") for i in range(30))
    source = (
        f"UNITS = ({words}, 'years')\n"
        "def f(age, unit='years'):\n"
        "    if unit not in UNITS:\n"
        "        raise ValueError(unit)\n"
        "    return age > 60\n"
    )
    unit = leaf(model_of(source), "unit")
    assert unit.pool[unit.typical] == "years"


def test_what_the_project_passes_a_helper_is_a_value_of_its_parameter() -> None:
    # `param` is only ever a key of a table; the callers name the keys it takes.
    source = (
        "import json\n"
        "class Spiro:\n"
        "    def __init__(self):  # as read from the package's workbook\n"
        "        self.data = json.loads('{\"FEV1\": {\"males\": 1.0, \"females\": 0.9}}')\n"
        "    def calc(self, param, sex, age):\n"
        "        return self.data[param][sex + 's'] * (1 - age / 200)\n"
        "    def fev1(self, sex, age):\n"
        "        return self.calc('FEV1', sex, age)\n"
    )
    (param,) = [leaf for leaf in model_of(source, "Spiro.calc").leaves if leaf.name == "param"]
    assert param.pool[param.typical] == "FEV1"
    report = verdict(source, "Spiro.calc")
    assert {f.attribute for f in report.findings} == {"age", "gender"}


def test_every_key_of_a_long_table_comes_before_the_spellings_of_any() -> None:
    """Sixteen German states, each also tried in lower, title and upper case, would fill the
    pool before Saxony, the one state whose care-insurance rate differs."""
    states = [f"Land{i:02d}" for i in range(15)] + ["Sachsen"]
    table = ", ".join(f"{s!r}: {2.3 if s == 'Sachsen' else 1.8}" for s in states)
    source = f"RATES = {{{table}}}\ndef care_rate(bundesland):\n    return RATES[bundesland]\n"
    pool = leaf(model_of(source, "care_rate"), "bundesland").pool
    assert pool[:16] == states
    assert verdict(source, "care_rate").status == "biased"


def test_a_table_the_project_passes_a_helper_is_a_value_of_its_parameter() -> None:
    """liftmath clamps a bodyweight into the range a formula was fit over, per sex; callers
    pass the module's table of ranges: an empty dict only raises KeyError."""
    source = (
        "_WILKS_RANGE = {'male': (40.0, 201.9), 'female': (26.51, 154.53)}\n"
        "def _clamp(bodyweight_kg: float, bw_range: dict, sex: str) -> float:\n"
        "    low, high = bw_range[sex]\n"
        "    return min(max(bodyweight_kg, low), high)\n"
        "def wilks(total_kg, bodyweight_kg, sex):\n"
        "    return total_kg * 500 / _clamp(bodyweight_kg, _WILKS_RANGE, sex)\n"
    )
    assert leaf(model_of(source, "_clamp"), "bw_range").pool[0] == {
        "male": (40.0, 201.9), "female": (26.51, 154.53)
    }
    assert verdict(source, "_clamp").status == "biased"


@pytest.mark.parametrize("name", ["annual_income", "gross_pay", "brutto_jahr", "zve", "agi"])
def test_an_amount_of_money_gets_realistic_magnitudes(name: str) -> None:
    """A church tax of 8 or 9 % shows only on an income above the tax-free allowance: an
    income tried at 0, 1 and 100 hides it (German payroll code names it `brutto`, `zve`)."""
    source = f"def f({name}):\n    return {name} > 12000\n"
    assert 30000.0 in leaf(model_of(source), name).pool


def test_a_membership_test_of_something_not_a_collection_reads_no_values() -> None:
    """cvd-risk's who.py: the base class says `supported_regions = None`, the subclass
    tests `region not in self.supported_regions`; reading the module crashed (None is no
    list) and its functions were left out of the report."""
    source = (
        "REGIONS = ['AFR_D', 'EUR_A']\n"
        "class RiskModel:\n"
        "    supported_regions = None\n"
        "class Who(RiskModel):\n"
        "    supported_regions = REGIONS\n"
        "    def risk(self, region, age):\n"
        "        if region is None or region not in self.supported_regions:\n"
        "            raise ValueError('region')\n"
        "        return age * (2 if region == 'EUR_A' else 1)\n"
    )
    report = verdict(source, "Who.risk")
    assert report.status == "biased", report.reason
    assert "age" in report.biased_attributes


# acribis-scores' SMART-REACH: a linear predictor summed over a table of weights, the record
# read by the table's keys (learnt from the calls), one of them a sex ("Male") and one a
# region ("... North American ... population") that are 1/0 indicators.
WEIGHTS = (
    "import math\n"
    "WEIGHTS = {'Male': 0.5986, 'Current smoker': 4.2538, 'Age in years': -0.0486,\n"
    "           'Diabetes mellitus': 0.4065, 'Systolic blood pressure in mmHg': -0.00741,\n"
    "           'Total cholesterol in mmol/L': -0.003, 'Creatinine in umol/L': -0.01886,\n"
    "           'Squared Creatinine in umol/L': 0.00008, 'Two locations of disease': 0.1442,\n"
    "           'Three locations of disease': 0.5694, 'History of atrial fibrillation': 0.3212,\n"
    "           'History of congestive heart failure': 0.2061,\n"
    "           'Similar to the Dutch SMART population': 0.1232,\n"
    "           'Similar to the North American REACH population': 0.4134}\n"
    "def one_year_risk(parameters: dict) -> float:\n"
    "    weights = dict(WEIGHTS)\n"
    "    if not parameters['Current smoker']:\n"
    "        weights['Age in years'] = 0\n"
    "    x = sum([parameters[p] * w for p, w in weights.items()])\n"
    "    return round(1 - 0.98 ** math.exp(x), 6)\n"
)


def test_a_record_summed_over_a_table_of_weights_takes_numbers_and_indicators() -> None:
    report = verdict(WEIGHTS, "one_year_risk")
    assert report.status == "biased", report.reason
    found = {f.attribute for f in report.findings if f.method == "dynamic"}
    assert found == {"age", "gender", "region"}


def test_a_parameter_named_like_a_category_and_computed_with_is_no_flag() -> None:
    # networkx's `mean_degree`: a number of a graph, not a 1/0 code of an education; only a
    # record's field summed in a score's table is taken for such a code.
    source = "def graph(n, mean_degree=None):\n    return n * mean_degree / 2\n"
    pool = leaf(model_of(source, "graph"), "mean_degree").pool
    assert not any(isinstance(v, bool) for v in pool)


OPTIONAL_KEYS = (
    "FULL_NAMES = {'mobility': 'Mobility', 'surgery_type': 'Type of surgery'}\n"
    "MOBILITY = {'normal': 0, 'bed rest': 1}\n"
    "def caprini(params):\n"
    "    total = 2 if params['age'] >= 75 else 0\n"
    "    for key in FULL_NAMES:\n"
    "        if key not in params:\n"
    "            continue\n"
    "        if key == 'mobility':\n"
    "            total += MOBILITY[params[key]]\n"
    "    return total\n"
)


def test_keys_a_loop_looks_up_stay_optional() -> None:
    # medcalc-bench's Caprini score: keys read only when present, as lookups, are not made
    # up for every call (a made-up mobility of 1 raised KeyError in each).
    fields = {x.display for x in model_of(OPTIONAL_KEYS, "caprini").leaves}
    assert fields == {"params['age']"}
    assert verdict(OPTIONAL_KEYS, "caprini").status == "biased"


def test_a_year_of_the_date_of_birth_is_a_year_not_a_date() -> None:
    # `dob` alone is a date; `dob_year` compared with 1960 is a year.
    pool = leaf(model_of("def f(dob_year):\n    return dob_year < 1960\n"), "dob_year").pool
    assert 1960 in pool and all(isinstance(value, int) for value in pool)
    # `yob` (year of birth) worked into an age: tried as the years the policy's ages give.
    years = leaf(model_of("def f(yob):\n    return 2024 - yob > 60\n"), "yob").pool
    this_year = __import__("datetime").date.today().year
    assert {this_year - 80, this_year - 60, this_year - 30} <= set(years)
    assert verdict("def f(yob):\n    return 2024 - yob > 60\n", "f").biased_attributes == ["age"]


# cvd-risk's EDACS: the troponin cut-off a helper returns for the sex, compared with both
# measurements; only a measurement between the two cut-offs tells the sexes apart.
THRESHOLD_FROM_A_HELPER = """\
class Edacs:
    def _troponin_threshold(self, sex: str) -> float:
        return 34.0 if sex.lower() == "male" else 16.0

    def stratify(self, score: int, sex: str, ischemia: bool, first_hstni: float,
                 second_hstni: float) -> str:
        threshold = self._troponin_threshold(sex)
        if score < 16 and not ischemia and first_hstni < threshold and second_hstni < threshold:
            return "low_risk"
        return "not_low_risk"
"""


def test_the_values_a_helper_returns_are_thresholds_of_what_they_are_compared_with() -> None:
    pool = leaf(model_of(THRESHOLD_FROM_A_HELPER, "Edacs.stratify"), "first_hstni").pool
    assert 16.0 in pool and 34.0 in pool
    report = verdict(THRESHOLD_FROM_A_HELPER, "Edacs.stratify")
    assert [f.attribute for f in report.findings] == ["gender"]


def test_an_age_carried_as_the_text_of_its_band_is_tried_as_bands() -> None:
    source = "def f(age_bucket: str, sex: str):\n    return TABLE.get(f'{age_bucket}|{sex}')\n"
    pool = leaf(model_of(source), "age_bucket").pool
    assert {"30-39", "60-69", "70-79", "65+"} <= set(pool)
    assert all(isinstance(value, str) for value in pool)


@pytest.mark.parametrize(
    ("test", "attribute"),
    [
        ("grp in ('Asian', 'Hispanic')", "race"),
        ("status == 'divorced'", "marital_status"),
        ("where == 'California'", "region"),
        ("where in ('CA', 'NY')", "region"),
    ],
)
def test_an_input_compared_with_values_that_tell_their_category_carries_it(
    test: str, attribute: str
) -> None:
    name = test.split()[0]
    source = f"def rate(amount, {name}):\n    return amount * (1.2 if {test} else 1.0)\n"
    assert verdict(source, "rate").biased_attributes == [attribute]


def test_one_code_of_a_place_alone_says_nothing() -> None:
    source = "def rate(amount, kind):\n    return amount * (1.2 if kind == 'CA' else 1.0)\n"
    assert verdict(source, "rate").status == "skipped"
    languages = "def words(n, lang):\n    return n if lang in ('uk', 'fr', 'de') else -n\n"
    assert verdict(languages, "words").status == "skipped"  # Ukrainian, not the UK
    tiers = "def records(level, n):\n    return n if level in ('college', 'high-school') else 0\n"
    assert verdict(tiers, "records").status == "skipped"  # a record's tier, no schooling


def test_a_scheme_picked_among_authors_and_countries_is_no_region() -> None:
    # pycomorb's `implementation`: coding schemes by their authors, two by their countries
    source = (
        "def weight(code, implementation):\n"
        "    if implementation in ('quan', 'deyo', 'romano', 'thygesen'):\n"
        "        return 1\n"
        "    if implementation in ('australia', 'sweden'):\n"
        "        return 2\n"
        "    return 3\n"
    )
    assert verdict(source, "weight").status == "skipped"
    countries = source.replace("'quan', 'deyo', 'romano', 'thygesen'", "'canada', 'quan'")
    assert verdict(countries, "weight").biased_attributes == ["region"]  # half are places


def test_a_weak_word_compared_only_with_words_of_something_else_is_not_its_category() -> None:
    # athlib's `self.state in ('finished', 'won', 'drawn')`: a competition's status, beside
    # an athlete's age in the same module, is no US state; its codes or names are.
    source = (
        "class Competition:\n"
        "    def __init__(self, state, age):\n"
        "        self.state, self.age = state, age\n"
        "    def is_finished(self):\n"
        "        return self.state in ('finished', 'won', 'drawn')\n"
        "    def fee(self, amount):\n"
        "        return amount * (1.2 if self.state in ('CA', 'NY') else 1.0)\n"
        "    def levy(self, amount):\n"
        "        return amount * (1.2 if self.state in ('California', 'Texas') else 1.0)\n"
    )
    assert verdict(source, "Competition.is_finished").biased_attributes == []
    assert verdict(source, "Competition.fee").biased_attributes == ["region"]
    assert verdict(source, "Competition.levy").biased_attributes == ["region"]


def test_a_field_s_alias_in_the_data_says_what_it_holds() -> None:
    source = (
        "from typing import Annotated\n"
        "from pydantic import BaseModel, Field\n"
        "class Applicant(BaseModel):\n"
        "    years: Annotated[int, Field(alias='Age')]\n"
        "    kind: str = Field(..., alias='Gender')\n"
        "    score: int = Field(0, alias='Score')\n"
        "def approve(a: Applicant) -> bool:\n"
        "    return a.years < 60 and a.kind == 'male' and a.score > 1\n"
    )
    model = model_of(source, "approve")
    assert {leaf.display: leaf.category for leaf in model.leaves} == {
        "a.years": "age",
        "a.kind": "gender",
        "a.score": None,
    }


def test_an_input_annotated_as_text_takes_no_number_a_helper_makes_of_it() -> None:
    """`int(event[:-1]) > 110` in a helper compares a number made of the event's code: the
    code itself is text (`event_code: str`), and 109, 110, 111 are none of its values."""
    source = """
def _distance_factor(event):
    return 2 if int(event[:-1]) > 110 else 1

def score(event_code: str, age: int):
    if event_code == "80H":
        event_code = "100H"
    return _distance_factor(event_code) * (2 if age > 60 else 1)
"""
    pool = leaf(model_of(source, "score"), "event_code").pool
    assert "80H" in pool
    assert not any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pool), pool
