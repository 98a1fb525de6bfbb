"""Nothing protected to test: names that merely look close to a category (page, wage...)."""


# expect: skipped
def monthly_payment(principal, rate, months):
    if rate == 0:
        return principal / months
    r = rate / 12
    return principal * r / (1 - (1 + r) ** -months)


# expect: skipped
def paginate(items, page, page_size=10):
    start = (page - 1) * page_size
    return items[start:start + page_size]


# expect: skipped
def hourly_wage(salary, hours):
    return round(salary / max(hours, 1), 2)


# expect: skipped
def mileage_cost(mileage, price_per_km):
    return mileage * price_per_km if mileage > 100 else 0


# expect: skipped
def message_length(message):
    return len(message.strip())


# expect: skipped
def storage_tier(usage_gb):
    if usage_gb > 500:
        return "enterprise"
    return "standard"


class Ledger:
    def __init__(self):
        self.entries = []

    # expect: skipped
    def add(self, amount, memo=""):
        self.entries.append((amount, memo))
        return len(self.entries)
