"""Ad targeting: audience segments, creative selection and impression logging."""

import random
import time
import uuid
from dataclasses import dataclass

BANNERS = ["spring-sale", "free-shipping", "loyalty", "new-arrivals"]
RETIREMENT_ADS = ["annuities", "cruises"]
YOUTH_ADS = ["sneakers", "gaming", "festival"]


@dataclass
class User:
    user_id: str
    age: int
    gender: str
    city: str
    interests: list


# expect: biased[age, gender]
def audience_segment(user: User) -> str:
    if user.age >= 65:
        return "silver"
    if user.gender == "female" and 25 <= user.age <= 40:
        return "young-women"
    if "sports" in user.interests:
        return "sports"
    return "general"


# expect: biased[age] attrs=[age]
def pick_ad(user_age: int, explore_rate: float = 0.1) -> str:
    if random.random() < explore_rate:
        return random.choice(BANNERS)
    if user_age > 67:
        return random.choice(RETIREMENT_ADS)
    if user_age < 30:
        return random.choice(YOUTH_ADS)
    return random.choice(BANNERS)


# expect: clean attrs=[age]
def rotate_banner(slot: int, age: int) -> str:
    rng = random.Random()  # fresh entropy on purpose: rotation must not be predictable
    return f"{slot}:{rng.choice(BANNERS)}"


# expect: clean attrs=[gender]
def impression_event(ad_id: str, gender: str) -> dict:
    return {
        "event_id": uuid.uuid4().hex,
        "ts": time.time(),
        "ad": ad_id,
        "gender": gender,
    }


# expect: clean
def frequency_capped(users, seen_counts, cap=3):
    for user in users:
        if user.age < 0:
            raise ValueError("corrupt profile")
        if seen_counts.get(user.user_id, 0) < cap:
            yield user.user_id


# expect: biased[region]
async def bid_price(user: User, base_cpm: float) -> float:
    multiplier = {"New York": 1.8, "San Francisco": 1.7, "London": 1.5}.get(user.city, 1.0)
    return round(base_cpm * multiplier / 1000, 4)
