"""The results cache key follows what can change a verdict, and reports survive a round trip."""

from __future__ import annotations

from bot.cache import MemoryResultsCache, RedisResultsCache, cache_key, source_key

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


def test_a_verdict_is_scoped_to_its_repository_and_the_files_it_was_imported_with() -> None:
    keys = {
        cache_key(MODULE, "decide", "p", "1", context)
        for context in ("octo/hiring", "someone/else", "octo/hiring\0[['rules.py', 'a1']]")
    }
    assert len(keys) == 3


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
