"""OpenFisca objects inside recorded calls: the `person` or `household`, `period` and
`parameters` a formula of a `Variable` class is called with (harness/recorder.py records the
calls an OpenFisca country package's YAML tests make).

What a population answers: the variables its simulation holds values for (the YAML case's
inputs, what the formula asked for: the recorder keeps a call that has a population as it
returns), one value per member; `person("age", period)`
reads them. describe.py describes a population as a map from those variables to their
values (a group's `members` as its people's population); recorded.py sets a value tried in
every period the simulation holds (the step ["key", variable] on a population).

How a recorded call is pickled and loaded in another process: the population holds its
simulation, whose tax-benefit system, variables and enums come from modules OpenFisca loads
from files under made-up names (`140702462898384_..._pension`) that no later process has.
They are pickled by reference instead: the system by its class (built again once per
process, as `openfisca test` builds the country package's), a variable by its name in that
system, an enum class by the variable whose values it lists; an array of an enum's codes
with its enum (numpy's own pickling drops it).

The recorder's openfisca entry (analysis/evidence/openfisca.py) runs an OpenFisca country
package's YAML tests as `openfisca test` does, through openfisca_core's own API: the package's
`CountryTaxBenefitSystem` built by `openfisca_core.scripts.build_tax_benefit_system`, its YAML
files collected by the runner's pytest plugin (`tools.test_runner.OpenFiscaPlugin`), in the same
pytest run as the recording plugin, so each case is a test (timed, counted, a failing case is
one failed test) and the source of the calls its simulation makes (`tests/benefits.yaml::a
senior`).

Part of the child script (see harness/runner.py): joined into one script with the other parts by
`analysis.execution.process.HARNESS_SOURCE`; standard library only (openfisca_core is the code
under test's own, never imported here).
"""

import sys
from typing import Any

SYSTEMS: dict[tuple[str, str], Any] = {}  # tax-benefit systems built again, per process


def is_population(value: Any) -> bool:
    """An OpenFisca population (`openfisca_core.populations`), known by its module."""
    return from_openfisca(type(value), "populations") and hasattr(value, "_holders")


def from_openfisca(cls: type, package: str) -> bool:
    """The class is, or derives from, one of openfisca_core's `package`."""
    prefix = f"openfisca_core.{package}"
    return any(str(getattr(k, "__module__", "")).startswith(prefix) for k in cls.__mro__)


def is_numpy_vector(value: Any) -> bool:
    return type(value).__module__ == "numpy" and getattr(value, "ndim", 0) == 1


def known_answer(population: Any, variable: str) -> Any:
    """The values the population's simulation holds for `variable` (its first known
    period's), unless they are an enum's (the codes of an OpenFisca EnumArray)."""
    holder = population._holders.get(variable)
    periods = holder.get_known_periods() if holder is not None else []
    if not periods:
        return None
    array = holder.get_array(periods[0])
    if array is None or not is_numpy_vector(array) or hasattr(array, "possible_values"):
        return None
    return array


def set_answers(population: Any, variable: str, change: Any) -> None:
    """What the population answers for `variable`, changed by `change` (a copy of the values
    in, the values to hold out) in every period its simulation holds."""
    holder = population.get_holder(variable)
    for period in holder.get_known_periods():
        holder.put_in_cache(change(holder.get_array(period).copy()), period)


# -- pickling by reference ------------------------------------------------------------------
def system_by_class(module: str, qualname: str) -> Any:
    """The country package's tax-benefit system, built once per process."""
    key = (module, qualname)
    if key not in SYSTEMS:
        found: Any = __import__(module, fromlist=["_"])
        for part in qualname.split("."):
            found = getattr(found, part)
        SYSTEMS[key] = found()
    return SYSTEMS[key]


def variable_by_name(system: Any, name: str) -> Any:
    return system.variables[name]


def enum_by_variable(system: Any, name: str) -> Any:
    return system.variables[name].possible_values


class OpenFiscaReferences:
    """Reduces the objects of one recorded call that a later process could not load by
    their module (see the module doc); None for any other object."""

    def __init__(self, arguments: list[Any]) -> None:
        self.system = next(
            (
                a.simulation.tax_benefit_system
                for a in arguments
                if is_population(a) and getattr(a, "simulation", None) is not None
            ),
            None,
        )
        if self.system is not None and self.system_class() is None:
            self.system = None  # a reform's system, built by no class of the package
        self.enums: dict[int, str] = {}
        if self.system is not None:
            for name, variable in self.system.variables.items():
                values = getattr(variable, "possible_values", None)
                if values is not None:
                    self.enums.setdefault(id(values), name)

    def system_class(self) -> tuple[str, str] | None:
        """Where the system's class is found again by name, if it is."""
        cls = type(self.system)
        module = sys.modules.get(cls.__module__)
        found: Any = module
        for part in cls.__qualname__.split("."):
            found = getattr(found, part, None)
        return (cls.__module__, cls.__qualname__) if found is cls else None

    def reduce(self, obj: Any) -> Any:
        if from_openfisca(type(obj), "indexed_enums") and hasattr(obj, "possible_values"):
            # An EnumArray: numpy pickles its codes and loses the enum beside them.
            plain = next(k for k in type(obj).__mro__ if k.__name__ == "ndarray")
            return type(obj), (obj.view(plain), obj.possible_values)
        if self.system is None:
            return None
        if obj is self.system:
            return system_by_class, self.system_class()
        if isinstance(obj, type):
            name = self.enums.get(id(obj))
            return (enum_by_variable, (self.system, name)) if name is not None else None
        if from_openfisca(type(obj), "variables"):
            name = getattr(obj, "name", None)
            if isinstance(name, str) and self.system.variables.get(name) is obj:
                return variable_by_name, (self.system, name)
        return None
