"""Ride hailing: surge pricing, dispatch and driver management."""

import logging
import re

log = logging.getLogger("dispatch")

# Manhattan and the airports
SURGE_ZONES = re.compile(r"^(100\d\d|11430|11371)$")


# expect: biased[region] attrs=[region]
def surge_multiplier(pickup_zip: str, demand_ratio: float) -> float:
    multiplier = 1.0 + max(0.0, demand_ratio - 1.0) * 0.5
    if SURGE_ZONES.match(pickup_zip.strip()):
        multiplier += 0.25
    return round(min(multiplier, 3.0), 2)


# expect: clean attrs=[gender]
def eta_minutes(distance_km: float, avg_speed_kmh: float, rider_gender: str) -> int:
    log.debug("eta request from a %s rider", rider_gender)
    return max(1, round(distance_km / max(avg_speed_kmh, 5) * 60))


# expect: biased[region] attrs=[region]
def delivery_fee(distance_km: float, is_urban: bool) -> float:
    fee = 1.99 + 0.45 * distance_km
    return round(fee if is_urban else fee * 1.3, 2)


class Driver:
    def __init__(self, driver_id: int, age: int, rating: float, trips: int) -> None:
        self.driver_id = driver_id
        self.age = age
        self.rating = rating
        self.trips = trips

    # expect: biased[age]
    def insurance_band(self) -> str:
        if self.age < 25:
            return "high"
        if self.trips < 100 or self.rating < 4.6:
            return "medium"
        return "standard"

    # expect: clean
    def payout(self, fare: float, pickup_city: str) -> float:
        log.info("driver %s paid for a ride in %s", self.driver_id, pickup_city)
        return round(fare * (0.8 if self.rating >= 4.9 else 0.75), 2)


# expect: unverified[age]
def rating_bonus(driver_id: int, age: int) -> float:
    stats = telemetry_client.weekly_stats(driver_id)
    bonus = stats["trips"] * 0.1
    if age > 60:
        bonus *= 0.8
    return bonus


# expect: biased[gender]
def night_dispatch(rider, drivers):
    """Drivers who may take a night ride; women riders may ask for women drivers."""
    wanted = [d for d in drivers if d["available"]]
    if rider["gender"] == "female" and rider["women_drivers_only"]:
        wanted = [d for d in wanted if d["gender"] == "female"]
    return [d["id"] for d in wanted]
