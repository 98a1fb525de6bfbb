"""Transport and telecoms: regexes, suffixes, birth years, booleans, nested attribute paths."""

import re
from datetime import date


# expect: biased[region]
def surge_multiplier(pickup_zip, demand):
    base = 1.0 + demand / 100
    if re.match(r"^9\d{4}$", pickup_zip):
        base += 0.5
    return round(base, 2)


# expect: biased[occupation]
def plan_discount(job_title, months):
    if job_title.lower().endswith("intern"):
        return 0.5
    return 0.1 if months > 12 else 0.0


# expect: biased[age]
def licence_check(birth_year, points):
    # The age is computed, not received: birth_year is the protected input.
    age = date.today().year - birth_year
    return age >= 18 and points < 12


# expect: biased[gender]
def driver_band(is_male: bool, years_driving):
    band = 3 if years_driving < 2 else 1
    if is_male:
        band += 1
    return band


# expect: clean attrs=[race]
def fare(distance_km, minutes, race=None):
    return round(2.5 + distance_km * 1.2 + minutes * 0.3, 2)


# expect: biased[age]
def rental_car_fee(driver, days):
    extra = 25 if driver.profile.age < 25 else 0
    return days * (40 + extra)


# expect: biased[gender]
def greeting_line(customer_gender: str, name: str) -> str:
    return f"{'Dear Sir' if customer_gender.upper() == 'M' else 'Dear Madam'} {name},"


# expect: clean attrs=[region]
def roaming_notice(home_country, minutes):
    # The country only appears, unchanged, in the text.
    return f"{minutes} roaming minutes used outside {home_country}"


class FareTable:
    def __init__(self):
        self.zones = {"centre": 3.0, "suburbs": 2.0}

    # expect: biased[age]
    def concession(self, rider_age, zone):
        price = self.zones.get(zone, 2.5)
        if rider_age < 19 or rider_age >= 66:
            price /= 2
        return price

    # expect: skipped
    def zone_count(self):
        return len(self.zones)
