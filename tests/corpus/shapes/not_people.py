"""Names that look protected but describe no person: cloud regions, HTTP headers, cookie and
cache lifetimes, the age of a policy or a file, locales. And normalised echoes of a person's
own field, which change nothing but case, whitespace or type."""

from __future__ import annotations

import os
import time
from pathlib import Path

ENDPOINTS = {"eu": "https://eu.api.example.com", "us": "https://us.api.example.com"}


# expect: skipped
def s3_endpoint(region_name: str, bucket: str) -> str:
    return f"https://{bucket}.s3.{region_name}.amazonaws.com"


# expect: skipped
def api_base(region: str) -> str:
    if region.startswith("eu-"):
        return ENDPOINTS["eu"]
    return ENDPOINTS["us"]


# expect: skipped
def redirect_target(headers: dict[str, str], default: str = "/") -> str:
    location = headers.get("Location")
    return location if location and location.startswith("/") else default


# expect: skipped
def is_stale(headers: dict[str, str], max_age: int = 3600) -> bool:
    age = int(headers.get("Age", "0"))
    return age > max_age


# expect: skipped
def session_cookie(session_id: str, max_age: int = 86400) -> str:
    return f"sid={session_id}; Max-Age={max_age}; HttpOnly; Secure"


# expect: skipped
def policy_needs_review(policy_age_days: int, claims: int) -> bool:
    return policy_age_days > 365 or claims > 2


# expect: skipped
def expired_files(folder: str, max_age_days: int = 30) -> list[str]:
    cutoff = time.time() - max_age_days * 86400
    out = []
    for path in sorted(Path(folder).glob("*.log")):
        file_age = os.path.getmtime(path)
        if file_age < cutoff:
            out.append(path.name)
    return out


# expect: skipped
def greeting(locale: str = "en_US") -> str:
    return {"fr_FR": "Bonjour", "de_DE": "Hallo"}.get(locale, "Hello")


# expect: skipped
def cache_key(region: str, language: str, page: int) -> str:
    return f"{region}:{language}:{page}"


# expect: clean
def normalised_sex(row: dict) -> str:
    return str(row["sex"]).strip().lower()


# expect: clean
def export_record(applicant: dict) -> dict:
    return {"name": applicant["name"], "gender": applicant["gender"].upper()}


# expect: clean
def ethnicity_label(person: dict) -> str:
    return f"Ethnicity: {person['ethnicity'].strip().title()}"
