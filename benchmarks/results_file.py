"""Insert a measurement into benchmarks/RESULTS.md, newest first within its section."""
from __future__ import annotations

import os

PATH = os.path.join(os.path.dirname(__file__), "RESULTS.md")


def record(text: str, section: str | None = None) -> None:
    """Insert ``text`` (starting with a ``### `` heading) before the newest entry of ``section`` (a ``## `` heading,
    created at the end of the file if missing); without ``section``, before the file's first entry (the engine
    benchmark's)."""
    old = open(PATH).read() if os.path.exists(PATH) else "# Benchmark results\n\n"
    if section is None:
        at = old.find("\n### ") + 1 or len(old)
    else:
        start = old.find(f"\n{section}\n")
        if start < 0:
            old = old.rstrip("\n") + f"\n\n{section}\n\n"
            start = old.find(f"\n{section}\n")
        start += len(section) + 2
        nxt = old.find("\n## ", start)
        end = len(old) if nxt < 0 else nxt + 1
        at = old.find("\n### ", start, end)
        at = end if at < 0 else at + 1
    with open(PATH, "w") as f:
        f.write(old[:at] + text.rstrip("\n") + "\n\n" + old[at:])


def heading() -> str:
    """A measurement's ``### `` heading: the time, the machine (the accelerator's kind on a GPU), jax and its
    backend."""
    import datetime
    import platform

    import jax
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    dev = jax.devices()[0]
    kind = f"{dev.device_kind}, " if dev.platform != "cpu" else ""
    return (f"### {stamp}, {kind}{platform.machine()} {os.cpu_count()} cores, jax {jax.__version__} "
            f"({jax.default_backend()})")
