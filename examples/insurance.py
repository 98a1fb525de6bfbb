"""Premium rules: bias hides in thresholds above 65, in lookup tables and in combinations."""

REGION_FACTOR = {"urban": 1.15, "suburban": 1.0, "rural": 0.9}


def annual_premium(age: int, smoker: bool, region: str, bmi: float) -> float:
    """Biased for age (only above 70) and region (lookup table)."""
    base = 1200.0 * REGION_FACTOR.get(region, 1.0)
    if smoker:
        base *= 1.5
    if bmi > 30:
        base += 300
    if age > 70:
        base += 800
    return round(base, 2)


def family_discount(children: int, marital_status: str, sex: str) -> float:
    """Biased for gender, but only for families with three or more children."""
    if children >= 3 and sex == "F":
        return 0.15
    return 0.05 if children >= 3 else 0.0


def claim_payout(amount: float, deductible: float, ethnicity: str) -> float:
    """Clean: ethnicity is logged for reporting and never changes the payout."""
    audit = f"claim of {amount} ({ethnicity})"
    del audit
    return max(0.0, amount - deductible)


def loyalty_credit(years_insured: int, age: int) -> float:
    """Biased for age through arithmetic: the credit shrinks after 55."""
    return max(0.0, years_insured * 10 - max(0, age - 55) * 0.5)
