"""Sleep in the app: menu, catch-up of a missed night, chat-first model sharing, report with undo."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

import pytest
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QWidget

from companion.agent.session import ChatSession
from companion.llm.priority import BackgroundView, ForegroundView
from companion.llm.scripted import ScriptedBackend
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.settings import Settings
from companion.sleep.cursor import Cursor
from companion.sleep.model_check import PROBE_DAY
from companion.sleep.report import ReportStore
from companion.ui.sleep_glue import ReportDialog, SleepController
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

TZ = timezone(timedelta(hours=1))


class FakeWindow(QMainWindow):
    """The main window's extension API (WindowAPI), on a real chat session."""

    backend_changed = Signal(object)
    settings_changed = Signal()
    busy_changed = Signal(bool)
    closing = Signal()

    def __init__(self, home: Home, settings: Settings, clock: Callable[[], datetime]) -> None:
        super().__init__()
        self.home = home
        self.settings = settings
        self.store = LongTermStore(home)
        self.session = ChatSession(home, settings, clock=clock, store=self.store)
        self.messages: list[str] = []
        self.status_widgets: list[QLabel] = []
        self._menus: dict[str, QMenu] = {}

    @property
    def widget(self) -> QWidget:
        return self

    def reload_model(self) -> None:
        raise AssertionError("the sleep glue never reloads the model")

    def menu(self, title: str) -> QMenu:
        return self._menus.setdefault(title, self.menuBar().addMenu(title))

    def show_message(self, text: str, timeout_ms: int = 5000) -> None:
        self.messages.append(text)

    def add_status_widget(self, widget: QLabel) -> None:
        self.status_widgets.append(widget)
        self.statusBar().addPermanentWidget(widget)



@pytest.fixture
def log_day(home: Home) -> Callable[..., None]:
    def write(day: int, *texts: str) -> None:
        now = [datetime(2024, 5, day, 10, 0, tzinfo=TZ)]
        log = DayLog(home.days, lambda: now[0])
        for text in texts:
            log.append("user", text)
            now[0] += timedelta(minutes=1)

    return write


@pytest.fixture
def make(qtbot, home: Home) -> Iterator[Callable[..., tuple[FakeWindow, SleepController]]]:  # type: ignore[no-untyped-def]
    made: list[SleepController] = []

    def build(
        now: datetime, settings: Settings | None = None, delay: int = 0, quiet_s: float = 0.0
    ) -> tuple[FakeWindow, SleepController]:
        window = FakeWindow(home, settings or Settings(), lambda: now)
        qtbot.addWidget(window)
        controller = SleepController(window, clock=lambda: now, catch_up_delay_ms=delay, chat_quiet_s=quiet_s)
        made.append(controller)
        return window, controller

    yield build
    for controller in made:
        controller.shutdown()
        assert not controller.running


def test_missed_night_runs_once_at_start(qtbot, make, log_day, home: Home) -> None:  # type: ignore[no-untyped-def]
    log_day(13, "I'm allergic to shellfish.", "I live in Lyon.")
    now = datetime(2024, 5, 15, 9, 0, tzinfo=TZ)  # the app was closed at 03:00
    window, controller = make(now)
    with qtbot.waitSignal(controller.finished, timeout=20_000) as blocker:
        pass
    report = blocker.args[0]
    assert report.days == ["2024-05-13"] and len(report.applied()) == 2
    assert "Allergic to shellfish" in window.store.read("USER.md").body
    assert window.messages[-1].startswith("Sleep: 2 changes")
    assert controller.dialog.isVisible()  # the morning report shows itself
    assert Cursor.load(home.state / "sleep_cursor.json").last_run == now.isoformat(timespec="seconds")
    next_run = controller.next_run_time()
    assert next_run is not None and (next_run.hour, next_run.minute) == (3, 0)

    _window2, again = make(now + timedelta(hours=2))  # next start the same day: nothing is due
    qtbot.wait(200)
    assert not again.running and again._job is None


def test_sleep_now_from_the_memory_menu(qtbot, make, log_day) -> None:  # type: ignore[no-untyped-def]
    now = datetime(2024, 5, 15, 2, 0, tzinfo=TZ)
    window, controller = make(now, delay=10_000_000)
    log_day(14, "My sister is called Lea.")
    action = next(a for a in window.menu("&Memory").actions() if a.text() == "Sleep now")
    with qtbot.waitSignal(controller.finished, timeout=20_000):
        action.trigger()
        assert action.text() == "Stop sleeping" and window.status_widgets[0].isVisibleTo(window)
    assert action.text() == "Sleep now"
    assert "Sister: Lea" in window.store.read("USER.md").body


def test_chat_gets_the_foreground_view_and_sleep_the_background(qtbot, make, log_day) -> None:  # type: ignore[no-untyped-def]
    window, controller = make(datetime(2024, 5, 15, 2, 0, tzinfo=TZ), delay=10_000_000)
    probe_answer = {"ops": [{"op": "add", "section": "Profile", "text": "Allergic to peanuts", "sources": [f"{PROBE_DAY}#3"]}]}
    backend = ScriptedBackend([probe_answer], default='{"ops": []}')  # the model passes the night's check
    window.session.adopt(backend)
    assert isinstance(window.session.agent.backend, ForegroundView)
    log_day(14, "I have a cat named Tom and she is old")
    with qtbot.waitSignal(controller.finished, timeout=20_000):
        controller.run_now()
    assert len(backend.prompts) >= 3  # the check, then the model path, through the shared model
    assert all(options.background for options in backend.options)
    assert isinstance(controller._job.backend, BackgroundView)
    window.session.close_model()  # what the app does when it unloads the model
    assert backend.closed


def test_report_dialog_undo_entry_and_all(qtbot, make, log_day, home: Home) -> None:  # type: ignore[no-untyped-def]
    log_day(13, "I'm allergic to shellfish.", "I live in Lyon.", "I prefer tea.")
    window, controller = make(datetime(2024, 5, 15, 9, 0, tzinfo=TZ))
    with qtbot.waitSignal(controller.finished, timeout=20_000) as blocker:
        pass
    dialog: ReportDialog = controller.dialog
    assert dialog.list.count() == 3
    dialog.list.setCurrentRow(0)
    assert dialog.undo_button.isEnabled()
    dialog.undo_selected()
    assert "Allergic to shellfish" not in window.store.read("USER.md").body
    assert "(undone)" in dialog.list.item(0).text() and not dialog.undo_button.isEnabled()
    dialog.undo_all()
    body = window.store.read("USER.md").body
    assert "Lives in Lyon" not in body and "Prefers tea" not in body
    assert not dialog.undo_all_button.isEnabled()
    saved = ReportStore(home).load(blocker.args[0].id)
    assert saved.seen and sorted(saved.undone) == [0, 1, 2]


def test_disabled_schedule_does_nothing(qtbot, make, log_day) -> None:  # type: ignore[no-untyped-def]
    log_day(13, "I'm allergic to shellfish.")
    settings = Settings()
    settings.sleep.enabled = False
    _window, controller = make(datetime(2024, 5, 15, 9, 0, tzinfo=TZ), settings)
    qtbot.wait(200)
    assert controller.schedule is None and not controller.running


def test_installs_into_the_real_main_window(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    backend = ScriptedBackend()
    window = make_window(extensions=("companion.ui.sleep_glue",))
    assert "companion.ui.sleep_glue" in window.installed_extensions
    with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None):
        window.use_backend(backend)
    assert isinstance(window.agent.backend, ForegroundView)
    texts = [a.text() for a in window.menu("&Memory").actions()]
    assert "Sleep now" in texts and "What I learned last night…" in texts
    window.sleep_controller.shutdown()


def test_status_bar_shows_the_next_sleep_and_follows_preferences(qtbot, tmp_path):
    from companion.ui.main_window import MainWindow
    from companion.memory.setup import ensure_home
    from companion.paths import Home
    from companion.settings import Settings

    home = Home(tmp_path / "h")
    ensure_home(home)
    settings = Settings()
    window = MainWindow(home, settings)
    qtbot.addWidget(window)
    glue = window.sleep_controller
    assert glue.next_label.text().startswith("Next sleep") and "03:00" in glue.next_label.text()
    settings.sleep.time = "04:15"
    window.settings_changed.emit()
    assert "04:15" in glue.next_label.text()
    settings.sleep.enabled = False
    window.settings_changed.emit()
    assert glue.next_label.text() == "Nightly sleep off"
    window.close()


def test_typing_in_the_composer_holds_background_work(qtbot, make_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window = make_window(ScriptedBackend(), extensions=("companion.ui.sleep_glue",))
    presses: list[int] = []
    monkeypatch.setattr(window.session, "user_active", lambda: presses.append(1))
    qtbot.keyClicks(window.composer.edit, "hi")
    assert len(presses) == 2  # one signal per key press
    window.sleep_controller.shutdown()


def test_a_brand_new_home_never_catches_up_and_chat_is_never_interrupted(qtbot, make, home: Home) -> None:  # type: ignore[no-untyped-def]
    """The first start: the greeting and today's chat are not a missed night, even past the sleep time."""
    now = datetime(2024, 5, 15, 9, 0, tzinfo=TZ)
    log = DayLog(home.days, lambda: now)
    log.append("assistant", "Hi! I'm your new companion.", greeting=True)
    log.append("user", "I'm Ana and I live in Lyon.")
    window, controller = make(now + timedelta(minutes=5))
    qtbot.wait(200)
    assert not controller.running and controller._job is None


def test_a_due_run_waits_until_chat_has_been_quiet(qtbot, make, log_day) -> None:  # type: ignore[no-untyped-def]
    log_day(13, "I'm allergic to shellfish.")
    window, controller = make(datetime(2024, 5, 15, 9, 0, tzinfo=TZ), delay=50, quiet_s=0.5)
    window.busy_changed.emit(True)  # the user is chatting when the missed night comes due
    qtbot.wait(400)
    assert not controller.running and controller._job is None
    window.busy_changed.emit(False)
    with qtbot.waitSignal(controller.finished, timeout=20_000):
        pass  # it runs once chat has been quiet for quiet_s


def test_quitting_stops_a_run_before_the_model_closes(qtbot, make, log_day) -> None:  # type: ignore[no-untyped-def]
    window, controller = make(datetime(2024, 5, 15, 2, 0, tzinfo=TZ), delay=10_000_000)
    backend = ScriptedBackend(default='{"ops": []}', delay=0.05)
    window.session.adopt(backend)
    log_day(14, *[f"I have a cat named Tom number {n}" for n in range(30)])
    controller.run_now()
    qtbot.waitUntil(lambda: len(backend.prompts) >= 1, timeout=10_000)
    window.closing.emit()
    assert not controller.running
    window.session.close_model()
    assert backend.closed


def test_report_dialog_says_how_the_night_ran_and_what_it_cost(qtbot, home: Home) -> None:  # type: ignore[no-untyped-def]
    from companion.sleep.distill import ModelStats
    from companion.sleep.report import SleepReport, cost_summary

    report = SleepReport("r1", "2024-05-15T03:00:00", notes=["Rules only: Tiny is too small to distill memory reliably."])
    report.stats = cost_summary({"USER.md": ModelStats(calls=2, prompt_tokens=900, generated_tokens=120, seconds=4.2)}, 5.0)
    dialog = ReportDialog(report, LongTermStore(home), ReportStore(home))
    qtbot.addWidget(dialog)
    text = dialog.cost.text()
    assert text.splitlines() == [
        "Rules only: Tiny is too small to distill memory reliably.",
        "USER.md: 4.2 s, 2 model calls, 900 prompt + 120 generated tokens",
        "Whole run: 5.0 s",
    ]


def test_report_dialog_lists_the_nightly_audit_with_undo(qtbot, home: Home) -> None:  # type: ignore[no-untyped-def]
    from companion.sleep.report import SleepReport

    store = LongTermStore(home)
    MemoryWriter(store).append("USER.md", "- Lives in Leeds (2024-05-01#1)\n- Lives in York (2024-05-10#1)", "## Profile", actor=Actor.EDITOR)
    report = SleepReport("r2", "2024-05-15T03:00:00", days=["2024-05-14"])
    report.outcomes = MemoryWriter(store).audit(datetime(2024, 5, 15).date())
    dialog = ReportDialog(report, store, ReportStore(home))
    qtbot.addWidget(dialog)
    assert dialog.list.item(0).text() == "USER.md · No longer true: Lives in Leeds (contradicted by: Lives in York)"
    dialog.list.setCurrentRow(0)
    dialog.undo_selected()
    assert "- Lives in Leeds (2024-05-01#1)" in store.read("USER.md").body.splitlines()
