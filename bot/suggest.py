"""Verified fixes as review suggestions: a bias-free version of a biased function from the
mechanical rules and, when one is configured, the LLM (`analysis.mitigation.propose_fix`:
the smaller verified one), kept only when the engine re-tested it clean, and turned into a
```suggestion that replaces exactly the function's lines.

The function runs where the review ran it (`Reviewer.placement`: as its module in the
review's checkout), so a module of a package is fixed and re-tested with its package, as
`codebias fix` and `scan` do it.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from analysis import ENGINE_VERSION, Engine, FunctionReport
from analysis.errors import ExecutionError, SandboxUnavailable
from analysis.mitigation import Completion, Message, Provider, ProviderError, propose_fix
from analysis.mitigation.answer import Candidate
from analysis.mitigation.mechanical import STRATEGY as MECHANICAL
from analysis.mitigation.splice import splice, unified_patch
from analysis.scan.project import Placement
from analysis.source.functions import find_function
from bot.cache import ResultsCache, cache_key
from bot.github import RepoClient
from bot.outcome import FunctionResult, ReviewOutcome, Suggestion
from bot.redact import redacted
from bot.review import Reviewer
from config.policy import Policy

log = logging.getLogger(__name__)


def _span(source: str, qualname: str) -> tuple[int, int] | None:
    try:
        fn = find_function(ast.parse(source), qualname)
    except SyntaxError:
        return None
    return None if fn is None else (fn.first_line, fn.end_line)


def as_suggestion(
    original: str,
    patched: str,
    qualname: str,
    agreement: float | None,
    note: str | None,
    made_by: str | None = None,
) -> Suggestion | None:
    """The patched function's lines, if the patch changes nothing else in the module (a
    suggestion can only replace the lines it is attached to)."""
    old, new = _span(original, qualname), _span(patched, qualname)
    if old is None or new is None:
        return None
    a, b = original.splitlines(), patched.splitlines()
    if a[: old[0] - 1] != b[: new[0] - 1] or a[old[1] :] != b[new[1] :]:
        return None  # e.g. the fix adds an import: shown as a patch, not a suggestion
    body = "\n".join(b[new[0] - 1 : new[1]]) + "\n"
    return Suggestion(old[0], old[1], body, agreement, note, made_by)


def fix_key(
    source: str, qualname: str, policy: Policy, provider: Provider | None, scope: str
) -> str | None:
    """Same function in the same module text, with the same imported files, in the same
    repository (`scope`, see Reviewer.fix_scope), under the same policy, engine and model
    (or none: the mechanical rules alone): the same answer, so the model is asked once."""
    key = cache_key(
        source, qualname, policy.fingerprint, ENGINE_VERSION, context=f"{scope}\0{source}"
    )
    model = MECHANICAL
    if provider is not None:
        model = f"{getattr(provider, 'name', type(provider).__name__)}/"
        model += str(getattr(provider, "model", ""))
    return None if key is None else f"fix:{model}:{key}"


@dataclass(frozen=True)
class FixRecord:
    """What the model and the sandbox made of one function, as the cache keeps it."""

    fixed: bool  # a version was re-tested in the sandbox and showed no bias
    note: str
    function: str | None = None  # the new definition, when fixed
    imports: tuple[str, ...] = ()
    agreement: float | None = None
    made_by: str | None = None  # who made the fix, as the comment says it (`made_by`)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> FixRecord:
        data = json.loads(text)
        agreement = data.get("agreement")
        made_by = data.get("made_by")
        return cls(
            fixed=bool(data["fixed"]),
            note=str(data.get("note") or ""),
            function=data.get("function"),
            imports=tuple(str(i) for i in data.get("imports") or ()),
            agreement=float(agreement) if agreement is not None else None,
            made_by=str(made_by) if made_by else None,
        )


class WatchedProvider:
    """A provider that remembers why it last failed: the loop turns a ProviderError into a
    note quoting it (the endpoint, the provider's error body), which is never posted."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider
        self.name = provider.name
        self.model = provider.model
        self.failure: ProviderError | None = None

    def complete(self, messages: list[Message], temperature: float) -> Completion:
        try:
            return self.provider.complete(messages, temperature)
        except ProviderError as exc:
            self.failure = exc
            raise


def provider_down(failure: ProviderError) -> str:
    """What a pull request is told when the model failed: the kind of failure, nothing of
    its text (the endpoint and the provider's answer may hold credentials)."""
    kind = failure.kind.replace("_", " ")
    return f"the language model could not be reached ({kind}), so no fix is suggested this time"


def suggest_fixes(
    reviewer: Reviewer,
    client: RepoClient,
    outcome: ReviewOutcome,
    results: Sequence[FunctionResult],
    provider: Provider | None,
    cache: ResultsCache | None = None,
    secrets: Sequence[str] = (),
) -> None:
    """Suggestions for `results` (biased functions of `outcome`), made as the App and
    `codebias review` make them: where the review ran each function, before it is closed."""
    for result in results:
        source = client.file_text(result.report.path, outcome.head_sha)
        if source is None:
            continue
        suggest(
            reviewer.engine,
            reviewer.policy,
            provider,
            source,
            result,
            cache,
            secrets,
            reviewer.fix_scope(result.report.path),
            reviewer.placement(result.report.path),
        )
        if result.suggestion is None and result.fix_patch is None and result.fix_note:
            # The finding is posted either way; say why it comes without a fix.
            log.warning("no fix for %s: %s", result.key, result.fix_note)


def suggest(
    engine: Engine,
    policy: Policy,
    provider: Provider | None,
    source: str,
    result: FunctionResult,
    cache: ResultsCache | None = None,
    secrets: Sequence[str] = (),
    scope: str = "",
    place: Placement | None = None,
) -> None:
    """Attach a verified suggestion (or the reason there is none) to `result`.

    The mechanical rules are tried first and the model (when `provider` is set) next; the
    smaller verified fix is suggested, saying which made it. With a cache, a later push that
    leaves the function and what it was made with (`scope`: the repository and the files
    the module imports) unchanged reuses the earlier outcome instead of asking the model
    again; a reused fix is run again in the sandbox against this pull request's module
    first, and one that no longer verifies is not posted (a fix is made afresh). `place`:
    where the review ran the module. `secrets` are masked in what is logged of a provider's
    failure.
    """
    report = result.report
    assert cache is None or scope, "a cached fix is scoped to its repository"
    key = fix_key(source, report.qualname, policy, provider, scope) if cache is not None else None
    cached = cache.get(key) if cache is not None and key else None
    record = FixRecord.from_json(cached) if cached is not None else None
    if record is not None and record.fixed and not still_verified(
        engine, source, report, record, place
    ):
        log.warning(
            "the cached fix for %s does not pass the tests here; making it afresh", result.key
        )
        record = None
    if record is None:
        watched = WatchedProvider(provider) if provider is not None else None
        fix = propose_fix(
            engine,
            source,
            report.path,
            report.qualname,
            watched,
            strategy=policy.mitigation.strategy,
            max_rounds=policy.mitigation.max_rounds,
            report=report,
            place=place,
        )
        failure = watched.failure if watched is not None else None
        if failure is not None:
            log.warning(
                "the language model failed for %s: %s", result.key, redacted(str(failure), secrets)
            )
            if fix.status != "fixed":  # a mechanical fix is still posted without the model
                result.fix_note = provider_down(failure)
                return
        record = FixRecord(
            fixed=fix.status == "fixed" and fix.new_function_source is not None,
            note=fix.note or fix.status,
            function=fix.new_function_source,
            imports=tuple(fix.added_imports),
            agreement=fix.agreement,
            made_by=made_by(fix.strategy, fix.rule) if fix.status == "fixed" else None,
        )
        if cache is not None and key and fix.status in ("fixed", "not_fixed") and failure is None:
            cache.put(key, record.to_json())  # provider outages are not remembered
    apply_fix(source, result, record)


def made_by(strategy: str, rule: str | None) -> str:
    """Who made a fix, as a comment says it."""
    if rule is not None:
        return f"the mechanical rule {rule} (no language model)"
    return f"the language model ({strategy})"


def patched_module(source: str, qualname: str, record: FixRecord) -> str | None:
    """The module with the record's fix in place of the function; None when there is none."""
    info = find_function(ast.parse(source), qualname) if record.fixed else None
    if info is None or record.function is None:
        return None
    return splice(source, info, Candidate(record.function, list(record.imports)))


def still_verified(
    engine: Engine,
    source: str,
    report: FunctionReport,
    record: FixRecord,
    place: Placement | None = None,
) -> bool:
    """The fix, spliced into this module, run again where the review ran it: settled and no
    bias (as a fix is accepted). A cached record may have been made elsewhere or forged in
    the cache."""
    patched = patched_module(source, report.qualname, record)
    if patched is None:
        return False
    try:
        retest = engine.scan_function(patched, report.path, report.qualname, place)
    except SandboxUnavailable:
        raise
    except ExecutionError as exc:
        log.warning("the cached fix for %s could not be run: %s", report.qualname, exc)
        return False
    return retest.is_settled and not retest.is_biased


def apply_fix(source: str, result: FunctionResult, record: FixRecord) -> None:
    report = result.report
    patched = patched_module(source, report.qualname, record)
    if patched is None:
        result.fix_note = record.note
        return
    note = None if record.note in ("fixed", "") else record.note
    # The patch is kept too: shown instead when the suggestion cannot sit on the function's lines.
    result.fix_patch = unified_patch(source, patched, report.path)
    result.suggestion = as_suggestion(
        source, patched, report.qualname, record.agreement, note, record.made_by
    )
