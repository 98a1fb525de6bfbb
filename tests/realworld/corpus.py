"""The real-world corpus as data: the manifest, the labels and the proofs, read and checked.

Stdlib and PyYAML only, nothing from the engine: these files are the engine's ground truth.
Every reader raises CorpusError with the file and the entry when something is malformed, so a
typo in a label is a clear failure rather than a silently different figure.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.yml"
LABELS = HERE / "labels"
PROOFS = HERE / "proofs"
CACHE_ENV = "CODEBIAS_REALWORLD_CACHE"

# The categories a label's `biased[...]` names (the paper's six); the classes the law names
# beside them go under `other:`, and count wherever the policy scored with has them on
# (`enabled_categories`: config/defaults.yml has every one on).
DEFAULT_CATEGORIES = ("age", "gender", "race", "region", "education", "occupation")
OTHER_CATEGORIES = (
    "religion", "disability", "marital_status", "sexual_orientation", "nationality", "pregnancy",
)
POLICY_DEFAULTS = HERE.parents[1] / "config" / "defaults.yml"
KINDS = ("person", "general")
MODES = ("bare", "deps")  # without and with the package's own dependencies (measure.py)
# How a repository runs its own functions (issue 27's recorder runs these): its test suite, a
# module's `__main__` demo, a script of examples/, or a framework's own test runner.
ENTRY_KINDS = ("tests", "demo", "example", "framework")
SPLITS = ("dev", "holdout")
VERDICTS = ("biased", "clean", "not-a-person")
_LABEL = re.compile(r"^(?P<verdict>biased|clean|not-a-person)(?:\[(?P<attrs>[^\]]*)\])?$")
_FUNCTION = re.compile(r"^[\w./-]+\.py::[\w.<>]+$")


class CorpusError(ValueError):
    """A manifest, label or proof entry that does not follow the documented form."""


@dataclass(frozen=True)
class EntryPoint:
    """One way the package's repository runs its functions, as its own CI or README does."""

    kind: str  # one of ENTRY_KINDS
    run: str  # the command, run from the unpacked sdist (`pytest -q tests`)
    result: str  # what one run gave in the package's deps venv, with its seconds
    note: str = ""


def parse_entry_points(raw: object, where: str) -> tuple[EntryPoint, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise CorpusError(f"{where}: entry_points must be a list of entry points")
    out: list[EntryPoint] = []
    for i, entry in enumerate(raw):
        here = f"{where}: entry point #{i + 1}"
        if not isinstance(entry, dict) or entry.get("kind") not in ENTRY_KINDS:
            raise CorpusError(f"{here}: kind must be one of {ENTRY_KINDS}")
        if not str(entry.get("run") or "").strip():
            raise CorpusError(f"{here}: `run:` names no command")
        out.append(
            EntryPoint(
                kind=str(entry["kind"]), run=str(entry["run"]),
                result=str(entry.get("result", "")), note=str(entry.get("note", "")),
            )
        )
    return tuple(out)


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "codebias-realworld")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sdist: str
    url: str
    sha256: str
    licence: str
    kind: str  # person | general
    split: str | None  # dev | holdout for person packages
    import_root: str  # relative to the unpacked sdist
    import_name: str
    why: str
    speed: bool = False
    # What pip installs for the "with dependencies" venv: the pinned release by default; the
    # declared dependencies alone for an sdist that no longer builds (pygrowup's setup.py
    # imports its own package, which needs six, before six can be installed).
    requirements: tuple[str, ...] = ()
    # The modes (bare, deps) in which the fast tier scans it: the smoke subset.
    smoke: tuple[str, ...] = ()
    entry_points: tuple[EntryPoint, ...] = ()

    @property
    def pip_requirements(self) -> tuple[str, ...]:
        pinned = self.requirements or (f"{self.name}=={self.version}",)
        # The test runner the repository's own CI has: the recording run of its tests
        # (issue 27) runs them with the package's interpreter.
        runner = ("pytest",) if any(p.kind == "tests" for p in self.entry_points) else ()
        return pinned + runner

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

    def source_root(self, cache: Path | None = None) -> Path:
        """The unpacked sdist: what `codebias scan` is pointed at (the repository)."""
        return (cache or cache_dir()) / "src" / self.key

    def venv(self, cache: Path | None = None) -> Path:
        """The venv where pip installed this package (and so its dependencies) and codebias."""
        return (cache or cache_dir()) / "venvs" / self.key


def bare_venv(cache: Path | None = None) -> Path:
    """The venv with codebias alone: the repository as the App sees it, without its deps."""
    return (cache or cache_dir()) / "venvs" / "bare"


def load_manifest(path: Path = MANIFEST) -> list[Package]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: list[Package] = []
    for i, raw in enumerate(data.get("packages") or []):
        where = f"{path.name}: package #{i + 1}"
        missing = {
            "name", "version", "sdist", "url", "sha256", "licence", "kind", "import_root",
            "import_name", "why",
        } - set(raw)
        if missing:
            raise CorpusError(f"{where}: missing {sorted(missing)}")
        if raw["kind"] not in KINDS:
            raise CorpusError(f"{where}: kind {raw['kind']!r} is not one of {KINDS}")
        split = raw.get("split")
        if raw["kind"] == "person" and split not in SPLITS:
            raise CorpusError(f"{where}: a person package needs split dev|holdout")
        if not re.fullmatch(r"[0-9a-f]{64}", str(raw["sha256"])):
            raise CorpusError(f"{where}: sha256 is not 64 hex digits")
        smoke = tuple(str(m) for m in raw.get("smoke") or ())
        if set(smoke) - set(MODES):
            raise CorpusError(f"{where}: smoke {list(smoke)} is not a subset of {MODES}")
        if smoke and split == "holdout":
            raise CorpusError(f"{where}: a holdout package cannot be in the smoke subset")
        out.append(
            Package(
                name=str(raw["name"]), version=str(raw["version"]), sdist=str(raw["sdist"]),
                url=str(raw["url"]), sha256=str(raw["sha256"]), licence=str(raw["licence"]),
                kind=str(raw["kind"]), split=split, import_root=str(raw["import_root"]),
                import_name=str(raw["import_name"]), why=" ".join(str(raw["why"]).split()),
                speed=bool(raw.get("speed", False)),
                requirements=tuple(str(r) for r in raw.get("requirements") or ()),
                smoke=smoke,
                entry_points=parse_entry_points(raw.get("entry_points"), where),
            )
        )
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise CorpusError(f"{path.name}: a package is listed twice")
    return out


@dataclass(frozen=True)
class Label:
    package: str
    function: str  # "<path relative to the sdist root>::<qualname>"
    verdict: str  # biased | clean | not-a-person
    attributes: frozenset[str]  # the biased set (default categories); empty otherwise
    other: frozenset[str]  # biased for categories the default policy leaves off
    shape: str  # how the person reaches the function, in words (steers the engine work)
    note: str

    @property
    def path(self) -> str:
        return self.function.split("::", 1)[0]

    def biased_for(self, enabled: frozenset[str]) -> frozenset[str]:
        """The attributes this function is biased for, among the categories tested."""
        return self.attributes | (self.other & enabled)

    @property
    def qualname(self) -> str:
        return self.function.split("::", 1)[1]


def parse_label(text: str, where: str) -> tuple[str, frozenset[str]]:
    match = _LABEL.match(text.strip())
    if not match:
        raise CorpusError(
            f"{where}: cannot read label {text!r} (biased[a, b] | clean | not-a-person)"
        )
    verdict, listed = match["verdict"], match["attrs"]
    attrs = frozenset(a.strip() for a in (listed or "").split(",") if a.strip())
    if verdict == "biased" and not attrs:
        raise CorpusError(f"{where}: biased needs at least one attribute")
    if verdict != "biased" and listed is not None:
        raise CorpusError(f"{where}: {verdict} takes no [list]")
    unknown = attrs - set(DEFAULT_CATEGORIES)
    if unknown:
        raise CorpusError(
            f"{where}: {sorted(unknown)} not a default category; list it under `other:`"
        )
    return verdict, attrs


def enabled_categories(path: Path = POLICY_DEFAULTS) -> frozenset[str]:
    """The categories the built-in policy tests (config/defaults.yml, read as data)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    protected = data.get("protected") or {}
    return frozenset(name for name, spec in protected.items() if (spec or {}).get("enabled", True))


def _package_file(folder: Path, package: str) -> tuple[Path, dict[str, Any]]:
    """A package's labels or proofs file, parsed; an absent file reads as empty."""
    path = folder / f"{package}.yml"
    if not path.exists():
        return path, {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if data.get("package") != package:
        raise CorpusError(f"{path.name}: `package:` must be {package!r}")
    return path, data


def load_labels(package: str, folder: Path = LABELS) -> list[Label]:
    path, data = _package_file(folder, package)
    out: list[Label] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("labels") or []):
        where = f"{path.name}: label #{i + 1}"
        function = str(raw.get("function", ""))
        if not _FUNCTION.match(function):
            raise CorpusError(f"{where}: function {function!r} is not path.py::qualname")
        if function in seen:
            raise CorpusError(f"{where}: {function} is labelled twice")
        seen.add(function)
        verdict, attrs = parse_label(str(raw.get("label", "")), f"{where} ({function})")
        other = frozenset(raw.get("other") or [])
        if other - set(OTHER_CATEGORIES):
            raise CorpusError(f"{where}: other {sorted(other)} not among {OTHER_CATEGORIES}")
        out.append(
            Label(
                package=package, function=function, verdict=verdict, attributes=attrs,
                other=other, shape=str(raw.get("shape", "")), note=str(raw.get("note", "")),
            )
        )
    return out


@dataclass(frozen=True)
class Proof:
    package: str
    function: str  # the label it proves
    attribute: str
    module: str  # dotted module to import
    qualname: str  # inside the module; bound to `target` for `source`
    source: str  # Python that defines call(target, value) and returns the output
    values: tuple[Any, Any]
    outputs: tuple[str, str]  # repr() of what call() returned for each value, as observed


def load_proofs(package: str, folder: Path = PROOFS, *, recorded: bool = True) -> list[Proof]:
    """The package's proofs; recorded=False accepts outputs not yet recorded (for --record)."""
    path, data = _package_file(folder, package)
    out: list[Proof] = []
    for i, raw in enumerate(data.get("proofs") or []):
        where = f"{path.name}: proof #{i + 1}"
        missing = {"function", "attribute", "module", "qualname", "source", "values", "outputs"}
        missing -= set(raw)
        if missing:
            raise CorpusError(f"{where}: missing {sorted(missing)}")
        values, outputs = raw["values"], raw["outputs"]
        if len(values) != 2 or values[0] == values[1]:
            raise CorpusError(f"{where}: values must be two different values")
        if recorded and (len(outputs) != 2 or outputs[0] == outputs[1]):
            raise CorpusError(f"{where}: outputs must be two different reprs")
        if "def call(target, value)" not in raw["source"]:
            raise CorpusError(f"{where}: source must define call(target, value)")
        out.append(
            Proof(
                package=package, function=str(raw["function"]), attribute=str(raw["attribute"]),
                module=str(raw["module"]), qualname=str(raw["qualname"]), source=raw["source"],
                values=(values[0], values[1]), outputs=(str(outputs[0]), str(outputs[1])),
            )
        )
    return out


def check_proofs_cover_labels(labels: list[Label], proofs: list[Proof]) -> list[str]:
    """Every biased label has a proof for each of its attributes; every proof has its label."""
    problems: list[str] = []
    proved = {(p.function, p.attribute) for p in proofs}
    by_function = {label.function: label for label in labels}
    for label in labels:
        for attr in sorted(label.attributes | label.other):
            if label.verdict == "biased" or attr in label.other:
                if (label.function, attr) not in proved:
                    problems.append(f"{label.function}: biased[{attr}] has no proof")
    for proof in proofs:
        label = by_function.get(proof.function)
        if label is None:
            problems.append(f"proof for {proof.function} has no label")
        elif proof.attribute not in label.attributes | label.other:
            problems.append(f"proof for {proof.function} [{proof.attribute}] contradicts its label")
    return problems
