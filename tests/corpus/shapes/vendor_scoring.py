"""A credit vendor's SDK that nobody here installed (added by the lead after `age_bands` was
relabelled, so that the split still holds every status): what touches it cannot be run."""

import acme_credit_sdk


# expect: unverified[age]
def vendor_score(applicant: dict) -> float:
    model = acme_credit_sdk.load("v2")
    if applicant["age"] > 60:
        return model.score(applicant) * 0.9
    return model.score(applicant)
