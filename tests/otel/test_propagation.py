"""Trace context: the caller's span is the parent of the callee's execution over every transport
and protocol line, a malformed ``traceparent`` starts a new trace on the callee, the caller's own
call context is kept and never changed, and suppressed instrumentation sends nothing."""

import pytest
from a2a.client import ClientCallContext, ClientCallInterceptor
from a2a.client.interceptors import AfterArgs, BeforeArgs
from a2a.types import AgentInterface, CancelTaskRequest, GetTaskRequest, TaskState
from a2a.utils.errors import A2AError
from opentelemetry.instrumentation.utils import suppress_instrumentation
from otel_support import (
    COMBINATION_IDS,
    COMBINATIONS,
    ScriptedAgent,
    Telemetry,
    attrs,
    call,
    complete,
    done,
    drain,
    parent_id,
    serving,
    span_id,
    start,
    task_id_of,
    trace_id,
)

from a2a_progress.otel import conventions as conv
from a2a_progress.serving import Transport, create_client

CALLER, CALLEE = conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE
STEPS = [start("search", "c1"), done("c1"), complete()]


def ids_in(traceparent: str) -> tuple[int, int]:
    """(trace id, parent span id) of a W3C ``traceparent`` header."""
    _, trace, span, _ = traceparent.split("-")
    return int(trace, 16), int(span, 16)


@pytest.mark.parametrize(("transport", "v0_3"), COMBINATIONS, ids=COMBINATION_IDS)
async def test_one_trace_from_caller_to_callee_tools(
    telemetry: Telemetry, transport: Transport, v0_3: bool
) -> None:
    agent = ScriptedAgent(STEPS)
    async with serving(agent) as served:
        await call(served.card_for(transport, v0_3=v0_3))
    caller, callee = telemetry.turn_span(CALLER), telemetry.turn_span(CALLEE)
    [headers] = agent.headers
    assert ids_in(headers["traceparent"]) == (trace_id(caller), span_id(caller))
    assert parent_id(callee) == span_id(caller)
    assert trace_id(callee) == trace_id(caller)
    callee_tool = telemetry.tool_span(CALLEE)
    assert parent_id(callee_tool) == span_id(callee)
    assert trace_id(callee_tool) == trace_id(caller)
    assert {trace_id(span) for span in telemetry.spans()} == {trace_id(caller)}
    # Where the call went, whatever the transport.
    [interface] = served.card_for(transport, v0_3=v0_3).supported_interfaces
    port = int(interface.url.rstrip("/").rsplit(":", 1)[1].split("/")[0])
    assert (attrs(caller)[conv.SERVER_ADDRESS], attrs(caller)[conv.SERVER_PORT]) == (
        "127.0.0.1",
        port,
    )


@pytest.mark.parametrize("tenant", ["", "acme"], ids=["plain", "tenant"])
async def test_the_server_is_the_interface_the_client_chose(
    telemetry: Telemetry, tenant: str
) -> None:
    # The card lists first an interface this client cannot speak: server.* must come from the
    # transport the SDK chose (its private _transport, and the transport a tenant's decorator
    # wraps, _base: otel/caller.py reads both), not from the card's first interface.
    async with serving(STEPS) as served:
        card = served.card_for("jsonrpc")
        [interface] = card.supported_interfaces
        interface.tenant = tenant
        unknown = AgentInterface(
            url="ws://127.0.0.1:1/", protocol_binding="WEBSOCKET", protocol_version="1.0"
        )
        card.supported_interfaces.insert(0, unknown)
        await call(card)
    port = int(interface.url.rstrip("/").rsplit(":", 1)[1].split("/")[0])
    caller = attrs(telemetry.turn_span(CALLER))
    assert (caller[conv.SERVER_ADDRESS], caller[conv.SERVER_PORT]) == ("127.0.0.1", port)
    assert caller[conv.A2A_PROTOCOL_VERSION] == "1.0"


async def test_the_call_span_continues_the_callers_current_span(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("the calling agent")
    async with serving(STEPS) as served:
        with tracer.start_as_current_span("handle user request") as outer:
            await call(served.card_for("grpc"))
    caller = telemetry.turn_span(CALLER)
    assert parent_id(caller) == outer.get_span_context().span_id
    assert {trace_id(span) for span in telemetry.spans()} == {outer.get_span_context().trace_id}


@pytest.mark.parametrize(
    "bad",
    [
        "garbage",
        "00-" + "0" * 32 + "-" + "1" * 16 + "-01",  # the all-zero trace id is invalid
        "00-" + "a" * 32 + "-" + "0" * 16 + "-01",  # so is the all-zero span id
        "00-" + "a" * 31 + "-" + "1" * 16 + "-01",
    ],
    ids=["garbage", "zero-trace", "zero-span", "short"],
)
@pytest.mark.parametrize("transport", ["jsonrpc", "grpc"])
async def test_a_malformed_traceparent_starts_a_new_trace(
    telemetry: Telemetry, transport: Transport, bad: str
) -> None:
    agent = ScriptedAgent(STEPS)
    # The caller's own service parameters win over the injected ones: this sends ``bad``.
    context = ClientCallContext(service_parameters={"traceparent": bad})
    async with (
        serving(agent) as served,
        create_client(served.card_for(transport)) as client,
    ):
        await drain(client, context=context)
    assert agent.headers[0]["traceparent"] == bad
    caller, callee = telemetry.turn_span(CALLER), telemetry.turn_span(CALLEE)
    assert parent_id(callee) is None
    assert trace_id(callee) != trace_id(caller)
    assert trace_id(telemetry.tool_span(CALLEE)) == trace_id(callee)
    # The same turn, seen from both ends.
    assert attrs(callee)[conv.A2A_TASK_ID] == attrs(caller)[conv.A2A_TASK_ID]


@pytest.mark.parametrize("transport", ["rest", "grpc"])
async def test_the_callers_call_context_is_kept_and_not_changed(
    telemetry: Telemetry, transport: Transport
) -> None:
    agent = ScriptedAgent(STEPS)
    context = ClientCallContext(service_parameters={"x-tenant": "acme"}, state={"mine": 1})
    parameters = context.service_parameters
    async with (
        serving(agent) as served,
        create_client(served.card_for(transport)) as client,
    ):
        await drain(client, context=context)
        await drain(client, context=context)  # reusable as it was
    assert context.service_parameters is parameters
    assert parameters == {"x-tenant": "acme"}
    assert context.state == {"mine": 1}
    first, second = agent.headers
    callers = sorted(telemetry.turn_spans(CALLER), key=lambda span: span.start_time or 0)
    for headers, caller in zip((first, second), callers, strict=True):
        assert headers["x-tenant"] == "acme"
        assert ids_in(headers["traceparent"]) == (trace_id(caller), span_id(caller))


async def test_suppressed_instrumentation_makes_no_caller_spans_and_sends_no_context(
    telemetry: Telemetry,
) -> None:
    agent = ScriptedAgent(STEPS)
    async with serving(agent) as served:
        with suppress_instrumentation():
            events = await call(served.card_for("jsonrpc"))
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert telemetry.turn_spans(CALLER) == []
    assert telemetry.tool_spans(CALLER) == []
    assert "traceparent" not in agent.headers[0]
    # The agent's process is not suppressed: its execution is a root of its own.
    assert parent_id(telemetry.turn_span(CALLEE)) is None


class _Recorder(ClientCallInterceptor):
    """Records the service parameters each client call is made with."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, str]]] = []

    async def before(self, args: BeforeArgs) -> None:
        parameters = args.context.service_parameters if args.context is not None else None
        self.calls.append((args.method, dict(parameters or {})))

    async def after(self, args: AfterArgs) -> None:
        return None


async def test_task_calls_carry_the_current_trace_context(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("the calling agent")
    recorder = _Recorder()
    async with serving(STEPS) as served:
        card = served.card_for("jsonrpc")
        async with create_client(card, interceptors=[recorder]) as client:
            task_id = task_id_of(await drain(client))
            recorder.calls.clear()
            await client.get_task(GetTaskRequest(id=task_id))  # no current span: nothing sent
            with tracer.start_as_current_span("look at the task") as outer:
                await client.get_task(GetTaskRequest(id=task_id))
                with pytest.raises(A2AError):  # the task is complete
                    await client.cancel_task(CancelTaskRequest(id=task_id))
    context = outer.get_span_context()
    expected = (context.trace_id, context.span_id)
    assert [
        (method, params.get("traceparent") and ids_in(params["traceparent"]))
        for method, params in recorder.calls
    ] == [("get_task", None), ("get_task", expected), ("cancel_task", expected)]
