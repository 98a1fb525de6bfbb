"""A dating app's matching service: who sees whom, in what order, and profile cards."""

import asyncio
import random
from collections import Counter

SEEN_GENDERS: Counter = Counter()
BLOCKED_PAIRS = {(1, 2), (5, 9)}


# expect: biased[age, gender]
def should_show(viewer: dict, profile: dict) -> bool:
    if profile["gender"] not in viewer["seeking"]:
        return False
    return abs(viewer["age"] - profile["age"]) <= 10


# expect: biased[age, race]
def compatibility(user, candidate):
    score = 50
    shared = set(user["interests"]) & set(candidate["interests"])
    score += 5 * len(shared)
    if user["ethnicity"] == candidate["ethnicity"]:
        score += 10
    if candidate["age"] > 45:
        score -= 15
    return min(score, 100)


# expect: clean
def profile_card(profile: dict) -> str:
    return f"{profile['display_name']} · {profile['city']} · {profile['bio'][:80]}"


# expect: clean
def message_allowed(sender: dict, recipient: dict) -> bool:
    SEEN_GENDERS[sender["gender"]] += 1  # product analytics, not part of the decision
    if (sender["id"], recipient["id"]) in BLOCKED_PAIRS:
        return False
    return recipient["accepts_messages"]


# expect: biased[age]
def daily_deck(viewer_age, candidates, size=3):
    """The day's candidates, closest in age first."""
    ranked = sorted(candidates, key=lambda c: abs(c["age"] - viewer_age))
    for candidate in ranked[:size]:
        yield candidate["id"]


# expect: biased[gender, region] attrs=[gender, region]
def boost_price(Gender: str, country: str = "US") -> float:
    price = 4.99 if country == "US" else 3.99
    if Gender.strip().lower() in ("m", "male", "man"):
        price += 2.00
    return price


# expect: clean attrs=[age]
async def load_profile(user_id: int, age: int) -> dict:
    await asyncio.sleep(0)
    return {"id": user_id, "age": age, "complete": True}


# expect: biased[occupation]
def superlike_quota(profile):
    quota = 1
    if profile.get("verified"):
        quota += 1
    if profile.get("occupation") in ("doctor", "lawyer", "engineer"):
        quota += 2
    return quota


# expect: biased[gender] attrs=[gender]
def icebreaker(sex: str) -> str:
    # random prompt, but the pool depends on the recipient's sex
    pool = ["Coffee or tea?", "Best trip ever?"]
    if sex == "female":
        pool = ["Favourite book?", "Dream job?", "Dogs or cats?"]
    return random.choice(pool)
