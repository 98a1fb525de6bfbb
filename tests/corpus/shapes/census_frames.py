"""Census microdata (ACS PUMS columns: AGEP age, SEX 1/2, RAC1P race code, PINCP income,
SERIALNO household) as pandas DataFrames and numpy arrays. pandas is not installed where the
engine runs; these are labelled by the definition for a real DataFrame."""

from __future__ import annotations

import numpy as np
import pandas as pd


# expect: biased[age]
def pension_households(df: pd.DataFrame) -> list[str]:
    return df[df["AGEP"] >= 65]["SERIALNO"].tolist()


# expect: biased[race]
def weighted_income(df: pd.DataFrame) -> list[float]:
    return (np.where(df["RAC1P"] == 1, 1.0, 0.8) * df["PINCP"]).tolist()


# expect: biased[gender]
def outreach_list(df: pd.DataFrame) -> list[str]:
    chosen = df.loc[(df["SEX"] == 2) & (df["PINCP"] < 20000), "SERIALNO"]
    return list(chosen)


# expect: biased[age]
def age_bands(df: pd.DataFrame) -> list[str]:
    bands = pd.cut(df["AGEP"], bins=[0, 25, 65, 120], labels=["young", "adult", "senior"])
    return [str(b) for b in bands]


# expect: biased[age]
def discount_factors(ages: np.ndarray) -> list[float]:
    return np.where(ages >= 65, 0.5, 1.0).tolist()


# expect: skipped
def median_income(df: pd.DataFrame) -> float:
    return float(df["PINCP"].median())
