"""Settings > Model… on the real main window: library table, add/use/remove, download with progress and stop, apply."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest
from PySide6.QtWidgets import QWidget

from companion.llm.apikeys import KeyStore
from companion.llm.catalog import recommend
from companion.llm import devices
from companion.llm.hardware import GPU_LAYERS_ALL, Capabilities, GpuDevice, GpuProbe
from companion.settings import load_settings
from companion.ui import model_settings
from companion.ui.model_offer import chinese_system
from companion.ui.model_settings import ModelDialog


def _gguf(path, arch="qwen2", payload=b""):
    key, value = b"general.architecture", arch.encode()
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    data += struct.pack("<I", 8) + struct.pack("<Q", len(value)) + value
    path.write_bytes(data + payload)
    return path


@pytest.fixture
def window(make_window):
    win = make_window()
    win.reloads = []
    win.reload_model = lambda: win.reloads.append(win.settings.model)
    model_settings.install(win)
    return win


@pytest.fixture
def dialog(window, qtbot) -> Iterator[ModelDialog]:
    caps = Capabilities(gpu_offload=True, gpus=[GpuDevice("Test GPU", 8 * 2**30, 6 * 2**30)], physical_cores=4,
                        ram_total=16 * 2**30, ram_available=12 * 2**30)
    dlg = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
    qtbot.addWidget(dlg)
    yield dlg
    dlg.stop_jobs()


def test_menu_action_opens_the_dialog(window, qtbot):
    action = next(a for a in window.menu("&Settings").actions() if a.objectName() == "modelSettingsAction")
    action.trigger()
    dialog = window.findChild(ModelDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.table.rowCount() == 1
    dialog.reject()


def test_table_lists_the_embedded_model_with_metadata(dialog):
    assert dialog.table.rowCount() == 1
    cells = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]
    assert cells[0] == "●" and cells[2:8] == ["llama", "135M", "Q4_1", "94 MB", "8192", "yes"]
    assert "GB RAM" in dialog.estimate_label.text() and "31/31 layers on the GPU" in dialog.estimate_label.text()
    assert "Test GPU" in dialog.gpu_label.text()


def test_estimate_follows_gpu_layers_and_context(dialog):
    dialog.gpu_mode.setCurrentIndex(1)  # CPU only
    assert "on the CPU" in dialog.estimate_label.text() and "VRAM" not in dialog.estimate_label.text()
    before = dialog.estimate_label.text()
    dialog.context.setValue(8192)
    assert dialog.estimate_label.text() != before


@pytest.mark.slow
def test_add_use_and_apply_saves_and_reloads(dialog, window, tmp_path, qtbot, tiny_model_path):
    header_only = _gguf(tmp_path / "header-only.gguf")
    with qtbot.waitSignal(dialog.job_finished, timeout=10_000):
        dialog.add_file(header_only, copy=True)
    assert "No chat template" in dialog.error_label.text()
    dialog.use_selected()
    assert "cannot run header-only.gguf" in dialog.error_label.text() and dialog.model.path == ""
    source = tmp_path / "通义千问-mini.gguf"
    shutil.copyfile(tiny_model_path, source)
    with qtbot.waitSignal(dialog.job_finished, timeout=20_000):
        dialog.add_file(source, copy=True)
    names = [dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())]
    assert names[0] == "SmolLM2 135M (built-in)" and "SmolLM2 135M" in names  # the copy: its own name, cleaned
    assert dialog.selected_entry().path == window.home.models / "通义千问-mini.gguf"
    dialog.use_selected()
    dialog.gpu_mode.setCurrentIndex(2)
    dialog.threads.setValue(3)
    dialog.context.setValue(2048)
    dialog.accept()
    saved = load_settings(window.home.settings_file).model
    assert saved.path == str(window.home.models / "通义千问-mini.gguf")
    assert (saved.n_gpu_layers, saved.n_threads, saved.n_ctx, saved.backend) == (GPU_LAYERS_ALL, 3, 2048, "llama")
    assert len(window.reloads) == 1 and window.settings.model == saved


def test_bad_file_shows_the_reason_and_adds_nothing(dialog, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"")
    dialog.add_file(bad)
    assert "not a GGUF" in dialog.error_label.text()
    assert dialog.table.rowCount() == 1 and dialog.job is None


@pytest.mark.slow
def test_cancel_keeps_settings(dialog, window, tmp_path, qtbot):
    with qtbot.waitSignal(dialog.job_finished, timeout=10_000):
        dialog.add_file(_gguf(tmp_path / "x.gguf"))
    dialog.use_selected()
    dialog.reject()
    assert window.settings.model.path == "" and window.reloads == []
    assert not window.home.settings_file.exists() or load_settings(window.home.settings_file).model.path == ""


def test_server_settings_and_key_are_saved(dialog, window):
    dialog.server_radio.setChecked(True)
    assert not dialog.library_box.isVisibleTo(dialog) and dialog.server_box.isVisibleTo(dialog)
    dialog.url_edit.setText("ftp://nowhere")
    dialog.accept()
    assert "server's address" in dialog.error_label.text() and window.reloads == []
    dialog.url_edit.setText("http://192.168.1.20:11434/v1")
    dialog.name_edit.setText("qwen2.5:14b")
    dialog.key_edit.setText("sk-local")
    dialog.server_ctx.setValue(8192)
    dialog.accept()
    saved = load_settings(window.home.settings_file).model
    assert (saved.backend, saved.base_url, saved.model_name) == ("openai", "http://192.168.1.20:11434/v1", "qwen2.5:14b")
    assert saved.remote_n_ctx == 8192
    assert "sk-local" not in window.home.settings_file.read_text()
    assert KeyStore(window.home, use_keyring=False).get("http://192.168.1.20:11434/v1") == "sk-local"


@pytest.mark.slow
def test_download_shows_progress_can_stop_and_resume(dialog, hub_server, qtbot, window):
    content = _gguf(window.home.root / "src.gguf", payload=b"\1" * 3_000_000).read_bytes()
    hub_server.content = content
    dialog.curated.setCurrentIndex(dialog.curated.count() - 1)
    dialog.repo_edit.setText("me/Tiny-GGUF")
    dialog.file_edit.setText("tiny.gguf")
    values: list[int] = []
    dialog.download_button.click()
    assert not dialog.progress.isHidden() and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=10_000)
    values.append(dialog.progress.value())
    with qtbot.waitSignal(dialog.job_finished, timeout=10_000):
        dialog.cancel_button.click()
    assert "stopped" in dialog.error_label.text().lower()
    assert not (window.home.models / "tiny.gguf").exists()
    hub_server.delay = 0.0
    with qtbot.waitSignal(dialog.job_finished, timeout=20_000):
        dialog.download_button.click()
    assert (window.home.models / "tiny.gguf").read_bytes() == content
    assert any(r.startswith("bytes=") for r in hub_server.ranges)
    assert "tiny" in [dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())]
    assert values[0] < 1000


@pytest.mark.slow
def test_test_connection_reports_models_or_the_problem(dialog, hub_server, qtbot):
    dialog.server_radio.setChecked(True)
    dialog.url_edit.setText("http://127.0.0.1:1/v1")
    with qtbot.waitSignal(dialog.job_finished, timeout=20_000):
        dialog.test_button.click()
    assert "nothing is listening" in dialog.server_status.text()
    hub_server.models = ["qwen2.5:14b"]
    dialog.url_edit.setText(hub_server.url + "/v1")
    with qtbot.waitSignal(dialog.job_finished, timeout=20_000):
        dialog.test_button.click()
    assert dialog.server_status.text() == "Connected: qwen2.5:14b, context 4096 tokens."


class _HubState:
    """Answers like the Hub's /resolve/ route, and like a model server's /v1/models."""

    content = b""
    delay = 0.02
    ranges: list[str]
    models: list[str] = []
    url = ""


@pytest.fixture
def hub_server(monkeypatch) -> Iterator[_HubState]:
    state = _HubState()
    state.ranges = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _head(self, status: int, length: int) -> None:
            self.send_response(status)
            self.send_header("ETag", f'"{hashlib.sha256(state.content).hexdigest()}"')
            self.send_header("Content-Length", str(length))
            self.end_headers()

        def do_HEAD(self) -> None:
            self._head(200, len(state.content))

        def do_GET(self) -> None:
            if self.path.endswith("/v1/models") or self.path == "/props":
                body = json.dumps({"data": [{"id": m} for m in state.models]}).encode()
                self.send_response(200 if self.path != "/props" else 404)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            byte_range = self.headers.get("Range", "")
            state.ranges.append(byte_range)
            start = int(byte_range[6:].split("-")[0]) if byte_range else 0
            body = state.content[start:]
            self._head(206 if start else 200, len(body))
            try:
                for index in range(0, len(body), 32768):
                    self.wfile.write(body[index:index + 32768])
                    time.sleep(state.delay)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("HF_ENDPOINT", state.url)
    yield state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_the_download_list_starts_on_the_model_recommended_for_this_machine(dialog) -> None:
    best = recommend(dialog.caps, chinese_system(), dialog.bench)
    assert best is not None and dialog.curated.currentData() == best
    assert dialog.curated.currentText().startswith("Recommended for this computer: " + best.label)
    assert (dialog.repo_edit.text(), dialog.file_edit.text()) == (best.repo_id, best.filename)
    others = [dialog.curated.itemText(i) for i in range(dialog.curated.count()) if i != dialog.curated.currentIndex()]
    assert not any(text.startswith("Recommended") for text in others)


def _texts(widget) -> list[str]:
    """Every string a person reads in `widget`: labels, buttons, group titles, tabs, list entries, placeholders."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit, QSpinBox, QTabWidget

    found: list[str] = []
    for child in widget.findChildren(QWidget):
        if not child.isVisibleTo(widget):
            continue
        if isinstance(child, (QLabel, QAbstractButton)):
            found.append(child.text())
        elif isinstance(child, QGroupBox):
            found.append(child.title())
        elif isinstance(child, QTabWidget):
            found.extend(child.tabText(i) for i in range(child.count()))
        elif isinstance(child, QComboBox):
            found.extend(child.itemText(i) for i in range(child.count()))
        elif isinstance(child, QLineEdit):
            found.append(child.placeholderText())
        elif isinstance(child, QSpinBox):
            found.extend([child.specialValueText(), child.suffix()])
    return [t for t in found if t.strip()]


def _untranslated(texts: list[str]) -> list[str]:
    """Texts with English words in them and no Chinese (names of models, formats and products excepted)."""
    import re

    from companion.llm.catalog import CURATED

    names = {w for m in CURATED for w in re.findall(r"[A-Za-z]+", m.label)} | {
        "GGUF", "Hugging", "Face", "OpenAI", "llama", "server", "Ollama", "LM", "Studio", "vLLM", "GPU", "CPU", "GB",
        "RAM", "VRAM", "Vulkan", "Test", "SmolLM", "built", "in", "qwen", "instruct", "gguf", "Qwen", "http", "https",
        "Instruct", "Q", "K", "M", "ok", "yes", "no", "API", "MB", "Hub", "ms", "s", "layers"}
    cjk = re.compile(r"[\u4e00-\u9fff]")
    return [t for t in texts if not cjk.search(t) and set(re.findall(r"[A-Za-z]{2,}", re.sub(r"<[^>]+>", "", t))) - names]


def test_device_layers_and_run_on_choices(make_window, qtbot, scripted):
    scripted.info.n_gpu_layers, scripted.info.total_layers, scripted.info.gpu_name = 31, 31, "Test GPU"
    scripted.info.device = "Test GPU · 31/31 layers"
    window = make_window(scripted)
    caps = Capabilities(gpu_offload=True, gpus=[GpuDevice("Test GPU", 8 * 2**30, 6 * 2**30, "Vulkan")],
                        physical_cores=4, ram_total=16 * 2**30, ram_available=12 * 2**30)
    dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
    qtbot.addWidget(dialog)
    assert dialog.gpu_label.text() == "Test GPU (Vulkan, 6.0 of 8.0 GB free) — now: 31/31 layers on Test GPU"
    choices = [dialog.gpu_mode.itemText(i) for i in range(dialog.gpu_mode.count())]
    assert choices[0].startswith("Auto") and choices[1] == "CPU only" and choices[2].startswith("GPU")
    assert dialog.gpu_mode.isEnabled() and dialog.gpu_mode.currentIndex() == 0  # Auto by default
    dialog.show()
    assert not dialog.gpu_layers.isVisible()
    dialog.gpu_mode.setCurrentIndex(model_settings.CUSTOM)
    dialog.gpu_layers.setValue(10)
    assert dialog.gpu_layers.isVisible() and "10/31 layers on the GPU" in dialog.estimate_label.text()
    assert "words a second here" in dialog.estimate_label.text()


def test_without_a_gpu_the_reason_is_shown_and_the_choice_is_off(make_window, qtbot):
    window = make_window()
    note = "No Vulkan GPU: its driver library could not be loaded (libvulkan.so.1: cannot open shared object file); running on the CPU."
    reason = GpuProbe(False, note=note, reason=devices.DRIVER_MISSING, backend="Vulkan",
                      detail="libvulkan.so.1: cannot open shared object file")
    caps = Capabilities(gpu_offload=False, physical_cores=2, ram_total=8 * 2**30, ram_available=6 * 2**30,
                        gpu_note=note, gpu_reason=reason)
    dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
    qtbot.addWidget(dialog)
    assert dialog.gpu_label.text() == note and not dialog.gpu_mode.isEnabled()
    assert "on the CPU" in dialog.estimate_label.text()


def test_the_download_tab_offers_quantizations_with_badges_and_languages(dialog):
    dialog.tabs.setCurrentIndex(1)
    picker = dialog.catalog
    qwen = next(i for i in range(picker.models.count()) if (picker.models.itemData(i) or None) and picker.models.itemData(i).key == "qwen2.5-1.5b")
    picker.models.setCurrentIndex(qwen)
    quants = [picker.quants.itemText(i) for i in range(picker.quants.count())]
    assert [q.split(":")[0] for q in quants] == ["Q3_K_M", "Q4_K_M", "Q8_0"] and picker.quants.currentIndex() == 1
    assert all(q.endswith("[Fits this computer]") for q in quants)
    assert "Languages: English, Chinese" in picker.details.text() and "words a second here" in picker.details.text()
    picker.quants.setCurrentIndex(2)
    assert dialog.file_edit.text() == "qwen2.5-1.5b-instruct-q8_0.gguf"
    big = [picker.models.itemText(i) for i in range(picker.models.count()) if "Llama 3.1 8B" in picker.models.itemText(i)]
    assert big and big[0].endswith("]")


def test_a_slow_machine_gets_runs_slowly_badges(make_window, qtbot):
    window = make_window()
    caps = Capabilities(gpu_offload=False, physical_cores=1, ram_total=32 * 2**30, ram_available=30 * 2**30)
    dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
    qtbot.addWidget(dialog)
    texts = [dialog.curated.itemText(i) for i in range(dialog.curated.count())]
    assert any(t.endswith("[Runs slowly here]") and "Gemma 4 E4B" in t for t in texts)
    assert not dialog.curated.currentText().startswith("Recommended for this computer: Gemma 4 E4B")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_dialog_fits_a_1366x768_screen(make_window, qtbot, qapp, language):
    from PySide6.QtCore import QLocale

    from companion.ui import app as app_module

    previous = QLocale()
    translators = app_module.install_translators(qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)) if language == "zh" else []
    try:
        window = make_window()
        dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False),
                             Capabilities(gpu_offload=True, gpus=[GpuDevice("Test GPU", 8 * 2**30, 6 * 2**30, "Vulkan")],
                                          physical_cores=4, ram_total=16 * 2**30, ram_available=12 * 2**30))
        qtbot.addWidget(dialog)
        dialog.show()
        hint = dialog.minimumSizeHint()
        assert hint.width() <= 1366 and hint.height() <= model_settings.FIT_HEIGHT, hint
        assert dialog.height() <= model_settings.FIT_HEIGHT and dialog.width() <= 1366
        ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
        assert ok.mapTo(dialog, ok.rect().bottomRight()).y() < dialog.height()
        for source in (dialog.local_radio, dialog.server_radio):
            source.setChecked(True)
            assert dialog.minimumSizeHint().height() <= model_settings.FIT_HEIGHT
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        QLocale.setDefault(previous)


def test_every_string_is_translated_in_a_chinese_session(make_window, qtbot, qapp):
    from PySide6.QtCore import QLocale

    from companion.ui import app as app_module

    zh = QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    previous = QLocale()
    translators = app_module.install_translators(qapp, zh)
    QLocale.setDefault(zh)
    try:
        window = make_window()
        caps = Capabilities(gpu_offload=True, gpus=[GpuDevice("Test GPU", 8 * 2**30, 6 * 2**30, "Vulkan")],
                            physical_cores=4, ram_total=16 * 2**30, ram_available=12 * 2**30)
        dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
        qtbot.addWidget(dialog)
        dialog.show()
        seen = []
        for tab in range(dialog.tabs.count()):
            dialog.tabs.setCurrentIndex(tab)
            seen += _texts(dialog)
        dialog.server_radio.setChecked(True)
        seen += _texts(dialog)
        assert "每秒约" in dialog.catalog.details.text() and "个字" in dialog.catalog.details.text()
        assert _untranslated(seen) == []
        row = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]
        assert row[1] == "SmolLM2 135M（内置）" and row[7:] == ["有", "正常"]
        none = GpuProbe(False, note="-", reason=devices.DRIVER_MISSING, backend="Vulkan", detail="libvulkan.so.1: x")
        no_gpu = ModelDialog(window, KeyStore(window.home, use_keyring=False),
                             Capabilities(physical_cores=2, ram_total=8 * 2**30, gpu_note="-", gpu_reason=none))
        qtbot.addWidget(no_gpu)
        assert no_gpu.gpu_label.text() == "无法使用 Vulkan GPU：无法加载它的驱动库（libvulkan.so.1: x）；改用 CPU 运行。"
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
        QLocale.setDefault(previous)



def test_a_cpu_type_vulkan_device_is_named_and_auto_stays_on_the_cpu(make_window, qtbot):
    import re

    window = make_window()
    lavapipe = GpuDevice("llvmpipe (LLVM 15.0.6, 256 bits)", 32 * 2**30, 30 * 2**30, "Vulkan", cpu_type=True)
    caps = Capabilities(gpu_offload=True, gpus=[lavapipe], physical_cores=2, ram_total=8 * 2**30, ram_available=6 * 2**30)
    plain = Capabilities(physical_cores=2, ram_total=8 * 2**30, ram_available=6 * 2**30)
    dialog = ModelDialog(window, KeyStore(window.home, use_keyring=False), caps)
    without = ModelDialog(window, KeyStore(window.home, use_keyring=False), plain)
    qtbot.addWidget(dialog)
    qtbot.addWidget(without)
    assert dialog.gpu_label.text() == ("llvmpipe (LLVM 15.0.6, 256 bits) is the processor behind a graphics interface, "
                                       "no faster than the CPU; Auto runs on the CPU.")
    assert "on the CPU" in dialog.estimate_label.text()
    speed = lambda text: re.search(r"about ([\d,.]+) words a second", text)  # noqa: E731
    assert speed(dialog.estimate_label.text()) and \
        speed(dialog.estimate_label.text()).group(1) == speed(without.estimate_label.text()).group(1)
