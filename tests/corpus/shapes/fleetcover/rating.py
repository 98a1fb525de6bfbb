"""Rating factors; each reads one field of the driver or the vehicle."""

from __future__ import annotations

BASE_PREMIUM = 620.0


# expect: biased[gender]
def gender_factor(driver: dict) -> float:
    return 1.15 if driver["gender"] == "male" else 1.0


# expect: biased[age]
def age_loading(age: int) -> float:
    if age < 25:
        return 1.6
    if age >= 75:
        return 1.3
    return 1.0


# expect: skipped
def vehicle_factor(vehicle: dict) -> float:
    return 1.0 + max(0, vehicle["engine_cc"] - 1600) / 4000


# expect: biased[region]
def territory_factor(driver: dict) -> float:
    return 1.25 if driver["postcode"].startswith(("E1", "N1")) else 1.0
