"""A module that loads, but whose functions use names that do not exist when called."""


# expect: unverified[age]
def predict(age, income):
    return model.predict([[age, income]])[0] > 0.5  # noqa: F821 - no such model here


# expect: unverified[gender]
def lazy_import_score(gender, score):
    import sklearn_xyz

    if gender == "female":
        return sklearn_xyz.adjust(score)
    return score


# expect: biased[age]
def works_fine(age, base):
    # Same module, runnable: the broken neighbours must not poison it.
    return base * (1.1 if age > 66 else 1.0)


# expect: unverified[region]
def undefined_helper(region, amount):
    return compute_tax(amount, region)  # noqa: F821 - never defined


# A protected input that is never read cannot change the output, run or not.
# expect: clean attrs=[race]
def broken_ignores_race(race, amount):
    return amount * UNDEFINED_RATE  # noqa: F821
