"""Shops and loyalty schemes: ranges, tables keyed by gender, side effects."""

PRODUCTS = {
    "female": ["perfume", "handbag", "scarf", "watch"],
    "male": ["razor", "watch", "wallet", "belt"],
    "default": ["gift card", "watch", "mug"],
}
METRO = {"Greater London", "Kent"}
AUDIT = []


# expect: biased[age]
def birthday_coupon(customer_age, basket_total):
    pct = 0.15 if customer_age in range(60, 130) else 0.05
    return round(basket_total * pct, 2)


# expect: biased[gender]
def recommend(gender, history):
    pool = PRODUCTS[gender] if gender in PRODUCTS else PRODUCTS["default"]
    return [p for p in pool if p not in history][:3]


# expect: clean attrs=[race]
def loyalty_points(spend, race):
    bonus = {"Asian": 0, "Black": 0, "White": 0}.get(race, 0)
    return int(spend // 10) + bonus


# expect: biased[region]
def delivery_days(county, express=False):
    if express:
        return 1
    return 2 if county.strip().title() in METRO else 5


# expect: skipped
def basket_total(prices, discount=0.0):
    return round(sum(prices) * (1 - discount), 2)


# expect: clean attrs=[age]
def audit_trail(customer_age, action):
    AUDIT.append((customer_age, action))
    return action.upper()


# expect: biased[education, occupation]
def credit_card_offer(profession, edu, spend):
    tier = "silver"
    if profession in ("doctor", "lawyer"):
        tier = "gold"
    if edu == "phd" and spend > 1000:
        tier = "platinum"
    return tier


# expect: clean attrs=[gender]
def size_guide(gender, height_cm):
    # Received with the form, but the chart is the same for everyone.
    chart = "S" if height_cm < 165 else "M" if height_cm < 180 else "L"
    return chart
