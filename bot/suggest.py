"""Verified fixes as review suggestions: ask the configured LLM (through `analysis.mitigation`)
for a bias-free version of a biased function, keep it only when the engine re-tested it clean,
and turn it into a ```suggestion that replaces exactly the function's lines.
"""

from __future__ import annotations

import ast
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from analysis import ENGINE_VERSION, Engine, FunctionReport
from analysis.errors import ExecutionError, SandboxUnavailable
from analysis.functions import find_function
from analysis.mitigation import Completion, Message, Provider, ProviderError, mitigate
from analysis.mitigation.answer import Candidate
from analysis.mitigation.splice import splice, unified_patch
from bot.cache import ResultsCache, cache_key
from bot.outcome import FunctionResult, Suggestion
from bot.redact import redacted
from config.policy import Policy

log = logging.getLogger(__name__)


def _span(source: str, qualname: str) -> tuple[int, int] | None:
    try:
        fn = find_function(ast.parse(source), qualname)
    except SyntaxError:
        return None
    return None if fn is None else (fn.first_line, fn.end_line)


def as_suggestion(
    original: str, patched: str, qualname: str, agreement: float | None, note: str | None
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
    return Suggestion(old[0], old[1], body, agreement, note)


def fix_key(
    source: str, qualname: str, policy: Policy, provider: Provider, scope: str
) -> str | None:
    """Same function in the same module text, with the same imported files, in the same
    repository (`scope`, see Reviewer.fix_scope), under the same policy, engine and model:
    the same answer, so the model is asked once."""
    key = cache_key(
        source, qualname, policy.fingerprint, ENGINE_VERSION, context=f"{scope}\0{source}"
    )
    model = f"{getattr(provider, 'name', type(provider).__name__)}/{getattr(provider, 'model', '')}"
    return None if key is None else f"fix:{model}:{key}"


@dataclass(frozen=True)
class FixRecord:
    """What the model and the sandbox made of one function, as the cache keeps it."""

    fixed: bool  # a version was re-tested in the sandbox and showed no bias
    note: str
    function: str | None = None  # the new definition, when fixed
    imports: tuple[str, ...] = ()
    agreement: float | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> FixRecord:
        data = json.loads(text)
        agreement = data.get("agreement")
        return cls(
            fixed=bool(data["fixed"]),
            note=str(data.get("note") or ""),
            function=data.get("function"),
            imports=tuple(str(i) for i in data.get("imports") or ()),
            agreement=float(agreement) if agreement is not None else None,
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


def suggest(
    engine: Engine,
    policy: Policy,
    provider: Provider,
    source: str,
    result: FunctionResult,
    cache: ResultsCache | None = None,
    secrets: Sequence[str] = (),
    scope: str = "",
) -> None:
    """Attach a verified suggestion (or the reason there is none) to `result`.

    With a cache, a later push that leaves the function and what it was made with (`scope`:
    the repository and the files the module imports) unchanged reuses the earlier outcome
    instead of asking the model again; a reused fix is run again in the sandbox against
    this pull request's module first, and one that no longer verifies is not posted (the
    model is asked afresh). `secrets` are masked in what is logged of a provider's failure.
    """
    report = result.report
    assert cache is None or scope, "a cached fix is scoped to its repository"
    key = fix_key(source, report.qualname, policy, provider, scope) if cache is not None else None
    cached = cache.get(key) if cache is not None and key else None
    record = FixRecord.from_json(cached) if cached is not None else None
    if record is not None and record.fixed and not still_verified(engine, source, report, record):
        log.warning(
            "the cached fix for %s does not pass the tests here; asking the model again",
            result.key,
        )
        record = None
    if record is None:
        watched = WatchedProvider(provider)
        fix = mitigate(
            engine,
            source,
            report.path,
            report.qualname,
            watched,
            strategy=policy.mitigation.strategy,
            max_rounds=policy.mitigation.max_rounds,
            report=report,
        )
        if fix.status == "error" and watched.failure is not None:
            log.warning(
                "the language model failed for %s: %s",
                result.key,
                redacted(str(watched.failure), secrets),
            )
            result.fix_note = provider_down(watched.failure)
            return
        record = FixRecord(
            fixed=fix.status == "fixed" and fix.new_function_source is not None,
            note=fix.note or fix.status,
            function=fix.new_function_source,
            imports=tuple(fix.added_imports),
            agreement=fix.agreement,
        )
        if cache is not None and key and fix.status in ("fixed", "not_fixed"):
            cache.put(key, record.to_json())  # provider outages are not remembered
    apply_fix(source, result, record)


def patched_module(source: str, qualname: str, record: FixRecord) -> str | None:
    """The module with the record's fix in place of the function; None when there is none."""
    info = find_function(ast.parse(source), qualname) if record.fixed else None
    if info is None or record.function is None:
        return None
    return splice(source, info, Candidate(record.function, list(record.imports)))


def still_verified(engine: Engine, source: str, report: FunctionReport, record: FixRecord) -> bool:
    """The fix, spliced into this module, run again: settled and no bias (as `mitigate`
    accepts a fix). A cached record may have been made elsewhere or forged in the cache."""
    patched = patched_module(source, report.qualname, record)
    if patched is None:
        return False
    try:
        retest = engine.scan_function(patched, report.path, report.qualname)
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
    result.suggestion = as_suggestion(source, patched, report.qualname, record.agreement, note)
