"""One door per shared thing: patterns that may appear only in their one home (as qutebrowser's misc_checks).

The entry and citation grammar lives in memory/entries.py, the CJK ranges and Unicode folding in
memory/lang.py, backend construction in llm/loader.py, opening links in ui/links.py, and the store's
write methods, once private, are called only by the one writer (curate/gate.py)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "companion"


@dataclass(frozen=True)
class Ban:
    what: str
    pattern: re.Pattern[str]
    homes: frozenset[str]  # files (relative to companion/) where the pattern belongs
    why: str
    scope: str = ""  # only files under this folder are checked ("ui/"), by default all


BANS = [
    Ban("bullet grammar", re.compile(r"\[-\*\+\]|\\d\+\[\.\)\]|\\d\+\[\)\.\]"), frozenset({"memory/entries.py"}),
        "parse entries with memory.entries (Entry.parse, is_entry, entry_text)"),
    Ban("citation grammar", re.compile(r"\\d\{2\}#|\\d\{1,2\}#|#\\d\+\)|<!--\s*src|src:\s*\{"), frozenset({"memory/entries.py"}),
        "build and read citations with memory.entries (Entry, format_entry, cited_ids)"),
    Ban("timed entry stamp", re.compile(r"\\d\{4\}-\\d\{2\}-\\d\{2\}\)?\(?:?\[ T\]|%H:%M\}:"), frozenset({"memory/entries.py"}),
        "write and read dated entries with Entry.timed / Entry.day / Entry.at"),
    Ban("CJK range", re.compile(r"\\u(?:4e00|4E00|9fff|9FFF|3040|3400|ac00|AC00|f900)|[\u4e00]-[\u9fa5\u9fff]"),
        frozenset({"memory/lang.py"}), "use memory.lang (HAN, CJK, has_han, cjk_count)"),
    Ban("Unicode normalisation", re.compile(r"unicodedata\.normalize\("), frozenset({"memory/lang.py"}),
        "compare text through memory.lang.fold"),
    Ban("Chinese numbers", re.compile(r"def zh_number|\{\"零\": 0|\"一\": 1, \"二\": 2"), frozenset({"memory/lang.py"}),
        "read numbers with memory.lang.zh_number"),
    Ban("backend construction", re.compile(r"\b(?:LlamaBackend|RemoteBackend)(?:\.from_settings)?\("),
        frozenset({"llm/loader.py", "llm/llama.py", "llm/remote.py"}), "load models through companion.llm.loader"),
    Ban("opening links", re.compile(r"QDesktopServices\.openUrl|\bwebbrowser\.|setOpenExternalLinks\(True\)"),
        frozenset({"ui/links.py"}), "open links through companion.ui.links (open_link, open_folder)"),
    Ban("the agent's parts in the UI", re.compile(r"(?<!companion\.)\bagent\.(?:tools|recall|requests|store|daylog|run_turn|regenerate)\b"),
        frozenset(), "the window talks to the ChatSession (run_turn, apply_tool, undo_tool, forget_everywhere)", scope="ui/"),
]


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines without comments and docstrings (a ban is about code, not prose)."""
    text = path.read_text(encoding="utf-8")
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return [(n, line.split("  #", 1)[0]) for n, line in enumerate(text.splitlines(), 1)
            if n not in docstrings and not line.lstrip().startswith("#")]


def violations(ban: Ban, files: dict[str, list[tuple[int, str]]]) -> list[str]:
    return [f"companion/{name}:{number}: {line.strip()[:100]}"
            for name, lines in files.items() if name not in ban.homes and name.startswith(ban.scope)
            for number, line in lines if ban.pattern.search(line)]


@pytest.fixture(scope="module")
def sources() -> dict[str, list[tuple[int, str]]]:
    return {path.relative_to(PACKAGE).as_posix(): _code_lines(path) for path in sorted(PACKAGE.rglob("*.py"))}


@pytest.mark.parametrize("ban", BANS, ids=lambda b: b.what)
def test_each_pattern_stays_in_its_home(ban: Ban, sources: dict[str, list[tuple[int, str]]]) -> None:
    found = violations(ban, sources)
    assert found == [], f"{ban.what} outside {', '.join(sorted(ban.homes))}: {ban.why}\n" + "\n".join(found)


@pytest.mark.parametrize("ban, line", [
    (BANS[0], r'_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")'),
    (BANS[1], r'_CITE = re.compile(r"\(\d{4}-\d{2}-\d{2}#\d+\)")'),
    (BANS[1], 'line = f"- {text} <!-- src: {rid} -->"'),
    (BANS[2], r'_TIMED = re.compile(r"(?P<day>\d{4}-\d{2}-\d{2})[ T](?P<h>\d{1,2}):(?P<m>\d{2})")'),
    (BANS[2], 'return f"{day} {at:%H:%M}: {what}"'),
    (BANS[3], r'zh = re.search(r"[\u4e00-\u9fff]", text)'),
    (BANS[3], 'zh = re.search("[一-龥]", text)'),
    (BANS[4], 'key = unicodedata.normalize("NFKC", text)'),
    (BANS[5], "def zh_number(text: str) -> int | None:"),
    (BANS[6], "backend = RemoteBackend(url, name, key, retries=0)"),
    (BANS[6], "return RemoteBackend.from_settings(settings, key)"),
    (BANS[7], "QDesktopServices.openUrl(url)"),
    (BANS[8], "found = forget_everywhere(self.agent.store, what, self.agent.daylog, self.agent.recall.index)"),
], ids=lambda value: value.what if isinstance(value, Ban) else "")
def test_each_ban_catches_what_it_bans(ban: Ban, line: str) -> None:
    where = f"{ban.scope or 'agent/'}somewhere.py"
    assert violations(ban, {where: [(1, line)]}) == [f"companion/{where}:1: {line.strip()[:100]}"]
    elsewhere = ban.homes if not ban.scope else {"agent/session.py"}  # its home, or outside its scope
    assert all(violations(ban, {name: [(1, line)]}) == [] for name in elsewhere)


# -- the store's write methods ------------------------------------------------------------------------

WRITES = {"write", "append", "replace_section", "replace_all", "edit", "restore"}
WRITER_HOMES = frozenset({"memory/longterm.py", "curate/gate.py"})


def _store_write_methods() -> set[str]:
    """LongTermStore's methods that change a file, by their current names ('_append' once private)."""
    tree = ast.parse((PACKAGE / "memory" / "longterm.py").read_text(encoding="utf-8"))
    store = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LongTermStore")
    return {f.name for f in store.body if isinstance(f, ast.FunctionDef) and f.name.lstrip("_") in WRITES}


def private_write_calls(tree: ast.AST, private: set[str]) -> list[int]:
    """Lines that call a private store write method on something other than `self`."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in private
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls"))]


def test_private_store_writes_are_called_only_by_the_one_writer() -> None:
    """Once the store's write methods are private, only the writer (and the store itself) calls them."""
    private = {name for name in _store_write_methods() if name.startswith("_")}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in WRITER_HOMES:
            continue
        found += [f"companion/{name}:{line}" for line in private_write_calls(ast.parse(path.read_text(encoding="utf-8")), private)]
    assert found == [], "the store's writes go through curate/gate.py:\n" + "\n".join(found)


def test_the_write_ban_catches_a_private_call() -> None:
    tree = ast.parse("store._append('MEMORY.md', '- x', actor='chat')\nself._append(1)\n_append(body)\n")
    assert private_write_calls(tree, {"_append"}) == [1]
    assert _store_write_methods()  # the store still has write methods, by whatever name


# -- import circles -----------------------------------------------------------------------------------


def _runtime_imports(path: Path) -> set[str]:
    """The companion modules a file imports when it runs (imports under `if TYPE_CHECKING:` do not run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion."):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("companion."))
    return found


def test_no_import_circles() -> None:
    modules = {".".join(("companion", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__"): p
               for p in PACKAGE.rglob("*.py")}
    graph = {m: {i for i in _runtime_imports(p) if i in modules and i != m} for m, p in modules.items()}
    cycles: list[str] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == [], "\n".join(cycles)
