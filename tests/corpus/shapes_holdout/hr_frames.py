"""HR analytics on pandas DataFrames (not installed where the engine runs: labelled by the
definition for a real DataFrame)."""

from __future__ import annotations

import pandas as pd


# expect: biased[gender]
def raise_pool(staff: pd.DataFrame) -> list[str]:
    picked = staff.loc[(staff["gender"] == "male") & (staff["rating"] >= 4), "emp_id"]
    return picked.tolist()


# expect: biased[age]
def tenure_buckets(staff: pd.DataFrame) -> list[str]:
    return [str(b) for b in pd.qcut(staff["age"], q=2, labels=["junior", "senior"])]
