"""Memory tool changes in the chat: Undo for a change a tool made, Apply for one it only proposed."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QToolButton

from companion.agent.tools import ToolResult, describe_change
from companion.errors import CompanionError
from companion.memory.daylog import DayLog
from companion.ui.message_widget import MessageWidget


def _tr(text: str) -> str:
    return QCoreApplication.translate("ToolActions", text)


class ToolChanges(Protocol):
    """What the buttons ask of the chat session."""

    def apply_tool(self, proposal: ToolResult) -> ToolResult: ...

    def undo_tool(self, result: ToolResult) -> str: ...


class ToolActions:
    """Keeps one tool message's buttons in step with what happened to its change."""

    def __init__(self, widget: MessageWidget, result: ToolResult, tools: ToolChanges, daylog: DayLog) -> None:
        self.widget = widget
        self.result = result
        self.tools = tools
        self.daylog = daylog
        self.apply_button: QToolButton | None = None
        self.undo_button: QToolButton | None = None
        if result.proposed:
            widget.set_text(_tr("Proposed change to %1\nNot applied: %2.")
                            .replace("%1", describe_change(result)).replace("%2", result.proposed))
            self.apply_button = widget.add_action(_tr("Apply"), _tr("Make this change to the memory file"), self.apply)
        elif result.undo is not None:
            widget.set_text(_tr("Changed %1").replace("%1", describe_change(result)))
            self._offer_undo()

    def _offer_undo(self) -> None:
        self.undo_button = self.widget.add_action(
            _tr("Undo"), _tr("Put the file back as it was before this change"), self.undo)

    def apply(self) -> None:
        applied = self.tools.apply_tool(self.result)
        if applied.undo is None:
            self.widget.set_note(applied.output.removeprefix("Error: "))
            return
        self.result = applied
        self.daylog.append("event", f"Applied the proposed change to {applied.undo.file}.")
        if self.apply_button is not None:
            self.apply_button.hide()
        self.widget.set_note(_tr("applied"))
        self._offer_undo()

    def undo(self) -> None:
        try:
            note = self.tools.undo_tool(self.result)
        except CompanionError as exc:
            self.widget.set_note(str(exc))
            return
        self.daylog.append("event", note)
        if self.undo_button is not None:
            self.undo_button.hide()
        self.widget.set_note(_tr("undone"))


def attach(widget: MessageWidget, result: object, tools: ToolChanges, daylog: DayLog) -> ToolActions | None:
    """Buttons for a tool message whose call changed, or proposed to change, a memory file."""
    if not isinstance(result, ToolResult) or not (result.proposed or result.undo is not None):
        return None
    actions = ToolActions(widget, result, tools, daylog)
    widget.tool_actions = actions  # type: ignore[attr-defined]  # lives as long as its widget
    return actions
