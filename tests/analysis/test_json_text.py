"""Text the function decodes as JSON (`data = json.loads(payload)`, a serverless handler's
`json.loads(event["body"])`) is an object of the keys it reads from what it decodes, given
as JSON text (builder.json_text, shapes.JsonTextShape, harness `decode_json`)."""

from __future__ import annotations

import json

from analysis_kit import model_of, verdict

# A quote service's handlers, as web and serverless code receives a request.
HANDLERS = """\
import json


def quote(payload):
    data = json.loads(payload)
    loading = 1.3 if data["sex"] == "female" else 1.0
    return round(data.get("base", 100) * loading, 2)


def handler(event, context):
    body = json.loads(event["body"])
    fee = 25 if body.get("region") == "rural" else 10
    return {"statusCode": 200, "body": json.dumps({"fee": fee})}


def echo(payload):
    data = json.loads(payload)
    return {"received": data["age"], "ok": True}
"""


def test_the_keys_read_from_decoded_text_are_its_inputs() -> None:
    model = model_of(HANDLERS, "quote")
    assert [(x.display, x.category) for x in model.protected] == [("payload['sex']", "gender")]
    report = verdict(HANDLERS, "quote")
    assert [(f.attribute, f.parameter) for f in report.findings] == [("gender", "payload['sex']")]
    # the counterexample shows the object the text holds
    assert json.dumps(report.findings[0].example.inputs["payload"])


def test_text_inside_a_record_is_decoded_where_it_sits() -> None:
    report = verdict(HANDLERS, "handler")
    assert [(f.attribute, f.parameter) for f in report.findings] == [
        ("region", "event['body']['region']")
    ]
    assert verdict(HANDLERS, "echo").status == "clean"  # the age handed back is no decision
