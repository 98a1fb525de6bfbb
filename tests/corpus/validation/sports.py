"""Clubs and leagues: nested classes, class methods, values computed but never used."""

AWAY_RATES = {"Lagos": 0.3}


class League:
    class Rules:
        # expect: biased[age]
        def veteran(self, age):
            return age >= 35

        # expect: clean attrs=[gender]
        def roster_entry(self, player, gender):
            division = "W" if gender == "female" else "M"  # computed, never used
            return {"player": player, "division": "open"}


class Gym:
    def __init__(self, owner):
        self.owner = owner

    # expect: biased[age]
    def membership_fee(self, age, months):
        return months * (20 if age < 26 else 30)

    # expect: biased[gender]
    @classmethod
    def quota(cls, gender, team_size):
        return team_size // 2 if gender == "female" else team_size


# expect: biased[region]
def away_allowance(hometown, km):
    return round(km * AWAY_RATES.get(hometown, 0.2), 2)


# expect: biased[education]
def coach_level(qualifications):
    return "A" if "UEFA A" in qualifications else "B"


# expect: clean attrs=[age]
def match_fee(age, matches):
    total = 0
    for _ in range(matches):
        total += 15
    assert age is not None
    return total


# expect: biased[age, race]
def scout_interest(player):
    if player["position"] == "keeper":
        return player["height"] > 185
    return player["age"] < 21 and player["race"] != "White"
