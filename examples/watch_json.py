"""Read `a2a-progress watch --json` from a script: one JSON object per line, then the outcome.

python examples/watch_json.py http://127.0.0.1:9999 "Why is the deploy blocked?"
"""

import json
import subprocess
import sys

watch = subprocess.Popen(
    ["a2a-progress", "watch", *sys.argv[1:], "--json"],  # URL MESSAGE, and any watch option
    stdout=subprocess.PIPE,
    text=True,
)
assert watch.stdout is not None
for line in watch.stdout:
    obj = json.loads(line)
    if obj["type"] == "progress" and obj["kind"] == "tool_call":
        print(obj["status"], obj["tool"], obj["reason"] or "")
    elif obj["type"] == "outcome":
        print(obj["state"], obj["error"] or obj["reply"])
    elif obj["type"] == "error":
        print("error:", obj["message"])
sys.exit(watch.wait())
