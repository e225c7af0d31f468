"""The About box names the model engine: llama-cpp-python's version and the llama.cpp it was built with."""

from __future__ import annotations

from importlib import metadata

from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from companion.paths import Home
from companion.ui import app as app_module
from companion.ui.about import about_text


def test_about_shows_the_engine_versions(home: Home) -> None:
    text = about_text(home)
    assert "Model engine" in text
    assert f"llama-cpp-python {metadata.version('llama-cpp-python')} (llama.cpp " in text
    assert str(home.models) in text


def test_about_is_translated_on_a_chinese_system(qapp: QApplication, home: Home) -> None:
    translators = app_module.install_translators(qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    try:
        text = about_text(home)
    finally:
        for translator in translators:
            qapp.removeTranslator(translator)
    assert "模型引擎" in text and "llama-cpp-python" in text


def test_about_says_how_recall_finds_memories(home: Home) -> None:
    from companion.agent.recall import Recall
    from companion.memory.longterm import LongTermStore

    recall = Recall(home, LongTermStore(home), embedder=None)  # as where no embedder can run
    try:
        recall.ready.wait(10)
        text = about_text(home, recall.status())
    finally:
        recall.close()
    assert "Recall" in text and "by words only" in text
