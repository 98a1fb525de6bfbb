"""One fix for one function, from every source there is: the mechanical rules first (no
model, nothing leaves the machine), then the configured model; of the verified ones, the
smaller change is proposed, and the result says which made it."""

from __future__ import annotations

from analysis.mitigation.loop import FixResult, mitigate
from analysis.mitigation.mechanical import mechanical_fix
from analysis.mitigation.mechanical.fixer import InputTester
from analysis.mitigation.provider import Provider
from analysis.report import FunctionReport
from analysis.scan.project import Placement


def propose_fix(
    engine: InputTester,
    source: str,
    path: str,
    qualname: str,
    provider: Provider | None,
    strategy: str = "feedback-cot",
    max_rounds: int = 3,
    report: FunctionReport | None = None,
    temperature: float = 0.2,
    place: Placement | None = None,
) -> FixResult:
    """The smallest verified fix of `qualname` (see `mechanical_fix` and `mitigate`), or
    why there is none. Raises UnknownStrategy for a strategy that does not exist."""
    original = report if report is not None else engine.scan_function(source, path, qualname, place)
    mechanical = mechanical_fix(engine, source, path, qualname, original, place)
    if mechanical.status in ("clean", "error"):
        return mechanical  # nothing to fix, or nothing a fix could be verified against
    if provider is None:
        if mechanical.status != "fixed":
            mechanical.note = f"{mechanical.note}; no language model is configured"
        return mechanical
    model = mitigate(
        engine, source, path, qualname, provider, strategy, max_rounds, original, temperature, place
    )
    return smaller(mechanical, model)


def smaller(mechanical: FixResult, model: FixResult) -> FixResult:
    """The verified fix that changes fewer lines (the mechanical one on a tie), carrying what
    asking the model cost; when neither verified, the model's result, saying why both failed."""
    if model.status == "fixed" and (
        mechanical.status != "fixed" or model.changed_lines < mechanical.changed_lines
    ):
        if mechanical.status == "fixed":
            model.note = join(
                model.note,
                f"the model's fix ({model.changed_lines} changed lines) is smaller than the "
                f"mechanical one ({mechanical.changed_lines})",
            )
        return model
    if mechanical.status == "fixed":
        mechanical.attempts, mechanical.tokens = model.attempts, model.tokens
        mechanical.history = model.history
        if model.status == "fixed":
            why = (
                f"it is smaller than the model's ({mechanical.changed_lines} changed lines "
                f"against {model.changed_lines})"
            )
            if model.changed_lines == mechanical.changed_lines:
                why = "it is as small as the model's"
            mechanical.note = join(mechanical.note, f"chosen over the model's fix: {why}")
        else:
            failed = f"the model gave no verified fix ({model.note})"
            mechanical.note = join(mechanical.note, failed)
        return mechanical
    model.note = join(model.note, mechanical.note)
    return model


def join(*notes: str | None) -> str:
    return "; ".join(n for n in notes if n)
