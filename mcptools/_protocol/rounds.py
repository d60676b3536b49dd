"""Input-required rounds of a 2026-07-28 ``tools/call``: the protocol's part of a tool asking questions.

A tool that asks the client something (``Context.elicit``, sampling, roots) over 2026-07-28 ends its round with an
``input_required`` result carrying the questions and a sealed ``requestState``; the client retries the same call
with ``inputResponses``, and the tool runs again from the top, finding the answers there. The state is sealed
(see ``state.py``) and bound to the tool and the arguments as sent, so it cannot be replayed on another call.
A 2025-11-25 session gets URL elicitations as JSON-RPC error -32042 instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .._errors import InputRequired, ProtocolError, URLElicitationRequired
from .._jsonrpc import INVALID_PARAMS, URL_ELICITATION_REQUIRED
from .state import arguments_digest

if TYPE_CHECKING:
    from .._call import Call

__all__ = ["input_required", "read_rounds", "url_elicitation"]

_STATE_PURPOSE: Final = "requestState"


def read_rounds(call: Call) -> None:
    """The answers this round can use (those sealed in ``requestState`` plus the new ones) and what the earlier
    rounds already streamed (see ``Context``'s ``replay``), onto the call; a ``ProtocolError`` when the state
    was altered or belongs to another call."""
    params = call.params
    answers: dict[str, Any] = {}
    replay = None
    if "requestState" in params:
        state = call.sealer.open(params["requestState"], purpose=_STATE_PURPOSE)
        if state is None or state.get("t") != call.name or state.get("a") != _digest(call):
            raise ProtocolError(INVALID_PARAMS, "Invalid params: requestState failed its integrity check")
        carried = state.get("r")
        if type(carried) is dict:
            answers.update(carried)
        sent = state.get("s")
        if type(sent) is dict:
            replay = sent
    if "inputResponses" in params:
        responses = params["inputResponses"]
        if type(responses) is not dict:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: 'inputResponses' must be an object")
        for key, value in responses.items():
            if type(value) is not dict:
                raise ProtocolError(INVALID_PARAMS, f"Invalid params: inputResponses[{key!r}] must be an object")
        answers.update(responses)
    call.rounds = (answers, replay)


def _digest(call: Call) -> str:
    # The arguments as the client sends them, which every round repeats unchanged (not as validated: a repair
    # or a profile's mapping may have reshaped those).
    arguments = call.params.get("arguments")
    return arguments_digest(arguments if arguments is not None else {})


def input_required(call: Call, needed: InputRequired) -> dict[str, Any]:
    """The ``input_required`` result ending this round: the questions, and the state the next round needs."""
    document: dict[str, Any] = {"t": call.name, "a": _digest(call), "r": call.rounds[0] if call.rounds else {}}
    if call.context is not None:
        document["s"] = call.context._replay_state()
    state = call.sealer.seal(document, purpose=_STATE_PURPOSE)
    return {"resultType": "input_required", "inputRequests": needed.requests, "requestState": state}


def url_elicitation(call: Call, required: URLElicitationRequired) -> dict[str, Any]:
    """A tool needs the user at some URLs first: -32042 on a 2025 session, an input_required round otherwise."""
    if call.legacy:
        raise ProtocolError(URL_ELICITATION_REQUIRED, required.message, {"elicitations": required.elicitations})
    asked = {
        str(item.get("elicitationId", index)): {"method": "elicitation/create", "params": item}
        for index, item in enumerate(required.elicitations)
    }
    return input_required(call, InputRequired(asked))
