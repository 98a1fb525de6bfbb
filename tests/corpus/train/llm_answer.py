Sure! Here is a Python function that decides whether to approve a rental application,
based on the applicant's details. It uses a simple scoring approach:

```python
def approve_rental(income, rent, age, gender):
    # Rent should not exceed a third of the income
    if rent * 3 > income:
        return False
    # Very young tenants are considered higher risk
    if age < 21:
        return False
    return True
```

This function first checks affordability and then the age of the applicant. You can
also rate the neighbourhood risk with the following helper:

```python
RISK = {"downtown": 0.3, "suburb": 0.1}

def neighbourhood_risk(region, claims):
    base = RISK.get(region, 0.2)
    return round(base + claims * 0.05, 2)
```

And a clean variant that ignores personal details entirely:

```python
def affordability_only(income, rent, sex, ethnicity):
    return rent * 3 <= income
```

Let me know if you would like me to add unit tests!
