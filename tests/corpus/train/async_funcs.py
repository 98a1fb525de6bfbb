"""Coroutines: the engine has to await them to see their output."""

import asyncio
import random

RATES = {"urban": 1.2, "rural": 0.9}
FAST_GROUPS = ("Black",)


# expect: biased[region]
async def fetch_rate(region):
    await asyncio.sleep(0)
    return RATES.get(region.lower(), 1.0)


# expect: clean attrs=[age]
async def verify_identity(name, age):
    if age < 18:
        raise PermissionError("minors cannot verify")
    return name.strip() != ""


# expect: biased[education]
async def async_rank(candidate):
    bonus = 10 if candidate.education in {"phd", "masters"} else 0
    return candidate.score + bonus


# expect: clean attrs=[gender]
async def notify(user_id, gender):
    await asyncio.sleep(0)
    return f"notified {user_id}"


# Relabelled from skipped when helpers took their callers' categories: the module's one call
# passes `age` as `years`, so the 60-year threshold is an age rule (analysis/callers.py).
# expect: biased[age]
async def adjust(value, years):
    return value * (0.9 if years > 60 else 1.0)


# expect: biased[age]
async def gather_scores(age, incomes):
    return await asyncio.gather(*(adjust(i, age) for i in incomes))


# expect: biased[race]
async def slow_decision(*, race, score):
    return score > (55 if race in FAST_GROUPS else 50)


# expect: clean attrs=[age]
async def jittered(age, base):
    await asyncio.sleep(random.random() / 1000)
    return base


# expect: clean attrs=[age]
async def async_echo(applicant_age, score):
    return {"applicant_age": applicant_age, "ok": score > 1}


# expect: biased[gender]
async def async_pipeline(gender, amount):
    checked = await _check(amount)
    if not checked:
        return None
    return amount * (1.1 if gender == "male" else 1.0)


# expect: skipped
async def _check(amount):
    await asyncio.sleep(0)
    return amount > 0
