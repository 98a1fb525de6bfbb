"""Mitigation: a bias-free version of a function, kept only when the engine's own sandboxed
tests show no bias left. The mechanical rules propose one without a model
(`mechanical_fix`), a language model another (`mitigate`); `propose_fix` tries both and
keeps the smaller verified one.

    result = propose_fix(engine, source, "hiring.py", "assess", provider)  # provider may be None
    if result.status == "fixed":
        print(result.rule or result.strategy, result.patch)

The provider is any object with `complete(messages, temperature) -> Completion` (see
`provider.py`); the SDK-backed ones live in `bot.llm`.
"""

from analysis.mitigation.answer import AnswerRejected, Candidate, extract_function
from analysis.mitigation.loop import LOW_AGREEMENT, Attempt, FixResult, Tester, mitigate
from analysis.mitigation.mechanical import RULES, mechanical_fix
from analysis.mitigation.prompts import (
    DEFAULT_STRATEGY,
    STRATEGIES,
    Strategy,
    UnknownStrategy,
    get_strategy,
)
from analysis.mitigation.propose import propose_fix
from analysis.mitigation.provider import Completion, Message, Provider, ProviderError

__all__ = [
    "DEFAULT_STRATEGY",
    "LOW_AGREEMENT",
    "RULES",
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
    "mechanical_fix",
    "mitigate",
    "propose_fix",
]
