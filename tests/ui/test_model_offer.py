"""The first-run model offer: accept (download from a loopback Hub, switch with one click), decline (remembered)."""

from __future__ import annotations

import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from PySide6.QtCore import Qt

from companion.llm import speed
from companion.llm.catalog import by_key
from companion.llm.gguf import minimal_gguf
from companion.llm.hardware import Capabilities
from companion.memory.daylog import now_local
from companion.paths import Home
from companion.settings import Settings, load_settings
from companion.ui import model_offer
from companion.ui.main_window import MainWindow
from companion.ui.message_widget import MessageWidget
from tests.ui.conftest import wait_idle

GB = 10**9
SMALL_MACHINE = Capabilities(physical_cores=2, ram_total=int(2.6 * GB))  # the 1B Llama is what fits
BIG_MACHINE = Capabilities(physical_cores=8, ram_total=16 * GB)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def hub_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A loopback stand-in for the Hub: files under <folder>/<repo>/resolve/main/<file>."""
    root = tmp_path / "hub"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    yield root
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def publish(root: Path, repo: str, filename: str, source: Path) -> None:
    target = root / repo / "resolve" / "main" / filename
    target.parent.mkdir(parents=True)
    target.symlink_to(source)


def notices(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.findChildren(MessageWidget)]


@pytest.mark.model
def test_accept_downloads_while_chatting_and_switches_with_one_click(
    make_window: Callable[..., MainWindow], scripted: Any, hub_folder: Path, tiny_model_path: Path, home: Home, qtbot: Any,
) -> None:
    wanted = by_key("llama-3.2-1b")
    assert wanted is not None
    publish(hub_folder, wanted.repo_id, wanted.filename, tiny_model_path)
    settings = Settings()
    settings.model.max_reply_tokens, settings.model.n_ctx, settings.model.n_threads = 4, 2048, 1
    window = make_window(scripted, settings=settings)
    offer = model_offer.install(window, caps=SMALL_MACHINE, chinese=False)
    assert offer is not None and offer.model == wanted and not offer.isHidden()
    assert "tiny built-in model" in offer.title.text() and "0.8 GB" in offer.primary.text()

    qtbot.mouseClick(offer.primary, Qt.MouseButton.LeftButton)
    assert offer.state == model_offer.DOWNLOADING
    scripted.replies.append("Still here while it downloads.")
    window.send("Are you there?")  # the chat keeps working on the current model
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: offer.state == model_offer.READY, timeout=60_000)
    downloaded = home.models / wanted.filename
    assert downloaded.read_bytes()[:4] == b"GGUF" and offer.primary.text() == "Use this model"

    qtbot.mouseClick(offer.primary, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: offer.state == model_offer.DONE, timeout=60_000)
    assert window.backend is not None and Path(window.backend.info.path) == downloaded
    assert window.model_label.text().startswith("Llama 3.2 1B Instruct")
    assert load_settings(home.settings_file).model.path == str(downloaded)
    assert any("Switched to Llama 3.2 1B Instruct" in text for text in notices(window))

    window.send("Hello")
    wait_idle(qtbot, window, timeout=120_000)  # a real prompt on a busy machine
    records = window.daylog.read_day(now_local().date()).records
    assert records[-1].role == "assistant" and records[-1].to_dict().get("model") == "Llama 3.2 1B Instruct"


def test_decline_is_remembered_across_restarts(
    make_window: Callable[..., MainWindow], scripted: Any, home: Home, qtbot: Any,
) -> None:
    window = make_window(scripted)
    offer = model_offer.install(window, caps=BIG_MACHINE, chinese=False)
    assert offer is not None and offer.model.key == "gemma-4-e4b"
    qtbot.mouseClick(offer.secondary, Qt.MouseButton.LeftButton)
    assert offer.isHidden()
    assert load_settings(home.settings_file).model.offer_declined == "gemma-4-e4b"
    assert not list(home.models.glob("*.gguf*")) and not list(home.models.glob(".*.part"))

    restarted = make_window(scripted, settings=load_settings(home.settings_file))
    assert model_offer.install(restarted, caps=BIG_MACHINE, chinese=False) is None


def test_no_offer_once_a_real_model_is_chosen_or_nothing_fits(
    make_window: Callable[..., MainWindow], scripted: Any, tmp_path: Path,
) -> None:
    settings = Settings()
    settings.model.path = str(tmp_path / "mine.gguf")
    assert model_offer.install(make_window(scripted, settings=settings), caps=BIG_MACHINE) is None
    server = Settings()
    server.model.backend = "openai"
    assert model_offer.install(make_window(scripted, settings=server), caps=BIG_MACHINE) is None
    tiny_machine = Capabilities(physical_cores=1, ram_total=GB)
    assert model_offer.install(make_window(scripted), caps=tiny_machine) is None


def test_chinese_system_is_offered_a_chinese_speaking_model(make_window: Callable[..., MainWindow], scripted: Any) -> None:
    machine = Capabilities(physical_cores=4, ram_total=int(5.2 * GB))
    offer = model_offer.install(make_window(scripted), caps=machine, chinese=True)
    assert offer is not None and offer.model.chinese


def test_an_interrupted_download_offers_to_resume(make_window: Callable[..., MainWindow], scripted: Any, home: Home) -> None:
    wanted = by_key("llama-3.2-1b")
    assert wanted is not None
    home.models.mkdir(parents=True, exist_ok=True)
    (home.models / f".{wanted.filename}.part").write_bytes(b"GGUF partial")
    offer = model_offer.install(make_window(scripted), caps=SMALL_MACHINE, chinese=False)
    assert offer is not None and offer.state == model_offer.STOPPED and offer.primary.text() == "Resume download"


def test_a_file_llama_cpp_cannot_run_is_not_switched_to(
    make_window: Callable[..., MainWindow], scripted: Any, home: Home, qtbot: Any,
) -> None:
    wanted = by_key("llama-3.2-1b")
    assert wanted is not None
    home.models.mkdir(parents=True, exist_ok=True)
    (home.models / wanted.filename).write_bytes(minimal_gguf({"general.architecture": "llama"}))  # header, no vocabulary
    window = make_window(scripted)
    offer = model_offer.install(window, caps=SMALL_MACHINE, chinese=False)
    assert offer is not None and offer.state == model_offer.READY
    qtbot.mouseClick(offer.primary, Qt.MouseButton.LeftButton)
    assert offer.state == model_offer.READY and "cannot run" in offer.body.text()
    assert window.settings.model.path == "" and window.backend is not None and window.backend.info is scripted.info


@pytest.mark.slow
def test_a_model_that_fails_to_load_leaves_the_built_in_one_in_use(
    make_window: Callable[..., MainWindow], scripted: Any, home: Home, tiny_model_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wanted = by_key("llama-3.2-1b")
    assert wanted is not None
    home.models.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(tiny_model_path, home.models / wanted.filename)
    window = make_window(scripted)
    reloads: list[str] = []
    monkeypatch.setattr(window, "reload_model", lambda: reloads.append(window.settings.model.path))
    offer = model_offer.install(window, caps=SMALL_MACHINE, chinese=False)
    assert offer is not None
    offer.use_model()
    assert offer.state == model_offer.SWITCHING and reloads == [str(home.models / wanted.filename)]
    window.model_failed.emit("not enough memory")  # what the window reports when the load fails
    assert offer.state == model_offer.READY and "not enough memory" in offer.body.text()
    assert reloads[-1] == "" and load_settings(home.settings_file).model.path == ""


def test_at_start_the_offer_waits_for_the_model_and_probes_the_machine_off_the_gui_thread(
    make_window: Callable[..., MainWindow], scripted: Any, qtbot: Any,
) -> None:
    window = make_window()
    asked: list[bool] = []

    def detect(offload: bool) -> Capabilities:
        asked.append(offload)
        return BIG_MACHINE

    measured: list[Capabilities] = []

    def measure(caps: Capabilities) -> speed.Benchmark:
        measured.append(caps)
        return speed.Benchmark(model_bytes=98_000_000, cpu_tps=400.0)

    assert model_offer.install(window, chinese=False, detect=detect, measure=measure) is None
    assert window.findChild(model_offer.ModelOffer) is None and asked == []  # nothing probed before the model loads
    window.use_backend(scripted)
    qtbot.waitUntil(lambda: window.findChild(model_offer.ModelOffer) is not None, timeout=10_000)
    offer = window.findChild(model_offer.ModelOffer)
    assert asked == [scripted.info.gpu_offload_supported] and offer.model.key == "gemma-4-e4b"
    assert measured == [BIG_MACHINE] and "words a second here" in offer.body.text()
    window.use_backend(scripted)  # a later load does not offer twice
    qtbot.wait(200)
    assert len(window.findChildren(model_offer.ModelOffer)) == 1


def test_a_two_core_machine_without_a_gpu_is_offered_a_model_that_keeps_reading_pace(
    make_window: Callable[..., MainWindow], scripted: Any,
) -> None:
    laptop = Capabilities(physical_cores=2, ram_total=16 * GB)  # RAM for Gemma 4 E4B, but two cores
    offer = model_offer.install(make_window(scripted), caps=laptop, chinese=False)
    assert offer is not None and offer.model.key != "gemma-4-e4b"
    assert speed.comfortable(speed.tokens_per_s(offer.model.size_bytes, speed.first_guess(laptop), laptop))
    assert "words a second here" in offer.body.text()
