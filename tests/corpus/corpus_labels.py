"""Reading the corpus labels: `# expect:` comments above each def, or a `.labels.yml` sidecar.

Stdlib and PyYAML only, and nothing from the engine: the labels are the engine's ground truth.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent
SPLITS = ("train", "validation", "holdout", "shapes", "shapes_holdout")
STATUSES = ("biased", "clean", "unverified", "skipped")

_LINE = re.compile(r"^\s*#\s*expect:\s*(?P<body>.*?)\s*$")
_BODY = re.compile(
    r"^(?P<status>biased|clean|unverified|skipped)"
    r"(?:\[(?P<attributes>[^\]]*)\])?"
    r"(?:\s+attrs=\[(?P<attrs>[^\]]*)\])?$"
)


class LabelError(ValueError):
    """A label that does not follow the documented grammar, or a def without one."""


@dataclass(frozen=True)
class Label:
    split: str  # one of SPLITS
    file: str  # relative to the split folder, e.g. "hiring.py" or "fleetcover/quote.py"
    qualname: str
    line: int  # the def line (1-based); 0 for sidecar labels
    status: str
    attributes: frozenset[str]  # biased: the biased set; unverified: the static findings
    attrs: frozenset[str] | None  # attributes_tested, when pinned

    @property
    def path(self) -> Path:
        return CORPUS / self.split / self.file

    @property
    def id(self) -> str:
        return f"{self.split}/{self.file}::{self.qualname}"


def parse_label(body: str, where: str) -> tuple[str, frozenset[str], frozenset[str] | None]:
    match = _BODY.match(body.strip())
    if not match:
        raise LabelError(f"{where}: cannot read label {body!r}")
    status = match["status"]
    listed = match["attributes"]
    if status in ("biased", "unverified") and listed is None:
        raise LabelError(f"{where}: {status} needs a [list] (use [] for none)")
    if status in ("clean", "skipped") and listed is not None:
        raise LabelError(f"{where}: {status} takes no [list]")
    attributes = _names(listed or "")
    if status == "biased" and not attributes:
        raise LabelError(f"{where}: biased[] names no attribute")
    attrs = None if match["attrs"] is None else _names(match["attrs"])
    if attrs is not None and not attributes <= attrs:
        raise LabelError(f"{where}: attrs={sorted(attrs)} misses {sorted(attributes - attrs)}")
    return status, attributes, attrs


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _names(text: str) -> frozenset[str]:
    return frozenset(part.strip() for part in text.split(",") if part.strip())


def labels_in_source(source: str, split: str, file: str) -> list[Label]:
    """Labels of every module-level function and method (classes nested at any depth)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    used: set[int] = set()
    out: list[Label] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{node.name}"
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                above = lines[first - 2] if first >= 2 else ""
                found = _LINE.match(above)
                where = f"{split}/{file}:{node.lineno} {qualname}"
                if not found and _dunder(node.name):
                    continue  # constructors and friends: labelled only when they matter
                if not found:
                    raise LabelError(f"{where}: no '# expect:' line directly above the def")
                used.add(first - 1)
                status, attributes, attrs = parse_label(found["body"], where)
                out.append(Label(split, file, qualname, node.lineno, status, attributes, attrs))

    visit(tree.body, "")
    for number, text in enumerate(lines, start=1):
        if _LINE.match(text) and number not in used:
            raise LabelError(f"{split}/{file}:{number}: label not directly above a def")
    return out


def labels_in_sidecar(sidecar: Path, split: str, file: str) -> list[Label]:
    data = yaml.safe_load(sidecar.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise LabelError(f"{sidecar}: must map qualname -> label")
    out = []
    for qualname, body in data.items():
        status, attributes, attrs = parse_label(str(body), f"{sidecar.name} {qualname}")
        out.append(Label(split, file, str(qualname), 0, status, attributes, attrs))
    return out


def corpus_files(split: str) -> list[Path]:
    # Packages (a folder with __init__.py) hold modules that import each other.
    return sorted(p for p in (CORPUS / split).rglob("*.py") if p.is_file())


def load_labels(split: str) -> list[Label]:
    out: list[Label] = []
    for path in corpus_files(split):
        file = path.relative_to(CORPUS / split).as_posix()
        sidecar = path.with_name(path.name + ".labels.yml")
        if sidecar.exists():
            out.extend(labels_in_sidecar(sidecar, split, file))
        else:
            out.extend(labels_in_source(path.read_text(encoding="utf-8"), split, file))
    return out


def all_labels() -> list[Label]:
    return [label for split in SPLITS for label in load_labels(split)]
