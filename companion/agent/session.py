"""The chat session: the one owner of the model, for the app and for `companion chat`."""

from __future__ import annotations

import logging
import threading
import weakref
from datetime import datetime
from typing import Callable, Iterator

from companion.agent.events import TurnEvent
from companion.curate.requests import forget_everywhere
from companion.agent.tools import ToolResult
from companion.agent.recall import AUTO
from companion.agent.turn import Agent
from companion.llm.base import Backend, ModelInfo
from companion.llm.embed import Embedder
from companion.llm.priority import BackgroundView, SharedBackend
from companion.memory.daylog import DayLog, now_local
from companion.memory.forget import Erased
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.memory.search.find import find_turns
from companion.paths import Home
from companion.settings import ModelSettings, Settings

log = logging.getLogger(__name__)

Loader = Callable[[ModelSettings], Backend]


def default_loader(home: Home) -> Loader:
    """Load the configured model (a model server's API key is kept under this home's state/)."""

    def load(settings: ModelSettings) -> Backend:
        from companion.llm.loader import load_backend

        return load_backend(settings, home=home)  # type: ignore[no-any-return]

    return load


class ChatSession:
    """Loads, replaces and closes the one model and hands out its views.

    Chat (the agent) gets the foreground view; daytime learning and the sleep job get background
    views that yield to chat. Replacing or closing the model stops background work first. Safe to
    call from any thread; the agent's turns run on one thread at a time."""

    def __init__(
        self,
        home: Home,
        settings: Settings,
        *,
        loader: Loader | None = None,
        clock: Callable[[], datetime] = now_local,
        store: LongTermStore | None = None,
        daylog: DayLog | None = None,
        embedder: Embedder | None | object = AUTO,
        start_recall: bool = True,
    ) -> None:
        """start_recall=False: the search index's start-up scan and the embedder wait for `start_recall()`
        (the app's window is on screen first); a recall asked for earlier starts them."""
        self.home = home
        self.settings = settings
        self.loader = loader or default_loader(home)
        self._lock = threading.RLock()
        self._shared: SharedBackend | None = None
        self._views: weakref.WeakSet[BackgroundView] = weakref.WeakSet()
        self.agent = Agent(home, None, settings, clock=clock, store=store, daylog=daylog, background=self.background,
                           embedder=embedder, start_recall=start_recall)

    def start_recall(self) -> None:
        """Start keeping the search index in step and load the embedder, in the background (once)."""
        self.agent.recall.start()

    def set_private(self, on: bool) -> int:
        """Pause memory for the turns that follow (True) or resume it; returns how many turns stayed private."""
        privacy = self.agent.privacy
        if on:
            privacy.start(self.agent.clock())
            return 0
        return privacy.stop()

    @property
    def private(self) -> bool:
        return self.agent.privacy.on

    # -- the model ---------------------------------------------------------------

    @property
    def info(self) -> ModelInfo | None:
        """The loaded model's description, or None while none is loaded."""
        shared = self._shared
        return shared.info if shared is not None else None

    @property
    def loaded(self) -> bool:
        return self._shared is not None

    def load(self, settings: ModelSettings | None = None) -> ModelInfo:
        """Close the current model (background work first), then load and hand out the configured one.
        Raises CompanionError (and whatever a native loader raises) with no model loaded."""
        self.close_model()
        backend = self.loader(settings or self.settings.model)
        self.adopt(backend)
        return backend.info

    def adopt(self, backend: Backend, *, owned: bool = True) -> None:
        """Use an already loaded backend. owned=False: closing the session leaves it open (tests, demos)."""
        with self._lock:
            self.close_model()
            self._shared = SharedBackend(backend, owns_inner=owned)
            self.agent.backend = self._shared.foreground()

    def background(self) -> Backend | None:
        """A view of the model that yields to chat, for background work; None while no model is loaded.
        Closing or replacing the model cancels it."""
        with self._lock:
            if self._shared is None:
                return None
            view = self._shared.background()
            self._views.add(view)
            return view

    def stop_background(self) -> None:
        """Cancel every background use of the model and wait for daytime learning to stop."""
        for view in list(self._views):
            view.cancel()
        self.agent.stop_background()

    def close_model(self) -> None:
        """Stop background work, then close the model; chat sees no model until the next load."""
        with self._lock:
            shared, self._shared = self._shared, None
            self.agent.backend = None
        if shared is None:
            return
        self.stop_background()
        try:
            shared.close()  # waits for a generation in progress to stop
        except Exception:  # a native close error must not keep the app from quitting
            log.exception("closing the model failed")

    def close(self) -> None:
        """Close the model and the search index (the session is not used again)."""
        self.close_model()
        self.agent.recall.close()

    def find(self, text: str) -> list[str]:
        """Record ids of the turns that contain `text`, newest first (find in the conversation)."""
        return find_turns(self.agent.recall.index, text)

    def recall_status(self) -> str:
        """One line for the About box: how recall finds memories (by words only, or words and meaning)."""
        return self.agent.recall.status()

    def system_prompt(self) -> str:
        """The system prompt the model gets now (instructions, persona, profile, memory)."""
        return self.agent.system_prompt()

    def delete(self, record_id: str) -> Record:
        """Take a message back. Logged as an event: the text stays in the day log (append-only) until
        the night, but no prompt, recall or night's learning uses it again."""
        return self.agent.daylog.append("event", "Deleted a message.", deletes=record_id)

    def choose_version(self, record_id: str) -> Record:
        """Make this version of a regenerated reply the one that counts (history, learning)."""
        return self.agent.daylog.append("event", "Chose a version of a reply.", chooses=record_id)

    # -- the steps around a turn ---------------------------------------------------

    def learn(self) -> None:
        """Daytime learning from the exchange that just ended (rules at once, the model in the background)."""
        self.agent.learn_after_turn()

    def warm(self) -> None:
        """Evaluate the stable prompt prefix so the next reply starts fast (chat's view: under the shared lock)."""
        self.agent.warm()

    def read_ahead(self, draft: str) -> bool:
        """The user paused typing: read the prompt this draft would make, so sending it starts fast."""
        return self.agent.read_ahead(draft)

    def cancel(self) -> None:
        """Stop the reply in progress within a token (any thread)."""
        self.agent.cancel()

    def user_active(self) -> None:
        """The user is typing: background work holds still (the reply will want the cores)."""
        shared = self._shared
        if shared is not None:
            shared.user_active()

    # -- what the window asks of the agent (the UI talks to the session, never to its parts) -----------

    @property
    def backend(self) -> Backend | None:
        """Chat's view of the model, None while none is loaded."""
        return self.agent.backend

    def run_turn(self, text: str) -> Iterator[TurnEvent]:
        return self.agent.run_turn(text)

    def regenerate(self) -> Iterator[TurnEvent]:
        return self.agent.regenerate()

    def apply_tool(self, proposal: ToolResult) -> ToolResult:
        """Apply a tool change that waited for the user's approval."""
        return self.agent.tools.apply(proposal)

    def undo_tool(self, result: ToolResult) -> str:
        """Undo a tool change; the note says what was restored."""
        return self.agent.tools.undo(result)

    def log_event(self, text: str) -> None:
        """Note in today's log what the user did around a turn ("Applied the proposed change to SOUL.md.")."""
        self.agent.daylog.append("event", text)

    def forget_everywhere(self, what: str, *, dry_run: bool = False, wait: float | None = None) -> Erased | None:
        """Erase what a "forget" named from past conversations, digests, versions, backups and the index
        (`wait`: at most this many seconds for a night step or an import, then MemoryBusyError)."""
        agent = self.agent
        return forget_everywhere(agent.store, what, agent.daylog, agent.recall.index, dry_run=dry_run, wait=wait)
