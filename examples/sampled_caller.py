"""Trace one turn in ten, count every turn: a caller with a ratio sampler.

    OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
        python examples/sampled_caller.py http://127.0.0.1:9999 "Is the deploy blocked?" --turns 20

A turn the sampler drops makes no span, span event or content; its envelopes and tool-call
durations are still counted in the metrics.
"""

import argparse
import asyncio
import sys

from opentelemetry import metrics, trace
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

from a2a_progress import follow
from a2a_progress.cli import CliError, agent_errors, fetch_card, open_client
from a2a_progress.otel import A2AProgressInstrumentor
from a2a_progress.serving import user_message


def setup_telemetry(ratio: float) -> tuple[TracerProvider, MeterProvider]:
    resource = Resource.create({"service.name": "sampled-caller"})
    # Keeps `ratio` of the turns this process starts; a turn it continues (a callee, or a call
    # made inside a traced request) follows its parent's decision, so traces stay whole.
    sampler = ParentBased(TraceIdRatioBased(ratio))
    tracer_provider = TracerProvider(resource=resource, sampler=sampler)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    # Metrics are not sampled: every turn's envelopes and tool durations are counted.
    reader = PeriodicExportingMetricReader(OTLPMetricExporter())
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    A2AProgressInstrumentor().instrument()
    return tracer_provider, meter_provider


async def ask(url: str, question: str, turns: int) -> None:
    card = await fetch_card(url)  # the agent card, read as `a2a-progress watch` reads it
    async with open_client(card) as client:  # the card picks the transport
        for _ in range(turns):
            async for update in follow(client.send_message(user_message(question))):
                print(update, flush=True)  # now, also into a pipe (Python holds a pipe's lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Ask an agent, tracing a sample of the turns.")
    parser.add_argument("url")
    parser.add_argument("question")
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--ratio", type=float, default=0.1, help="share of turns traced")
    args = parser.parse_args()
    tracer_provider, meter_provider = setup_telemetry(args.ratio)
    failure: CliError | None = None
    try:
        with agent_errors(args.url):  # a call that fails (the agent went away...) too
            asyncio.run(ask(args.url, args.question, args.turns))
    except CliError as error:  # nothing answers at the URL, it is no A2A agent...: watch's line
        failure = error
    finally:
        tracer_provider.shutdown()  # exports what is left
        meter_provider.shutdown()
    if failure is not None:  # after the exporters' own complaints: the reason is the last line
        print(f"sampled_caller.py: {failure}", file=sys.stderr)
        sys.exit(failure.code)


if __name__ == "__main__":
    main()
