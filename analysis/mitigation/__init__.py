"""Mitigation: ask a language model for a bias-free version of a function, and keep it only
when the engine's own sandboxed tests show no bias left.

    result = mitigate(engine, source, "hiring.py", "assess", provider)
    if result.status == "fixed":
        print(result.patch)

The provider is any object with `complete(messages, temperature) -> Completion` (see
`provider.py`); the SDK-backed ones live in `bot.llm`.
"""

from analysis.mitigation.answer import AnswerRejected, Candidate, extract_function
from analysis.mitigation.loop import LOW_AGREEMENT, Attempt, FixResult, Tester, mitigate
from analysis.mitigation.prompts import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    Strategy,
    UnknownStrategy,
    get_strategy,
)
from analysis.mitigation.provider import Completion, Message, Provider, ProviderError

__all__ = [
    "DEFAULT_STRATEGY",
    "LOW_AGREEMENT",
    "STRATEGIES",
    "AnswerRejected",
    "Attempt",
    "Candidate",
    "Completion",
    "FixResult",
    "Message",
    "Provider",
    "ProviderError",
    "Strategy",
    "Tester",
    "UnknownStrategy",
    "extract_function",
    "get_strategy",
    "mitigate",
]
