"""Two versions of a text side by side: removed lines red on the left, added lines green on the right,
long unchanged runs folded; rendered by the one renderer."""

from __future__ import annotations

import difflib
import html

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from companion.ui.render import RichView

CONTEXT = 3  # unchanged lines kept around a change; longer unchanged runs are folded
REMOVED = "rgba(198,40,40,0.22)"  # readable on light and dark backgrounds
ADDED = "rgba(46,125,50,0.22)"


def _cell(line: str | None, background: str = "") -> str:
    style = f' style="background-color:{background}"' if background and line is not None else ""
    text = html.escape(line) if line else "&nbsp;"
    return f"<td width='50%'{style}><pre style='margin:0; white-space:pre-wrap'>{text}</pre></td>"


def _fold(count: int) -> str:
    label = QCoreApplication.translate("DiffView", "… %1 unchanged lines …").replace("%1", str(count))
    return f"<tr><td colspan='2' align='center' style='color:gray'><i>{html.escape(label)}</i></td></tr>"


def side_by_side_rows(old: str, new: str) -> list[tuple[str | None, str | None, str]]:
    """(left line, right line, kind) with kind 'same', 'removed', 'added', 'changed' or 'fold:N'."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[tuple[str | None, str | None, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            same = list(zip(a[i1:i2], b[j1:j2]))
            if len(same) > 2 * CONTEXT + 1:
                keep_head = [] if not rows else same[:CONTEXT]
                keep_tail = same[-CONTEXT:] if i2 < len(a) or j2 < len(b) else []
                rows += [(x, y, "same") for x, y in keep_head]
                rows.append((None, None, f"fold:{len(same) - len(keep_head) - len(keep_tail)}"))
                rows += [(x, y, "same") for x, y in keep_tail]
            else:
                rows += [(x, y, "same") for x, y in same]
            continue
        left, right = a[i1:i2], b[j1:j2]
        for index in range(max(len(left), len(right))):
            x = left[index] if index < len(left) else None
            y = right[index] if index < len(right) else None
            kind = "changed" if x is not None and y is not None else ("removed" if y is None else "added")
            rows.append((x, y, kind))
    return rows


def diff_html(old: str, new: str, old_label: str, new_label: str) -> str:
    """The two texts as an HTML table we build (every line escaped)."""
    rows = side_by_side_rows(old, new)
    if all(kind == "same" or kind.startswith("fold") for *_lines, kind in rows):
        return "<p><i>" + html.escape(QCoreApplication.translate("DiffView", "No differences.")) + "</i></p>"
    out = ["<table width='100%' cellspacing='0' cellpadding='2'>",
           f"<tr><th align='left'>{html.escape(old_label)}</th><th align='left'>{html.escape(new_label)}</th></tr>"]
    for left, right, kind in rows:
        if kind.startswith("fold:"):
            out.append(_fold(int(kind[5:])))
            continue
        out.append("<tr>" + _cell(left, REMOVED if kind in ("removed", "changed") else "")
                   + _cell(right, ADDED if kind in ("added", "changed") else "") + "</tr>")
    out.append("</table>")
    return "".join(out)


class DiffView(RichView):
    def show_diff(self, old: str, new: str, old_label: str, new_label: str) -> list[tuple[str | None, str | None, str]]:
        self.set_html(diff_html(old, new, old_label, new_label))
        return side_by_side_rows(old, new)


class DiffDialog(QDialog):
    def __init__(self, title: str, old: str, new: str, old_label: str, new_label: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(900, 560)
        layout = QVBoxLayout(self)
        self.view = DiffView()
        self.view.show_diff(old, new, old_label, new_label)
        layout.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
