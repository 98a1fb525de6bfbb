"""Records whose constructor checks each value in turn before anything is decided: a growth
measurement's sex is one of two words, its reference and gestation are known, its value lies
within its method's range (a table of ranges by method), the child is seen after birth and
under the charts' twenty years. Made-up values fail the first check and random mixtures
seldom pass them all: each check passed shows the next one's error (search/working_base.py).
One attribute keeps two arguments (`self.days` of both dates). And their lookalikes: a dose
whose weight is checked against the same table, with the sex given and never read; a parcel
checked the same way."""

from __future__ import annotations

from datetime import date

RANGES = {"height": (30.0, 250.0), "weight": (0.2, 250.0), "bmi": (5.0, 80.0), "ofc": (20.0, 70.0)}
MEDIANS = {"height": 120.0, "weight": 25.0, "bmi": 16.0, "ofc": 50.0}
REFERENCES = ("uk-who", "turner", "trisomy-21")


class Measurement:
    def __init__(
        self,
        sex: str,
        birth_date: date,
        observation_date: date,
        method: str,
        value: float,
        gestation_weeks: int = 40,
        reference: str = "uk-who",
    ) -> None:
        if sex not in ("male", "female"):
            raise ValueError("sex must be 'male' or 'female'")
        if reference not in REFERENCES:
            raise ValueError(f"unknown reference {reference}")
        if not 22 <= gestation_weeks <= 44:
            raise ValueError("gestation out of range")
        low, high = RANGES[method]
        if not low <= value <= high:
            raise ValueError(f"a {method} of {value} is implausible")
        if observation_date < birth_date:
            raise ValueError("observed before birth")
        if (observation_date - birth_date).days > 20 * 366:
            raise ValueError("the charts end at 20 years")
        self.sex = sex
        self.method = method
        self.value = value
        self.days = (observation_date - birth_date).days
        self.reference = reference
        self.weeks_early = 40 - gestation_weeks

    # expect: biased[gender]
    def median(self) -> float:
        return MEDIANS[self.method] * (1.04 if self.sex == "male" else 1.0)

    # expect: biased[age]
    def is_infant(self) -> bool:
        return self.days - 7 * self.weeks_early < 365


# expect: biased[gender]
def sds(measurement: Measurement) -> float:
    median = measurement.median()
    return round((measurement.value - median) / (0.1 * median), 2)


# expect: biased[age, gender]
def z_score(sex: str, birth_date: date, observation_date: date, method: str, value: float) -> float:
    # An adult is refused (the charts end at 20), a boy and a girl read different medians.
    return sds(Measurement(sex, birth_date, observation_date, method, value))


# expect: clean
def dose_ml(weight_kg: float, sex: str, method: str = "weight") -> float:
    low, high = RANGES[method]
    if not low <= weight_kg <= high:
        raise ValueError(f"a weight of {weight_kg} is implausible")
    return round(weight_kg * 0.5, 1)


SERVICES = {"letter": (0.0, 0.1), "parcel": (0.1, 30.0), "freight": (30.0, 1000.0)}


class Shipment:
    def __init__(self, service: str, weight_kg: float, sent_on: date, due_on: date) -> None:
        low, high = SERVICES[service]
        if not low <= weight_kg < high:
            raise ValueError(f"a {service} of {weight_kg} kg is out of range")
        if due_on < sent_on:
            raise ValueError("due before it is sent")
        self.service = service
        self.weight_kg = weight_kg


# expect: skipped
def postage(shipment: Shipment) -> float:
    return round(shipment.weight_kg * (2.0 if shipment.service == "freight" else 3.5), 2)
