"""Tables of people: a parameter kept row by row by a test of its own columns is a DataFrame,
whatever it is called, and where pandas cannot be imported the harness gives such code a
small table that answers the same idioms (analysis/execution/harness/frames.py), with outputs that
read as pandas' do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from analysis_kit import model_of, verdict
from harness_kit import InProcessHarness, in_process_harness

from analysis import Engine
from analysis.execution.process import ProcessExecutor
from analysis.shapes import FrameShape, LeafShape, RecordShape
from config.policy import build_policy

# A filter over census rows, its parameter named like no table, copied before filtering.
KEEP_WORKING_AGE = (
    "def working_age(rows):\n"
    "    kept = rows\n"
    "    kept = kept[kept['AGEP'] >= 18]\n"
    "    kept = kept[(kept['AGEP'] < 67) & (kept['WKHP'] > 0)]\n"
    "    return kept\n"
)


@pytest.fixture
def h() -> Iterator[InProcessHarness]:
    with in_process_harness() as harness:
        yield harness


def frame(**columns: list[Any]) -> dict[str, Any]:
    return {"__cb__": "frame", "columns": columns}


def test_a_parameter_filtered_by_its_own_columns_is_a_frame() -> None:
    model = model_of(KEEP_WORKING_AGE, "working_age")
    (param,) = model.params
    assert isinstance(param.shape, FrameShape)
    assert set(param.shape.item.fields) == {"AGEP", "WKHP"}


def test_a_record_read_by_key_is_no_frame() -> None:
    model = model_of("def f(rows):\n    return rows['AGEP'] >= 18\n")
    assert isinstance(model.params[0].shape, RecordShape)


@pytest.mark.parametrize("stub", [[], ["pandas"]], ids=["pandas", "stand-in"])
def test_the_stand_in_answers_as_pandas_does(h: InProcessHarness, stub: list[str]) -> None:
    source = (
        "def f(df):\n"
        "    adults = df[(df['AGEP'] >= 18) & ~(df['SEX'] == 2)]\n"
        "    return adults[['SEX', 'PINCP']], (adults['PINCP'] * 2).tolist(), len(adults)\n"
    )
    # With pandas, imported while loading: the import, seconds on a loaded machine, is no
    # part of the call's time limit.
    h.load(source if stub else "import pandas\n" + source, stub=stub, stub_missing=False)
    outcome = h.call(frame(AGEP=[30, 12, 40], SEX=[1, 1, 2], PINCP=[100, 200, 300]))
    assert outcome["ok"], outcome
    assert outcome["repr"] == "({'PINCP': {0: 100}, 'SEX': {0: 1}}, [200], 1)"


def test_the_stand_in_refuses_what_it_does_not_answer(h: InProcessHarness) -> None:
    h.load("def f(df):\n    return df.pivot_table(index='SEX')\n", stub=["pandas"])
    outcome = h.call(frame(SEX=[1, 2]))
    assert outcome["ok"] is False and outcome["error"].startswith("AttributeError")


def test_a_census_filter_is_biased_without_pandas() -> None:
    policy = build_policy([{"python": {"stub": ["pandas"]}}])
    source = "import pandas as pd\n\n" + KEEP_WORKING_AGE
    with Engine(policy, executor=ProcessExecutor()) as engine:
        report = engine.scan_function(source, "census.py", "working_age")
    assert report.status == "biased", report.reason
    assert [f.attribute for f in report.findings] == ["age"]


# cvd-risk's batch shape: the frame is copied, filtered by a mask, and its required columns
# are checked against `df.columns` before any is read; the valid regions are the keys of the
# rows of a table picked by sex.
BATCH = """
import numpy as np
import pandas as pd

SCALES = {"male": {"low": 0.5, "high": 1.5}, "female": {"low": 0.4, "high": 1.2}}

def calculate_batch(df: pd.DataFrame) -> pd.DataFrame:
    required = ["age", "sex", "region"]
    if not set(required).issubset(df.columns):
        raise ValueError("missing columns")
    results = df.copy()
    results["risk"] = np.nan
    for sex in ["male", "female"]:
        sex_mask = results["sex"].str.lower() == sex
        for region in results.loc[sex_mask, "region"].unique():
            if region not in SCALES[sex]:
                continue
            mask = sex_mask & (results["region"] == region)
            data = results[mask]
            results.loc[mask, "risk"] = (data["age"] - 40) / 10 * SCALES[sex][region]
    return results
"""


def test_a_copied_frame_is_read_through_its_copies_and_its_required_columns() -> None:
    (param,) = model_of(BATCH, "calculate_batch").params
    assert isinstance(param.shape, FrameShape)
    assert {"age", "sex", "region"} <= set(param.shape.item.fields)


def test_the_keys_of_a_table_picked_by_another_input_are_values_to_try() -> None:
    region = next(x for x in model_of(BATCH, "calculate_batch").leaves if x.name == "region")
    assert {"low", "high"} <= set(region.pool)


def test_a_batch_over_a_copied_frame_is_biased() -> None:
    with Engine(build_policy([]), executor=ProcessExecutor()) as engine:
        report = engine.scan_function(BATCH, "batch.py", "calculate_batch")
    assert report.status == "biased", report.reason
    assert {"gender", "region"} <= {f.attribute for f in report.findings}


# cvd-risk's QRISK3 batch: the rows of one sex copied, then optional columns read with
# defaults (`.get("bmi", 25.0).fillna(25.0)`), which only a frame holding them answers.
ROWS_COPIED = """
import numpy as np
import pandas as pd

def calculate_batch(df: pd.DataFrame) -> pd.DataFrame:
    results = df.copy()
    results["risk"] = np.nan
    for sex in ["male", "female"]:
        sex_mask = results["sex"].str.lower() == sex
        sex_data = results[sex_mask].copy()
        bmis = sex_data.get("bmi", 25.0).fillna(25.0).values
        factor = 1.2 if sex == "male" else 1.0
        results.loc[sex_mask, "risk"] = factor * bmis / 25.0
    return results
"""


def test_the_rows_a_mask_keeps_copied_are_read_as_the_frame() -> None:
    (param,) = model_of(ROWS_COPIED, "calculate_batch").params
    assert isinstance(param.shape, FrameShape)
    assert {"sex", "bmi"} <= set(param.shape.item.fields)


# cvd-risk's Gulf RACE batch: a coefficient per country, picked by a loop over the countries
# the model knows, and a numpy mask of one sex's rows laid over the whole table, which raises
# unless every row is of that sex.
ONE_SEX_PER_BATCH = """
import numpy as np
import pandas as pd

COEFFS = {"male": {"age": 0.05, "country_uae": 0.3}, "female": {"age": 0.04}}

def calculate_batch(df: pd.DataFrame) -> pd.DataFrame:
    results = df.copy()
    results["risk"] = np.nan
    for sex in ["male", "female"]:
        mask = results["sex"].str.lower() == sex
        if not mask.any():
            continue
        coeffs = COEFFS[sex]
        by_country = np.zeros(len(results))
        for country in ["saudi", "uae", "kuwait"]:
            country_mask = results.loc[mask, "country"].str.lower() == country
            by_country[country_mask] = coeffs.get(f"country_{country}", 0.0)
        results.loc[mask, "risk"] = coeffs["age"] * results.loc[mask, "age"] + by_country
    return results
"""


def test_the_values_a_loop_compares_a_column_with_are_values_to_try() -> None:
    model = model_of(ONE_SEX_PER_BATCH, "calculate_batch")
    country = next(x for x in model.leaves if x.name == "country")
    assert {"saudi", "uae", "kuwait"} <= set(country.pool)


def test_a_batch_of_one_sex_is_tried_with_its_peers_alike() -> None:
    """Row 0 tried with a fixed peer of the typical sex: any other sex raises (a mixed batch),
    so only a table whose rows are all of the sex tried shows the sex's rule."""
    with Engine(build_policy([]), executor=ProcessExecutor()) as engine:
        report = engine.scan_function(ONE_SEX_PER_BATCH, "gulf.py", "calculate_batch")
    assert report.status == "biased", report.reason
    kinds = {f.attribute: (f.method, f.kind) for f in report.findings}
    # A difference in the risk, not the refusal of a mixed batch.
    assert kinds["gender"] == ("dynamic", "output"), kinds
    # Every row took the sex tried, and the finding says so.
    (gender,) = [f for f in report.findings if f.attribute == "gender"]
    assert gender.parameter == "df['sex'][*]"
    assert gender.example is not None
    assert set(gender.example.inputs["df"]["sex"]) == {gender.example.values[0]}
    assert kinds["region"] == kinds["age"] == ("dynamic", "output"), kinds


# kfre's shape: the table comes with the names of its columns as parameters (no default to
# read them from), handed on to the code that reads them.
NAMED_COLUMNS = """
import pandas as pd

def risk(table, columns):
    female = table[columns["sex"]].str.lower() == "female"
    return table[columns["age"]] * 0.1 + female * 0.5

def add_risk_col(df, age_col=None, sex_col=None, copy=True):
    out = df.copy() if copy else df
    out["risk"] = risk(out, {"age": age_col, "sex": sex_col})
    return out
"""


def test_parameters_naming_columns_hold_the_names_and_the_table_those_columns() -> None:
    model = model_of(NAMED_COLUMNS, "add_risk_col")
    by_name = {param.name: param.shape for param in model.params}
    column = by_name["age_col"]
    assert isinstance(column, LeafShape) and column.leaf.pool == ["age"]
    assert column.leaf.category is None  # a name, not an age
    frame = by_name["df"]
    assert isinstance(frame, FrameShape)
    assert {"age", "sex"} <= set(frame.item.fields)
    with Engine(build_policy([]), executor=ProcessExecutor()) as engine:
        report = engine.scan_function(NAMED_COLUMNS, "kfre.py", "add_risk_col")
    assert report.status == "biased", report.reason
    assert {f.attribute for f in report.findings if f.method == "dynamic"} == {"age", "gender"}


def test_the_columns_its_rows_are_read_by_are_the_frames() -> None:
    """QRISK2's batch maps each row's ethnicity in a loop over `iterrows()`."""
    source = (
        "ETHRISK = {'white': 1, 'indian': 2, 'black_caribbean': 6}\n"
        "def batch(df):\n"
        "    results = df.copy()\n"
        "    scores = []\n"
        "    for _, row in results.iterrows():\n"
        "        scores.append(row['age'] * 0.1 + ETHRISK.get(row.get('ethnicity'), 1))\n"
        "    results['risk'] = scores\n"
        "    return results\n"
    )
    (param,) = model_of(source, "batch").params
    assert isinstance(param.shape, FrameShape)
    assert {"age", "ethnicity"} <= set(param.shape.item.fields)
    with Engine(build_policy([]), executor=ProcessExecutor()) as engine:
        report = engine.scan_function(source, "qrisk.py", "batch")
    assert {f.attribute for f in report.findings if f.method == "dynamic"} == {"age", "race"}


# pygrowthstandards' reference lookup: the table's rows picked by a mask on the age column.
LMS_AT = """
import pandas as pd

def lms_at(fdata: pd.DataFrame, age_value: int):
    if age_value not in fdata["x"].values:
        return float(fdata["m"].mean()) + 0.01 * age_value  # interpolated between rows
    row = fdata[fdata["x"] == age_value].iloc[0]
    return row["m"]
"""


def test_a_frame_masked_by_an_age_is_no_table_looked_up_by_age() -> None:
    # A mask selects rows, it looks nothing up by age: the cells stay one value each (a
    # life table in the cell `x` made every comparison with the age raise).
    model = model_of(LMS_AT, "lms_at")
    cells = [lf for lf in model.leaves if lf.path[0] == ("param", "fdata")]
    assert cells and all(not isinstance(v, list) for lf in cells for v in lf.pool)
    assert [f.attribute for f in verdict(LMS_AT, "lms_at").findings] == ["age"]


# lablite-cvd's `model_frame`: columns copied in a loop over their names, and a 0/1 `female`
# column whose use shows no flag (`astype(float)`): a flag all the same, never a sex's word.
RISK_FRAME = (
    "import pandas as pd\n"
    "def risk(df: pd.DataFrame) -> float:\n"
    "    out = pd.DataFrame(index=df.index)\n"
    "    out['female'] = df['female'].astype(float)\n"
    "    for col in ['age', 'sbp']:\n"
    "        if col in df:\n"
    "            out[col] = df[col].astype(float)\n"
    "    return float((out.values @ [-0.3, 0.05, 0.01])[0])\n"
)


def test_columns_a_loop_names_and_a_column_named_for_a_value_are_read() -> None:
    model = model_of(RISK_FRAME, "risk")
    pools = {leaf.display: leaf.pool for leaf in model.leaves}
    assert {"df['age'][0]", "df['sbp'][0]", "df['female'][0]"} <= set(pools)
    assert sorted(pools["df['female'][0]"]) == [False, True]
    report = verdict(RISK_FRAME, "risk")
    assert sorted(f.attribute for f in report.findings) == ["age", "gender"], report.reason


# The columns a list of the module names picks: a model's features (`df[FEATURES]`,
# `df.loc[:, list(FEATURES)]`), whatever the function reads of them afterwards.
FEATURE_LIST = (
    "import pandas as pd\n"
    "FEATURES = ['age', 'sex', 'sbp']\n"
    "WEIGHTS = {'age': 0.04, 'sbp': 0.01}\n"
    "def risk(df: pd.DataFrame) -> float:\n"
    "    X = df.loc[:, list(FEATURES)]\n"
    "    row = X.iloc[0]\n"
    "    male = 0.5 if row.iloc[1] == 'male' else 0.0\n"
    "    return float(row.iloc[0] * WEIGHTS['age'] + row.iloc[2] * WEIGHTS['sbp'] + male)\n"
)


def test_the_columns_a_list_of_the_module_picks_are_read() -> None:
    (param,) = model_of(FEATURE_LIST, "risk").params
    assert isinstance(param.shape, FrameShape)
    assert list(param.shape.item.fields) == ["age", "sex", "sbp"]
    report = verdict(FEATURE_LIST, "risk")
    assert sorted(f.attribute for f in report.findings) == ["age", "gender"], report.reason


# The production template of a model package: the features a configuration file lists,
# one column the code names itself.
CONFIGURED_FEATURES = (
    "import json\n"
    "import pandas as pd\n"
    "CONFIG = json.loads('{\"features\": [\"income\", \"age\"]}')\n"
    "WEIGHTS = json.loads('{\"income\": 0.01, \"age\": -0.1}')\n\n\n"
    "def predict(input_data: pd.DataFrame):\n"
    "    if (input_data['income'] < 0).any():\n"
    "        raise ValueError('income below zero')\n"
    "    X = input_data[CONFIG['features']]\n"
    "    return sum(X[c] * WEIGHTS[c] for c in CONFIG['features']).round(2).tolist()\n"
)


def test_a_frame_also_read_by_columns_a_configuration_lists_learns_them_from_its_calls() -> None:
    pytest.importorskip("pandas")
    (param,) = model_of(CONFIGURED_FEATURES, "predict").params
    assert isinstance(param.shape, FrameShape)
    assert list(param.shape.item.fields) == ["income"] and param.shape.item.open
    report = verdict(CONFIGURED_FEATURES, "predict")
    assert [f.attribute for f in report.findings] == ["age"], (report.status, report.reason)


ROW_FUNCTIONS = (
    "def _band(row):\n"
    "    return 2 if row['ethnicity'] == 'Hispanic' else 1\n\n\n"
    "def flags(df):\n"
    "    return df.apply(lambda r: 1 if r['age'] > 60 else 0, axis=1).tolist()\n\n\n"
    "def bands(df):\n"
    "    return df.apply(_band, axis='columns').tolist()\n\n\n"
    "def seniors(df, limit=40):\n"
    "    return len(df.query('age > @limit and `home region` != \"north\"'))\n\n\n"
    "def chained(df):\n"
    "    risk = df.assign(risk=lambda d: d['age'] / 10).pipe(lambda d: d[d['sex'] == 'F'])\n"
    "    kept = df.loc[lambda d: d['race'] != 'White', 'name']\n"
    "    shares = df.groupby('team').apply(lambda g: g['religion'].nunique())\n"
    "    means = df.groupby('team')['income'].agg(lambda s: s.mean())\n"
    "    return risk, kept, shares, means, df['score'].apply(lambda v: v.real)\n"
)


def test_the_columns_a_function_applied_to_each_row_or_a_query_reads_are_the_frame_s() -> None:
    columns = {
        name: {leaf.display for leaf in model_of(ROW_FUNCTIONS, name).leaves}
        for name in ("flags", "bands", "seniors")
    }
    assert "df['age'][0]" in columns["flags"]
    assert "df['ethnicity'][0]" in columns["bands"]
    assert {"df['age'][0]", "df['home region'][0]"} <= columns["seniors"]
    assert not any("limit" in leaf for leaf in columns["seniors"] if leaf.startswith("df["))
    assert verdict(ROW_FUNCTIONS, "flags").biased_attributes == ["age"]
    # Functions a chain of the table hands itself, a part or its rows to; not a column's
    # values, nor the table's own methods.
    assert {leaf.display for leaf in model_of(ROW_FUNCTIONS, "chained").leaves} == {
        f"df['{c}'][0]" for c in ("age", "sex", "race", "name", "religion", "income", "score")
    }


HELD_FRAME = """\
import pandas as pd


class Cohort:
    def __init__(self, people: pd.DataFrame, label="all"):
        self.people = people
        self.label = label

    def seniors(self):
        return int((self.people["age"] >= 65).sum())


class Register:
    def __init__(self, df):
        self.df = df

    def women_share(self):
        return float((self.df["sex"] == "F").mean())
"""


@pytest.mark.parametrize(
    ("qualname", "category"), [("Cohort.seniors", "age"), ("Register.women_share", "gender")]
)
def test_a_frame_kept_on_the_instance_is_a_frame_of_the_columns_its_methods_read(
    qualname: str, category: str
) -> None:
    # Annotated a DataFrame, or named as one: built as a table, not as a dict of its columns.
    pytest.importorskip("pandas")
    report = verdict(HELD_FRAME, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]
