"""What the user's other assistants may read of the memory, and how (the MCP server's core, no SDK).

Every answer is built here: only what the user allowed that agent (settings `[sharing]`, nothing
by default), never a private turn, secrets always masked, contact details masked unless allowed.
Writing is only ever a proposal for the user. Every request is logged in the day log as an event
naming the agent, the tool and how many items it got, so the user sees who asked what."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Callable

from companion.agent.recall import Recall, names_in
from companion.curate.proposals import ProposalQueue
from companion.curate.sensitive import mask
from companion.errors import CompanionError, SharingError
from companion.memory import entries as E
from companion.memory import sections
from companion.memory.daylog import DayLog, now_local
from companion.memory.longterm import LongTermStore
from companion.memory.search import SearchIndex
from companion.paths import Home
from companion.settings import Settings

SCOPES = {
    "search": "search past conversations, memory files and digests",
    "profile": "read the profile (USER.md)",
    "memory": "read the long-term memory (MEMORY.md) with the profile",
    "digests": "read recent day and week digests",
    "upcoming": "read what is upcoming",
    "contacts": "see contact details (email, phone, address) unmasked",
    "propose": "propose memories, which wait for your approval",
}
READ_SCOPES = ("search", "profile", "memory", "digests", "upcoming")
_AGENT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,39}$")
MAX_RESULTS = 20
MAX_DIGESTS = 14
_WAIT_S = 30.0


def check_agent(name: str) -> str:
    if not isinstance(name, str) or not _AGENT.match(name):
        raise SharingError("An agent name is 1-40 characters: lowercase letters, digits, '.', '_' or '-'.")
    return name


def parse_grants(lines: list[str]) -> dict[str, frozenset[str]]:
    """settings `[sharing] agents` ("claude-desktop: search profile") -> agent -> scopes (unknown ones dropped)."""
    grants: dict[str, frozenset[str]] = {}
    for line in lines:
        name, _, rest = line.partition(":")
        name = name.strip()
        if _AGENT.match(name):
            grants[name] = frozenset(s for s in rest.replace(",", " ").split() if s in SCOPES)
    return grants


def format_grants(grants: dict[str, frozenset[str]]) -> list[str]:
    return [f"{name}: {' '.join(s for s in SCOPES if s in scopes)}" for name, scopes in sorted(grants.items())]


def allow(settings: Settings, agent: str, scopes: set[str]) -> None:
    """Set what `agent` may see (an empty set takes everything back)."""
    unknown = scopes - set(SCOPES)
    if unknown:
        raise SharingError(f"Unknown scope(s) {', '.join(sorted(unknown))}; known: {', '.join(SCOPES)}.")
    grants = parse_grants(settings.sharing.agents)
    grants[check_agent(agent)] = frozenset(scopes)
    settings.sharing.agents = format_grants({k: v for k, v in grants.items() if v})


@dataclass(frozen=True)
class Served:
    """One answer: what the agent gets, and how many items it holds (for the log)."""

    data: Any
    items: int


class MemoryShare:
    """The memory as other agents see it. One per server process; safe to call from several threads."""

    def __init__(self, home: Home, settings: Settings, *, clock: Callable[[], datetime] = now_local,
                 index: SearchIndex | None = None) -> None:
        self.home = home
        self.settings = settings
        self.clock = clock
        self.store = LongTermStore(home)
        self.daylog = DayLog(home.days, clock)
        self.queue = ProposalQueue(home, clock)
        self._recall: Recall | None = None
        self._index = index
        self._lock = threading.Lock()  # one search at a time on the one index connection

    def scopes(self, agent: str) -> frozenset[str]:
        return parse_grants(self.settings.sharing.agents).get(agent, frozenset())

    def _require(self, agent: str, scope: str) -> frozenset[str]:
        scopes = self.scopes(agent)
        if scope not in scopes:
            raise SharingError(
                f"The user has not allowed '{agent}' to {SCOPES[scope]}. They can allow it in Companion: "
                f"Connect another assistant, or `companion mcp allow {agent} {scope}`.")
        return scopes

    def _clean(self, text: str, scopes: frozenset[str]) -> str:
        return mask(text, keep_contacts="contacts" in scopes)

    def _log(self, agent: str, tool: str, items: int, detail: str = "") -> str:
        about = f" ({self._clean(detail, frozenset())[:120]})" if detail else ""
        record = self.daylog.append(
            "event", f"Another assistant, {agent}, used {tool}{about}: {items} item{'s' if items != 1 else ''}.",
            agent_request={"agent": agent, "tool": tool, "items": items})
        return record.id

    # -- reading --------------------------------------------------------------------

    def _searcher(self) -> Recall:
        with self._lock:
            if self._recall is None:
                self._recall = Recall(self.home, self.store, self._index)
            return self._recall

    def search(self, agent: str, query: str, k: int = 8, since: date | None = None, until: date | None = None) -> Served:
        """The same ranking as the companion's own recall, within dates; private turns are never indexed."""
        scopes = self._require(agent, "search")
        if not isinstance(query, str) or not query.strip():
            raise SharingError("search needs a query: the words to look for, in any language.")
        k = min(max(int(k), 1), MAX_RESULTS)
        recall = self._searcher()
        recall.ready.wait(_WAIT_S)
        today = self.clock().date()
        with self._lock:
            recall.index.refresh()
            names = names_in({n: self.store.read(n).body for n in ("USER.md", "SOUL.md")})
            query_spec = replace(recall.query(query, k, today, names), since=since, until=until)
            hits = recall.search(query_spec)
        allowed_files = {"USER.md"} if "profile" in scopes else set()
        allowed_files |= {"MEMORY.md"} if "memory" in scopes else set()
        results = []
        for hit in hits:
            item = hit.item
            if item.kind == "entry" and item.source not in allowed_files and item.source != "SOUL.md":
                continue  # a file the agent may not read is not searched either
            if item.kind == "digest" and "digests" not in scopes:
                continue
            entry = hit.to_dict()
            entry["text"] = self._clean(item.text, scopes)
            results.append(entry)
        self._log(agent, "search_memory", len(results), query)
        return Served(results, len(results))

    def profile(self, agent: str) -> Served:
        scopes = self._require(agent, "profile")
        parts = {"USER.md": self._clean(self.store.read("USER.md").body, scopes)}
        if "memory" in scopes:
            parts["MEMORY.md"] = self._clean(self.store.read("MEMORY.md").body, scopes)
        count = sum(len(E.active_entries(body)) for body in parts.values())
        self._log(agent, "get_profile", count)
        return Served(parts, count)

    def long_term(self, agent: str, name: str) -> Served:
        """A long-term file for a resource read: USER.md needs 'profile', MEMORY.md 'memory', SOUL.md 'profile'."""
        scope = "memory" if name == "MEMORY.md" else "profile"
        scopes = self._require(agent, scope)
        body = self._clean(self.store.read(name).body, scopes)
        count = len(E.active_entries(body))
        self._log(agent, f"read {name}", count)
        return Served(body, count)

    def digests(self, agent: str, days: int = 7) -> Served:
        """The newest day digests (and the week's), newest first."""
        scopes = self._require(agent, "digests")
        days = min(max(int(days), 1), MAX_DIGESTS)
        found = []
        folder = self.home.digests / "day"
        for path in sorted(folder.glob("*.md"), reverse=True)[:days] if folder.is_dir() else []:
            found.append({"day": path.stem, "text": self._clean(_body(path.read_text(encoding="utf-8", errors="replace")), scopes)})
        self._log(agent, "recent_digests", len(found))
        return Served(found, len(found))

    def upcoming(self, agent: str) -> Served:
        scopes = self._require(agent, "upcoming")
        body = self.store.read("MEMORY.md").body
        span = sections.find_section(body, "## Upcoming")
        lines = body.splitlines()[span[1] : span[2]] if span else []
        items = [self._clean(E.entry_text(l), scopes) for l in lines if E.is_entry(l) and not E.is_superseded(l)]
        self._log(agent, "upcoming", len(items))
        return Served(items, len(items))

    # -- writing: a proposal only -----------------------------------------------------

    def propose(self, agent: str, text: str, file: str = "MEMORY.md", section: str = "") -> Served:
        """Queue "remember this" for the user's approval; nothing is written now."""
        self._require(agent, "propose")
        if file not in ("USER.md", "MEMORY.md"):
            raise SharingError("An agent may propose entries for USER.md or MEMORY.md only.")
        cite = self._log(agent, "propose_memory", 1, text)
        try:
            pending = self.queue.propose_remember(text, file, section or ("Preferences" if file == "USER.md" else "Facts"),
                                                  agent, [cite])
        except CompanionError as exc:
            raise SharingError(str(exc)) from exc
        return Served({"proposal": pending.id, "status": "waiting for the user's approval", "text": pending.text}, 1)

    def close(self) -> None:
        if self._recall is not None:
            self._recall.close()


def _body(raw: str) -> str:
    from companion.memory.document import split_frontmatter

    try:
        return split_frontmatter(raw)[2]
    except CompanionError:
        return raw
