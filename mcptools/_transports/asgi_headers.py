"""The 2026-07-28 rules for a stateless POST's headers: they must say what the body says.

``MCP-Protocol-Version`` equals ``_meta``'s revision, ``Mcp-Method`` the method, ``Mcp-Name`` the tool (or the
task of ``tasks/get``, ``tasks/update`` and ``tasks/cancel``; a name
that is not header-safe travels as ``=?base64?...?=``), and each ``Mcp-Param-*`` the argument a tool marks with
``x-mcp-header`` (SEP-2243): a gateway may route on the headers without reading the body, so a request whose
headers and body disagree is refused (400, -32020) before anything runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, final

from .._call import Call
from .._jsonrpc import HEADER_MISMATCH
from .._protocol.request_rules import check_request_meta
from .._protocol.revisions import META_PROTOCOL_VERSION
from .asgi_io import Headers, Reject
from .http_rules import decode_param_header, header_text

if TYPE_CHECKING:
    from .._tool import Tool

__all__ = ["ParamHeaders", "check_stateless_headers"]

# The body field each method's Mcp-Name carries; a task's id routes tasks/* (the Tasks extension, SEP-2243).
_NAMED_METHODS: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}


def check_stateless_headers(headers: Headers, message: dict[str, Any], params: dict[str, Any]) -> None:
    """``_meta`` as 2026-07-28 requires it, and the method, revision and name headers equal to the body."""
    request_id = message["id"]
    problem = check_request_meta(params)
    if problem is not None:
        raise Reject(400, problem.code, problem.message, request_id, problem.data)
    method = message["method"]
    header_method = headers.get("mcp-method")
    if header_method is None or header_method.strip() != method:
        raise _mismatch("Mcp-Method", "the body's method", header_method, request_id)
    version = headers.get("mcp-protocol-version")
    if version is None or version.strip() != params["_meta"][META_PROTOCOL_VERSION]:
        raise _mismatch("MCP-Protocol-Version", "_meta's protocolVersion", version, request_id)
    field = _NAMED_METHODS.get(method)
    if field is not None and field in params:
        header_name = headers.get("mcp-name")
        if header_name is None or decode_param_header(header_name.strip()) != params[field]:
            raise _mismatch("Mcp-Name", f"the body's {field}", header_name, request_id)


def _mismatch(header: str, what: str, given: str | None, request_id: Any) -> Reject:
    # A header left out is said so: "mismatch" alone sends the reader looking for a wrong value.
    missing = " (the header is missing)" if given is None else ""
    return Reject(400, HEADER_MISMATCH, f"Header mismatch: {header} must equal {what}{missing}", request_id)


@final
class ParamHeaders:
    """Each tool's ``x-mcp-header`` properties, ``{argument: header suffix}``, read once per registered tool."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[str, tuple[Tool, dict[str, str]]] = {}

    def _of(self, tool: Tool) -> dict[str, str]:
        cached = self._known.get(tool.name)
        if cached is not None and cached[0] is tool:
            return cached[1]
        mapping: dict[str, str] = {}
        properties = tool.input_schema.get("properties")
        if type(properties) is dict:
            for name, schema in properties.items():
                if type(schema) is dict and type(schema.get("x-mcp-header")) is str:
                    mapping[name] = schema["x-mcp-header"]
        self._known[tool.name] = (tool, mapping)
        return mapping

    def check(self, headers: Headers, call: Call) -> None:
        """Every ``Mcp-Param-*`` header the routed call's tool asks for, present and equal to its argument."""
        arguments = call.params.get("arguments")
        if type(arguments) is not dict:
            arguments = {}
        for argument, suffix in self._of(call.tool).items():
            if argument not in arguments or arguments[argument] is None:
                continue
            raw = headers.get(f"mcp-param-{suffix.lower()}")
            if raw is None:
                raise Reject(400, HEADER_MISMATCH, f"Header mismatch: Mcp-Param-{suffix} is required", call.request_id)
            decoded = decode_param_header(raw.strip())
            if decoded is None or decoded != header_text(arguments[argument]):
                raise Reject(
                    400,
                    HEADER_MISMATCH,
                    f"Header mismatch: Mcp-Param-{suffix} does not match argument '{argument}'",
                    call.request_id,
                )
