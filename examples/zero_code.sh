#!/bin/sh
# Zero-code telemetry: callee.py and caller.py, unchanged, run under opentelemetry-instrument.
#
#   pip install 'a2a-progress[cli]' opentelemetry-distro   # [cli]: serving and the OTLP exporters
#   docker compose up        # or any OTLP/HTTP receiver, e.g. `a2a-progress traces`
#   sh examples/zero_code.sh "Why is the deploy blocked?"
#
# The a2a_progress entry point instruments both processes: the callee's tool calls become
# execute_tool spans, under the caller's call, in one trace across the two services.
set -eu
cd "$(dirname "$0")"
export OTEL_EXPORTER_OTLP_ENDPOINT="${OTEL_EXPORTER_OTLP_ENDPOINT:-http://localhost:4318}"
export OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf  # opentelemetry-distro defaults to gRPC (4317)
export OTEL_TRACES_EXPORTER=otlp OTEL_LOGS_EXPORTER=none
export OTEL_METRICS_EXPORTER="${OTEL_METRICS_EXPORTER:-otlp}"
# a2a-sdk traces its own internals too (66-88 spans per streaming call, in a trace of their own);
# this instrumentor already covers the calls, so that is switched off unless you set it.
export OTEL_INSTRUMENTATION_A2A_SDK_ENABLED="${OTEL_INSTRUMENTATION_A2A_SDK_ENABLED:-false}"
PORT="${PORT:-9999}"

OTEL_SERVICE_NAME=research-agent opentelemetry-instrument python callee.py --port "$PORT" &
callee=$!
# SIGTERM, not SIGINT (a background job ignores it): the callee stops and flushes its spans.
trap 'kill -TERM "$callee" 2>/dev/null || true; wait "$callee" || true' EXIT

python - "$PORT" <<'WAIT'
import socket, sys, time
deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the callee did not start")
        time.sleep(0.1)
WAIT

OTEL_SERVICE_NAME=research-caller opentelemetry-instrument \
    python caller.py "http://127.0.0.1:$PORT" "${1:-Why is the deploy blocked?}"
