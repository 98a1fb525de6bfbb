"""Card fraud rules from the legacy platform (needs the vendor SDK, not installed here)."""

import acme_fraud_sdk
from acme_fraud_sdk.rules import velocity

HIGH_RISK_MCC = {"7995", "5967", "4829"}


# expect: unverified[age]
def fraud_gate(amount: float, merchant_code: str, age: int) -> bool:
    risk = acme_fraud_sdk.score(amount, merchant_code)
    if age < 25 and risk > 0.5:
        return False
    return risk < 0.9


# expect: clean
def risk_note(card_last4: str, occupation: str) -> str:
    return acme_fraud_sdk.note(card_last4)


# expect: unverified[]
def log_decline(txn_id: str, sex: str) -> str:
    print(f"declined {txn_id} (cardholder sex: {sex})")
    return acme_fraud_sdk.ticket(txn_id)


# expect: skipped
def format_amount(amount: float, currency: str = "USD") -> str:
    return f"{amount:,.2f} {currency}"


# expect: unverified[region]
def velocity_check(transactions: list, home_zip: str) -> bool:
    window = velocity.window(transactions, minutes=10)
    foreign = [t for t in window if t["zip"] != home_zip]
    return len(foreign) < 3
