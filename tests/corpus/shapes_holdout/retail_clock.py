"""Retail and car rental: offers stamped with the time, refusals of real customers, and
validation of impossible ones."""

from __future__ import annotations

import secrets
from collections import namedtuple
from datetime import datetime

Offer = namedtuple("Offer", ["code", "percent", "issued_at"])


# expect: biased[gender]
def loyalty_offer(shopper: dict) -> dict:
    percent = 15 if shopper["gender"] == "female" else 10
    return {"percent": percent, "token": secrets.token_hex(8), "ts": datetime.now()}


# expect: biased[age]
def birthday_offer(customer_id: str, age: int) -> Offer:
    percent = 20 if age >= 60 else 5
    return Offer(f"BDAY-{customer_id}", percent, datetime.now().timestamp())


# expect: clean
def receipt_header(store: str, cashier_gender: str) -> str:
    return f"{store} — {datetime.now():%Y-%m-%d %H:%M:%S.%f}"


# expect: biased[age]
def rent_car(driver: dict, days: int) -> float:
    if driver["age"] > 75:
        raise PermissionError("drivers over 75 cannot rent")
    return days * 45.0


# expect: biased[gender]
def create_account(email: str, gender: str) -> str:
    assert gender in ("male", "female"), "gender must be male or female"
    return email.lower()


# expect: clean
def rental_deposit(age: int, days: int) -> float:
    if not 0 < age < 125:
        raise ValueError("age out of range")
    return 200.0 + days * 10
