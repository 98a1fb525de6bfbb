"""Saved completions for `codebias bench`: what a model answered, one record per prompt and sample.

Two formats are read. JSON Lines, one `{"prompt_id", "sample", "completion"}` object a line
(optional `category`, `model`), which `bench` also writes when it generates; and the paper's
own artifact (Huang et al., arXiv 2309.14345): a JSON list of `{"input", "output"}`, the
prompt and the model's raw answer, which begins by echoing the generation prompt (cut off
here). Errors name the line or item and what is wrong with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from analysis.errors import CodebiasError


class StudyInputError(CodebiasError):
    """Completions or prompts that cannot be scored as given (says where and why)."""


@dataclass(frozen=True)
class CompletionRecord:
    prompt_id: str
    sample: int
    completion: str
    category: str | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"prompt_id": self.prompt_id, "sample": self.sample}
        if self.category is not None:
            out["category"] = self.category
        if self.model is not None:
            out["model"] = self.model
        out["completion"] = self.completion
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False) + "\n"


def parse_completions(lines: Iterable[str], source: str) -> list[CompletionRecord]:
    """One JSON object a line; blank lines are skipped. Raises StudyInputError naming the line."""
    records: list[CompletionRecord] = []
    seen: dict[tuple[str, int], int] = {}
    models: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        record = _record(loads(line, source, number), where)
        key = (record.prompt_id, record.sample)
        if key in seen:
            raise StudyInputError(
                f"{where}: prompt_id {record.prompt_id!r} sample {record.sample} "
                f"already given on line {seen[key]}"
            )
        seen[key] = number
        if record.model is not None:
            models.setdefault(record.model, number)
        records.append(record)
    if len(models) > 1:
        first, second = sorted(models.items(), key=lambda kv: kv[1])[:2]
        raise StudyInputError(
            f"{source}: completions of several models ({first[0]!r} on line {first[1]}, "
            f"{second[0]!r} on line {second[1]}); bench one model at a time"
        )
    if not records:
        raise StudyInputError(f"{source}: no completions in the file")
    return records


def loads(text: str, source: str, line: int | None = None) -> Any:
    """JSON, or a StudyInputError naming the line (`line`: where `text` sits in the file)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"{source}:{line if line is not None else exc.lineno}"
        raise StudyInputError(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from None


def _record(raw: Any, where: str) -> CompletionRecord:
    if not isinstance(raw, dict):
        raise StudyInputError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    absent = [name for name in ("prompt_id", "sample", "completion") if name not in raw]
    if absent:
        raise StudyInputError(f"{where}: {missing(absent)}")
    prompt_id = raw.get("prompt_id")
    if isinstance(prompt_id, int) and not isinstance(prompt_id, bool):
        prompt_id = str(prompt_id)  # ids written as numbers mean the same prompt
    if not isinstance(prompt_id, str) or not prompt_id:
        raise StudyInputError(f'{where}: "prompt_id" must be a non-empty string')
    sample = raw.get("sample")
    if not isinstance(sample, int) or isinstance(sample, bool) or sample < 0:
        raise StudyInputError(f'{where}: "sample" must be a whole number, 0 or more')
    completion = raw.get("completion")
    if not isinstance(completion, str):
        raise StudyInputError(f'{where}: "completion" must be a string')
    optional: dict[str, str | None] = {}
    for name in ("category", "model"):
        value = raw.get(name)
        if value is not None and not isinstance(value, str):
            raise StudyInputError(f'{where}: "{name}" must be a string when given')
        optional[name] = value
    return CompletionRecord(prompt_id, sample, completion, optional["category"], optional["model"])


def missing(names: Sequence[str]) -> str:
    quoted = ", ".join(f'"{name}"' for name in names)
    return f"{quoted} {'is' if len(names) == 1 else 'are'} missing"


# The paper's generation prompt, which its raw outputs repeat before the answer.
PAPER_ECHO = "Please write a python code based on the code description."


def paper_answer(prompt: str, output: str) -> str:
    """The model's answer in one of the paper's raw outputs: without the echoed prompt."""
    echo = PAPER_ECHO + prompt + "Output:"
    return output[len(echo) :] if output.startswith(echo) else output


def parse_saved(text: str, source: str) -> list[CompletionRecord]:
    """Saved completions in either format: the paper's JSON list, else JSON Lines."""
    if not text.lstrip().startswith("["):
        return parse_completions(text.splitlines(), source)
    data = loads(text, source)
    if not isinstance(data, list) or not data:
        raise StudyInputError(f"{source}: no completions in the file")
    return parse_paper_answers(data, source)


def parse_paper_answers(data: list[Any], source: str) -> list[CompletionRecord]:
    """The paper's list of `{"input": prompt, "output": answer}`. Each distinct prompt is one
    prompt id (its first position in the list), each repeat of it one more sample."""
    records: list[CompletionRecord] = []
    ids: dict[str, str] = {}
    samples: dict[str, int] = {}
    for index, item in enumerate(data):
        where = f"{source}: item {index}"
        if not isinstance(item, dict):
            raise StudyInputError(
                f'{where}: expected an object with "input" and "output", got {type(item).__name__}'
            )
        absent = [name for name in ("input", "output") if name not in item]
        if absent:
            hint = (
                " (a JSON list holds the paper's {input, output} items; "
                "{prompt_id, sample, completion} records go one a line, as JSON Lines)"
                if "completion" in item
                else ""
            )
            raise StudyInputError(f"{where}: {missing(absent)}{hint}")
        prompt, output = item["input"], item["output"]
        for name, value in (("input", prompt), ("output", output)):
            if not isinstance(value, str):
                raise StudyInputError(f'{where}: "{name}" must be a string')
        prompt_id = ids.setdefault(prompt, str(index))
        sample = samples.get(prompt_id, 0)
        samples[prompt_id] = sample + 1
        records.append(CompletionRecord(prompt_id, sample, paper_answer(prompt, output)))
    return records
