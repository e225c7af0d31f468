"""The one renderer loads nothing (images from /dev/zero, file: and smb: stay text) and every link goes
through open_link, in the chat, recalled items, the memory reading view, the journal, History and the report."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument

from companion.ui import links
from companion.ui.render import RichView, SafeDocument, fill_html, fill_markdown, markdown_html

HOSTILE_IMAGES = [
    "![x](/dev/zero)",
    "<img src=/dev/zero>",
    "<img src='file:///dev/zero' width=90000 height=90000>",
    "![s](smb://attacker.example/share/pic.png)",
    "![f](file:///etc/hostname)",
    "<table background=/dev/zero><tr><td background=file:///dev/zero>cell</td></tr></table>",
    '<p style="background-image: url(/dev/zero)">styled</p>',
    "<link rel=stylesheet href=/dev/zero>",
]
HOSTILE_LINKS = ["file:///etc/passwd", "smb://attacker.example/share", "javascript:alert(1)", "ftp://x/y"]
UI = Path(__file__).resolve().parents[2] / "companion" / "ui"


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """Every attempt to leave the app; the question and the refusal are answered without a dialog."""
    seen: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: seen.append(url.toString()) or True)
    monkeypatch.setattr(links, "_refuse", lambda _parent, url: seen.append("refused " + url.toString()))
    monkeypatch.setattr(links, "_ask", lambda _parent, _url: True)
    return seen


def _images(document: QTextDocument) -> int:
    count, block = 0, document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            count += iterator.fragment().charFormat().isImageFormat()
            iterator += 1
        block = block.next()
    return count


@pytest.mark.parametrize("text", HOSTILE_IMAGES)
def test_an_image_in_untrusted_text_is_shown_as_text_and_nothing_is_loaded(qapp, text: str) -> None:
    markdown = fill_markdown(SafeDocument(), f"before {text} after")
    html = fill_html(SafeDocument(), f"<p>before {text} after</p>")
    assert "before" in markdown.toPlainText() and "after" in markdown.toPlainText()  # untrusted text stays text
    for document in (markdown, html):  # html: even markup that was not escaped loads nothing
        assert _images(document) == 0
        assert document.resource(QTextDocument.ResourceType.ImageResource.value, QUrl("/dev/zero")) is None
    if "![" in text:
        assert "[image" in markdown.toPlainText()
    if "<img" in text:
        assert "<img" in markdown.toPlainText()  # HTML in Markdown is shown as written
    tags = re.findall(r"<[^>]+>", markdown_html(text))
    assert not [t for t in tags if re.search(r"^<img|background|url\(|^<link", t, re.I)]


def test_a_real_image_file_beside_the_text_is_not_read(qapp, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    picture = tmp_path / "p.png"
    QImage(4, 4, QImage.Format.Format_RGB32).save(str(picture))
    document = fill_markdown(SafeDocument(), f"![p]({picture}) ![q](p.png)")
    document.setBaseUrl(QUrl.fromLocalFile(str(tmp_path) + "/"))
    assert _images(document) == 0 and document.toPlainText().count("[image") == 2


@pytest.mark.slow
def test_every_view_survives_dev_zero_in_a_fresh_process(tmp_path: Path) -> None:
    """The views themselves, laid out and painted, with a memory cap: a regression fails, never hangs."""
    script = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        from companion.paths import Home
        from companion.memory.setup import ensure_home
        from companion.memory.daylog import DayLog
        from companion.memory.longterm import LongTermStore
        from companion.ui.message_widget import MessageWidget
        from companion.ui.journal_view import JournalView
        from companion.ui.memory_editor import MemoryEditor
        from companion.ui.diff_view import DiffView
        bad = {HOSTILE_IMAGES!r}
        text = "\\n\\n".join(bad)
        from pathlib import Path
        home = Home(Path(sys.argv[1])); ensure_home(home)
        (home.digests / "day").mkdir(parents=True, exist_ok=True)
        (home.digests / "day" / "2026-11-29.md").write_text(text, encoding="utf-8")
        daylog = DayLog(home.days); daylog.append("assistant", text)
        store = LongTermStore(home)
        doc = store.read("MEMORY.md")
        from companion.curate.gate import MemoryWriter
        from companion.memory.history import Actor
        MemoryWriter(store).write("MEMORY.md", doc.raw + "\\n- " + " ".join(bad) + "\\n", actor=Actor.EDITOR,
                                  expected_sha=doc.sha, confirmed=True)
        views = []
        reply = MessageWidget("assistant", text, record_id="2026-11-29#1")
        reply.set_recalled([{{"where": "2026-11-29#1", "text": t}} for t in bad])
        reply.recalled_button.setChecked(True)
        views.append(reply)
        streamed = MessageWidget("assistant")
        for piece in text:
            streamed.append(piece)
        views.append(streamed)
        journal = JournalView(home, daylog); journal.kind.setCurrentIndex(1); journal.list.setCurrentRow(0)
        views.append(journal)
        editor = MemoryEditor(store, "MEMORY.md"); editor.set_view("read"); views.append(editor)
        diff = DiffView(); diff.show_diff("", text, "a", "b"); views.append(diff)
        for view in views:
            view.resize(600, 800); view.show(); view.grab()
        app.processEvents()
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "home")], capture_output=True, text=True,
                         timeout=120, env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


@pytest.mark.parametrize("link", HOSTILE_LINKS)
def test_links_in_every_view_go_through_open_link(qapp, opened: list[str], link: str) -> None:
    from companion.ui.message_widget import MessageWidget

    view = RichView()
    view.set_markdown(f"[click]({link})")
    view.anchorClicked.emit(QUrl(link))
    card = MessageWidget("assistant", f"[click]({link})")
    card.part_widgets()[0].linkActivated.emit(link)
    assert opened == [f"refused {QUrl(link).toString()}"] * 2
    assert not view.openExternalLinks() and not view.openLinks()


def test_a_web_link_opens_only_through_open_link_and_a_citation_stays_inside(qapp, opened: list[str]) -> None:
    view = RichView()
    cited: list[str] = []
    view.record_clicked.connect(cited.append)
    view.anchorClicked.emit(QUrl("https://example.org/a"))
    view.anchorClicked.emit(QUrl("record:2026-11-29#17"))
    assert opened == ["https://example.org/a"] and cited == ["2026-11-29#17"]


def test_a_fake_citation_to_smb_in_the_memory_preview_is_refused(qapp, home, opened: list[str]) -> None:
    from companion.curate.gate import MemoryWriter
    from companion.memory.history import Actor
    from companion.memory.longterm import LongTermStore
    from companion.memory.setup import ensure_home
    from companion.ui.memory_editor import MemoryEditor

    ensure_home(home)
    store = LongTermStore(home)
    doc = store.read("MEMORY.md")
    MemoryWriter(store).write("MEMORY.md", doc.raw + "\n- A fact [2026-11-29#17](smb://attacker.example/x)\n",
                              actor=Actor.EDITOR, expected_sha=doc.sha, confirmed=True)
    editor = MemoryEditor(store, "MEMORY.md")
    editor.set_view("read")
    cited: list[str] = []
    editor.citation_clicked.connect(cited.append)
    editor.preview.anchorClicked.emit(QUrl("smb://attacker.example/x"))
    assert opened == ["refused smb://attacker.example/x"] and cited == []


def test_the_journal_never_opens_links_itself(qapp, home) -> None:
    from companion.memory.daylog import DayLog
    from companion.ui.journal_view import JournalView

    journal = JournalView(home, DayLog(home.days))
    assert not journal.view.openExternalLinks() and not journal.view.openLinks()
    assert isinstance(journal.view.document(), SafeDocument)


def test_no_view_bypasses_the_renderer_or_the_link_handler() -> None:
    """The doors: rich text is built in render.py, and only links.py leaves the app."""
    rules = {
        r"QTextBrowser\(": "render.py",
        r"TextFormat\.MarkdownText": "render.py",
        r"setOpenExternalLinks\(True\)": "",
        r"openUrl\(": "links.py",
    }
    for path in UI.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for pattern, home in rules.items():
            if re.search(pattern, source):
                assert path.name == home, f"{path.name} uses {pattern}: go through render.py / links.py"


def test_history_shows_the_two_versions_side_by_side(qapp) -> None:
    from companion.ui.diff_view import DiffView, side_by_side_rows

    old = "\n".join(f"line {i}" for i in range(40)) + "\n- Likes tea <img src=/dev/zero>\n"
    new = "\n".join(f"line {i}" for i in range(40)) + "\n- Likes coffee\n- Plays chess\n"
    rows = side_by_side_rows(old, new)
    assert rows[0][2].startswith("fold:")  # 37 unchanged lines folded, three kept for context
    changed = [r for r in rows if r[2] != "same" and not r[2].startswith("fold")]
    assert changed == [("- Likes tea <img src=/dev/zero>", "- Likes coffee", "changed"), (None, "- Plays chess", "added")]
    view = DiffView()
    view.show_diff(old, new, "now", "then")
    text = view.toPlainText()
    assert "<img src=/dev/zero>" in text and "Plays chess" in text and "unchanged lines" in text
    assert view.document().toHtml().count("<table") == 1
