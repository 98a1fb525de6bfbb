"""A tenant-screening SDK that nobody here installed (added by the lead after `tenure_buckets`
was relabelled, so that the split still holds every status): what touches it cannot be run."""

import screening_vendor


# expect: unverified[gender]
def background_flag(tenant: dict) -> bool:
    report = screening_vendor.fetch(tenant["id"])
    return report.flags > 2 or tenant["gender"] == "male"
