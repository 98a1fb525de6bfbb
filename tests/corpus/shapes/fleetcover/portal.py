"""The quote service: methods on self and factor functions passed in."""

from __future__ import annotations

from collections.abc import Callable

from . import rating


class QuoteService:
    def __init__(self, brand: str = "FleetCover") -> None:
        self.brand = brand

    # expect: biased[age]
    def _loading(self, driver: dict) -> float:
        return rating.age_loading(driver["age"])

    # expect: biased[age]
    def price(self, driver: dict) -> float:
        return round(rating.BASE_PREMIUM * self._loading(driver), 2)

    # expect: skipped
    def banner(self) -> str:
        return f"{self.brand}: quotes in under a minute"


# expect: biased[gender]
def batch_premiums(
    drivers: list[dict], factor: Callable[[dict], float] = rating.gender_factor
) -> list[float]:
    return [round(rating.BASE_PREMIUM * factor(d), 2) for d in drivers]
