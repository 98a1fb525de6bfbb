"""The results cache key follows what can change a verdict, and reports survive a round trip."""

from __future__ import annotations

from analysis.report import Example, Finding, FunctionReport
from bot.cache import MemoryResultsCache, RedisResultsCache, cache_key, decode, encode, source_key

MODULE = """\
import math

LIMIT = 50


def helper(x):
    return x > LIMIT


def decide(age, score):
    return helper(age) and score > 1


def unrelated(y):
    return y
"""


def test_editing_an_unrelated_function_keeps_the_key() -> None:
    edited = MODULE.replace("return y", "return y * 2")
    assert source_key(MODULE, "decide") == source_key(edited, "decide")


def test_editing_a_helper_or_a_constant_changes_the_key() -> None:
    assert source_key(MODULE, "decide") != source_key(
        MODULE.replace("x > LIMIT", "x >= LIMIT"), "decide"
    )
    assert source_key(MODULE, "decide") != source_key(
        MODULE.replace("LIMIT = 50", "LIMIT = 60"), "decide"
    )


def test_moving_a_function_down_keeps_the_key() -> None:
    moved = MODULE.replace("import math\n", "import math\n\n\n# a comment above everything\n")
    assert source_key(MODULE, "decide") == source_key(moved, "decide")


def test_policy_and_engine_version_are_part_of_the_key() -> None:
    keys = {cache_key(MODULE, "decide", p, v) for p in ("p1", "p2") for v in ("1", "2")}
    assert len(keys) == 4


def test_unknown_function_or_broken_source_has_no_key() -> None:
    assert source_key(MODULE, "missing") is None
    assert source_key("def (:", "f") is None


def test_report_round_trip_moves_lines_with_the_function() -> None:
    finding = Finding(
        "age", "age", Example({"age": 51, "score": 2}, [50, 51], ["False", "True"]), 11
    )
    report = FunctionReport(
        "a.py",
        "decide",
        10,
        11,
        "biased",
        attributes_tested=["age"],
        findings=[finding],
        executions=9,
        accepted=[(finding, "ok")],
    )
    back = decode(encode(report), "b.py", 20, 21)
    assert (back.path, back.line, back.end_line) == ("b.py", 20, 21)
    assert back.findings[0].line == 21 and back.findings[0].example == finding.example
    assert back.accepted[0][1] == "ok" and back.executions == 9


def test_memory_cache_evicts_the_oldest() -> None:
    cache = MemoryResultsCache(max_entries=2)
    for key in "abc":
        cache.put(key, key)
    assert cache.get("a") is None and cache.get("c") == "c"


def test_redis_cache_stores_with_a_ttl(redis_url: str) -> None:
    from redis import Redis

    redis = Redis.from_url(redis_url)
    cache = RedisResultsCache(redis, ttl=60)
    cache.put("k", "v")
    assert cache.get("k") == "v" and 0 < int(redis.ttl("codebias:result:k")) <= 60  # type: ignore[arg-type]
