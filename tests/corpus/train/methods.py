"""Methods: instantiable classes, static and class methods, inheritance, state, async."""


class Scorer:
    def __init__(self):
        self.weights = {"phd": 30, "master": 20, "bachelor": 10}

    # expect: biased[education]
    def score(self, experience, education):
        return self.weights.get(education, 0) + experience

    # expect: biased[age]
    @staticmethod
    def bucket(age):
        return "senior" if age >= 66 else "adult"

    # expect: skipped
    @classmethod
    def from_config(cls, config):
        scorer = cls()
        scorer.weights.update(config)
        return scorer

    # expect: biased[age]
    async def async_score(self, age, income):
        if age > 68:
            income *= 0.9
        return income


class SeniorScorer(Scorer):
    # expect: biased[age, education]
    def score(self, experience, education, age):
        base = super().score(experience, education)
        return base - (5 if age > 70 else 0)


class Clinic:
    def __init__(self, name, capacity):
        self.name = name
        self.capacity = capacity

    # expect: biased[age]
    def triage(self, age, severity):
        if age > 75 or severity > 8:
            return "urgent"
        return "routine"

    # expect: clean attrs=[gender]
    def admit(self, patient_gender, bed_count):
        return bed_count > 0 and self.capacity > 0

    # expect: clean attrs=[race]
    def record(self, race, notes):
        return {"race": race, "notes": notes, "clinic": self.name}


class Counter:
    def __init__(self, start=0):
        self.count = start

    # expect: clean attrs=[age]
    def bump(self, age):
        # Stateful: the answer depends on how often it was called, never on age.
        self.count += 1
        return self.count


class RateCard:
    def __init__(self, *, debug=False):
        self.debug = debug
        self.surcharge = {"miner": 40, "pilot": 25}

    # expect: biased[occupation]
    def rate(self, occupation, hours):
        return hours * 10 + self.surcharge.get(occupation, 0)

    # expect: clean attrs=[occupation]
    def describe(self, occupation):
        # The occupation is echoed back unchanged.
        return f"rate card for {occupation}"


class Admissions:
    CUTOFF = 80
    LEGACY_REGIONS = ("north", "west")

    # expect: biased[region]
    def admit(self, test_score, home_region):
        cutoff = self.CUTOFF
        if home_region in self.LEGACY_REGIONS:
            cutoff -= 5
        return test_score >= cutoff

    # expect: clean attrs=[gender, race]
    def acknowledge(self, student_id, gender, race):
        return f"received application {student_id}"


class ScoreStore:
    # Needs a live database connection: no argument built from its use can stand in for
    # one, so every call fails and the methods are judged statically.
    def __init__(self, conn):
        self.cursor = conn.cursor()

    # expect: unverified[age]
    def risk(self, customer_id, age):
        self.cursor.execute("SELECT claims FROM history WHERE id = ?", (customer_id,))
        claims = self.cursor.fetchone()[0]
        if age > 70 and claims > 2:
            return "refer"
        return "accept"

    # expect: unverified[region]
    def tier(self, customer_id, region):
        self.cursor.execute("SELECT spend FROM customers WHERE id = ?", (customer_id,))
        spend = self.cursor.fetchone()[0]
        return spend * {"north": 1.0, "south": 1.2}.get(region, 1.1)
