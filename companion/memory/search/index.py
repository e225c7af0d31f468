"""The search index: SQLite FTS5 in state/, kept in step with the memory folder, rebuilt when broken."""

from __future__ import annotations

import hashlib
import heapq
import json
import logging
import math
import os
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

import companion.memory.search.bm25 as bm25
from companion.memory.search.sqlite_files import remove_database
from companion.errors import CompanionError, FrontmatterError, SearchError
from companion.memory.document import split_frontmatter
from companion.memory.daylog import day_files, newest_day_files
from companion.memory.records import Record
from companion.memory.search.items import Item, markdown_items, record_item
from companion.memory.search.tokenize import index_terms, is_cjk
from companion.memory.search.vectors import text_key
from companion.paths import LONG_TERM_FILES, Home

log = logging.getLogger(__name__)

SCHEMA_VERSION = 6  # 2: possessives index as their word ("Anna's" is anna); 3: items carry their text key; 4: irregular English forms index as their base ("went" is go); 5: digits and CJK beside each other are separate terms ("18岁生日"); 6: a table of terms with their item counts
INDEX_FILE = "search.sqlite3"
_HEAD_BYTES = 4096
T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    source TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    sha TEXT NOT NULL, offset INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS items(
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, source TEXT NOT NULL,
    locator TEXT NOT NULL, day TEXT, role TEXT NOT NULL, text TEXT NOT NULL, context TEXT NOT NULL,
    cites TEXT NOT NULL, ref TEXT NOT NULL, length INTEGER NOT NULL, tkey INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS items_source ON items(source);
CREATE INDEX IF NOT EXISTS items_tkey ON items(tkey);
CREATE INDEX IF NOT EXISTS items_day ON items(day);
CREATE INDEX IF NOT EXISTS items_locator ON items(locator);
CREATE TABLE IF NOT EXISTS hits(hkey TEXT PRIMARY KEY, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS terms(term TEXT PRIMARY KEY, items INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(terms, tokenize='unicode61 remove_diacritics 2');
"""


@dataclass
class Candidate:
    """An item the text query matched, with its BM25 relevance (higher is better)."""

    item: Item
    relevance: float
    hits: int = 0


def hit_key(item: Item) -> str:
    """Recall counts survive re-indexing: turns by id, file entries by their text."""
    if item.kind == "turn":
        return item.locator
    return item.kind + ":" + hashlib.sha1(item.text.encode("utf-8")).hexdigest()[:16]


class SearchIndex:
    """One SQLite file under state/; safe to share between threads (one lock)."""

    def __init__(self, home: Home, path: Path | None = None) -> None:
        self.home = home
        self.path = path or home.state / INDEX_FILE
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._dirty: set[Path] = set()
        self._last_sync = 0.0
        self._count: tuple[int, float] | None = None
        self.rebuilt = False  # True once this instance had to start over from an empty index
        self.generation = 0  # counts fresh starts of the file (row ids begin again after one)

    # -- connection and recovery ----------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists()
        if fresh:  # private like the rest of the home; SQLite gives -wal/-shm the same mode
            self.path.touch(mode=0o600)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if version is None:
                db.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"index schema {version[0]} is not {SCHEMA_VERSION}")
            db.execute("SELECT count(*) FROM fts WHERE fts MATCH 'x'").fetchone()
        except BaseException:
            db.close()
            raise
        self._db = db
        if fresh:
            self.rebuilt = True
        return db

    def _guarded(self, action: Callable[[sqlite3.Connection], T]) -> T:
        """Run `action`; a corrupt or outdated index file is deleted, rebuilt from the memory folder, retried once."""
        with self._lock:
            try:
                fresh = self._db is None and not self.path.exists()
                db = self._connect()
                if fresh and action != self._sync_all:  # a missing index fills itself before first use
                    self._sync_all(db)
                return action(db)
            except sqlite3.DatabaseError as exc:
                log.warning("Search index %s is unusable (%s); rebuilding it from the memory folder.", self.path, exc)
                self._discard()
            try:
                db = self._connect()
                self.rebuilt = True
                self._sync_all(db)
                return action(db)
            except sqlite3.Error as exc:
                raise SearchError(
                    f"The search index {self.path} cannot be rebuilt ({exc}). Check that the disk has space; "
                    "memory itself is safe."
                ) from exc

    def _discard(self) -> None:
        self.generation += 1
        db, self._db = self._db, None
        remove_database(db, self.path, "search index")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def rebuild(self) -> None:
        """Start over from the memory folder."""
        with self._lock:
            self._discard()
        self._guarded(self._sync_all)
        self.rebuilt = True

    # -- keeping in step ------------------------------------------------------

    def sync(self) -> None:
        """Full scan: every day log, long-term file and digest whose size, mtime or hash changed."""
        self._guarded(self._sync_all)

    def mark_dirty(self, path: Path) -> None:
        """A file changed (long-term edit, new digest): re-read it before the next search."""
        with self._lock:
            self._dirty.add(path)

    def refresh(self, max_age: float = 300.0) -> None:
        """Cheap catch-up before a search: dirty files and the newest day log; a full scan now and then."""
        if time.monotonic() - self._last_sync > max_age:
            self.sync()
            return
        self._guarded(self._refresh)

    def _refresh(self, db: sqlite3.Connection) -> None:
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        dirty.update(newest_day_files(self.home.days))  # one file per computer in a synced folder
        with _transaction(db):
            for path in dirty:
                self._sync_file(db, path)

    def _sync_all(self, db: sqlite3.Connection) -> None:
        memory = self.home.memory
        seen: set[str] = set()
        with _transaction(db):
            for path in _memory_files(memory):
                seen.add(self._source(path))
                self._sync_file(db, path)
            known = [row[0] for row in db.execute("SELECT source FROM files")]
            for source in known:
                if source not in seen:
                    self._forget(db, source)
        self._last_sync = time.monotonic()

    def _source(self, path: Path) -> str:
        return path.relative_to(self.home.memory).as_posix()

    def _sync_file(self, db: sqlite3.Connection, path: Path) -> None:
        source = self._source(path)
        try:
            stat = path.stat()
        except FileNotFoundError:
            self._forget(db, source)
            return
        row = db.execute("SELECT size, mtime_ns, sha, offset FROM files WHERE source=?", (source,)).fetchone()
        if row is not None and row[0] == stat.st_size and row[1] == stat.st_mtime_ns:
            return
        try:
            data = path.read_bytes()
        except OSError as exc:
            log.warning("Search index skipped %s: %s", path, exc)
            return
        if source.startswith("days/"):
            self._sync_day(db, source, data, stat, row)
        else:
            self._sync_markdown(db, source, data, stat, row)

    def _sync_day(self, db: sqlite3.Connection, source: str, data: bytes, stat: os.stat_result, row: Any) -> None:
        offset = 0
        if row is not None and 0 < row[3] <= len(data) and data[row[3] - 1 : row[3]] == b"\n":
            if hashlib.sha256(data[: min(row[3], _HEAD_BYTES)]).hexdigest() == row[2]:
                offset = row[3]  # an append: only the new lines
        if offset == 0:
            self._forget(db, source)
        end = data.rfind(b"\n") + 1  # a torn last line waits until it is complete
        if end > offset:
            deleted: list[str] = []
            self._insert(db, _records_in(data[offset:end], source, deleted))
            for record_id in deleted:  # a message the user deleted is not recalled again
                _delete_items(db, "kind='turn' AND locator=?", (record_id,))
        consumed = max(end, offset)
        sha = hashlib.sha256(data[: min(consumed, _HEAD_BYTES)]).hexdigest()
        db.execute(
            "INSERT OR REPLACE INTO files VALUES(?,?,?,?,?)", (source, stat.st_size, stat.st_mtime_ns, sha, consumed)
        )

    def _sync_markdown(self, db: sqlite3.Connection, source: str, data: bytes, stat: os.stat_result, row: Any) -> None:
        sha = hashlib.sha256(data).hexdigest()
        if row is None or row[2] != sha:
            self._forget(db, source)
            text = data.decode("utf-8", errors="replace")
            kind = "digest" if source.startswith("digests/") else "entry"
            try:
                front, _, body = split_frontmatter(text)
            except FrontmatterError:
                front, body = "", text
            self._insert(db, markdown_items(body, source, kind, first_line=front.count("\n") + 1))
        db.execute("INSERT OR REPLACE INTO files VALUES(?,?,?,?,?)", (source, stat.st_size, stat.st_mtime_ns, sha, 0))

    def add_records(self, records: Iterable[Record], source: str) -> None:
        """Index records directly (the day file catches up its offset at the next refresh)."""

        def action(db: sqlite3.Connection) -> None:
            with _transaction(db):
                self._insert(db, (i for i in (record_item(r, source) for r in records) if i is not None))

        self._guarded(action)

    @staticmethod
    def _insert(db: sqlite3.Connection, items: Iterable[Item]) -> None:
        added: Counter[str] = Counter()  # items holding each term
        for item in items:
            cur = db.execute(
                "INSERT OR IGNORE INTO items(key, kind, source, locator, day, role, text, context, cites, ref, length, tkey)"
                " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                (item.key, item.kind, item.source, item.locator, item.day, item.role, item.text, item.context,
                 json.dumps(item.cites), item.ref, len(item.text), text_key(item.text)),
            )
            if cur.rowcount:
                terms = index_terms(item.context + "\n" + item.text if item.context else item.text)
                db.execute("INSERT INTO fts(rowid, terms) VALUES(?, ?)", (cur.lastrowid, " ".join(terms)))
                added.update(set(terms))
        if added:
            db.executemany(
                "INSERT INTO terms VALUES(?, ?) ON CONFLICT(term) DO UPDATE SET items = items + excluded.items",
                added.items(),
            )

    @staticmethod
    def _forget(db: sqlite3.Connection, source: str) -> None:
        _delete_items(db, "source=?", (source,))
        db.execute("DELETE FROM files WHERE source=?", (source,))

    # -- querying -------------------------------------------------------------

    def term_counts(self, terms: list[str]) -> dict[str, int]:
        """How many items hold each term (0 for unknown terms), from the index's table of terms: one
        lookup each, kept exact as items come and go (FTS5's own vocabulary reads a term's whole list
        of items to count them, milliseconds for a common word in a big index)."""
        wanted = list(dict.fromkeys(terms))
        if not wanted:
            return {}

        def action(db: sqlite3.Connection) -> dict[str, int]:
            found = dict.fromkeys(wanted, 0)
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                marks = ",".join("?" * len(part))
                found.update((t, int(n)) for t, n in db.execute(f"SELECT term, items FROM terms WHERE term IN ({marks})", part))
            return found

        counts = self._guarded(action)
        return {t: counts[t] for t in terms}

    def near_terms(self, term: str, limit: int = 3) -> list[str]:
        """Known terms one or two edits from `term` (typo tolerance), most frequent first."""
        if is_cjk(term) or len(term) < 4:
            return []
        allowed = 1 if len(term) < 8 else 2

        def action(db: sqlite3.Connection) -> list[str]:
            found: list[tuple[int, int, str]] = []
            # terms starting like it, or like it without its first letter (a typo in the first letter)
            for prefix in {term[:2], term[1:3]}:
                rows = db.execute(
                    "SELECT term, items FROM terms WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ?",
                    (prefix, prefix + "\U0010ffff", len(term) - allowed, len(term) + allowed),
                )
                for other, doc in rows:
                    if other != term:
                        distance = edit_distance(term, other, allowed)
                        if distance <= allowed:
                            found.append((distance, -int(doc), other))
            found.sort()
            return list(dict.fromkeys(t for _, _, t in found))[:limit]

        return self._guarded(action)

    def match(
        self,
        weighted_terms: dict[str, float],
        *,
        kinds: Iterable[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int = 200,
        exclude: Iterable[str] = (),
        require_all: bool = False,
        score_cap: int = 0,
    ) -> list[Candidate]:
        """Items holding any (or all) of the terms, best BM25 first; a trailing '*' matches a prefix.

        score_cap: when the terms are in more items than this, only about that many of the newest
        are ranked (ranking costs time per matching item; words that common are weak evidence)."""
        terms = [t for t in weighted_terms if t]
        if not terms:
            return []
        floor = self._newest_floor(terms, require_all, score_cap) if score_cap else 0
        expression = (" AND " if require_all else " OR ").join(
            '"' + t.rstrip("*").replace('"', '""') + '"' + ("*" if t.endswith("*") else "") for t in terms
        )
        where = ["fts MATCH ?"]
        params: list[Any] = [expression]
        if floor:
            where.append("fts.rowid >= ?")
            params.append(floor)
        _add_filters(where, params, kinds, since, until)
        if len(where) > 1 + bool(floor):  # filtered: rank every match that passes the filters
            sql = (
                "SELECT i.kind, i.source, i.locator, i.day, i.text, i.role, i.context, i.cites, i.ref, "
                "-bm25(fts) AS score, coalesce(h.count, 0) FROM fts JOIN items i ON i.id = fts.rowid "
                "LEFT JOIN hits h ON h.hkey = CASE i.kind WHEN 'turn' THEN i.locator ELSE NULL END "
                f"WHERE {' AND '.join(where)} ORDER BY bm25(fts) LIMIT ?"
            )
            params.append(limit + len(set(exclude)))
            return self._rows(sql, params, exclude)
        fetch = limit + len(set(exclude))
        if require_all and not any(t.endswith("*") for t in terms):
            found = self._all_terms_scored_here(terms, expression, floor, fetch, exclude)
            if found is not None:
                return found
        # unfiltered: the best matches from FTS alone, then details for those rows only. bm25() by name, not
        # the `rank` column: the same scores in about 60% of the time (SQLite 3.40-3.46, 1,500 matches)
        sql = (
            "SELECT i.kind, i.source, i.locator, i.day, i.text, i.role, i.context, i.cites, i.ref, "
            "m.score, coalesce(h.count, 0) FROM "
            f"(SELECT rowid, -bm25(fts) AS score FROM fts WHERE {' AND '.join(where)} ORDER BY bm25(fts) LIMIT ?) m "
            "JOIN items i ON i.id = m.rowid "
            "LEFT JOIN hits h ON h.hkey = CASE i.kind WHEN 'turn' THEN i.locator ELSE NULL END "
            "ORDER BY m.score DESC"
        )
        return self._rows(sql, [*params, fetch], exclude)

    def _all_terms_scored_here(
        self, terms: list[str], expression: str, floor: int, fetch: int, exclude: Iterable[str]
    ) -> list[Candidate] | None:
        """Items holding every term, scored by `bm25.scores` when few are expected to match (FTS5's bm25()
        would first read each term's whole list of items); None: leave it to FTS5."""
        counts = self.term_counts(terms)
        if not all(counts.values()):
            return None  # some term is in no item: FTS5 finds nothing at once

        def action(db: sqlite3.Connection) -> list[tuple[int, float]] | None:
            record = db.execute("SELECT block FROM fts_data WHERE id=?", (bm25.AVERAGES_ROWID,)).fetchone()
            totals = bm25.averages(bytes(record[0])) if record else None
            if totals is None:
                return None
            rows, tokens = totals
            top = int(db.execute("SELECT coalesce(max(rowid), 0) FROM fts").fetchone()[0])
            expected = max(0, top - floor) * math.prod(min(1.0, n / rows) for n in counts.values())
            most = bm25.most_rows(counts.values())
            if 2 * expected > most:  # an estimate (words taken as independent): keep well inside the limit
                return None
            found = db.execute(
                "SELECT rowid, terms FROM fts WHERE fts MATCH ? AND rowid >= ? LIMIT ?", (expression, floor, most + 1)
            ).fetchall()
            if len(found) > most:
                return None  # far more match than expected (words that go together)
            return bm25.scores(found, counts, rows, tokens)

        scored = self._guarded(action)
        if scored is None:
            return None
        best = heapq.nsmallest(fetch, scored, key=lambda pair: (-pair[1], -pair[0]))
        if not best:
            return []
        by_row = dict(best)
        sql = (
            "SELECT i.kind, i.source, i.locator, i.day, i.text, i.role, i.context, i.cites, i.ref, i.id, "
            "coalesce(h.count, 0) FROM items i "
            "LEFT JOIN hits h ON h.hkey = CASE i.kind WHEN 'turn' THEN i.locator ELSE NULL END "
            f"WHERE i.id IN ({','.join('?' * len(by_row))})"
        )
        out = self._rows(sql, list(by_row), exclude, by_row)
        out.sort(key=lambda c: -c.relevance)
        return out

    def _newest_floor(self, terms: list[str], require_all: bool, cap: int) -> int:
        """The lowest rowid to rank so that about `cap` matching items remain (0: rank them all).

        Rowids grow as items are added, so the newest matches are kept; the share of matches is
        assumed even over the index (word counts come from the table of terms)."""
        counts = [n for t, n in self.term_counts([t for t in terms if not t.endswith("*")]).items()]
        matches = (min(counts) if require_all else sum(counts)) if counts else 0
        if matches <= cap:
            return 0

        def action(db: sqlite3.Connection) -> int:
            top = db.execute("SELECT max(rowid) FROM fts").fetchone()[0] or 0
            return max(0, int(top - top * cap / matches))

        return self._guarded(action)

    def _rows(self, sql: str, params: list[Any], exclude: Iterable[str], by_key: dict[int, float] | None = None) -> list[Candidate]:
        """Candidates from rows ending in (score, hits); with `by_key` the score column is a text key to look up."""
        skip = set(exclude)

        def action(db: sqlite3.Connection) -> list[Candidate]:
            out = []
            for kind, source, locator, day, text, role, context, cites, ref, score, hits in db.execute(sql, params):
                if locator in skip:
                    continue
                item = Item(kind, source, locator, day, text, role, context, _cites(cites), ref)
                relevance = by_key[int(score)] if by_key is not None else float(score)
                out.append(Candidate(item, relevance, int(hits)))
            if any(c.item.kind != "turn" for c in out):
                keys = {hit_key(c.item): c for c in out if c.item.kind != "turn"}
                marks = ",".join("?" * len(keys))
                for hkey, count in db.execute(f"SELECT hkey, count FROM hits WHERE hkey IN ({marks})", list(keys)):
                    keys[hkey].hits = int(count)
            return out

        return self._guarded(action)

    def turns_matching(self, terms: list[str], limit: int) -> list[tuple[str, str]]:
        """(record id, text) of turns holding every term (a trailing '*': a prefix), newest indexed
        first, unranked: what find in the conversation needs, without scoring thousands of matches."""
        terms = [t for t in terms if t]
        if not terms:
            return []
        expression = " AND ".join(
            '"' + t.rstrip("*").replace('"', '""') + '"' + ("*" if t.endswith("*") else "") for t in terms)

        def action(db: sqlite3.Connection) -> list[tuple[str, str]]:
            rows = db.execute(
                "SELECT i.locator, i.text FROM fts JOIN items i ON i.id = fts.rowid "
                "WHERE fts MATCH ? AND i.kind = 'turn' ORDER BY fts.rowid DESC LIMIT ?", (expression, limit))
            return [(str(locator), str(text)) for locator, text in rows]

        return self._guarded(action)

    def turns(self, record_ids: Iterable[str]) -> list[Item]:
        """The indexed turns with these record ids (those not indexed are left out)."""
        wanted = list(dict.fromkeys(record_ids))
        if not wanted:
            return []

        def action(db: sqlite3.Connection) -> list[Item]:
            rows = db.execute(
                f"SELECT kind, source, locator, day, text, role, context, cites, ref FROM items "
                f"WHERE kind='turn' AND locator IN ({','.join('?' * len(wanted))})",
                wanted,
            )
            return [Item(k, s, loc, d, t, r, c, _cites(ci), ref) for k, s, loc, d, t, r, c, ci, ref in rows]

        return self._guarded(action)

    # -- text keys (the vector channel) ----------------------------------------

    def text_keys(self) -> set[int]:
        """The text key of every indexed item: the vectors worth keeping."""
        return self._guarded(lambda db: {int(row[0]) for row in db.execute("SELECT DISTINCT tkey FROM items")})

    def texts_for(self, keys: Iterable[int]) -> list[tuple[int, str]]:
        """(text key, text) for each of these keys still indexed."""
        wanted = list(dict.fromkeys(keys))

        def action(db: sqlite3.Connection) -> list[tuple[int, str]]:
            out: list[tuple[int, str]] = []
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                rows = db.execute(
                    f"SELECT tkey, min(text) FROM items WHERE tkey IN ({','.join('?' * len(part))}) GROUP BY tkey", part
                )
                out.extend((int(k), t) for k, t in rows)
            return out

        return self._guarded(action) if wanted else []

    def newest_text_keys(self, after: int = 0) -> tuple[int, list[int]]:
        """The text keys of items added after row `after` (0: all), newest first, and the last row seen."""

        def action(db: sqlite3.Connection) -> tuple[int, list[int]]:
            last = int(db.execute("SELECT coalesce(max(id), 0) FROM items").fetchone()[0])
            rows = db.execute("SELECT tkey FROM items WHERE id > ? GROUP BY tkey ORDER BY max(id) DESC", (after,))
            return last, [int(r[0]) for r in rows]

        return self._guarded(action)

    def by_text_keys(
        self,
        scores: dict[int, float],
        *,
        kinds: Iterable[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        exclude: Iterable[str] = (),
    ) -> list[Candidate]:
        """The items holding these texts, each with its key's score as relevance, filtered like `match`."""
        if not scores:
            return []
        keys = list(scores)
        where = [f"i.tkey IN ({','.join('?' * len(keys))})"]
        params: list[Any] = list(keys)
        _add_filters(where, params, kinds, since, until)
        sql = (
            "SELECT i.kind, i.source, i.locator, i.day, i.text, i.role, i.context, i.cites, i.ref, i.tkey, "
            "coalesce(h.count, 0) FROM items i "
            "LEFT JOIN hits h ON h.hkey = CASE i.kind WHEN 'turn' THEN i.locator ELSE NULL END "
            f"WHERE {' AND '.join(where)}"
        )
        return self._rows(sql, params, exclude, scores)

    def record_hits(self, items: Iterable[Item]) -> None:
        """Count that these items were recalled (a small boost next time)."""
        keys = [hit_key(i) for i in items]
        if not keys:
            return

        def action(db: sqlite3.Connection) -> None:
            with _transaction(db):
                for key in keys:
                    db.execute(
                        "INSERT INTO hits VALUES(?, 1) ON CONFLICT(hkey) DO UPDATE SET count = count + 1", (key,)
                    )

        self._guarded(action)

    def version(self) -> tuple[int, int, int]:
        """Changes since this index was opened: fresh starts, rows this connection wrote, commits by others."""
        return self._guarded(
            lambda db: (self.generation, db.total_changes, db.execute("PRAGMA data_version").fetchone()[0])
        )

    def count_cached(self, max_age: float = 60.0) -> int:
        """The number of items, re-counted at most once a minute (used to judge how common a word is)."""
        now = time.monotonic()
        if self._count is None or now - self._count[1] > max_age:
            self._count = (self.count(), now)
        return self._count[0]

    def count(self) -> int:
        return self._guarded(lambda db: int(db.execute("SELECT count(*) FROM items").fetchone()[0]))


def _cites(stored: str) -> list[str]:
    """An item's citations as stored (JSON); most items have none."""
    return json.loads(stored) if stored != "[]" else []


def _delete_items(db: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Delete the items matching `where` from the items, the full-text index and the table of terms."""
    rows = f"SELECT id FROM items WHERE {where}"
    gone: Counter[str] = Counter()
    for (terms,) in db.execute(f"SELECT terms FROM fts WHERE rowid IN ({rows})", params):
        gone.update(set(terms.split()))
    db.execute(f"DELETE FROM fts WHERE rowid IN ({rows})", params)
    db.execute(f"DELETE FROM items WHERE {where}", params)
    if gone:
        db.executemany("UPDATE terms SET items = items - ? WHERE term = ?", [(n, t) for t, n in gone.items()])
        db.executemany("DELETE FROM terms WHERE term = ? AND items <= 0", [(t,) for t in gone])


class _transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN")

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")


def edit_distance(a: str, b: str, cap: int) -> int:
    """Optimal-string-alignment distance (swaps count as one edit), giving up above `cap`."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > cap:
            return cap + 1
        previous2, previous = previous, current
    return previous[-1]


def _records_in(chunk: bytes, source: str, deleted: list[str] | None = None) -> Iterator[Item]:
    """The items of a run of day-log lines; the ids that `deletes` events take back go to `deleted`."""
    for line in chunk.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = Record.from_dict(json.loads(line.decode("utf-8")))
        except (ValueError, RecursionError):  # RecursionError: deeply nested JSON
            continue  # the day-log reader reports bad lines; the index just skips them
        if deleted is not None and record.role == "event" and record.extra.get("deletes"):
            deleted.append(str(record.extra["deletes"]))
        item = record_item(record, source)
        if item is not None:
            yield item


def _memory_files(memory: Path) -> Iterator[Path]:
    for name in LONG_TERM_FILES:
        if (memory / name).is_file():
            yield memory / name
    yield from day_files(memory / "days")  # conflict copies are merged back, never indexed twice
    if (memory / "digests").is_dir():
        yield from sorted((memory / "digests").glob("*/*.md"))



def open_index(home: Home) -> SearchIndex:
    """An index brought up to date with the memory folder (built on first use)."""
    index = SearchIndex(home)
    try:
        index.sync()
    except CompanionError:
        index.close()
        raise
    return index


def _add_filters(where: list[str], params: list[Any], kinds: Iterable[str] | None, since: str | None, until: str | None) -> None:
    """The kind and day-range conditions every search shares, appended to `where` and `params`."""
    kind_list = list(kinds or [])
    if kind_list:
        where.append(f"i.kind IN ({','.join('?' * len(kind_list))})")
        params.extend(kind_list)
    if since:
        where.append("i.day >= ?")
        params.append(since)
    if until:
        where.append("i.day <= ?")
        params.append(until)
