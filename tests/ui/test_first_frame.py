"""The app's window paints first; the search index, the model, feature modules and code colours follow."""

from __future__ import annotations

import logging
import sys

import pytest
from PySide6.QtWidgets import QLabel

from companion.memory.daylog import DayLog
from companion.paths import Home
from companion.runtime import open_home
from companion.settings import Settings
from companion.ui.app import open_window
from companion.ui.first_frame import AfterFirstFrame, Preload, Step
from companion.ui.main_window import MainWindow

CODE_REPLY = "Here:\n\n```python\ndef f():\n    return 1\n```"


def _painted_steps(qtbot, steps: list[Step]) -> tuple[QLabel, AfterFirstFrame]:
    label = QLabel("hello")
    qtbot.addWidget(label)
    return label, AfterFirstFrame(label, steps)


def test_steps_wait_for_the_first_paint_then_run_one_per_event_loop_turn(qtbot) -> None:
    ran: list[str] = []
    label, later = _painted_steps(qtbot, [Step(lambda: ran.append("a")), Step(lambda: ran.append("b"))])
    qtbot.wait(50)
    assert ran == [] and not later.done  # nothing before the widget is on screen
    with qtbot.waitSignal(later.finished, timeout=5000):
        label.show()
        qtbot.waitExposed(label)
        assert ran == []  # the frame comes first
    assert ran == ["a", "b"] and later.done


def test_a_failing_step_is_logged_and_the_others_run(qtbot, caplog) -> None:
    ran: list[str] = []

    def broken() -> None:
        raise RuntimeError("no")

    label, later = _painted_steps(qtbot, [Step(broken), Step(lambda: ran.append("after"))])
    with caplog.at_level(logging.ERROR), qtbot.waitSignal(later.finished, timeout=5000):
        label.show()
    assert ran == ["after"]
    assert any("start-up step" in r.getMessage() for r in caplog.records)


def test_a_step_waits_while_it_is_not_ready(qtbot) -> None:
    ran: list[str] = []
    gate = {"open": False}
    label, later = _painted_steps(qtbot, [Step(lambda: ran.append("x"), lambda: gate["open"])])
    label.show()
    qtbot.waitExposed(label)
    qtbot.wait(100)
    assert ran == [] and not later.done
    gate["open"] = True
    qtbot.waitUntil(lambda: later.done, timeout=5000)
    assert ran == ["x"]


def test_run_now_and_cancel(qtbot) -> None:
    ran: list[str] = []
    _label, now = _painted_steps(qtbot, [Step(lambda: ran.append("now"))])
    now.run_now()
    assert ran == ["now"] and now.done
    label, dropped = _painted_steps(qtbot, [Step(lambda: ran.append("never"))])
    dropped.cancel()
    label.show()
    qtbot.waitExposed(label)
    qtbot.wait(50)
    assert ran == ["now"]


def test_preload_imports_on_a_background_thread() -> None:
    name = "email.mime.multipart"  # a module no test has any reason to import
    sys.modules.pop(name, None)
    preload = Preload.imports((name, "companion_no_such_module"))
    assert not preload.ready(name)
    preload.start()
    preload._thread.join(10)
    assert preload.ready(name) and name in sys.modules
    assert preload.ready("companion_no_such_module")  # failed: the step importing it says why
    assert preload.ready("not preloaded at all")


def test_the_highlighter_is_warmed_for_the_languages_on_screen() -> None:
    from companion.ui.code_block import warm_highlighter

    warm_highlighter({"python", "no-such-language"})
    from pygments.lexers.python import PythonLexer

    assert "_tokens" in vars(PythonLexer)  # its rules are compiled: the GUI thread's first block is quick


@pytest.fixture
def code_home(home: Home) -> Home:
    log = DayLog(home.days)
    log.append("user", "show me code")
    log.append("assistant", CODE_REPLY)
    return home


def test_the_app_window_paints_before_recall_the_feature_modules_and_code_colours(qtbot, code_home) -> None:
    window = MainWindow(code_home, Settings(), autoload=False, extensions=("companion.ui.private_toggle",), defer=True)
    qtbot.addWidget(window)
    try:
        recall = window.session.agent.recall
        block = window.chat.messages()[-1].code_blocks()[0]
        assert not recall.started and window.installed_extensions == []
        assert not block.coloured and "def f():" in block.view.toPlainText()  # plain, in its block, at once
        assert window.chat.code_languages() == {"python"}
        with qtbot.waitSignal(window.started, timeout=10_000):
            window.show()
        assert recall.started and window.installed_extensions == ["companion.ui.private_toggle"]
        assert block.coloured and "color:#" in block.view.document().toHtml().replace(" ", "")
        assert window.chat.code_colours_later is False
    finally:
        window.shutdown()


def test_without_defer_everything_is_ready_when_the_window_is_built(qtbot, code_home) -> None:
    window = MainWindow(code_home, Settings(), autoload=False, extensions=("companion.ui.private_toggle",))
    qtbot.addWidget(window)
    try:
        assert window.session.agent.recall.started and window.start_steps.done
        assert window.installed_extensions == ["companion.ui.private_toggle"]
        assert window.chat.messages()[-1].code_blocks()[0].coloured
    finally:
        window.shutdown()


def test_a_window_closed_before_its_first_frame_starts_nothing(qtbot, code_home) -> None:
    window = MainWindow(code_home, Settings(), autoload=False, extensions=("companion.ui.private_toggle",), defer=True)
    qtbot.addWidget(window)
    window.shutdown()
    window.show()
    qtbot.wait(100)
    assert window.installed_extensions == [] and not window.session.agent.recall.started
    window.session.close()  # a scan that never started is not waited for


def test_open_window_is_the_apps_start_path(qtbot, code_home) -> None:
    runtime = open_home(str(code_home.root))
    try:
        window = open_window(runtime, autoload=False)
        qtbot.addWidget(window)
        assert window.isVisible()
        with qtbot.waitSignal(window.started, timeout=20_000):
            pass
        assert window.session.agent.recall.started
        assert "companion.ui.tray" in window.installed_extensions
        window.shutdown()
    finally:
        runtime.close()


def test_the_model_starts_loading_after_the_first_frame(qtbot, code_home) -> None:
    from companion.llm.scripted import ScriptedBackend

    asked: list[object] = []

    def loader(settings: object) -> ScriptedBackend:
        asked.append(settings)
        return ScriptedBackend(["hi"])

    window = MainWindow(code_home, Settings(), loader=loader, extensions=(), defer=True)
    qtbot.addWidget(window)
    try:
        qtbot.wait(100)
        assert asked == [] and window.backend is None
        with qtbot.waitSignal(window.backend_changed, check_params_cb=lambda b: b is not None, timeout=10_000):
            window.show()
        assert len(asked) == 1
    finally:
        window.shutdown()
