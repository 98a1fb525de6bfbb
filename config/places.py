"""Places a flag may be named for: `ist_sachsen`, `is_california`, `is_scotland_resident`.

A yes/no input named for one place ("is the employee in Saxony", "is the driver a California
resident") is where a person lives, as much as a `region` string is. Only flags are read this
way (config.policy: a flag prefix, then the place, then at most a word of residence): a bare
`texas_rate` or `berlin` is left to the policy's own synonyms.
"""

from __future__ import annotations

COUNTRIES = (
    "afghanistan", "albania", "algeria", "argentina", "armenia", "australia", "austria",
    "bangladesh", "belarus", "belgium", "bolivia", "bosnia", "brazil", "bulgaria", "cambodia",
    "cameroon", "canada", "chile", "china", "colombia", "croatia", "cuba", "cyprus", "czechia",
    "denmark", "ecuador", "egypt", "estonia", "ethiopia", "finland", "france", "georgia",
    "germany", "ghana", "greece", "guatemala", "haiti", "honduras", "hungary", "iceland",
    "india", "indonesia", "iran", "iraq", "ireland", "israel", "italy", "jamaica", "japan",
    "jordan", "kazakhstan", "kenya", "korea", "kosovo", "kuwait", "latvia", "lebanon", "libya",
    "lithuania", "luxembourg", "malaysia", "mali", "malta", "mexico", "moldova", "mongolia",
    "morocco", "mozambique", "myanmar", "nepal", "netherlands", "new zealand", "nicaragua",
    "niger", "nigeria", "norway", "pakistan", "palestine", "panama", "paraguay", "peru",
    "philippines", "poland", "portugal", "qatar", "romania", "russia", "rwanda", "saudi arabia",
    "senegal", "serbia", "singapore", "slovakia", "slovenia", "somalia", "south africa", "spain",
    "sri lanka", "sudan", "sweden", "switzerland", "syria", "taiwan", "tanzania", "thailand",
    "tunisia", "turkey", "uganda", "ukraine", "uk", "united kingdom", "united states", "usa",
    "uruguay", "uzbekistan", "venezuela", "vietnam", "yemen", "zambia", "zimbabwe",
    "england", "scotland", "wales", "northern ireland",
)  # fmt: skip

US_STATES = (
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
    "delaware", "florida", "hawaii", "idaho", "illinois", "indiana", "iowa", "kansas",
    "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan", "minnesota",
    "mississippi", "missouri", "montana", "nebraska", "nevada", "new hampshire", "new jersey",
    "new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma", "oregon",
    "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas",
    "utah", "vermont", "virginia", "washington state", "west virginia", "wisconsin", "wyoming",
    "puerto rico",
)  # fmt: skip

# Provinces and states of federations whose payroll, tax and benefit rules differ by them.
PROVINCES = (
    "alberta", "british columbia", "manitoba", "new brunswick", "newfoundland", "nova scotia",
    "ontario", "quebec", "saskatchewan",
    "baden wuerttemberg", "bayern", "bavaria", "berlin", "brandenburg",
    "bremen", "hamburg", "hessen", "hesse", "mecklenburg vorpommern", "niedersachsen",
    "lower saxony", "nordrhein westfalen", "north rhine westphalia", "rheinland pfalz",
    "saarland", "sachsen", "saxony", "sachsen anhalt", "schleswig holstein", "thueringen",
    "thuringia",
    "new south wales", "queensland", "victoria", "tasmania", "western australia",
    "south australia",
)  # fmt: skip

PLACES = COUNTRIES + US_STATES + PROVINCES

# The codes of US states and Canadian provinces, as forms and tables write them: read as
# places only two or more together (`state in ("CA", "NY")`), one alone is as often else.
REGION_CODES = frozenset(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR "
    "AB BC MB NB NL NS NT NU ON PE QC SK YT".split()
)

# Words that may follow the place in a flag: `is_california_resident`.
RESIDENCE_WORDS = frozenset({"resident", "residents", "based", "citizen", "born", "native"})

PLACE_TOKENS = frozenset(tuple(place.split()) for place in PLACES)


def names_a_place(tokens: tuple[str, ...]) -> bool:
    """`("california", "resident")`, `("sachsen",)`: a place, then at most words of residence."""
    while tokens and tokens[-1] in RESIDENCE_WORDS:
        tokens = tokens[:-1]
    return tokens in PLACE_TOKENS
