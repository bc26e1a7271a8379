"""Multi round-trip requests (MCP 2026-07-28, SEP-2322): a tool asks the client for input
(user input, a model completion, its roots) without the server keeping any state.

Handlers use the same API in both eras (`await call.elicit(...)`, `call.sample(...)`,
`call.list_roots()`, see `toolgen.serve.context`). A 2025 session sends those
requests to the client during the call. The stateless era cannot, so the call is
*replayed*:

1. The handler runs. When it asks for something the request does not carry an
   answer for, the request is noted and the handler waits; once every concurrent
   question of this attempt is noted (`settle`), the attempt is cancelled and the
   call answers an `InputRequiredResult`: the questions (`inputRequests`, keyed by
   the handler's `key=` or `elicitation-1`, `sampling-1`, ...) and a signed
   `requestState` holding the answers this attempt already used.
2. The client retries with `inputResponses` (and the `requestState`); the handler
   runs again from the start, and now gets its answers in order. It may ask more
   (multi-round) or return the result.

So a handler that asks for input must do nothing irreversible before its last
question (it runs once per round), which is what the spec's own examples do.

`requestState` is `base64url(JSON).base64url(HMAC-SHA256)`: it names the tool, a
digest of the arguments and an expiry, so it cannot be altered, moved to another
call or replayed late. A retry without it is fine (the client supplies every
answer anyway); a state that fails any check is refused with -32602.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextvars
import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from toolgen.serve import jsonrpc

INPUT_METHODS: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
"""Requests a server may put in `inputRequests`, and the client capability each needs."""
STATE_TTL: Final = 900.0
"""Seconds a `requestState` stays valid (a person may take a while to answer)."""
SECRET_ENV: Final = "TOOLGEN_STATE_SECRET"
"""Environment variable with the signing key: the same on every process behind one endpoint."""
SETTLE_TURNS: Final = 64
"""Loop turns at most that concurrent questions (`asyncio.gather`) get to be asked."""


class InvalidInput(ValueError):
    """`inputResponses` or `requestState` cannot be used (answered with -32602)."""


class StateSigner:
    """Seals and opens `requestState` values with HMAC-SHA256."""

    def __init__(
        self,
        secret: bytes | None = None,
        *,
        ttl: float = STATE_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`secret` None: `$TOOLGEN_STATE_SECRET` if set, else a random key for this process."""
        if secret is None:
            from_env = os.environ.get(SECRET_ENV)
            secret = from_env.encode() if from_env else secrets.token_bytes(32)
        self._key = secret
        self.ttl = ttl
        self._clock = clock

    def seal(self, payload: Mapping[str, Any]) -> str:
        """`payload` with an expiry, as an opaque, tamper-proof string."""
        body = orjson.dumps({**payload, "exp": int(self._clock() + self.ttl)})
        return f"{_b64(body)}.{_b64(self._mac(body))}"

    def open(self, token: str) -> dict[str, Any]:
        """The payload `seal` made; `InvalidInput` when altered, malformed or expired."""
        head, dot, tail = token.partition(".")
        try:
            body, mac = _unb64(head), _unb64(tail)
        except (binascii.Error, ValueError):
            raise InvalidInput("requestState is not one this server issued") from None
        if not dot or not hmac.compare_digest(mac, self._mac(body)):
            raise InvalidInput("requestState failed its integrity check")
        payload = orjson.loads(body)
        if type(payload) is not dict or not isinstance(payload.get("exp"), int):
            raise InvalidInput("requestState is not one this server issued")
        if payload["exp"] < self._clock():
            raise InvalidInput("requestState has expired: call the tool again without it")
        return payload

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def arguments_digest(name: str, arguments: Mapping[str, Any]) -> str:
    """What binds a state to one call: the tool and its arguments."""
    data = jsonrpc.dumps([name, arguments], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(data).hexdigest()[:32]


def fits(method: str, answer: Any) -> bool:
    """Whether `answer` has the shape of the client's result for `method`."""
    if type(answer) is not dict:
        return False
    if method == "elicitation/create":
        return answer.get("action") in ("accept", "decline", "cancel")
    if method == "sampling/createMessage":
        return "role" in answer and "content" in answer and "model" in answer
    return isinstance(answer.get("roots"), list)


def check_responses(value: Any) -> dict[str, Any]:
    """The `inputResponses` of a request, checked: an object whose members are each an
    `ElicitResult`, `CreateMessageResult` or `ListRootsResult` (else `InvalidInput`)."""
    if type(value) is not dict:
        raise InvalidInput("inputResponses must be an object")
    for key, answer in value.items():
        if not any(fits(method, answer) for method in INPUT_METHODS):
            raise InvalidInput(
                f"inputResponses[{key[:64]!r}] is not an elicitation, sampling or roots result"
            )
    return value


class InputRound:
    """One attempt at a call: the answers it may use, and the questions still open."""

    def __init__(self, answers: Mapping[str, Any]) -> None:
        self.answers = dict(answers)
        self.used: dict[str, Any] = {}
        """Answers the handler received this attempt (they go into the next state)."""
        self.requests: dict[str, dict[str, Any]] = {}
        self.asked = asyncio.Event()
        self.interrupted = False
        """Whether the attempt was cancelled because it asked (not by the client)."""
        self._counts: dict[str, int] = {}

    async def ask(self, method: str, params: dict[str, Any], key: str | None = None) -> Any:
        """The answer to this question if the client gave it, else note the question and
        wait (the attempt is then cancelled and the call asks the client)."""
        if key is None:
            kind = INPUT_METHODS[method]
            self._counts[kind] = count = self._counts.get(kind, 0) + 1
            key = f"{kind}-{count}"
        answer = self.answers.get(key)
        if answer is not None and fits(method, answer):
            self.used[key] = answer
            return answer
        self.requests[key] = {"method": method, "params": params}
        self.asked.set()
        await asyncio.get_running_loop().create_future()  # never set: cancelled with the attempt

    async def interrupt_when_asked(self, task: asyncio.Task[Any]) -> None:
        """Once the handler asks something unanswered and every concurrent question
        (`asyncio.gather(call.elicit(...), ...)`) is noted, cancel the attempt (`task`)."""
        await self.asked.wait()
        for _ in range(SETTLE_TURNS):
            before = len(self.requests)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            if len(self.requests) == before:
                break
        self.interrupted = True
        task.cancel()

    def result(self, state: str, meta: Mapping[str, Any]) -> dict[str, Any]:
        """The `InputRequiredResult` of this attempt (`state`: its sealed `requestState`)."""
        return {
            "resultType": "input_required",
            "inputRequests": self.requests,
            "requestState": state,
            "_meta": meta,
        }


_round: contextvars.ContextVar[InputRound | None] = contextvars.ContextVar(
    "toolgen_input_round", default=None
)


def current_round() -> InputRound | None:
    """The input round of the stateless call running in this task (None: not one)."""
    return _round.get()


def enter_round(inputs: InputRound) -> None:
    """Make `inputs` this task's round (tasks started afterwards inherit it)."""
    _round.set(inputs)
