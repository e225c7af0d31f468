"""Crash loops (fork, SIGKILL at a random moment, check invariants) and write races, with counts.

Run as a script so the loop owns a single-threaded process it can fork from:
    python tests/reliability/reliability_harness.py crash daylog HOME --iterations 300 --seconds 20
    python tests/reliability/reliability_harness.py race threads HOME
It prints one JSON object: iterations, violations (with the first few described), and details.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import select
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from companion.curate.requests import MemoryRequests
from companion.agent.tools import ToolExecutor
from companion.errors import ConflictError
from companion.llm.base import ToolCall
from companion.atomic import TEMP_PREFIX
from companion.memory.daylog import DayLog, read_file
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import LONG_TERM_FILES, Home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

BIG = 300_000  # some records are this large, so a kill can land inside the write


@dataclass
class Result:
    kind: str
    iterations: int = 0
    violations: int = 0
    problems: list[str] = field(default_factory=list)
    details: dict[str, int] = field(default_factory=dict)

    def violate(self, message: str) -> None:
        self.violations += 1
        if len(self.problems) < 10:
            self.problems.append(f"iteration {self.iterations}: {message}")


# -- the loop -------------------------------------------------------------------------


def _run_child(work: Callable[[Callable[[str], None]], None], ack_fd: int) -> None:
    def ack(token: str) -> None:
        os.write(ack_fd, (token + "\n").encode())

    try:
        work(ack)
    finally:
        os._exit(0)


def _kill_during(work: Callable[[Callable[[str], None]], None], delay: float) -> list[str]:
    """Fork a child running `work`, SIGKILL it after `delay` s, return what it acknowledged."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _run_child(work, write_fd)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + delay
    while True:  # keep the pipe drained so the child never blocks on it
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if ready:
            data = os.read(read_fd, 65536)
            if not data:
                break
            chunks.append(data)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    while data := os.read(read_fd, 65536):
        chunks.append(data)
    os.close(read_fd)
    return [t for t in b"".join(chunks).decode().split("\n") if t]


def _temp_files(home: Home) -> list[Path]:
    return [p for root in (home.memory, home.state) for p in root.rglob(TEMP_PREFIX + "*")]


def crash_loop(target: str, root: Path, iterations: int, seconds: float, seed: int) -> Result:
    home = Home(root)
    ensure_home(home)
    rng = random.Random(seed)
    loop = TARGETS[target](home, rng)
    result = Result(f"crash {target}")
    stop = time.monotonic() + seconds
    while result.iterations < iterations and time.monotonic() < stop:
        result.iterations += 1
        acked = _kill_during(loop.work, rng.uniform(0.0, loop.max_delay))
        loop.after_kill(acked, result)
        ensure_home(home, clean=True)  # the next start (it holds the exclusive home lock)
        for leftover in _temp_files(home):
            result.violate(f"temp file left after restart: {leftover.name}")
        loop.check(result)
    result.details.update(loop.counts)
    return result


# -- target: day-log appends -------------------------------------------------------------


class DayLogLoop:
    max_delay = 0.03

    def __init__(self, home: Home, rng: random.Random) -> None:
        self.home, self.rng = home, rng
        self.log = DayLog(home.days)
        self.next_n = 0
        self.acked: dict[str, int] = {}  # record id -> n
        self.known_bad = 0
        self.counts = {"records acknowledged": 0, "torn lines seen": 0, "power cuts simulated": 0}

    def work(self, ack: Callable[[str], None]) -> None:
        n = self.next_n
        while True:
            size = BIG if self.rng.random() < 0.05 else self.rng.randint(0, 2000)
            record = self.log.append("user", f"m{n} " + "x" * size)
            ack(f"{record.id} {n}")
            n += 1

    def after_kill(self, acked: list[str], result: Result) -> None:
        for token in acked:
            rid, n = token.split()
            self.acked[rid] = int(n)
            self.next_n = int(n) + 1
        self.counts["records acknowledged"] += len(acked)
        self.rng.random() < 0.2 and self._power_cut()

    def _power_cut(self) -> None:
        """Cut the last line short if it was never acknowledged, as a power loss would."""
        days = self.log.days()
        if not days:
            return
        path = self.log.path_for(days[-1])
        raw = path.read_bytes()
        start = raw.rstrip(b"\n").rfind(b"\n") + 1
        last = raw[start:]
        try:
            rid = json.loads(last)["id"]
        except (ValueError, KeyError, TypeError):
            return
        if rid not in self.acked and len(last) > 2:
            with open(path, "r+b") as handle:
                handle.truncate(start + self.rng.randint(1, len(last) - 1))
            self.counts["power cuts simulated"] += 1

    def check(self, result: Result) -> None:
        seen: dict[str, str] = {}
        bad = 0
        for day in self.log.days():
            path = self.log.path_for(day)
            read = read_file(path)
            bad += len(read.problems)
            self.counts["torn lines seen"] += sum(1 for p in read.problems if "incomplete last line" in p.reason)
            seqs = [r.seq for r in read.records]
            if seqs != sorted(set(seqs)):
                result.violate(f"{path.name}: ids repeat or go backwards")
            for record in read.records:
                seen[record.id] = record.text
        if bad - self.known_bad > 1:
            result.violate(f"{bad - self.known_bad} new unreadable lines after one crash (at most one torn line)")
        self.known_bad = bad
        for rid, n in self.acked.items():
            text = seen.get(rid)
            if text is None or not text.startswith(f"m{n} "):
                result.violate(f"acknowledged record {rid} is missing or changed")


# -- target: long-term edits ("remember", tool appends, section rewrites) -----------------------


def fact(n: int) -> str:
    return f"Keeps plant number {n:05d} on the windowsill"


class LongTermLoop:
    max_delay = 0.15

    def __init__(self, home: Home, rng: random.Random) -> None:
        self.home, self.rng = home, rng
        self.store = LongTermStore(home)
        self.next_n = 0
        self.acked_facts: set[int] = set()
        self.acked_counter = -1
        self.counts = {"edits acknowledged": 0}

    def work(self, ack: Callable[[str], None]) -> None:
        requests = MemoryRequests(self.store)
        tools = ToolExecutor(self.store, Actor.TOOL)
        n = self.next_n  # resume where the last acknowledgement left off: the unacknowledged one may have landed
        while True:
            requests.remember(fact(n), f"2026-11-29#{n + 1}")
            ack(f"fact {n}")
            if n % 3 == 0:
                result = tools.run(ToolCall("context_update", {"file": "USER.md", "action": "replace_section",
                                                               "section": "## Notes", "content": f"- counter {n}"}))
                if result.proposed:  # a section rewrite waits for the user's approval: approve it
                    result = tools.apply(result)
                assert result.changed, result.output
                ack(f"counter {n}")
            n += 1

    def after_kill(self, acked: list[str], result: Result) -> None:
        for token in acked:
            kind, n = token.split()
            if kind == "fact":
                self.acked_facts.add(int(n))
                self.next_n = int(n) + 1
            else:
                self.acked_counter = max(self.acked_counter, int(n))
        self.counts["edits acknowledged"] += len(acked)

    def check(self, result: Result) -> None:
        docs = {}
        for name in LONG_TERM_FILES:
            try:
                docs[name] = self.store.read(name)
            except Exception as exc:  # noqa: BLE001 - any failure to parse is the violation
                result.violate(f"{name} does not parse: {exc}")
                return
            if docs[name].meta.get("schema_version") != 1:
                result.violate(f"{name} lost its frontmatter")
        memory = docs["MEMORY.md"].body
        for n in self.acked_facts:
            if memory.count(fact(n)) != 1:
                result.violate(f"acknowledged fact {n} appears {memory.count(fact(n))} times")
        unacked = self.next_n
        if memory.count(fact(unacked)) > 1:
            result.violate(f"fact {unacked} duplicated after resuming")
        notes = [l for l in docs["USER.md"].body.splitlines() if l.startswith("- counter ")]
        if self.acked_counter >= 0 and (len(notes) != 1 or int(notes[0].split()[-1]) < self.acked_counter):
            result.violate(f"USER.md Notes section is {notes}, acknowledged counter {self.acked_counter}")


# -- target: the sleep job (rule path, no model) ----------------------------------------------


def liking(n: int) -> str:
    return f"plant number {n:05d} gardening"


class SleepLoop:
    max_delay = 0.25

    def __init__(self, home: Home, rng: random.Random) -> None:
        from companion.sleep.job import SleepJob

        self.home, self.rng = home, rng
        self.job = SleepJob(home, None)
        self.log = DayLog(home.days)
        self.store = LongTermStore(home)
        self.appended = 0
        self.confirmed = 0  # likings written before a run that finished
        self.counts = {"sleep runs finished": 0, "sleep runs killed": 0}

    def work(self, ack: Callable[[str], None]) -> None:
        self.job.run()
        ack("done")

    def after_kill(self, acked: list[str], result: Result) -> None:
        if acked:
            self.counts["sleep runs finished"] += 1
            self.confirmed = self.appended
        else:
            self.counts["sleep runs killed"] += 1
        for _ in range(self.rng.randint(1, 3)):  # new conversation for the next (resumed) run
            self.log.append("user", f"I like {liking(self.appended)}.")
            self.appended += 1

    def check(self, result: Result) -> None:
        from companion.sleep.cursor import Cursor

        try:
            Cursor.load(self.job.cursor_path)
            user = self.store.read("USER.md").body
            for name in LONG_TERM_FILES:
                self.store.read(name)
        except Exception as exc:  # noqa: BLE001 - any failure to parse is the violation
            result.violate(f"unreadable after a killed sleep run: {exc}")
            return
        for n in range(self.appended):
            times = user.count(liking(n))
            if times > 1 or (n < self.confirmed and times != 1):
                result.violate(f"'{liking(n)}' appears {times} times in USER.md")


# -- target: export --------------------------------------------------------------------------


_DISTINCT_WORDS = (
    "apple river mountain violin lantern harbor meadow copper falcon orchid quartz saddle tundra walnut "
    "yacht zephyr amber basil cedar dune ember fjord garnet hazel iris jasper kelp lotus maple nectar "
    "opal pepper quince raven sage thistle umber velvet willow yarrow"
).split()


class ExportLoop:
    max_delay = 0.3

    def __init__(self, home: Home, rng: random.Random) -> None:
        self.home, self.rng = home, rng
        self.dest = home.root.parent / (home.root.name + "-exports")
        self.n = 0
        writer = MemoryWriter(LongTermStore(home))
        for i, word in enumerate(_DISTINCT_WORDS):  # something to copy; distinct, so none is a duplicate
            writer.append("MEMORY.md", f"- Fact {i} is about {word} (2026-11-29#1)", "## Facts", actor=Actor.EDITOR)
        self.before = _snapshot(home.memory)
        self.counts = {"exports finished": 0, "exports killed": 0}

    def work(self, ack: Callable[[str], None]) -> None:
        from companion.portability.skill_export import export_memory

        export_memory(self.home, self.dest / f"export-{self.n}")
        ack("done")

    def after_kill(self, acked: list[str], result: Result) -> None:
        from companion.portability.skill_export import resolve_target

        target, _ = resolve_target((self.dest / f"export-{self.n}").absolute(), False)
        self.counts["exports finished" if acked else "exports killed"] += 1
        if target.exists() and not (target / "MEMORY.md").read_text(encoding="utf-8") == (self.home.memory / "MEMORY.md").read_text(encoding="utf-8"):
            result.violate(f"{target.name} exists but is incomplete")
        if acked and not target.exists():
            result.violate(f"{target.name} acknowledged but missing")
        self.n += 1

    def check(self, result: Result) -> None:
        if _snapshot(self.home.memory) != self.before:
            result.violate("the live memory folder changed during an export")
        self.counts["partial exports left in the destination"] = sum(1 for p in self.dest.glob("*/.*partial-*"))


# -- target: import (merge) ----------------------------------------------------------------


class ImportLoop:
    max_delay = 0.1

    def __init__(self, home: Home, rng: random.Random) -> None:
        from companion.portability.skill_export import ExportOptions, export_memory

        self.home, self.rng = home, rng
        source = Home(home.root.parent / "source-home")
        ensure_home(source)
        log = DayLog(source.days)
        store = LongTermStore(source)
        for i in range(60):
            log.append("user", f"imported message {i:03d}")
            if i % 2 == 0:
                store._append("MEMORY.md", f"- Imported fact {i:03d} (2026-11-29#{i + 1})", "## Facts", actor=Actor.EDITOR)
        self.archive = home.root.parent / "source.zip"
        export_memory(source, self.archive, ExportOptions(as_zip=True, include_logs=True))
        self.completed = False
        self.counts = {"imports finished": 0, "imports killed": 0}

    def work(self, ack: Callable[[str], None]) -> None:
        from companion.portability.skill_import import import_memory

        import_memory(self.home, self.archive, "merge")
        ack("done")

    def after_kill(self, acked: list[str], result: Result) -> None:
        self.counts["imports finished" if acked else "imports killed"] += 1
        self.completed = self.completed or bool(acked)

    def check(self, result: Result) -> None:
        store = LongTermStore(self.home)
        try:
            memory = store.read("MEMORY.md").body
            for name in LONG_TERM_FILES:
                store.read(name)
        except Exception as exc:  # noqa: BLE001 - any failure to parse is the violation
            result.violate(f"unreadable after a killed import: {exc}")
            return
        log = DayLog(self.home.days)
        texts = [r.text for day in log.days() for r in log.read_day(day).records]
        for i in range(60):
            seen = texts.count(f"imported message {i:03d}")
            if seen > 1 or (self.completed and seen != 1):
                result.violate(f"imported message {i:03d} appears {seen} times")
            if i % 2 == 0:
                facts = memory.count(f"Imported fact {i:03d}")
                if facts > 1 or (self.completed and facts != 1):
                    result.violate(f"imported fact {i:03d} appears {facts} times")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


TARGETS: dict[str, Callable[[Home, random.Random], DayLogLoop | LongTermLoop | SleepLoop | ExportLoop | ImportLoop]] = {
    "daylog": DayLogLoop,
    "longterm": LongTermLoop,
    "sleep": SleepLoop,
    "export": ExportLoop,
    "import": ImportLoop,
}


# -- races -------------------------------------------------------------------------------


def _retrying(write: Callable[[], None], conflicts: list[int]) -> None:
    for _ in range(1000):
        try:
            write()
            return
        except ConflictError:
            conflicts.append(1)
    raise RuntimeError("gave up after 1000 conflicts")


def _writers(store: LongTermStore, tag: str, count: int, conflicts: list[int]) -> list[Callable[[], None]]:
    """One writer per actor, each with its own way in: editor (CAS on the whole file), chat tool,
    remember (CAS inside), sleep-like section append (CAS), daytime learning."""
    tools = ToolExecutor(store, Actor.TOOL)
    requests = MemoryRequests(store)

    def editor() -> None:
        for i in range(count):
            def write(i: int = i) -> None:
                doc = store.read("MEMORY.md")
                MemoryWriter(store).write("MEMORY.md", doc.with_body(doc.body + f"- editor {tag} line {i:04d}\n"), expected_sha=doc.sha, actor=Actor.EDITOR)
            _retrying(write, conflicts)

    def tool() -> None:
        for i in range(count):
            def write(i: int = i) -> None:
                result = tools.run(ToolCall("context_update", {"file": "MEMORY.md", "action": "append",
                                                               "section": "## Decisions", "content": f"- tool {tag} line {i:04d}"}))
                if not result.ok:
                    raise ConflictError(result.output)
            _retrying(write, conflicts)

    def learn() -> None:
        for i in range(count):
            _retrying(lambda i=i: requests.remember(f"Learned {tag} item {i:04d} by chat", "2026-11-29#1"), conflicts)

    def sleep() -> None:
        for i in range(count):
            def write(i: int = i) -> None:
                doc = store.read("MEMORY.md")
                MemoryWriter(store).append("MEMORY.md", f"- sleep {tag} line {i:04d}", "## Timeline", expected_sha=doc.sha, actor=Actor.SLEEP)
            _retrying(write, conflicts)

    def daytime() -> None:  # idle-time learning after a reply (rule path; it retries conflicts itself)
        from datetime import datetime

        from companion.memory.records import Record
        from companion.agent.learn import DaytimeLearner

        learner = DaytimeLearner(store, lambda: None, lambda: datetime.now().astimezone())
        for i in range(count):
            user = Record(f"2026-11-29#{i + 1}", "2026-11-29T10:00:00.000+01:00", "user", f"I like {tag} kiwi sort {i:04d}.")
            _retrying(lambda user=user: learner.after_turn(user, None, False), conflicts)  # gives up after a few tries

    return [editor, tool, learn, sleep, daytime]


WRITERS = 5


def expected_lines(tag: str, count: int) -> list[str]:
    lines = []
    for i in range(count):
        lines += [f"- editor {tag} line {i:04d}", f"- tool {tag} line {i:04d}", f"Learned {tag} item {i:04d} by chat",
                  f"- sleep {tag} line {i:04d}", f"Likes {tag} kiwi sort {i:04d}"]
    return lines


def _count_lost(home: Home, tags: list[str], count: int, result: Result) -> None:
    store = LongTermStore(home)
    body = store.read("MEMORY.md").body + store.read("USER.md").body
    lost = [line for tag in tags for line in expected_lines(tag, count) if body.count(line) != 1]
    result.details["writes"] = len(tags) * count * WRITERS
    result.details["lost writes"] = len(lost)
    for line in lost[:5]:
        result.violate(f"lost or duplicated write: {line}")


def race_threads(root: Path, count: int) -> Result:
    home = Home(root)
    ensure_home(home)
    store = LongTermStore(home)
    conflicts: list[int] = []
    threads = [threading.Thread(target=w) for tag in ("a", "b") for w in _writers(store, tag, count, conflicts)]
    log = DayLog(home.days)
    threads += [threading.Thread(target=lambda t=t: [log.append("user", f"t{t} {i}") for i in range(count)]) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result = Result("race threads", iterations=count)
    _count_lost(home, ["a", "b"], count, result)
    _check_log(log, 4 * count, result)
    result.details["conflicts retried"] = len(conflicts)
    return result


def race_processes(root: Path, count: int, processes: int = 3) -> Result:
    home = Home(root)
    ensure_home(home)
    tags = [f"p{i}" for i in range(processes)]
    pids = []
    for tag in tags:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                store = LongTermStore(home)  # a fresh store per process, as a second app part would have
                conflicts: list[int] = []
                for writer in _writers(store, tag, count, conflicts):
                    writer()
                log = DayLog(home.days)
                for i in range(count):
                    log.append("user", f"{tag} {i}")
                os.write(1, f"{len(conflicts)}\n".encode())
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    failed = sum(1 for pid in pids if os.waitpid(pid, 0)[1] != 0)
    result = Result("race processes", iterations=count)
    if failed:
        result.violate(f"{failed} writer processes failed")
    _count_lost(home, tags, count, result)
    _check_log(DayLog(home.days), processes * count, result)
    return result


def _check_log(log: DayLog, expected: int, result: Result) -> None:
    records = [r for day in log.days() for r in log.read_day(day).records]
    ids = [r.id for r in records]
    result.details["log appends"] = expected
    if len(records) != expected or len(set(ids)) != len(ids):
        result.violate(f"day log has {len(records)} records ({len(set(ids))} distinct ids), expected {expected}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=["crash", "race"])
    parser.add_argument("target", help="crash: " + ", ".join(TARGETS) + "; race: threads, processes")
    parser.add_argument("home", type=Path)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # skipped torn lines are expected here, by the thousand
    if args.mode == "crash":
        result = crash_loop(args.target, args.home, args.iterations, args.seconds, args.seed)
    elif args.target == "threads":
        result = race_threads(args.home, args.iterations)
    else:
        result = race_processes(args.home, args.iterations)
    result.details["seed"] = args.seed
    print(json.dumps(asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
