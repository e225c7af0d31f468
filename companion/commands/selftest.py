"""`companion --self-test`: check an installed copy works (model, memory, Qt) without touching user data."""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from companion import __version__
from companion.llm.base import GenerationOptions
from companion.llm.loader import load_backend
from companion.memory.daylog import DayLog
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.memory.longterm import LongTermStore
from companion.llm.cpu import REQUIRED_X86_FEATURES, cpu_flags, unsupported_cpu_message
from companion.memory.setup import ensure_home
from companion.paths import Home, resources_dir
from companion.settings import ModelSettings

# Mixed scripts on purpose: the memory round trip must keep non-ASCII text intact.
PROBE_TEXT = "Self-test note 自检 ✓"
GENERATE_TOKENS = 8


@dataclass
class StepResult:
    name: str
    ok: bool
    detail: str
    seconds: float


class SelfTestFailure(Exception):
    """A self-test step found a problem; the message says which and what to do."""


def _check_resources() -> str:
    folder = resources_dir()
    return str(folder)


def _check_cpu() -> str:
    """llama.cpp built with GGML_NATIVE=OFF still assumes AVX2/FMA/F16C on x86-64; without them it crashes."""
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return machine
    flags = cpu_flags()
    if flags is None:
        return f"{machine} (features not readable here)"
    missing = [name.upper() for name in REQUIRED_X86_FEATURES if name not in flags]
    if missing:
        raise SelfTestFailure(unsupported_cpu_message(missing))
    return f"{machine} with {', '.join(f.upper() for f in REQUIRED_X86_FEATURES)}"


def _check_memory(root: Path) -> str:
    """Seed a fresh home, write to a long-term file and a day log, read both back."""
    home = Home(root)
    ensure_home(home)
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", f"- {PROBE_TEXT}", actor=Actor.SYSTEM)
    if PROBE_TEXT not in store.read("MEMORY.md").body:
        raise SelfTestFailure("MEMORY.md did not contain the note just written.")
    log = DayLog(home.days)
    record = log.append("event", PROBE_TEXT)
    read = log.read_day(record.day)
    if [r.text for r in read.records] != [PROBE_TEXT] or read.problems:
        raise SelfTestFailure(f"the day log did not read back as written ({len(read.problems)} problem(s)).")
    if not store.history.versions("MEMORY.md"):
        raise SelfTestFailure("no snapshot was kept before changing MEMORY.md.")
    return f"wrote and read MEMORY.md and a day log in {root}"


def _check_model(model: str | None) -> str:
    """Load the model (the embedded one unless `model` is given) and generate a few tokens."""
    backend = load_backend(ModelSettings(n_ctx=512, n_threads=0, n_gpu_layers=0), model)
    try:
        options = GenerationOptions(max_tokens=GENERATE_TOKENS, temperature=0.0, seed=0)
        messages = [{"role": "user", "content": "Say hello in one short sentence."}]
        text = "".join(chunk.text for chunk in backend.stream_chat(messages, options))
        tokens = backend.count_tokens(text) if text else 0
        if tokens == 0:
            raise SelfTestFailure(f"{backend.info.name} loaded but generated no text.")
        return f"{backend.info.name} on {backend.info.device}: {tokens} tokens {text.strip()[:40]!r}"
    finally:
        backend.close()  # explicit close: a frozen app prints errors from Llama.__del__ otherwise


def _check_qt() -> str:
    """The bundle carries Qt and a platform plugin (a missing system library shows up here)."""
    # Imported by name: this checks the installed bundle, it does not use Qt.
    qtcore = importlib.import_module("PySide6.QtCore")
    importlib.import_module("PySide6.QtWidgets")
    plugins = Path(qtcore.QLibraryInfo.path(qtcore.QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    found = sorted(p.name for p in plugins.glob("*")) if plugins.is_dir() else []
    if not found:
        raise SelfTestFailure(f"no Qt platform plugin in {plugins}; reinstall Companion.")
    return f"Qt {qtcore.qVersion()}, {len(found)} platform plugin(s)"


def run_steps(model: str | None = None, out: TextIO | None = None) -> list[StepResult]:
    """Run every step (a failure does not stop the others) and print one line per step."""
    out = out or sys.stdout
    results: list[StepResult] = []
    with tempfile.TemporaryDirectory(prefix="companion-selftest-") as tmp:
        # The model comes before Qt: on Windows llama.cpp must load before Qt's DLLs.
        steps: list[tuple[str, Callable[[], str]]] = [
            ("cpu", _check_cpu),
            ("resources", _check_resources),
            ("memory", lambda: _check_memory(Path(tmp) / "home")),
            ("model", lambda: _check_model(model)),
            ("qt", _check_qt),
        ]
        for name, step in steps:
            start = time.perf_counter()
            if name == "model" and not results[0].ok:
                # Loading llama.cpp on such a processor would kill the process, not raise.
                detail, ok = "not tried: see the cpu step", False
            else:
                try:
                    detail, ok = step(), True
                except Exception as exc:  # report every failure, whatever its kind
                    detail, ok = f"{type(exc).__name__}: {exc}", False
            result = StepResult(name, ok, detail, time.perf_counter() - start)
            results.append(result)
            status = "ok  " if ok else "FAIL"
            print(f"{status} {name:<9} {result.seconds:6.2f}s  {detail}", file=out, flush=True)
    return results


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    frozen = "frozen bundle" if getattr(sys, "frozen", False) else "Python install"
    print(
        f"Companion {__version__} self-test ({frozen}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()})",
        file=out,
    )
    results = run_steps(getattr(args, "model", None), out)
    failed = [r.name for r in results if not r.ok]
    if failed:
        print(f"Self-test FAILED: {', '.join(failed)}. Reinstalling Companion usually fixes this.", file=out)
        return 1
    print(f"Self-test passed ({sum(r.seconds for r in results):.1f}s). Your own memory was not touched.", file=out)
    return 0
