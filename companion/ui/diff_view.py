"""A read-only unified diff between two texts, added lines green and removed lines red."""

from __future__ import annotations

import difflib
import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from companion.ui.render import RichView


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=old_label, tofile=new_label
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def diff_html(diff: str) -> str:
    """The diff as HTML for a QTextBrowser (colors readable on light and dark backgrounds)."""
    if not diff:
        return "<p><i>No differences.</i></p>"
    rows = []
    for line in diff.splitlines():
        escaped = html.escape(line) or "&nbsp;"
        if line.startswith(("+++", "---")):
            rows.append(f"<b>{escaped}</b>")
        elif line.startswith("+"):
            rows.append(f'<span style="background:#2e7d3233">{escaped}</span>')
        elif line.startswith("-"):
            rows.append(f'<span style="background:#c6282833">{escaped}</span>')
        elif line.startswith("@@"):
            rows.append(f'<span style="color:#5c6bc0">{escaped}</span>')
        else:
            rows.append(escaped)
    return '<pre style="white-space:pre-wrap">' + "\n".join(rows) + "</pre>"


class DiffView(RichView):
    def show_diff(self, old: str, new: str, old_label: str, new_label: str) -> str:
        diff = unified_diff(old, new, old_label, new_label)
        self.set_html(diff_html(diff))
        return diff


class DiffDialog(QDialog):
    def __init__(self, title: str, old: str, new: str, old_label: str, new_label: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(720, 520)
        layout = QVBoxLayout(self)
        self.view = DiffView()
        self.view.show_diff(old, new, old_label, new_label)
        layout.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
