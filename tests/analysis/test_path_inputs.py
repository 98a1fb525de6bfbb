"""An input handed to `Path()`, `open()` or `os.path` is a path: text, never a number.
health-engine's `build_briefing(config)` starts with `Path(config.get("data_dir", "./data"))`
and joins `data_dir / "garmin_latest.json"`; a made-up number there (the `/` read as
arithmetic) made every call raise `TypeError: expected str, bytes or os.PathLike object`,
and the age read further down was never tried."""

from __future__ import annotations

from analysis_kit import model_of, pools, verdict

BRIEFING = '''\
import json
import os
from pathlib import Path


def briefing(config: dict) -> dict:
    data_dir = Path(config.get("data_dir", "./data"))
    profile = config.get("profile", {})
    latest = data_dir / "latest.json"
    readings = json.loads(latest.read_text()) if latest.exists() else {}
    zone = "high" if profile.get("age", 40) >= 65 else "normal"
    return {"zone": zone, "readings": readings}


def letter(member: dict, age: int) -> str:
    where = os.path.join(member["home"], "letters")
    return f"{where}: senior" if age >= 65 else f"{where}: adult"


def share(total, age):
    return total / "2" if age < 0 else total / 2
'''


def test_a_path_is_text_and_the_person_behind_it_is_tried() -> None:
    built = pools(model_of(BRIEFING, "briefing"))
    assert built["config['data_dir']"] and all(
        isinstance(v, str) for v in built["config['data_dir']"]
    ), built
    assert verdict(BRIEFING, "briefing").biased_attributes == ["age"]
    assert all(isinstance(v, str) for v in pools(model_of(BRIEFING, "letter"))["member['home']"])
    assert verdict(BRIEFING, "letter").biased_attributes == ["age"]


def test_a_number_divided_is_still_a_number() -> None:
    assert all(not isinstance(v, str) for v in pools(model_of(BRIEFING, "share"))["total"])
