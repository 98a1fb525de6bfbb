"""Lending decisions, including an accepted statutory rule and an async service call."""

import asyncio


def credit_limit(income: float, debts: float, occupation: str) -> float:
    """Biased for occupation: some jobs get a lower multiplier."""
    multiplier = 0.2 if occupation in ("artist", "driver", "cleaner") else 0.35
    return round(max(0.0, income - debts) * multiplier, 2)


def senior_rate(age: int, amount: float) -> float:  # codebias: ignore[age] statutory senior rate
    """Depends on age, and a reviewer has accepted that in the code."""
    return 0.02 if age >= 67 else 0.05


async def approve(income: float, debts: float, race: str) -> bool:
    """Clean, async: race is received but the decision uses only the debt ratio."""
    await asyncio.sleep(0)
    return debts / max(income, 1.0) < 0.4


def risk_band(score: int) -> str:
    """No protected input: skipped."""
    return "low" if score > 700 else "high"
