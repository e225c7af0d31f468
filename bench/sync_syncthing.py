"""Two computers through two real Syncthing instances on loopback (127.0.0.1 only, no discovery or relays).

    PYTHONPATH=. python bench/sync_syncthing.py

Both homes share one memory folder. The two Syncthings are paused from each other while both
computers chat on the same day and the user edits USER.md on both (as two laptops offline), then
resumed: Syncthing makes its conflict copy of USER.md. The night runs on the first computer, the
folder syncs again, and the script checks and prints: every message on both sides, no id twice,
one USER.md on both computers holding both edits and both nights' facts, no conflict copy left,
and how long each sync round took. Then both computers change the same entry differently and the
second computer sleeps: one version is kept, the other waits for the user, nothing is distilled twice. Exits non-zero when a check fails; skips when Syncthing is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.memory.daylog import DayLog  # noqa: E402
from companion.curate.gate import MemoryWriter  # noqa: E402
from companion.memory.history import Actor  # noqa: E402
from companion.memory.longterm import LongTermStore  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402
from companion.sleep.job import SleepJob  # noqa: E402
from companion.curate.proposals import ProposalQueue  # noqa: E402

FOLDER = "companion-memory"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Instance:
    def __init__(self, root: Path, name: str) -> None:
        self.conf = root / f"st-{name}"
        self.name = name
        subprocess.run(["syncthing", "generate", f"--home={self.conf}", "--no-default-folder", "--skip-port-probing"],
                       check=True, capture_output=True)
        self.id = subprocess.run(["syncthing", "serve", f"--home={self.conf}", "--device-id"], check=True,
                                 capture_output=True, text=True).stdout.strip()
        self.gui, self.listen, self.key = _port(), _port(), f"bench-{name}-key"
        self.proc: subprocess.Popen[bytes] | None = None

    def configure(self, other: "Instance", folder: Path) -> None:
        path = self.conf / "config.xml"
        tree = ET.parse(path)
        root = tree.getroot()
        gui = root.find("gui")
        gui.find("address").text = f"127.0.0.1:{self.gui}"  # type: ignore[union-attr]
        gui.find("apikey").text = self.key  # type: ignore[union-attr]
        options = root.find("options")
        for key, value in {"listenAddress": f"tcp://127.0.0.1:{self.listen}", "globalAnnounceEnabled": "false",
                           "localAnnounceEnabled": "false", "relaysEnabled": "false", "natEnabled": "false",
                           "startBrowser": "false", "urAccepted": "-1", "crashReportingEnabled": "false",
                           "autoUpgradeIntervalH": "0", "reconnectionIntervalS": "1"}.items():
            options.find(key).text = value  # type: ignore[union-attr]
        device = ET.SubElement(root, "device", id=other.id, name=other.name, compression="metadata", introducer="false")
        ET.SubElement(device, "address").text = f"tcp://127.0.0.1:{other.listen}"
        shared = ET.SubElement(root, "folder", id=FOLDER, label=FOLDER, path=str(folder), type="sendreceive",
                               rescanIntervalS="2", fsWatcherEnabled="true", fsWatcherDelayS="1")
        for dev in (self.id, other.id):
            ET.SubElement(shared, "device", id=dev)
        ET.SubElement(shared, "maxConflicts").text = "10"  # Syncthing's default; a missing element reads as 0
        tree.write(path)

    def start(self) -> None:
        env = {**os.environ, "STNOUPGRADE": "1", "STNODEFAULTFOLDER": "1"}
        self.proc = subprocess.Popen(["syncthing", "serve", f"--home={self.conf}", "--no-browser", "--no-restart",
                                      "--no-upgrade", f"--logfile={self.conf / 'log.txt'}"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def api(self, path: str, method: str = "GET") -> object:
        request = urllib.request.Request(f"http://127.0.0.1:{self.gui}{path}", method=method,
                                         headers={"X-API-Key": self.key})
        with urllib.request.urlopen(request, timeout=10) as reply:
            body = reply.read()
        return json.loads(body) if body else None

    def wait_up(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                self.api("/rest/system/ping")
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def rescan(self) -> None:
        self.api(f"/rest/db/scan?folder={FOLDER}", "POST")

    def in_sync(self, other: "Instance") -> bool:
        status = self.api(f"/rest/db/status?folder={FOLDER}")
        done = self.api(f"/rest/db/completion?folder={FOLDER}&device={other.id}")
        return (status["state"] == "idle" and status["needTotalItems"] == 0  # type: ignore[index]
                and done["completion"] == 100 and done["needItems"] == 0)  # type: ignore[index]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def settle(a: Instance, b: Instance, timeout: float = 120) -> float:
    """Rescan both and wait until each has everything of the other; seconds it took."""
    t0 = time.monotonic()
    time.sleep(0.5)
    a.rescan(), b.rescan()
    stable = 0
    while time.monotonic() - t0 < timeout:
        time.sleep(1)
        stable = stable + 1 if a.in_sync(b) and b.in_sync(a) else 0
        if stable >= 3:
            return time.monotonic() - t0 - 3
    raise TimeoutError("the two Syncthings did not settle")


def chat(home: Home, clock_start: float, texts: list[str]) -> None:
    from datetime import datetime, timedelta, timezone

    now = [datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc) + timedelta(seconds=clock_start)]
    log = DayLog(home.days, lambda: now[0])
    for text in texts:
        log.append("user", text)
        now[0] += timedelta(minutes=1)
        log.append("assistant", "Noted.")
        now[0] += timedelta(minutes=2)


def main() -> int:
    if shutil.which("syncthing") is None:
        print("syncthing is not installed (Debian: apt-get install syncthing); skipped")
        return 0
    checks: list[tuple[str, bool]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        laptop, desktop = Home(root / "laptop"), Home(root / "desktop")
        ensure_home(laptop, "en")
        desktop.root.mkdir()
        shutil.copytree(laptop.memory, desktop.memory)
        ensure_home(desktop, "en")
        for home in (laptop, desktop):
            (home.memory / ".stfolder").mkdir(exist_ok=True)
        a, b = Instance(root, "laptop"), Instance(root, "desktop")
        a.configure(b, laptop.memory)
        b.configure(a, desktop.memory)
        try:
            a.start(), b.start()
            a.wait_up(), b.wait_up()
            print(f"first sync: {settle(a, b):.1f} s")
            a.api(f"/rest/system/pause?device={b.id}", "POST")  # offline from each other
            b.api(f"/rest/system/pause?device={a.id}", "POST")
            chat(laptop, 0, ["I'm allergic to shellfish.", "I live in Paris.", "我喜欢喝乌龙茶"])
            chat(desktop, 30, ["I prefer tea over coffee.", "My sister is called Lea."])
            MemoryWriter(LongTermStore(laptop)).append("USER.md", "- Works as a nurse", "Profile", actor=Actor.EDITOR)
            MemoryWriter(LongTermStore(desktop)).append("USER.md", "- Plays the cello", "Profile", actor=Actor.EDITOR)
            time.sleep(3)  # both Syncthings see their local changes while paused
            a.rescan(), b.rescan()
            time.sleep(3)
            a.api(f"/rest/system/resume?device={b.id}", "POST")
            b.api(f"/rest/system/resume?device={a.id}", "POST")
            print(f"sync after both computers chatted and edited USER.md: {settle(a, b):.1f} s")
            copies = sorted(p.name for p in laptop.memory.iterdir() if "sync-conflict" in p.name)
            print(f"conflict copies Syncthing made: {copies}")
            day_copies = sorted(p.name for p in (laptop.days / "2026-12").iterdir() if "sync-conflict" in p.name)
            checks.append(("no conflict copy of a day log (one file per computer)", not day_copies))
            t0 = time.perf_counter()
            report = SleepJob(laptop, None).run()
            print(f"night on the laptop: {time.perf_counter() - t0:.2f} s; {' / '.join(report.notes) or 'no notes'}")
            print(f"sync after the night: {settle(a, b):.1f} s")
            for name, home in (("laptop", laptop), ("desktop", desktop)):
                records = DayLog(home.days).read_day(date(2026, 12, 1)).records
                ids = [r.id for r in records]
                said = {r.text for r in records if r.role == "user"}
                user = LongTermStore(home).read("USER.md").body.casefold()
                checks += [
                    (f"{name}: every message of both computers", said >= {
                        "I'm allergic to shellfish.", "I live in Paris.", "我喜欢喝乌龙茶", "I prefer tea over coffee.",
                        "My sister is called Lea."}),
                    (f"{name}: no id twice ({len(ids)} records)", len(ids) == len(set(ids))),
                    (f"{name}: USER.md holds both edits and the night's facts",
                     all(f in user for f in ("works as a nurse", "plays the cello", "shellfish", "paris", "tea"))),
                    (f"{name}: no conflict copy left", not [p for p in home.memory.rglob("*sync-conflict*")]),
                ]
            same = (laptop.memory / "USER.md").read_bytes() == (desktop.memory / "USER.md").read_bytes()
            checks.append(("one USER.md on both computers", same))

            # a true conflict: the same entry changed differently on both computers; the desktop sleeps
            a.api(f"/rest/system/pause?device={b.id}", "POST")
            b.api(f"/rest/system/pause?device={a.id}", "POST")
            MemoryWriter(LongTermStore(laptop)).edit("USER.md", "Works as a nurse", "Works as a surgeon", actor=Actor.EDITOR)
            MemoryWriter(LongTermStore(desktop)).edit("USER.md", "Works as a nurse", "Works as a midwife", actor=Actor.EDITOR)
            time.sleep(3)
            a.rescan(), b.rescan()
            time.sleep(3)
            a.api(f"/rest/system/resume?device={b.id}", "POST")
            b.api(f"/rest/system/resume?device={a.id}", "POST")
            print(f"sync after both changed the same entry: {settle(a, b):.1f} s")
            second = SleepJob(desktop, None).run()
            print(f"night on the desktop: {' / '.join(second.notes) or 'no notes'}; {second.records} record(s) distilled")
            settle(a, b)
            waiting = ProposalQueue(desktop).items()
            kept = LongTermStore(desktop).read("USER.md").body
            checks += [
                ("the desktop's night distilled nothing twice (the cursor travelled)", second.records <= 1),
                ("true conflict: one version kept, the other waits for the user", len(waiting) == 1
                 and ("surgeon" in kept) != ("midwife" in kept)),
                ("one USER.md on both computers after the second night",
                 (laptop.memory / "USER.md").read_bytes() == (desktop.memory / "USER.md").read_bytes()),
            ]
            if waiting:
                print(f"waiting for the user on the desktop: {waiting[0].summary()}")
                checks.append(("the choice waits on the laptop too (the queue travels)",
                               [p.id for p in ProposalQueue(laptop).items()] == [waiting[0].id]))
        finally:
            a.stop(), b.stop()
    for label, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {label}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
