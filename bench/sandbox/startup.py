#!/usr/bin/env python3
"""Start-up cost of the sandbox (issue #29): the same stdio server started directly and through
`switchboard __sandbox <plan>` (what the hub runs on Linux), timed from spawn to the answer to
`initialize`, N times each, interleaved. Prints p50/p99 per variant and the added cost.

    python3 bench/sandbox/startup.py [--runs N] [--node-server CMD...]

The binaries come from $SWITCHBOARD_BIN_DIR (default $CARGO_TARGET_DIR/debug); the plan is the
standard profile's for this machine's home directory (every secret place of the table that
exists is covered, plus a state folder) and, as a second variant, a custom profile with
`"network": "none"`. A real node server (`--node-server`, e.g. the path of
server-everything) shows the start time the sandbox is compared with.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"}}}) + "\n"

SECRETS = [".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json",
           ".netrc", ".git-credentials", ".config/gh", ".password-store", ".local/share/keyrings",
           ".mozilla", ".config/google-chrome", ".config/chromium"]


def bin_dir() -> Path:
    explicit = os.environ.get("SWITCHBOARD_BIN_DIR")
    if explicit:
        return Path(explicit)
    target = os.environ.get("CARGO_TARGET_DIR", str(Path.home() / ".cache/switchboard-target"))
    return Path(target) / "debug"


def start_once(argv: list[str]) -> float:
    began = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    proc.stdin.write(INIT.encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - began
    proc.kill()
    proc.wait()
    if b'"result"' not in line:
        sys.exit(f"no initialize answer from {argv}: {line!r}")
    return took * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--node-server", nargs="+", default=None)
    opts = ap.parse_args()
    bins = bin_dir()
    hub = str(bins / "switchboard")
    home = Path.home()
    standard = {"profile": "standard", "hide": [str(home / s) for s in SECRETS]
                + [str(home / ".cache/switchboard")], "allow": None, "network": "any",
                "required": False}
    custom = dict(standard, profile="custom", network="none",
                  allow={"read": ["/usr", "/lib", "/lib64", "/etc", "/proc", str(bins)],
                         "write": ["/dev"]})
    custom["allow"]["read"].append(str(Path.cwd()))
    servers = {"fixture": [str(bins / "switchboard-fixture"), "--tools", "ok"]}
    if opts.node_server:
        servers["node server"] = opts.node_server
    rows = []
    for name, server in servers.items():
        variants = {
            "direct": server,
            "standard": [hub, "__sandbox", json.dumps(standard), *server],
            "custom, no network": [hub, "__sandbox", json.dumps(custom), *server],
        }
        runs = {v: [] for v in variants}
        for _ in range(opts.runs):
            for variant, argv in variants.items():
                runs[variant].append(start_once(argv))
        base = statistics.median(runs["direct"])
        for variant, values in runs.items():
            rows.append((name, variant, pct(values, 50), pct(values, 99),
                         statistics.median(values) - base))
    print(f"runs per variant: {opts.runs}")
    print(f"{'server':<12} {'variant':<20} {'p50 ms':>8} {'p99 ms':>8} {'added p50 ms':>13}")
    for name, variant, p50, p99, added in rows:
        print(f"{name:<12} {variant:<20} {p50:8.2f} {p99:8.2f} {added:13.2f}")


if __name__ == "__main__":
    main()
