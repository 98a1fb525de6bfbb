"""Accepted findings: `# codebias: ignore[...]` in the code, `allow:` entries in the policy.

What people naturally write is understood: a synonym names its category (`ignore[sex]`,
`attribute: sex` mean gender); a bare `# codebias: ignore` accepts every attribute; the
comment may sit on any line of the signature (decorators to the colon, so the closing
`) -> bool:` of a long one too) or on the comment lines just above it; an `allow:` function
may be `module.qualname`, `qualname`, a glob, or `path/to/file.py::qualname` as `fix` takes
it. What still cannot match anything becomes a warning that says why, never silence: an
unknown category (with the nearest name), a comment attached to no function, an `allow:`
entry that no scanned function matches.
"""

from __future__ import annotations

import ast
import difflib
import io
import re
import threading
import tokenize
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from analysis.report import Accepted, Finding, FunctionReport
from analysis.source.functions import FunctionInfo, list_functions
from config.policy import Allow, Policy, name_tokens

ALL = "*"
IGNORE = re.compile(
    r"codebias\s*:?\s*ignore\b\s*(?:\[(?P<names>[^\]]*)\])?\s*[:,;\-\u2013\u2014]?\s*(?P<reason>.*)$",
    re.IGNORECASE,
)
# A comment that addresses codebias but is no ignore directive it understands.
DIRECTIVE = re.compile(r"codebias\s*:", re.IGNORECASE)
IN_CODE = "accepted in the code"
FORMS = (
    "`module.function`, `Class.method`, `path/to/file.py::function`, or a glob such as `pricing.*`"
)


@dataclass(frozen=True)
class Resolved:
    """A name as written, and the category it stands for (ALL, or None when none)."""

    written: str
    category: str | None
    problem: str | None = None  # why it accepts nothing, in words


def resolve(policy: Policy, written: str) -> Resolved:
    name = written.strip()
    if name in ("", ALL, "all", "any"):
        return Resolved(written, ALL)
    tokens = name_tokens(name)
    exact = [c for c in policy.protected if name_tokens(c) == tokens]
    category = exact[0] if exact else policy.canonical_category(name)
    if category is None:
        # A synonym of a category the policy switched off still names that category.
        category = next(
            (
                c
                for c, spec in policy.protected.items()
                for phrase in spec.synonyms
                if name_tokens(str(phrase)) == tokens
            ),
            None,
        )
    if category is None:
        synonyms = (str(s) for spec in policy.protected.values() for s in spec.synonyms)
        known = sorted({*policy.protected, *synonyms})
        near = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return Resolved(written, None, f"{name!r} is no protected category or synonym{hint}")
    if category not in policy.enabled_categories:
        return Resolved(
            written,
            category,
            f"{category!r} is switched off in the policy (protected.{category}.enabled: false)",
        )
    return Resolved(written, category)


# --- ignore comments -------------------------------------------------------------------------


@dataclass
class Directive:
    line: int
    names: list[Resolved]
    reason: str
    attached: bool = False


def comments(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment; by lines when the text does not tokenize."""
    try:
        return [
            (tok.start[0], tok.string)
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        found = []
        for number, line in enumerate(source.splitlines(), start=1):
            if "#" in line:
                found.append((number, line[line.index("#") :]))
        return found


def signature_lines(info: FunctionInfo, lines: list[str]) -> range:
    """Where a comment about the function may go: the comment lines just above it, every
    line from its first decorator to the end of its signature (and comment lines before
    the first statement)."""
    start = info.first_line
    while start > 1 and lines[start - 2].lstrip().startswith("#"):
        start -= 1
    body = info.node.body[0].lineno if info.node.body else info.line
    end = max(info.line, body - 1)
    return range(start, end + 1)


@dataclass
class FileDirectives:
    by_function: dict[str, list[Directive]] = field(default_factory=dict)
    warnings: list[tuple[int, str]] = field(default_factory=list)


def read_directives(policy: Policy, source: str, tree: ast.Module) -> FileDirectives:
    # One pass over the comments, naming each way a directive can be wrong.
    out = FileDirectives()
    directives: list[Directive] = []
    for line, text in comments(source):
        match = IGNORE.search(text)
        if match is None:
            if DIRECTIVE.search(text):
                out.warnings.append(
                    (
                        line,
                        f"{text.strip()!r} is not understood: write "
                        "`# codebias: ignore[age] reason` (categories optional)",
                    )
                )
            continue
        raw = match.group("names")
        names = [resolve(policy, n) for n in (raw.split(",") if raw else [ALL])]
        names = [n for n in names if n.written.strip() or len(names) == 1]
        reason = match.group("reason").strip() or IN_CODE
        directives.append(Directive(line, names, reason))
        out.warnings += [
            (line, f"ignore[{n.written.strip()}]: {n.problem}, so it accepts nothing")
            for n in names
            if n.problem
        ]
    if not directives:
        return out
    lines = source.splitlines()
    for info in list_functions(tree):
        span = signature_lines(info, lines)
        mine = [d for d in directives if d.line in span]
        for directive in mine:
            directive.attached = True
        if mine:
            out.by_function[f"{info.qualname}:{info.line}"] = mine
    out.warnings += [
        (
            d.line,
            "this `# codebias: ignore` is on no function's signature or the comment lines "
            "just above it, so it accepts nothing",
        )
        for d in directives
        if not d.attached
    ]
    return out


# --- allow entries ---------------------------------------------------------------------------


@dataclass
class Rule:
    number: int  # 1-based, as a person counts the entries
    entry: Allow
    attribute: Resolved
    file: str | None
    function: str
    matched: bool = False

    @classmethod
    def of(cls, number: int, entry: Allow, policy: Policy) -> Rule:
        function = entry.function.strip()
        file = None
        if "::" in function:
            file, _, function = function.rpartition("::")
            file = file.replace("\\", "/").removeprefix("./")
        elif ":" in function:
            function = function.replace(":", ".")  # `module:function`, as entry points say
        return cls(number, entry, resolve(policy, entry.attribute), file, function)

    @property
    def label(self) -> str:
        return f"allow entry {self.number} (function {self.entry.function!r})"

    def covers_function(self, path: str, qualname: str) -> bool:
        posix = path.replace("\\", "/")
        if self.file is not None:
            return self.in_file(posix) and fnmatchcase(qualname, self.function)
        if fnmatchcase(qualname, self.function):
            return True
        parts = module_parts(posix)
        return any(
            fnmatchcase(".".join([*parts[start:], qualname]), self.function)
            for start in range(len(parts))
        )

    def in_file(self, posix: str) -> bool:
        assert self.file is not None
        return (
            posix == self.file
            or posix.endswith("/" + self.file)
            or fnmatchcase(posix, self.file)
            or fnmatchcase(posix, "*/" + self.file)
        )

    def covers(self, attribute: str) -> bool:
        return self.attribute.category in (attribute, ALL)

    def names_file(self, path: str) -> bool:
        """Whether the entry is about functions of the file at `path`: it names the file
        (`pricing.py::f`), or its module spelt out before a dot (`pricing.f`, `pricing.*`,
        `app.pricing.Quote.premium`). A glob in the module's place names no file in particular."""
        posix = path.replace("\\", "/")
        if self.file is not None:
            return self.in_file(posix)
        module = module_parts(posix)
        if module and module[-1] == "__init__":
            module.pop()
        segments = self.function.split(".")
        for k in range(1, len(segments)):
            prefix = segments[:k]
            if any(ch in prefix[-1] for ch in "*?["):
                return False
            if module[-k:] == prefix:
                return True
        return False


def module_parts(posix: str) -> list[str]:
    """The folders and module name of a file's path (`app/pricing.py`: app, pricing)."""
    return [p for p in PurePosixPath(posix).with_suffix("").parts if p not in ("/", ".", "..")]


# --- both, for one engine --------------------------------------------------------------------


class Acceptance:
    """Moves accepted findings of each tested function to `report.accepted`, and collects
    the warnings about what can never match. Thread-safe; one per engine."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.rules = [Rule.of(i, entry, policy) for i, entry in enumerate(policy.allow, start=1)]
        # (path, hash of its text) -> its directives: a review reads head and base of a file.
        self._files: dict[tuple[str, int], FileDirectives] = {}
        self._whole: set[str] = set()  # files every function of which was tested
        self._lock = threading.Lock()

    def read_whole(self, path: str) -> None:
        """Every function of `path` is tested: an `allow:` entry about it that matches none
        of them is worth a warning, whatever else the scan covers."""
        with self._lock:
            self._whole.add(path)

    def apply(
        self, path: str, source: str, tree: ast.Module, info: FunctionInfo, report: FunctionReport
    ) -> None:
        found = self._directives(path, source, tree)
        directives = found.by_function.get(f"{info.qualname}:{info.line}", [])
        if report.status != "error":  # an internal error leaves the inputs unknown
            self._not_taken(found, info, directives, report.attributes_tested)
        with self._lock:
            rules = [r for r in self.rules if r.covers_function(path, info.qualname)]
            for rule in rules:
                rule.matched = True
        kept: list[Finding] = []
        for finding in report.findings:
            accepted = self._accepted(finding, directives, rules)
            if accepted is None:
                kept.append(finding)
            else:
                report.accepted.append(accepted)
        report.findings = kept
        if report.is_biased and not kept:
            report.status = "clean"

    def _not_taken(
        self,
        found: FileDirectives,
        info: FunctionInfo,
        directives: list[Directive],
        taken: list[str],
    ) -> None:
        """A comment naming a category the function has no input of accepts nothing."""
        for directive in directives:
            for name in directive.names:
                if name.problem or name.category in (None, ALL) or name.category in taken:
                    continue
                written = name.written.strip()
                warning = (
                    directive.line,
                    f"ignore[{written}]: {info.qualname} has no {name.category} input, so it "
                    "accepts nothing",
                )
                with self._lock:
                    if warning not in found.warnings:
                        found.warnings.append(warning)

    @staticmethod
    def _accepted(
        finding: Finding, directives: list[Directive], rules: list[Rule]
    ) -> Accepted | None:
        for directive in directives:
            if any(n.category in (finding.attribute, ALL) for n in directive.names):
                return Accepted(finding, directive.reason, "code")
        for rule in rules:
            if rule.covers(finding.attribute):
                return Accepted(finding, rule.entry.reason, "policy")
        return None

    def _directives(self, path: str, source: str, tree: ast.Module) -> FileDirectives:
        key = (path, hash(source))
        with self._lock:
            found = self._files.get(key)
        if found is None:
            found = read_directives(self.policy, source, tree)
            with self._lock:
                self._files[key] = found
        return found

    def warnings(self, complete: bool = True) -> list[str]:
        """What can never match, in words. `complete`: the scan covered whole folders (no
        --diff, no file named on its own), so an `allow:` entry that none of their functions
        matched is worth a word; otherwise only one about a file whose every function was
        tested is (a hook scanning one file says nothing of entries for others)."""
        out = [
            f"{r.label}: attribute {r.attribute.problem}, so it accepts nothing"
            for r in self.rules
            if r.attribute.problem
        ]
        with self._lock:
            for (path, _), found in sorted(self._files.items(), key=lambda kv: kv[0][0]):
                out += [f"{path}:{line}: {text}" for line, text in sorted(found.warnings)]
            seen = bool(self._files)
            whole = sorted(self._whole)
            unmatched = [r for r in self.rules if not r.matched]
        if not complete:
            unmatched = [r for r in unmatched if any(r.names_file(path) for path in whole)]
        if seen or not complete:
            out += [f"{r.label}: no scanned function matches it; write {FORMS}" for r in unmatched]
        return list(dict.fromkeys(out))
