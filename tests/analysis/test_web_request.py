"""A Flask view takes the person from the global `request`, not from a parameter: the keys
it reads of the JSON body, the form or the query string are inputs of their own
(analysis/inputs/web_request.py), sent as a test request of the module's app while the view
runs, its response read as its status and body (harness/runner.py `web_request`)."""

from __future__ import annotations

import pytest
from analysis_kit import model_of, verdict

pytest.importorskip("flask")

APP = """\
from flask import Flask, jsonify, request

app = Flask(__name__)


@app.route("/quote", methods=["POST"])
def quote():
    data = request.get_json() or {}
    premium = 300.0 * (2.0 if data["age"] < 25 else 1.0)
    return jsonify({"premium": premium})


@app.route("/eligible")
def eligible():
    if request.args.get("sex") == "female":
        return "yes"
    return "no", 200


@app.route("/apply", methods=["POST"])
def apply():
    region = request.form["region"]
    return jsonify(approved=region != "rural", name=request.form.get("name"))


@app.route("/health")
def health():
    return jsonify(status="ok")
"""


@pytest.mark.parametrize(
    ("qualname", "shown", "category"),
    [("quote", "<request.json>['age']", "age"), ("eligible", "<request.args>['sex']", "gender"),
     ("apply", "<request.form>['region']", "region")],
)  # fmt: skip
def test_what_a_view_reads_of_the_request_is_an_input_and_proves_its_bias(
    qualname: str, shown: str, category: str
) -> None:
    assert shown in {leaf.display for leaf in model_of(APP, qualname).protected}
    report = verdict(APP, qualname)
    assert report.status == "biased", report.reason
    assert report.biased_attributes == [category]


def test_a_view_reading_nothing_of_the_request_has_no_input() -> None:
    assert model_of(APP, "health").params == []
