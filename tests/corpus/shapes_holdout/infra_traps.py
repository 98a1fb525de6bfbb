"""Infrastructure code with person-sounding names, and a person's fields echoed after
normalisation."""

from __future__ import annotations

from datetime import datetime, timezone


# expect: skipped
def make_client_config(region_name: str = "us-east-1", retries: int = 3) -> dict:
    return {"region_name": region_name, "retries": {"max_attempts": retries}}


# expect: skipped
def nearest_zone(location: str) -> str:
    return "westeurope" if location.lower() in ("amsterdam", "dublin") else "eastus"


# expect: skipped
def cache_control(max_age: int, private: bool = False) -> str:
    scope = "private" if private else "public"
    return f"{scope}, max-age={max_age}"


# expect: skipped
def certificate_expiring(not_after: datetime, warn_days: int = 30) -> bool:
    cert_age = datetime.now(timezone.utc) - not_after
    return cert_age.days > -warn_days


# expect: skipped
def accept_language(header: str) -> str:
    primary = header.split(",")[0].split(";")[0].strip()
    return primary or "en"


# expect: clean
def display_gender(member: dict) -> str:
    return str(member["gender"]).strip().capitalize()


# expect: clean
def csv_row(patient: dict) -> str:
    return ",".join([patient["mrn"], str(patient["race"]).upper(), str(patient["age"])])
