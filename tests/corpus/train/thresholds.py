"""Age thresholds all over the realistic range, past 65 too."""

import bisect

SENIOR_AGE = 70
BRACKETS = [25, 45, 70]


# expect: biased[age]
def retirement_offer(age):
    if age >= 67:
        return "pension"
    return "salary"


# expect: biased[age]
def age_band(age):
    return age // 10 * 10


# expect: biased[age]
def very_old_surcharge(age, base):
    if age > 85:
        return base * 2
    return base


# expect: biased[age]
def exact_age_bonus(age):
    return 100 if age in (67, 68) else 0


# expect: biased[age]
def bracket(age):
    return bisect.bisect(BRACKETS, age)


# expect: biased[age]
def nonagenarian_rate(applicant_age):
    if 90 <= applicant_age < 100:
        return 0.5
    return 1.0


# expect: clean attrs=[age]
def ageless(age, score):
    # Compares age with itself: always true for a number.
    return score if age == age else 0


# expect: biased[age]
def senior_flag(age):
    return age >= SENIOR_AGE


# expect: biased[age]
def fractional_threshold(age, base):
    return base * (0.8 if age > 64.5 else 1.0)


# expect: biased[age]
def capped_age_premium(age, base):
    return base + min(age, 70) * 2


# expect: clean attrs=[age]
def clamp_then_ignore(age, score):
    age = max(18, min(age, 99))
    return round(score * 1.05, 2)
