# Image for the demo stack in docker-compose.yml: the a2a-progress CLI plus opentelemetry-distro,
# which makes `opentelemetry-instrument` set up the SDK and OTLP exporters from OTEL_* variables
# and load the a2a-progress instrumentor through its `opentelemetry_instrumentor` entry point.
#
#   docker build -t a2a-progress-demo .
#   docker run --rm a2a-progress-demo a2a-progress --help
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY . /src

# opentelemetry-distro pins opentelemetry-instrumentation to its own version, so its version must
# satisfy the project's opentelemetry-instrumentation requirement in pyproject.toml (0.66b1 would
# not: it needs opentelemetry-instrumentation==0.66b1, the project >=0.66b2).
RUN pip install --no-cache-dir '.[cli]' opentelemetry-distro==0.66b2

# An init as PID 1 (Debian's tini): it reaps children and passes SIGTERM on to the agent, whose
# default action then works (PID 1 itself ignores it). The instrumentor also ends a PID 1
# process after its flush, but an init is the right shape for any Python process.
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 --user-group a2a
USER a2a
WORKDIR /home/a2a

# 9999: A2A HTTP (JSON-RPC/REST and the agent card); 50051: A2A gRPC.
EXPOSE 9999 50051

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["a2a-progress", "--help"]
