"""Delivery de-duplication (bot/webhooks.py): a repeat is dropped for the time-to-live,
and no longer; the in-process memory is bounded; a claim in Redis lapses by itself.

Written after the mutation run (docs/testing.md) showed the bounds were never checked:
changing the eviction conditions or the claim's lifetime passed every test.
"""

from __future__ import annotations

import time

from redis import Redis

from bot.webhooks import CLAIM_SECONDS, MemoryDeduper, RedisDeduper


def test_a_repeat_within_the_ttl_is_dropped_and_after_it_goes_through() -> None:
    dedupe = MemoryDeduper(ttl=1)
    assert dedupe.first_time("a") is True
    assert dedupe.first_time("a") is False
    dedupe._seen["a"] = time.monotonic() - 0.001  # as if its ttl had just run out
    assert dedupe.first_time("a") is True


def test_an_entry_is_kept_until_exactly_its_ttl() -> None:
    dedupe = MemoryDeduper(ttl=60)
    dedupe.first_time("a")
    dedupe.first_time("b")
    assert dedupe._seen["a"] - time.monotonic() > 59
    assert dedupe.first_time("b") is False
    assert dedupe.first_time("a") is False


def test_the_memory_holds_at_most_max_entries_dropping_the_oldest() -> None:
    dedupe = MemoryDeduper(ttl=3600, max_entries=2)
    assert [dedupe.first_time(x) for x in ("a", "b", "c")] == [True, True, True]
    assert len(dedupe._seen) == 2
    assert dedupe.first_time("b") is False  # kept: among the newest two
    assert dedupe.first_time("a") is True  # dropped to make room for "c"


def test_the_default_bound_is_large_enough_for_a_busy_hour() -> None:
    assert MemoryDeduper(ttl=60).max_entries == 100_000


def test_forget_lets_a_delivery_through_again_and_confirm_keeps_it() -> None:
    dedupe = MemoryDeduper(ttl=60)
    dedupe.first_time("a")
    dedupe.confirm("a")
    assert dedupe.first_time("a") is False
    dedupe.forget("a")
    assert dedupe.first_time("a") is True


def test_a_claim_in_redis_lapses_by_itself_then_lives_for_the_ttl(redis_url: str) -> None:
    client = Redis.from_url(redis_url)
    try:
        dedupe = RedisDeduper(client, ttl=86_400, prefix="t:")
        assert CLAIM_SECONDS == 300
        assert dedupe.first_time("d1") is True
        assert dedupe.first_time("d1") is False
        assert 290 < client.ttl("t:d1") <= CLAIM_SECONDS
        dedupe.confirm("d1")
        assert client.ttl("t:d1") > 86_000
        short = RedisDeduper(client, ttl=30, prefix="s:")
        short.first_time("d2")
        assert client.ttl("s:d2") <= 30  # never claimed for longer than the ttl itself
        dedupe.forget("d1")
        assert dedupe.first_time("d1") is True
    finally:
        client.close()


def test_expiring_the_oldest_delivery_keeps_the_newer_ones() -> None:
    dedupe = MemoryDeduper(ttl=60)
    dedupe.first_time("old")
    dedupe.first_time("new")
    dedupe._seen["old"] = time.monotonic() - 1  # only the oldest has run out
    assert dedupe.first_time("other") is True
    assert list(dedupe._seen) == ["new", "other"]
    assert dedupe.first_time("new") is False
