"""Quotes: the callers, which read no protected field themselves."""

from __future__ import annotations

from fleetcover.rating import age_loading

from .rating import BASE_PREMIUM, gender_factor, territory_factor, vehicle_factor


# expect: biased[gender]
def annual_premium(driver: dict, vehicle: dict) -> float:
    return round(BASE_PREMIUM * gender_factor(driver) * vehicle_factor(vehicle), 2)


# expect: biased[age]
def renewal_quote(policyholder: dict, last_premium: float) -> float:
    return round(last_premium * 1.03 * age_loading(policyholder["age"]), 2)


# expect: biased[region]
def monthly_instalment(driver: dict, vehicle: dict) -> float:
    yearly = BASE_PREMIUM * territory_factor(driver) * vehicle_factor(vehicle)
    return round(yearly / 12, 2)


# expect: skipped
def excess_for(vehicle: dict) -> int:
    return 250 if vehicle_factor(vehicle) < 1.2 else 500
