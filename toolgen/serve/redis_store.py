"""The Redis store: what outlives a request, shared by every instance serving one endpoint.

`redis://HOST:PORT/DB` names it (see `toolgen.serve.store` for what a store holds). It
uses the `redis` package's asyncio client (`toolgen[redis]`), under keys that start with
`toolgen:`:

- `toolgen:task:ID`: a task's record (JSON), expiring with the task's `ttlMs`; changed
  with optimistic transactions (`WATCH`), so that instances never overwrite each other;
- `toolgen:session:ID`: a legacy session's record and when it was last used (a hash),
  expiring when idle; the sorted sets `toolgen:sessions` (every session, by last use)
  and `toolgen:sessions:unused` (those not used since they began, by start) rank them
  for eviction;
- `toolgen:stream:ID`: a resumable stream's events (a Redis stream, entry ids `0-SEQ`);
- `toolgen:instance:ID`: present while that instance runs (refreshed every `HEARTBEAT`
  seconds, gone `ALIVE_TTL` seconds after it stopped);
- the channel `toolgen:signals` carries signals between instances.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
import redis.asyncio as redis
from redis.exceptions import WatchError

from toolgen.serve.store import (
    STREAM_EVENTS,
    STREAM_TTL,
    Edit,
    Record,
    Store,
    new_instance_id,
)

PREFIX: Final = "toolgen:"
CHANNEL: Final = PREFIX + "signals"
HEARTBEAT: Final = 1.0
"""Seconds between two signs of life of an instance."""
ALIVE_TTL: Final = 4.0
"""Seconds after its last sign of life that an instance counts as stopped."""
SESSION_TTL: Final = 24 * 3600.0
"""Seconds a session's record stays in Redis after its last use (the server ends it sooner)."""
READ_STEP: Final = 1.0
"""Seconds one blocking read of a stream waits at most: less than the time the Redis client
gives a server to answer (5 s by default, `?socket_timeout=` in the URL), which fails a
read that waits longer."""

log = logging.getLogger("toolgen.serve.http")

_USE_SESSION: Final = """
local record = redis.call('HGET', KEYS[1], 'record')
if not record then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return false
end
local last = redis.call('HGET', KEYS[1], 'lastSeen')
redis.call('HSET', KEYS[1], 'lastSeen', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return {record, last}
"""


class RedisStore(Store):
    """A store in Redis (see the module docs)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.instance = new_instance_id()
        self._redis: Any = None  # a redis.asyncio.Redis (its typing is too loose to help)
        self._background: list[asyncio.Task[None]] = []
        self._use_session: Any = None

    @property
    def redis(self) -> Any:
        if self._redis is None:
            self._redis = redis.Redis.from_url(self.url)
            self._use_session = self._redis.register_script(_USE_SESSION)
        return self._redis

    async def start(self) -> None:
        """Connect (failing here when Redis cannot be reached), announce this instance,
        and listen for signals."""
        await self.redis.set(_key("instance", self.instance), b"1", px=_ms(ALIVE_TTL))
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(CHANNEL)
        self._background = [
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self._listen(pubsub)),
        ]

    async def close(self) -> None:
        for task in self._background:
            task.cancel()
        for task in self._background:
            with contextlib.suppress(BaseException):
                await task
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.delete(_key("instance", self.instance))
            await self._redis.aclose()
            self._redis = None

    async def _heartbeat(self) -> None:
        key = _key("instance", self.instance)
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                await self.redis.set(key, b"1", px=_ms(ALIVE_TTL))
            except Exception as exc:  # Redis away for a moment: try again next beat
                log.warning("cannot reach the store: %s", exc)

    async def _listen(self, pubsub: Any) -> None:
        async with pubsub:
            async for message in pubsub.listen():
                if self.listener is None or message.get("type") != "message":
                    continue
                try:
                    self.listener(orjson.loads(message["data"]))
                except Exception:
                    log.exception("a signal from another instance could not be handled")

    # -- tasks ----------------------------------------------------------------------------

    async def put_task(self, task_id: str, record: Record, ttl: float) -> None:
        await self.redis.set(_key("task", task_id), orjson.dumps(record), px=_ms(ttl))

    async def get_task(self, task_id: str) -> Record | None:
        data = await self.redis.get(_key("task", task_id))
        return None if data is None else _record(data)

    async def change_task(self, task_id: str, edit: Edit) -> Record | None:
        key = _key("task", task_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    data = await pipe.get(key)
                    if data is None:
                        return None
                    record = _record(data)
                    changed = edit(record)
                    if changed is None:
                        await pipe.unwatch()
                        return record
                    pipe.multi()
                    pipe.set(key, orjson.dumps(changed), keepttl=True)
                    await pipe.execute()
                    return changed
                except WatchError:  # another instance changed it meanwhile: again
                    continue

    # -- legacy sessions ------------------------------------------------------------------

    async def put_session(self, session_id: str, record: Record) -> None:
        key = _key("session", session_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={"record": orjson.dumps(record), "lastSeen": record["lastSeen"]})
            pipe.pexpire(key, _ms(SESSION_TTL))
            pipe.zadd(PREFIX + "sessions", {session_id: record["lastSeen"]})
            pipe.zadd(PREFIX + "sessions:unused", {session_id: record["lastSeen"]})
            await pipe.execute()

    async def use_session(self, session_id: str, now: float) -> Record | None:
        self.redis  # noqa: B018 - connects, registering the script
        data = await self._use_session(
            keys=[
                _key("session", session_id),
                PREFIX + "sessions",
                PREFIX + "sessions:unused",
            ],
            args=[session_id, now, _ms(SESSION_TTL)],
        )
        if not data:
            return None
        record = _record(data[0])
        record["lastSeen"] = float(data[1])
        return record

    async def save_session(self, session_id: str, record: Record) -> None:
        await self.redis.hset(_key("session", session_id), mapping={"record": orjson.dumps(record)})

    async def end_session(self, session_id: str) -> bool:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(_key("session", session_id))
            pipe.zrem(PREFIX + "sessions", session_id)
            pipe.zrem(PREFIX + "sessions:unused", session_id)
            deleted, _, _ = await pipe.execute()
        return bool(deleted)

    async def session_count(self) -> int:
        return int(await self.redis.zcard(PREFIX + "sessions"))

    async def oldest_session(self, *, unused: bool) -> tuple[str, float] | None:
        key = PREFIX + ("sessions:unused" if unused else "sessions")
        found = await self.redis.zrange(key, 0, 0, withscores=True)
        if not found:
            return None
        session_id, score = found[0]
        return session_id.decode(), float(score)

    # -- stream events --------------------------------------------------------------------

    async def add_event(self, stream: str, seq: int, message: Record, final: bool) -> None:
        key = _key("stream", stream)
        async with self.redis.pipeline(transaction=False) as pipe:
            fields = {"m": orjson.dumps(message), "f": b"1" if final else b"0"}
            pipe.xadd(key, fields, id=f"0-{seq}", maxlen=STREAM_EVENTS, approximate=True)
            pipe.expire(key, int(STREAM_TTL))
            await pipe.execute()

    async def events(
        self, stream: str, after: int, wait: float
    ) -> AsyncIterator[tuple[int, Record]]:
        key = _key("stream", stream)
        if not await self.redis.exists(key):
            return
        timeout = self.redis.connection_pool.connection_kwargs.get("socket_timeout")
        step = READ_STEP if timeout is None else min(READ_STEP, timeout / 2)
        clock = asyncio.get_running_loop().time
        last = f"0-{after}"
        deadline = clock() + wait
        while (left := deadline - clock()) > 0:
            found = await self.redis.xread({key: last}, block=_ms(min(left, step)), count=100)
            for entry_id, fields in found[0][1] if found else ():
                last = entry_id.decode()
                yield int(last.partition("-")[2]), _record(fields[b"m"])
                if fields.get(b"f") == b"1":
                    return
                deadline = clock() + wait

    # -- instances ------------------------------------------------------------------------

    async def publish(self, signal: dict[str, Any]) -> None:
        await self.redis.publish(CHANNEL, orjson.dumps(signal))

    async def alive(self, instance: str) -> bool:
        return bool(await self.redis.exists(_key("instance", instance)))


def _key(kind: str, name: str) -> str:
    return f"{PREFIX}{kind}:{name}"


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _record(data: bytes) -> Record:
    value = orjson.loads(data)
    return value if type(value) is dict else {}
