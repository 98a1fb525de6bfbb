"""A table whose columns the function never names: handed to a DataFrame's constructor or to
a fitted model, which reads the features it was fitted with, named in its own file or the
project's config (the production-model packages: `make_prediction(input_data=...)`, an
`InsurancePredictor.predict(input_features)` over an XGBoost booster). Its columns are learnt
from what the reader says is missing (pandas, scikit-learn, XGBoost each name them), and a
column the reader wants as a number (a one-hot `Education_primary`) is tried as 0 and 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from analysis_kit import scan_in_package, write_package

from analysis.search.missing_fields import missing_key, numeric_columns

pytest.importorskip("pandas")

PREDICT = """
import json
from pathlib import Path

import pandas as pd

CONFIG = json.loads((Path(__file__).parent / "config.json").read_text())


def make_prediction(*, input_data):
    data = pd.DataFrame([input_data]) if isinstance(input_data, dict) else pd.DataFrame(input_data)
    features = data[CONFIG["features"]]
    score = features[CONFIG["features"][0]] / 100 + features[CONFIG["features"][1]] * 0.1
    return [round(float(s), 3) for s in score]


# A fitted model's reader, as a library's booster is (built here by `type`, so that its
# `predict` is no function of the project): the names it was fitted with, in order, numbers only.
NAMES = CONFIG["features"] + ["Marital_married", "Marital_single"]


def _booster_predicts(self, table):
    given = list(table.columns)
    if given != NAMES:
        raise ValueError(f"feature_names mismatch: {NAMES} {given}")
    text = [c for c in given if table[c].dtype == object]
    if text:
        raise ValueError("DataFrame.dtypes for data must be int, float, bool or "
                         "category.  Invalid columns:" + ", ".join(f"{c}: str" for c in text))
    rows = table.to_dict("records")
    return [int(row["Marital_married"] == 1) + int(row["Age"] > 60) for row in rows]


Booster = type("Booster", (), {"predict": _booster_predicts})


class Predictor:
    def __init__(self):
        self.model = Booster()

    def predict(self, input_features):
        return self.model.predict(input_features)
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    config = json.dumps({"features": ["Age", "Income"]})
    return write_package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/predict.py": PREDICT, "pkg/config.json": config},
    )


def test_the_columns_a_table_s_reader_lacks_are_learnt(package: Path) -> None:
    report = scan_in_package(package, "pkg/predict.py", "make_prediction")
    assert report.status == "biased"
    assert [f.parameter for f in report.findings] == ["input_data['Age'][0]"]


def test_a_fitted_model_s_features_are_learnt_in_its_order_numbers_where_it_wants(
    package: Path,
) -> None:
    report = scan_in_package(package, "pkg/predict.py", "Predictor.predict")
    assert report.status == "biased"
    assert {f.attribute for f in report.findings} == {"age", "marital_status"}


def test_the_readers_complaints_are_read() -> None:
    pandas_none = (
        "KeyError: \"None of [Index(['Gender', 'Married'], dtype='object')] are in the [columns]\""
    )
    assert missing_key(pandas_none) == (["Gender", "Married"], "key")
    assert missing_key("KeyError: \"['Gender', 'Age'] not in index\"") == (["Gender", "Age"], "key")
    sklearn = (
        "ValueError: The feature names should match those that were passed during fit.\n"
        "Feature names seen at fit time, yet now missing:\n- Age\n- Sex\n- ...\n"
    )
    assert missing_key(sklearn) == (["Age", "Sex"], "key")
    xgboost = (
        "ValueError: feature_names mismatch: ['Id', 'Age'] ['f0']\nexpected Age, Id in input data"
    )
    assert missing_key(xgboost) == (["Id", "Age"], "key")
    assert numeric_columns("ValueError: ... Invalid columns:Job_x: str, Marital_y: object") == [
        "Job_x",
        "Marital_y",
    ]
