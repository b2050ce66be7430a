"""Wire fixtures for the dialect tests, built the way each agent writes its parts.

ADK: from ``google.adk.a2a.converters`` (``adk_``-prefixed part metadata, DataParts holding the
``FunctionCall`` / ``FunctionResponse`` dumped by alias). Gemini CLI: from the
``development-tool`` extension RFC (event kind under the extension URI in the status update's
metadata, whole ``ToolCall`` objects and ``AgentThought`` objects as DataParts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from a2a.types.a2a_pb2 import Part
from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct, Value

from a2a_progress.dialects import DialectReading, TurnDialects
from a2a_progress.dialects.gemini_cli import EXTENSION_URI
from a2a_progress.sdk.v1 import json_value, part_view


def read_parts(
    turn: TurnDialects,
    parts: Sequence[Part],
    metadata: Sequence[Struct] = (),
    *,
    artifact: bool = False,
) -> DialectReading | None:
    """``turn.read`` of protobuf Parts and Structs, as the seam reads them."""
    objects = [json_value(Value(struct_value=obj)) for obj in metadata]
    return turn.read([part_view(part) for part in parts], metadata=objects, artifact=artifact)


def struct(values: dict[str, Any]) -> Struct:
    result = Struct()
    result.update(values)
    return result


def data_part(data: Any, metadata: dict[str, Any] | None = None) -> Part:
    part = Part()
    json_format.ParseDict(data, part.data)
    if metadata:
        part.metadata.update(metadata)
    return part


def text_part(text: str, metadata: dict[str, Any] | None = None) -> Part:
    part = Part(text=text)
    if metadata:
        part.metadata.update(metadata)
    return part


# -- ADK ----------------------------------------------------------------------------------

ADK_EVENT_METADATA = struct(
    {"adk_app_name": "deploy_helper", "adk_author": "deploy_helper", "adk_invocation_id": "e-1"}
)


def adk_thought(text: str) -> Part:
    return text_part(text, {"adk_thought": True})


def adk_call(
    call_id: str, name: str, args: dict[str, Any] | None = None, *, key: str = "adk_type"
) -> Part:
    return data_part({"id": call_id, "name": name, "args": args or {}}, {key: "function_call"})


def adk_long_running_call(call_id: str, name: str) -> Part:
    meta = {"adk_type": "function_call", "adk_is_long_running": True}
    return data_part({"id": call_id, "name": name, "args": {}}, meta)


def adk_response(
    call_id: str, name: str, response: dict[str, Any], *, key: str = "adk_type"
) -> Part:
    return data_part(
        {"id": call_id, "name": name, "response": response}, {key: "function_response"}
    )


# -- Gemini CLI ---------------------------------------------------------------------------


def gemini_metadata(kind: str, *, key: str = EXTENSION_URI) -> Struct:
    return struct({key: {"kind": kind, "model": "gemini-2.5-pro"}})


def gemini_tool_call(
    call_id: str,
    status: str,
    *,
    tool: str = "run_shell_command",
    live: str | None = None,
    error: str | None = None,
    output: str | None = None,
    camel: bool = False,
) -> Part:
    call: dict[str, Any] = {
        "toolCallId" if camel else "tool_call_id": call_id,
        "status": status,
        "toolName" if camel else "tool_name": tool,
        "input_parameters": {"command": "pytest -q"},
    }
    if live is not None:
        call["liveContent" if camel else "live_content"] = live
    if error is not None:
        call["error"] = {"message": error, "type": "shell_error", "status_code": 1}
    if output is not None:
        call["output"] = {"text": output}
    return data_part(call)


def gemini_thought(subject: str, description: str) -> Part:
    return data_part({"subject": subject, "description": description})


def gemini_server_tool_call(
    call_id: str,
    status: str,
    *,
    name: str = "run_shell_command",
    live: str | None = None,
    error: str | None = None,
    result: str | None = None,
) -> Part:
    """The Gemini CLI server's own tool call object: its scheduler's call, not the RFC's."""
    call: dict[str, Any] = {
        "request": {"callId": call_id, "name": name, "args": {"command": "ls"}},
        "status": status,
        "tool": {"name": name, "displayName": "Shell"},
    }
    if live is not None:
        call["liveOutput"] = live
    if error is not None or result is not None:
        call["response"] = {"callId": call_id, "resultDisplay": result or ""}
        if error is not None:
            call["response"]["error"] = {"message": error}
    return data_part(call)
