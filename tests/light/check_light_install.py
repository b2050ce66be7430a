"""Run by `make test-light` inside a venv holding only `pip install a2a-progress` and a vendor's
pinned OpenTelemetry SDK: the library and its instrumentor work, nothing of the `[cli]` extra
came with it, and each part that needs the extra says so in one line."""

import importlib
import importlib.util
import subprocess
import sys

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.version import __version__ as api_version

import a2a_progress
from a2a_progress.extras import MissingExtraError
from a2a_progress.otel import A2AProgressInstrumentor

for absent in ("rich", "uvicorn", "opentelemetry.exporter"):
    assert importlib.util.find_spec(absent) is None, f"{absent} came with a library install"

instrumentor = A2AProgressInstrumentor()
instrumentor.instrument(tracer_provider=TracerProvider())
assert instrumentor.bridge is not None
instrumentor.uninstrument()
assert a2a_progress.ProgressEmitter is not None

for part in ("a2a_progress.cli", "a2a_progress.otlp", "a2a_progress.web", "a2a_progress.serving"):
    try:
        importlib.import_module(part)
    except MissingExtraError as error:
        message = str(error)
        assert "\n" not in message, message
        assert "a2a-progress[cli]" in message, message
    else:
        raise AssertionError(f"{part} imported without the [cli] extra")

command = [sys.executable.replace("/python", "/a2a-progress"), "--help"]
done = subprocess.run(command, capture_output=True, text=True, check=False)
assert done.returncode == 1, done
assert done.stdout == "", done.stdout
[line] = done.stderr.splitlines()  # one line, no traceback
assert "a2a-progress[cli]" in line, line
print(f"light install OK beside opentelemetry-sdk (API {api_version}): {line}")
