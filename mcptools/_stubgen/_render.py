"""The generated module: header, TypedDicts and aliases, the ``Tools`` protocols and the typed clients.

Text is assembled line by line in the layout ``ruff format`` produces, so a generated module is formatted as
written, and the same tools always give the same bytes (tools are sorted by name; everything else follows
the schemas' own order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, final

from mcptools._errors import SchemaError, UsageError
from mcptools._stubgen._text import (
    NameAllocator,
    escaped_lines,
    is_plain_identifier,
    method_name,
    pascal_case,
    py_string,
)
from mcptools._stubgen._translate import AliasDef, ClassDef, RootType, SchemaTranslator, json_text
from mcptools._stubgen._types import (
    Lit,
    Name,
    PyType,
    Sub,
    UnionOf,
    layout,
    mentions_generated,
    render,
)

__all__ = ["MIN_LINE_LENGTH", "generate_stubs"]

# The fixed parts of a module (the preamble, the client classes) fit in this width, so any wider one works.
MIN_LINE_LENGTH = 79

_FIXED_NAMES = (
    "AsyncToolSession",
    "AsyncTools",
    "AsyncTypedClient",
    "ToolCallError",
    "ToolSession",
    "Tools",
    "TypedClient",
)
_RESERVED = frozenset(
    {
        *_FIXED_NAMES,
        "Any",
        "Awaitable",
        "False",
        "Generic",
        "Literal",
        "Mapping",
        "Never",
        "None",
        "NotRequired",
        "Protocol",
        "True",
        "TypeAlias",
        "TypeVar",
        "TypedDict",
        "Unpack",
    }
)

_PREAMBLE = '''
_R = TypeVar("_R")
_R_co = TypeVar("_R_co", covariant=True)


class ToolSession(Protocol[_R_co]):
    """Anything that calls a tool by name and returns its result."""

    def call_tool(self, name: str, arguments: dict[str, Any], /) -> _R_co: ...


class AsyncToolSession(Protocol[_R_co]):
    """A session whose ``call_tool`` is a coroutine (``mcp.ClientSession``)."""

    def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        /,
    ) -> Awaitable[_R_co]: ...


class ToolCallError(Exception):
    """An error result, or one without the structured content promised."""

    def __init__(self, message: str, result: object) -> None:
        super().__init__(message)
        self.result = result


def _as_arguments(arguments: Mapping[str, object]) -> dict[str, Any]:
    return dict(arguments)


def _field(value: object, key: str, attribute: str) -> object:
    """``value[key]`` for a mapping (JSON names), else the attribute.

    The mcp SDK 2.x models name it in snake_case (``attribute``; camelCase is
    only their JSON alias), 1.x models and plain objects as in JSON (``key``).
    """
    if isinstance(value, Mapping):
        return value.get(key)
    if hasattr(value, attribute):
        return getattr(value, attribute)
    return getattr(value, key, None)


def _error_text(result: object) -> str:
    content = _field(result, "content", "content")
    if not isinstance(content, list):
        return "the tool reported an error"
    texts = [_field(block, "text", "text") for block in content]
    joined = "\\n".join(text for text in texts if isinstance(text, str))
    return joined or "the tool reported an error"


def _structured_content(result: object) -> object:
    """The structured content of a result (or of a JSON-RPC response)."""
    if isinstance(result, Mapping) and "jsonrpc" in result:
        if "error" in result:
            message = str(_field(result["error"], "message", "message"))
            raise ToolCallError(message, result)
        result = result.get("result")
    if _field(result, "isError", "is_error"):
        raise ToolCallError(_error_text(result), result)
    structured = _field(result, "structuredContent", "structured_content")
    if structured is None:
        raise ToolCallError("the result has no structuredContent", result)
    return structured
'''


@final
class _Tool:
    """One tool as the facade sees it."""

    __slots__ = ("annotations", "arguments", "description", "method", "name", "result", "title")

    def __init__(
        self,
        raw: Mapping[str, Any],
        method: str,
        arguments: RootType,
        result: RootType | None,
    ) -> None:
        self.name: str = raw["name"]
        self.title = raw.get("title") if isinstance(raw.get("title"), str) else None
        self.description = raw.get("description") if isinstance(raw.get("description"), str) else None
        self.annotations = raw.get("annotations")
        self.method = method
        self.arguments = arguments
        self.result = result


def _docstring(text: str, indent: str, width: int) -> list[str]:
    """A docstring at ``indent``: one line when it fits, else the closing quotes on their own line."""
    lines = escaped_lines(text, width - len(indent) - 4)
    if not lines:
        return []
    # A quote next to the opening or closing quotes is escaped: formatters would otherwise add a space.
    # (Escaping leaves no quote escaped at the end of a line, so a final quote is always a bare one.)
    single_line = lines[0][:-1] + '\\"' if len(lines) == 1 and lines[0].endswith('"') else lines[0]
    if single_line.startswith('"'):
        single_line = "\\" + single_line
    if lines[0].startswith('"'):
        lines[0] = "\\" + lines[0]
    single = f'{indent}"""{single_line}"""'
    if len(lines) == 1 and len(single) <= width:
        return [single]
    body = [f'{indent}"""{lines[0]}', *[(indent + line) if line else "" for line in lines[1:]]]
    return [*body, f'{indent}"""']


def _comment(text: str, indent: str, width: int) -> list[str]:
    return [f"{indent}# {line}".rstrip() for line in escaped_lines(text, width - len(indent) - 2)]


def _names_in(node: PyType, found: set[str]) -> None:
    if isinstance(node, Name):
        found.add(node.text)
    elif isinstance(node, Lit):
        found.add("Literal")
    elif isinstance(node, Sub):
        for arg in node.args:
            _names_in(arg, found)
    elif isinstance(node, UnionOf):
        for member in node.members:
            _names_in(member, found)


def _forward(node: PyType, defined: set[str]) -> PyType | str:
    """The type, quoted when it names a type of the module not defined yet (annotations run at import)."""
    if mentions_generated(node, defined):
        return py_string(render(node))
    return node


def _wrap_required(node: PyType | str, required: bool) -> PyType | str:
    if required:
        return node
    if isinstance(node, str):
        return f"NotRequired[{node}]"
    return Sub("NotRequired", (node,))


def _class_lines(definition: ClassDef, defined: set[str], width: int) -> list[str]:
    if all(is_plain_identifier(item.key) for item in definition.fields):
        header = f"class {definition.name}(TypedDict):"
        lines = [header] if len(header) <= width else [f"class {definition.name}(", "    TypedDict", "):"]
        doc = _docstring(definition.doc, "    ", width)
        lines.extend(doc)
        if doc and definition.fields:
            lines.append("")
        for item in definition.fields:
            annotation = _wrap_required(_forward(item.type, defined), item.required)
            lines.extend(layout(annotation, "    ", f"{item.key}: ", "", width))
            lines.extend(_docstring(item.doc, "    ", width))
        if not doc and not definition.fields:
            lines.append("    pass")
        return lines
    lines = _comment(definition.doc, "", width)
    lines.extend([f"{definition.name} = TypedDict(", f"    {py_string(definition.name)},", "    {"])
    for item in definition.fields:
        lines.extend(_comment(item.doc, "        ", width))
        value = _wrap_required(_forward(item.type, defined), item.required)
        lines.extend(layout(value, "        ", f"{py_string(item.key)}: ", ",", width))
    lines.extend(["    },", ")"])
    return lines


def _alias_lines(definition: AliasDef, defined: set[str], width: int) -> list[str]:
    lines = layout(_forward(definition.type, defined), "", f"{definition.name}: TypeAlias = ", "", width)
    return lines + _docstring(definition.doc, "", width)


def _call_lines(indent: str, head: str, function: str, arguments: list[str], width: int) -> list[str]:
    one_line = f"{indent}{head}{function}({', '.join(arguments)})"
    if len(one_line) <= width:
        return [one_line]
    return [
        f"{indent}{head}{function}(",
        *[f"{indent}    {argument}," for argument in arguments],
        f"{indent})",
    ]


Parameter: TypeAlias = str | tuple[str, PyType | str]


def _signature_lines(prefix: str, name: str, parameters: list[Parameter], returns: str, width: int) -> list[str]:
    """A method signature; when too long, one parameter a line with a trailing comma (kept by formatters)."""
    flat = [
        item if isinstance(item, str) else f"{item[0]}: {item[1] if isinstance(item[1], str) else render(item[1])}"
        for item in parameters
    ]
    one_line = f"    {prefix}def {name}({', '.join(flat)}) -> {returns}:"
    if len(one_line) <= width:
        return [one_line]
    lines = [f"    {prefix}def {name}("]
    for item in parameters:
        if isinstance(item, str):
            lines.append(f"        {item},")
        else:
            lines.extend(layout(item[1], "        ", f"{item[0]}: ", ",", width))
    lines.append(f"    ) -> {returns}:")
    return lines


def _parameters(tool: _Tool, defined: set[str]) -> list[Parameter]:
    form = tool.arguments.form
    named = Name(tool.arguments.name, generated=True)
    # ``self`` is positional-only so that an argument named "self" is one more keyword, not a clash.
    if form == "typed":
        return ["self", "/", ("**arguments", Sub("Unpack", (named,)))]
    if form == "mapping":
        return ["self", "/", ("**arguments", _forward(tool.arguments.value_type, defined))]
    return ["self", ("arguments", named), "/"]


def _method_doc(tool: _Tool, classes: Mapping[str, ClassDef]) -> str:
    parts: list[str] = []
    if tool.title:
        parts.append(tool.title)
    if tool.description:
        parts.append(tool.description)
    parts.append(f"Calls the tool {json_text(tool.name)}.")
    argument_class = classes.get(tool.arguments.name)
    if argument_class is not None and not all(is_plain_identifier(item.key) for item in argument_class.fields):
        parts.append(
            "Some argument names are not Python identifiers: build the arguments as a "
            f"{tool.arguments.name} and pass them as ``**arguments``."
        )
    if argument_class is not None and argument_class.open and argument_class.fields:
        parts.append(
            "The tool also takes keys it does not list: pass those with "
            f"``call_tool({json_text(tool.name)}, arguments)``."
        )
    documented = [item for item in argument_class.fields if item.doc] if argument_class is not None else []
    if documented:
        entries = []
        for item in documented:
            text = " ".join(item.description.split())
            if item.notes:
                text += f" ({'; '.join(item.notes)})" if text else "; ".join(item.notes)
            entries.append(f"    {item.key}: {text}")
        parts.append("Args:\n" + "\n".join(entries))
    if tool.result is not None:
        parts.append(
            f"Returns:\n    The structured content, a {tool.result.name}.\n    Raises ToolCallError on an error result."
        )
    if isinstance(tool.annotations, Mapping) and tool.annotations:
        parts.append(f"Annotations: {json_text(tool.annotations)}")
    return "\n\n".join(parts)


def _protocol_lines(
    tools: list[_Tool], classes: Mapping[str, ClassDef], defined: set[str], width: int, *, asynchronous: bool
) -> list[str]:
    name = "AsyncTools" if asynchronous else "Tools"
    kind = "coroutine methods" if asynchronous else "methods"
    lines = [
        f"class {name}(Protocol[_R_co]):",
        f'    """The tools as {kind}: a typed client, or a test double."""',
    ]
    prefix = "async " if asynchronous else ""
    for tool in tools:
        returns = tool.result.name if tool.result is not None else "_R_co"
        lines.append("")
        lines.extend(_signature_lines(prefix, tool.method, _parameters(tool, defined), returns, width))
        lines.extend(_docstring(_method_doc(tool, classes), "        ", width) or ["        ..."])
    return lines


def _client_lines(
    tools: list[_Tool], classes: Mapping[str, ClassDef], defined: set[str], width: int, *, asynchronous: bool
) -> list[str]:
    name = "AsyncTypedClient" if asynchronous else "TypedClient"
    session = "AsyncToolSession" if asynchronous else "ToolSession"
    prefix = "async " if asynchronous else ""
    awaiting = "await " if asynchronous else ""
    lines = [
        f"class {name}(Generic[_R]):",
        f'    """Typed {"coroutine " if asynchronous else ""}methods over a session.',
        "",
        f"    ``{name}(session).tool_name(arg=...)``: a tool with an",
        "    outputSchema returns its structured content (ToolCallError on an error",
        "    result), any other tool the session's result as it is.",
        '    """',
        "",
        '    __slots__ = ("_session",)',
        "",
        f"    def __init__(self, session: {session}[_R]) -> None:",
        "        self._session = session",
        "",
        *_signature_lines(prefix, "call_tool", ["self", "name: str", "arguments: Mapping[str, object]"], "_R", width),
        '        """Any tool by name, untyped, for arguments no stub describes."""',
        "        arguments_dict = _as_arguments(arguments)",
        f"        return {awaiting}self._session.call_tool(name, arguments_dict)",
    ]
    for tool in tools:
        returns = tool.result.name if tool.result is not None else "_R"
        lines.append("")
        lines.extend(_signature_lines(prefix, tool.method, _parameters(tool, defined), returns, width))
        lines.extend(_docstring(_method_doc(tool, classes), "        ", width))
        call_arguments = [py_string(tool.name), "_as_arguments(arguments)"]
        if tool.result is None:
            lines.extend(
                _call_lines("        ", f"return {awaiting}", "self._session.call_tool", call_arguments, width)
            )
        else:
            lines.extend(
                _call_lines("        ", f"result = {awaiting}", "self._session.call_tool", call_arguments, width)
            )
            lines.extend(
                _call_lines(
                    "        ",
                    "return ",
                    "cast",
                    [py_string(tool.result.name), "_structured_content(result)"],
                    width,
                )
            )
    return lines


def _checked_tools(tools: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            raise SchemaError(f"tools[{index}] is not a tool: it needs a string 'name'")
        if tool["name"] in seen:
            raise SchemaError(f"tools[{index}]: the tool name {tool['name']!r} appears twice")
        seen.add(tool["name"])
    return sorted(tools, key=lambda tool: str(tool["name"]))


def _import_lines(used: set[str]) -> list[str]:
    typing_names = sorted({"Any", "Generic", "Protocol", "TypeVar"} | (used & {"Literal", "TypeAlias", "cast"}))
    extension_names = sorted(used & {"Never", "NotRequired", "TypedDict", "Unpack"})
    lines = [
        "from collections.abc import Awaitable, Mapping",
        f"from typing import {', '.join(typing_names)}",
    ]
    if extension_names:
        lines.extend(["", f"from typing_extensions import {', '.join(extension_names)}"])
    return lines


def generate_stubs(tools: Sequence[Mapping[str, Any]], *, source: str, line_length: int = 88) -> str:
    """The text of a typed Python module for ``tools`` (the ``tools`` array of a tools/list result).

    ``source`` names where the tools came from, for the module docstring. The text is laid out as
    ``ruff format`` (or black) would lay it out at ``line_length`` (at least 79). Same input, same bytes.
    """
    if line_length < MIN_LINE_LENGTH:
        raise UsageError(f"line_length must be at least {MIN_LINE_LENGTH}, not {line_length}")
    classes = NameAllocator(_RESERVED)
    methods = NameAllocator(frozenset({"call_tool"}), separator="_")
    bases = NameAllocator(frozenset())
    translator = SchemaTranslator(classes)
    ordered = _checked_tools(tools)
    # Tools whose names are already method names keep them; sanitised names come second. Type names are
    # handed out in the same order, so tools "a_b", "a-b", "a.b" get a_b / ABArguments, a_b_2 / AB2Arguments,
    # a_b_3 / AB3Arguments: the numbers line up.
    naming_order = sorted(ordered, key=lambda tool: method_name(tool["name"]) != tool["name"])
    names: dict[str, tuple[str, str, str | None]] = {}
    for raw in naming_order:
        method = methods.allocate(method_name(raw["name"]))
        base = bases.allocate(pascal_case(raw["name"], "Tool"))
        arguments_name = classes.allocate(base + "Arguments")
        result_name = classes.allocate(base + "Result") if raw.get("outputSchema") is not None else None
        names[raw["name"]] = (method, arguments_name, result_name)
    facade: list[_Tool] = []
    for raw in ordered:
        method, arguments_name, result_name = names[raw["name"]]
        try:
            arguments = translator.root(raw.get("inputSchema", {"type": "object"}), arguments_name, arguments=True)
            output = raw.get("outputSchema")
            result = translator.root(output, result_name, arguments=False) if result_name is not None else None
        except RecursionError:
            raise SchemaError(f"tool {raw['name']!r}: its schemas nest too deeply to translate") from None
        facade.append(_Tool(raw, method, arguments, result))
    return _module_text(facade, translator, source, line_length)


def _module_text(facade: list[_Tool], translator: SchemaTranslator, source: str, width: int) -> str:
    used: set[str] = set()
    class_defs = {item.name: item for item in translator.definitions if isinstance(item, ClassDef)}
    blocks: list[list[str]] = []
    defined: set[str] = set()
    for definition in translator.definitions:
        if isinstance(definition, ClassDef):
            used.add("TypedDict")
            for item in definition.fields:
                _names_in(item.type, used)
                if not item.required:
                    used.add("NotRequired")
            blocks.append(_class_lines(definition, defined, width))
        else:
            used.add("TypeAlias")
            _names_in(definition.type, used)
            blocks.append(_alias_lines(definition, defined, width))
            if mentions_generated(definition.type, defined):
                # A quoted alias is a str at run time: later run-time uses of it must be quoted too.
                continue
        defined.add(definition.name)
    for tool in facade:
        if tool.arguments.form == "typed":
            used.add("Unpack")
        if tool.arguments.form == "mapping":
            _names_in(tool.arguments.value_type, used)
        if tool.result is not None:
            used.add("cast")
    public = sorted({*_FIXED_NAMES, *(item.name for item in translator.definitions)})
    header = [
        *_docstring(_module_doc(source, facade), "", width),
        "",
        *_import_lines(used),
        "",
        "__all__ = [",
        *[f"    {py_string(name)}," for name in public],
        "]",
    ]
    blocks.insert(0, _PREAMBLE.strip("\n").split("\n"))
    blocks.append(_protocol_lines(facade, class_defs, defined, width, asynchronous=False))
    blocks.append(_protocol_lines(facade, class_defs, defined, width, asynchronous=True))
    blocks.append(_client_lines(facade, class_defs, defined, width, asynchronous=False))
    blocks.append(_client_lines(facade, class_defs, defined, width, asynchronous=True))
    text = "\n".join(header) + "\n"
    for block in blocks:
        text += "\n\n" + "\n".join(block) + "\n"
    return text


def _module_doc(source: str, facade: list[_Tool]) -> str:
    example = facade[0].method if facade else "tool_name"
    return (
        f"Typed stubs for the MCP tools of {source}.\n\n"
        "Generated by ``mcptools stubgen``: do not edit, regenerate. One TypedDict per tool's arguments "
        "(and per structured result), and typed clients over any session with "
        "``call_tool(name, arguments)``:\n\n"
        f"    client = TypedClient(session)\n    client.{example}(...)  # keyword arguments checked by mypy"
    )
