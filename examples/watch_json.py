"""Read `a2a-progress watch --json` from a script: one JSON object per line, then the outcome.

python examples/watch_json.py http://127.0.0.1:9999 "Why is the deploy blocked?"
"""

import json
import signal
import subprocess
import sys

try:
    watch = subprocess.Popen(
        ["a2a-progress", "watch", *sys.argv[1:], "--json"],  # URL MESSAGE, and any watch option
        stdout=subprocess.PIPE,
        text=True,
    )
except FileNotFoundError:  # 127, the shell's "command not found": none of watch's exit codes
    print(
        "watch_json.py: no a2a-progress command on PATH: pip install 'a2a-progress[cli]', "
        "or activate the virtualenv that has it",
        file=sys.stderr,
    )
    sys.exit(127)
# Ctrl-C reaches watch too (same process group): it writes an "error" object saying how to go
# back to the task and exits 130. This script reads that as any outcome, not as a traceback.
signal.signal(signal.SIGINT, signal.SIG_IGN)  # after Popen: watch keeps its own Ctrl-C
assert watch.stdout is not None
# flush=True: each line now, also into a pipe (Python holds a pipe's lines until it exits).
for line in watch.stdout:
    if not line.startswith("{"):  # not an object: the text of --help or --version
        print(line, end="", flush=True)
        continue
    obj = json.loads(line)
    if obj["type"] == "progress" and obj["kind"] == "tool_call":
        print(obj["status"], obj["tool"], obj["reason"] or "", flush=True)
    elif obj["type"] == "outcome":
        print(obj["state"], obj["error"] or obj["reply"], flush=True)
    elif obj["type"] == "error":
        print("error:", obj["message"], flush=True)
sys.exit(watch.wait())
