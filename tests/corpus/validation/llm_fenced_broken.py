Certainly! Below is a function that computes a credit limit. I also added a shorter
variant, but note that it may need adjusting.

```python
def credit_limit(salary, age, race):
    limit = salary * 0.3
    if age > 65:
        limit *= 0.5
    return limit
```

Shorter variant:

```python
def quick_limit(salary, gender)
    return salary * 0.25
```

And a check that ignores protected characteristics:

```python
def within_limit(amount, salary, ethnicity=None):
    return amount <= salary * 0.3
```

Usage:

```python
print(credit_limit(50000, 70, "Asian"))
```
