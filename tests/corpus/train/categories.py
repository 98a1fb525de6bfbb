"""Region, education and occupation under their synonyms and spellings."""

EU = {"Germany", "France", "Spain"}
LEVELS = ["high school", "bachelor", "master", "phd"]
HAZARD = {"miner": 2.0, "diver": 1.8}
BAD_POSTCODES = {"E1", "N1"}


# expect: biased[region]
def shipping_zone(country):
    if country in EU:
        return 1
    return 2 if country == "US" else 3


# expect: biased[education]
def tuition_discount(highest_degree, gpa):
    if highest_degree == "master" and gpa > 3.5:
        return 0.2
    return 0.0


# expect: biased[education]
def level_rank(education):
    return LEVELS.index(education.lower())


# expect: biased[occupation]
def hazard_pay(job_title, hours):
    return round(hours * 20 * HAZARD.get(job_title, 1.0), 2)


# expect: biased[occupation]
def profession_bonus(Profession, base):
    return base + (500 if Profession == "lawyer" else 0)


# expect: biased[region]
def neighbourhood_watch(neighborhood, reports):
    return reports > 3 or neighborhood == "Eastside"


# expect: biased[region]
def postcode_risk(postcode: str):
    return postcode[:2] in BAD_POSTCODES


# expect: biased[region]
def home_city_bonus(homeCity, points):
    return points + (10 if homeCity.lower() == "new york" else 0)


# expect: biased[education]
def schooling_gate(schooling_years, score):
    if schooling_years < 12:
        return False
    return score > 50


# expect: clean attrs=[education, occupation, region]
def contact_card(name, occupation, qualification, district):
    # Echoes three protected values unchanged.
    return f"{name} - {occupation}, {qualification} ({district})"


# expect: biased[race] attrs=[race]
def ethnic_quota(Ethnicity, seats):
    reserved = 2 if Ethnicity.casefold() == "hispanic" else 0
    return max(seats - reserved, 0)


# expect: biased[gender, occupation]
def career_track(career, Sex, years):
    if career == "nurse" and Sex == "M":
        return "review"
    if years > 10:
        return "senior"
    return "junior"
