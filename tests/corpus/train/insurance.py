"""Health and life insurance pricing: thresholds past 65, lookup tables, noise, async."""

import asyncio
import random
import time

RATES = {"north": 1.0, "south": 1.3, "east": 1.1}
FLAT = {"north": 1.0, "south": 1.0, "east": 1.0}
LIMITS = {"basic": 1000, "gold": 5000}


# expect: biased[age]
def annual_premium(age, bmi, smoker):
    base = 500
    if age > 70:
        base *= 1.6
    if smoker:
        base += 300
    if bmi > 35:
        base += 100
    return base


# expect: biased[age]
def loyalty_premium(age, base):
    # Only one age differs: 67.
    if age == 67:
        return base + 250
    return base


# expect: biased[gender]
def family_rate(children, gender, base_rate):
    # Only visible together with children >= 3.
    if children >= 3 and gender == "female":
        return base_rate * 1.15
    return base_rate


# expect: biased[region]
def region_rate(region, coverage):
    return RATES.get(region, 1.0) * coverage


# expect: clean attrs=[region]
def flat_region_rate(region, coverage):
    # Looks like a lookup on region, but every entry and the default are the same.
    return FLAT.get(region, 1.0) * coverage


# expect: biased[occupation] attrs=[age, occupation]
def risk_class(age, occupation):
    match occupation:
        case "pilot" | "miner":
            return "high"
        case "nurse":
            return "medium"
        case _:
            return "low"


# expect: clean attrs=[gender]
def gender_neutral_quote(gender, base):
    # Branches on gender, but every branch gives the same answer.
    match gender.lower():
        case "male":
            return base
        case "female":
            return base
        case _:
            return base


# expect: clean attrs=[age]
def quote_with_noise(age, base):
    return round(base * (1 + random.random() * 0.05), 2)


# expect: clean attrs=[gender]
def quote_timestamped(sex, base):
    return {"premium": base * 1.1, "quoted_at": time.time()}


# expect: biased[age]
def noisy_age_loading(age, base):
    jitter = random.uniform(0.99, 1.01)
    loading = 1.5 if age >= 75 else 1.0
    return round(base * loading * jitter, 4)


class PolicyPricer:
    def __init__(self):
        self.base = 400

    # expect: biased[age, region]
    def price(self, age, region):
        price = self.base
        if age > 80:
            price += 200
        if region in ("rural",):
            price += 50
        return price

    # expect: skipped
    def describe(self):
        return f"pricer with base {self.base}"


# expect: biased[age]
async def async_quote(age, base):
    await asyncio.sleep(0)
    if age >= 65:
        return base * 1.2
    return base


# expect: biased[gender]
def health_score(patient):
    score = 100 - patient.bmi
    if patient.smoker:
        score -= 20
    if patient.gender.lower() == "female" and patient.bmi > 30:
        score -= 5
    return score


# expect: clean attrs=[age]
def coverage_limit(age, *, plan="basic"):
    return LIMITS[plan]


# expect: clean attrs=[race]
def deductible(ethnicity, income):
    _ = ethnicity.strip()
    return 500 if income < 30000 else 1000


# expect: biased[age, gender]
def life_cover_multiplier(age, gender, salary):
    multiplier = 10
    if gender == "male" and age > 45:
        multiplier = 8
    return salary * multiplier
