#!/bin/sh
# The example agents (callee.py, caller.py) traced into Arize Phoenix, content and agent spans on.
#
#   pip install arize-phoenix && phoenix serve     # in a venv of its own; UI on :6006
#   sh examples/phoenix.sh "Why is the deploy blocked?"
#
# Phoenix reads the GenAI attributes: the callee's tool calls are TOOL spans (the caller, told
# the callee records them, makes none of its own), the call is an AGENT span (invoke_agent),
# and with content on, what was asked and answered is each span's input and output.
set -eu
export OTEL_EXPORTER_OTLP_ENDPOINT="${PHOENIX_ENDPOINT:-http://localhost:6006}"
export OTEL_METRICS_EXPORTER=none  # Phoenix takes traces only
# Content off is the default (as for every GenAI instrumentation): turned on here, on purpose.
export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
export OTEL_INSTRUMENTATION_A2A_PROGRESS_INVOKE_AGENT_SPAN=true
exec sh "$(dirname "$0")/zero_code.sh" "$@"
