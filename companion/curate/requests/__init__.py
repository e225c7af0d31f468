"""What the user asks by rule, in one place: reading "remember", "forget" and "remind me" (`parse`),
carrying them out through the one writer (`handle`), and which timed reminders are due (`reminders`)."""

from companion.curate.requests.handle import MemoryRequests, Outcome, describe_when, forget_everywhere, speaks_chinese
from companion.curate.requests.parse import (
    BootstrapAnswers,
    MemoryRequest,
    ReminderRequest,
    Request,
    bootstrap_answers,
    dated_request,
    memory_request,
    parse_request,
    reminder_request,
    third_person,
)
from companion.curate.requests.reminders import Reminder, ReminderState, due, next_time, timed_reminders, wall_clock

__all__ = [
    "BootstrapAnswers", "MemoryRequest", "MemoryRequests", "Outcome", "Reminder", "ReminderRequest", "ReminderState",
    "Request", "bootstrap_answers", "dated_request", "describe_when", "due", "forget_everywhere", "memory_request",
    "next_time", "parse_request", "reminder_request", "speaks_chinese", "third_person", "timed_reminders", "wall_clock",
]
