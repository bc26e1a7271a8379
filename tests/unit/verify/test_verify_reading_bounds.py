"""How verify decodes what a server sends, within `toolgen.limits`: nesting up to orjson's
limit and no further (named, not "not JSON"), an HTTP body and a server-sent event up to the
message limit, however the bytes are split into lines."""

from __future__ import annotations

import io
import threading
import time
from typing import Any

import orjson
import pytest

from toolgen.limits import MAX_DEPTH
from toolgen.verify.http import Watchdog, _body, _events
from toolgen.verify.transport import PROGRESS, Deadline, Exchange, Refused, loads

LIMIT = 1024


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


@pytest.mark.parametrize(
    ("raw", "outcome"),
    [
        (nested(MAX_DEPTH), "value"),
        (nested(MAX_DEPTH + 1), Refused),
        (nested(2000), Refused),
        (b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), Refused),
        (b"[[[", orjson.JSONDecodeError),  # not JSON: not a depth refusal
        (b"hello", orjson.JSONDecodeError),
    ],
    ids=["at-the-limit", "one-past", "2000-arrays", "objects-past", "unclosed", "text"],
)
def test_json_past_orjsons_nesting_limit_is_refused_as_too_deep(raw: bytes, outcome: Any) -> None:
    if outcome == "value":
        assert loads(raw) is not None
        return
    with pytest.raises(outcome) as caught:
        loads(raw)
    assert (str(MAX_DEPTH) in str(caught.value)) == (outcome is Refused)


def response(data: bytes) -> Any:
    """Something that reads like an `http.client.HTTPResponse`."""
    return io.BytesIO(data)


EVENT = b'data: {"jsonrpc": "2.0", "method": "x"}\n\n'


def event_of(lines: int) -> bytes:
    """One event whose data is a JSON array spread over `lines` + 2 data lines (3 bytes of
    data each, its newline included)."""
    return b"data: [\n" + b"data: 1,\n" * lines + b"data: 1]\n\n"


STREAMS = [
    # (stream, the messages read before it ends, or Refused)
    (EVENT * 3, 3),
    (b"data: " + b"1" * (LIMIT + 1) + b"\n\n", Refused),  # one line over the limit
    (event_of(LIMIT // 3), Refused),  # many short lines of one event
    (EVENT + b"data: " + b"2" * (LIMIT * 4), Refused),  # an unfinished line past the limit
    (event_of(LIMIT // 3 - 2) * 4, Refused),  # each event just under the limit, not together
    (event_of(LIMIT // 12 - 2) * 4, 4),  # four events within the limit together
    (b"data: " + nested(MAX_DEPTH + 1) + b"\n\n", Refused),
]


@pytest.mark.parametrize(("stream", "outcome"), STREAMS, ids=range(len(STREAMS)))
def test_the_server_sent_events_of_one_answer_are_read_up_to_the_message_limit(
    stream: bytes, outcome: Any
) -> None:
    events = _events(response(stream), LIMIT)
    if outcome is Refused:
        with pytest.raises(Refused):
            list(events)
    else:
        assert len(list(events)) == outcome


@pytest.mark.parametrize(("size", "refused"), [(LIMIT, False), (LIMIT + 1, True)])
def test_an_http_body_is_read_up_to_the_message_limit(size: int, refused: bool) -> None:
    if refused:
        with pytest.raises(Refused):
            _body(response(b" " * size), LIMIT)
    else:
        assert len(_body(response(b" " * size), LIMIT)) == size


def test_a_watchdog_stopped_before_its_deadline_never_fires() -> None:
    fired = threading.Event()
    watchdog = Watchdog(Deadline(0.2), fired.set)
    watchdog.stop()
    time.sleep(0.4)
    assert not fired.is_set() and not watchdog.fired


def test_a_watchdog_fires_once_its_deadline_passes() -> None:
    fired = threading.Event()
    watchdog = Watchdog(Deadline(0.05), fired.set)
    assert fired.wait(10.0)  # a guard against a hang, not a timing
    assert watchdog.fired


def test_only_progress_for_the_request_awaited_renews_its_wait() -> None:
    """A server that keeps sending progress for a call given up on moves no later wait."""
    deadline, found = Deadline(0.5, 30.0, token=7), Exchange()
    first = deadline.at
    for token in (8, "7", None):
        deadline.saw({"method": PROGRESS, "params": {"progressToken": token}}, found)
    assert (deadline.at, found.progressed) == (first, False)
    time.sleep(0.01)
    deadline.saw({"method": PROGRESS, "params": {"progressToken": 7}}, found)
    assert deadline.at > first and found.progressed
