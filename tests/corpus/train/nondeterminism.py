"""Randomness and clocks: no false alarms, but bias under noise is still bias."""

import random
import secrets
import time
import uuid
from datetime import datetime


# expect: clean attrs=[gender]
def shuffle_ranking(names, gender):
    names = list(names)
    random.shuffle(names)
    return names


# expect: clean attrs=[age]
def session_token(user, age):
    # uuid4 reads os.urandom: no seed controls it.
    return {"user": user, "token": uuid.uuid4().hex}


# expect: clean attrs=[age]
def timestamped_decision(age, income):
    return {"approved": income > 40000, "at": datetime.now().isoformat()}


# expect: clean attrs=[race]
def lottery(race):
    return random.randint(1, 100)


# expect: biased[gender]
def random_bias(gender, base):
    noise = random.gauss(0, 1)
    return round(base + noise + (5 if gender == "male" else 0), 6)


# expect: biased[region]
def random_choice_bias(region):
    options = ["a", "b", "c"] if region == "urban" else ["x", "y"]
    return random.choice(options)


# expect: clean attrs=[age]
def measured_sum(age, n):
    start = time.perf_counter()
    total = sum(range(n))
    return total, time.perf_counter() - start


# expect: clean attrs=[gender]
def reference_code(gender, amount):
    return f"{secrets.token_hex(4)}-{amount}"


# expect: biased[age]
def sampled_review(age, claims):
    # Random sampling, but the share sampled depends on age.
    rate = 0.5 if age > 70 else 0.1
    return [c for c in claims if random.random() < rate]


# expect: clean attrs=[occupation]
def clock_bucket(occupation, amount):
    return amount + int(time.time() * 1000) % 7
