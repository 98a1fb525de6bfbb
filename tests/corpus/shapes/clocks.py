"""Healthcare and retail records stamped with clocks and ids: the stamp changes every run,
the rule next to it does not."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone


@dataclass
class Referral:
    patient_id: str
    urgent: bool
    created: float = field(default_factory=time.time)


# expect: biased[age]
def triage_ticket(patient: dict) -> tuple[bool, float]:
    return (patient["age"] >= 75, time.time())


# expect: biased[age]
def youth_discount_event(customer: dict) -> dict:
    return {
        "event_id": str(uuid.uuid4()),
        "eligible": customer["age"] < 25,
        "at": datetime.now(timezone.utc).isoformat(),
    }


# expect: clean
def audit_stamp(patient_id: str, gender: str) -> dict:
    return {"patient": patient_id, "checked_at": time.time()}


# expect: clean
def appointment_reference(clinic: str, age: int) -> str:
    return f"{clinic}-{time.monotonic_ns()}"


# expect: biased[age]
def refer(patient_id: str, age: int, systolic: int) -> Referral:
    return Referral(patient_id, urgent=age > 70 or systolic > 180)


# expect: biased[race]
def screening_invite(patient: dict) -> list:
    priority = 1 if patient["ethnicity"] in ("black", "south asian") else 2
    return [priority, uuid.uuid4().hex, time.perf_counter()]
