"""Inputs annotated with an Enum class of the project (Enum, IntEnum, StrEnum, `(str, Enum)`,
defined in the module or imported from a sibling one, by name or through the module) get that
enum's members at any depth of a record: a parameter, a dataclass or pydantic field, a field of
a record in a list of a record. A made-up number or word never reaches code that validates its
enum (`AssetClass(self.asset_class)` in `__post_init__`); a protected enum is still varied over
its members. Each package is scanned by the real engine in the bubblewrap sandbox."""

from __future__ import annotations

import textwrap
from pathlib import Path

from analysis_kit import model_in_package, model_of, pools, scan_in_package, verdict, write_package

from analysis.values import EnumMember

# A tax package as india-tax-guru writes it: StrEnums validated in `__post_init__`, a lot of
# capital gains (its asset class an enum) in a list of the profile, an assessee type with a
# default member that any other member is refused for.
TAX = {
    "tax/__init__.py": "",
    "tax/models.py": """\
        from dataclasses import dataclass, field
        from enum import Enum, StrEnum


        class AgeBand(StrEnum):
            BELOW_60 = "below_60"
            SENIOR_60_80 = "senior_60_80"
            SUPER_SENIOR_80_PLUS = "super_senior_80_plus"


        class AssesseeType(StrEnum):
            INDIVIDUAL = "individual"
            HUF = "huf"
            COMPANY = "company"


        class AssetClass(str, Enum):
            EQUITY_LISTED = "equity_listed"
            PROPERTY = "property"


        @dataclass
        class CapitalGainLot:
            asset_class: AssetClass
            gain: int

            def __post_init__(self):
                self.asset_class = AssetClass(self.asset_class)


        @dataclass
        class TaxpayerProfile:
            salary: int
            age_band: AgeBand = AgeBand.BELOW_60
            assessee_type: AssesseeType = AssesseeType.INDIVIDUAL
            capital_gains: list[CapitalGainLot] = field(default_factory=list)

            def __post_init__(self):
                self.age_band = AgeBand(self.age_band)
                self.assessee_type = AssesseeType(self.assessee_type)
                if self.assessee_type is AssesseeType.COMPANY:
                    raise NotImplementedError("companies are not supported")
        """,
    "tax/regime.py": """\
        from . import models
        from .models import AgeBand, TaxpayerProfile


        def taxable_income(profile: TaxpayerProfile) -> int:
            exemption = 250000
            if profile.age_band == AgeBand.SENIOR_60_80:
                exemption = 300000
            elif profile.age_band == AgeBand.SUPER_SENIOR_80_PLUS:
                exemption = 500000
            gains = sum(lot.gain for lot in profile.capital_gains)
            return max(0, profile.salary + gains - exemption)
        """,
}

# A protected enum three records deep: the age band of a member of a household.
HOUSEHOLD = {
    "welfare/__init__.py": "",
    "welfare/bands.py": """\
        import enum


        class AgeBand(enum.IntEnum):
            CHILD = 0
            ADULT = 1
            SENIOR = 2
        """,
    "welfare/benefits.py": """\
        from dataclasses import dataclass

        from .bands import AgeBand


        @dataclass
        class Member:
            name: str
            age_band: AgeBand

            def __post_init__(self):
                self.age_band = AgeBand(self.age_band)


        @dataclass
        class Household:
            members: list[Member]
            income: float


        def family_fare(age_bands: list[AgeBand]) -> float:
            bands = [AgeBand(band) for band in age_bands]
            return sum(5.0 if band is AgeBand.SENIOR else 10.0 for band in bands)


        def winter_payment(household: Household) -> float:
            seniors = sum(1 for m in household.members if m.age_band is AgeBand.SENIOR)
            return 200.0 * seniors + (100.0 if household.income < 20000 else 0.0)
        """,
}

# Enums reached through their module (`from . import kinds`, then `kinds.Channel`), as a
# pydantic model's fields, a plain parameter and a quoted annotation.
SHOP = {
    "shop/__init__.py": "",
    "shop/kinds.py": """\
        import enum


        class Sex(str, enum.Enum):
            FEMALE = "female"
            MALE = "male"


        class Channel(enum.Enum):
            WEB = "web"
            STORE = "store"


        class Tier(enum.IntEnum):
            BASIC = 10
            GOLD = 20
        """,
    "shop/pricing.py": """\
        from pydantic import BaseModel

        from . import kinds


        class Customer(BaseModel):
            sex: kinds.Sex
            channel: kinds.Channel
            tier: "kinds.Tier" = kinds.Tier.GOLD


        def premium(customer: Customer) -> float:
            base = 100.0 if customer.channel is kinds.Channel.WEB else 110.0
            return base * (0.9 if customer.sex is kinds.Sex.FEMALE else 1.0)


        def shipping(sex: kinds.Sex, channel: "kinds.Channel", tier: kinds.Tier) -> float:
            channel = kinds.Channel(channel)
            tier = kinds.Tier(tier)
            fee = 5.0 if channel is kinds.Channel.WEB else 0.0
            return fee + (2.0 if sex == "male" else 0.0)
        """,
}


def test_an_enum_field_of_a_record_in_a_list_of_a_record_is_one_of_its_members(
    tmp_path: Path,
) -> None:
    model = model_in_package(tmp_path, TAX, "tax/regime.py", "taxable_income")
    asset = pools(model)["profile.capital_gains[0].asset_class"]
    assert asset and all(isinstance(v, EnumMember) and v.cls == "AssetClass" for v in asset)
    # named as the module names it, not through the module imported too (`models.AgeBand`)
    band = pools(model)["profile.age_band"]
    members = ("BELOW_60", "SENIOR_60_80", "SUPER_SENIOR_80_PLUS")
    assert band == [EnumMember("AgeBand", m) for m in members]
    assessee = next(x for x in model.leaves if x.display == "profile.assessee_type")
    # not protected, with a default: the base rests on the default member
    assert assessee.pool[assessee.typical] == EnumMember("AssesseeType", "INDIVIDUAL")


def test_a_profile_validating_its_enums_deep_inside_is_proved_biased(tmp_path: Path) -> None:
    function = scan_in_package(write_package(tmp_path, TAX), "tax/regime.py", "taxable_income")
    assert function.status == "biased", (function.status, function.reason)
    assert {f.attribute for f in function.findings if not f.is_static} == {"age"}


def test_a_protected_enum_three_records_deep_is_varied_over_its_members(tmp_path: Path) -> None:
    model = model_in_package(tmp_path, HOUSEHOLD, "welfare/benefits.py", "winter_payment")
    band = next(x for x in model.leaves if x.display == "household.members[0].age_band")
    assert band.category == "age"
    members = [v for v in band.pool if isinstance(v, EnumMember)]
    assert {m.member for m in members} == {"CHILD", "ADULT", "SENIOR"}
    function = scan_in_package(tmp_path, "welfare/benefits.py", "winter_payment")
    assert function.status == "biased", (function.status, function.reason)
    [finding] = [f for f in function.findings if not f.is_static]
    assert finding.attribute == "age" and finding.example is not None
    tried = [str(v) for v in finding.example.values]
    assert "AgeBand.SENIOR" in tried, tried  # members of the enum, never a made-up age


def test_enums_reached_through_their_module_are_their_members(tmp_path: Path) -> None:
    model = model_in_package(tmp_path, SHOP, "shop/pricing.py", "shipping")
    found = pools(model)
    assert found["channel"] == [EnumMember("kinds.Channel", m) for m in ("WEB", "STORE")]
    assert found["tier"] == [EnumMember("kinds.Tier", m) for m in ("BASIC", "GOLD")]
    customer = model_in_package(tmp_path, SHOP, "shop/pricing.py", "premium")
    tier = next(x for x in customer.leaves if x.display == "customer.tier")
    assert tier.pool[tier.typical] == EnumMember("kinds.Tier", "GOLD")  # its default member


def test_a_pydantic_model_and_a_parameter_typed_through_the_module_are_proved_biased(
    tmp_path: Path,
) -> None:
    write_package(tmp_path, SHOP)
    for qualname in ("premium", "shipping"):
        function = scan_in_package(tmp_path, "shop/pricing.py", qualname)
        assert function.status == "biased", (qualname, function.status, function.reason)
        assert {f.attribute for f in function.findings if not f.is_static} == {"gender"}


def test_a_list_of_a_protected_enum_holds_its_members(tmp_path: Path) -> None:
    write_package(tmp_path, HOUSEHOLD)
    function = scan_in_package(tmp_path, "welfare/benefits.py", "family_fare")
    assert function.status == "biased", (function.status, function.reason)
    [finding] = [f for f in function.findings if not f.is_static]
    assert finding.attribute == "age" and finding.example is not None
    assert all(str(v).startswith("AgeBand.") for v in finding.example.values)



# fitness-tools' calculators take `sex: str | Sex` and validate the text: an enum beside
# another type is no closed set, and the text a validator refuses is still tried.
SEX_OR_TEXT = {
    "fit/__init__.py": "",
    "fit/types.py": """\
        from enum import Enum


        class Sex(Enum):
            MALE = "male"
            FEMALE = "female"
        """,
    "fit/calc.py": """\
        from fit.types import Sex


        def validate_sex(sex):
            if isinstance(sex, Sex):
                return sex
            if str(sex).lower() not in ("male", "female"):
                raise ValueError(f"Invalid sex: {sex!r}")
            return Sex(str(sex).lower())


        class Calculator:
            def __init__(self, age: int, sex: str | Sex) -> None:
                self.age = age
                self.sex = validate_sex(sex)
        """,
}


def test_an_enum_beside_text_in_a_union_is_tried_with_text_the_code_refuses(
    tmp_path: Path,
) -> None:
    root = write_package(tmp_path, SEX_OR_TEXT)
    report = scan_in_package(root, "fit/calc.py", "Calculator.__init__")
    assert report.status == "biased", (report.status, report.reason)
    assert [f.attribute for f in report.findings] == ["gender"]


RISK_MODELS = textwrap.dedent("""\
    from enum import Enum

    COEFFICIENTS = {
        "BASIC": {"age": 0.03, "female": -0.2},
        "WITH_LABS": {"age": 0.025, "female": -0.25},
    }


    class Model(Enum):
        BASIC = "Basic clinical model"
        WITH_LABS = "Basic model with laboratory values"


    def life_expectancy(model, patient):
        weights = COEFFICIENTS[model.name]
        years = 30 - weights["age"] * patient["age"] + weights["female"] * patient["female"]
        return round(years, 2)
""")


def test_a_parameter_named_after_an_enum_of_the_module_is_one_of_its_members() -> None:
    # `model.name` picks a table's column: a made-up record's `name` is no key of it.
    assert set(pools(model_of(RISK_MODELS, "life_expectancy"))["model"][:2]) == {
        EnumMember("Model", "BASIC"), EnumMember("Model", "WITH_LABS"),
    }  # fmt: skip
    found = {f.attribute for f in verdict(RISK_MODELS, "life_expectancy").findings}
    assert found == {"age", "gender"}
