"""One door into memory: only the MemoryWriter (curate/gate.py) calls the store's edit methods, and the
store offers no public way to change a file."""

from __future__ import annotations

import ast
from pathlib import Path

from companion.curate.gate import MemoryWriter
from companion.memory.history import ACTORS, Actor
from companion.memory.longterm import LongTermStore

ROOT = Path(__file__).resolve().parents[1] / "companion"
DOOR = {ROOT / "curate" / "gate.py", ROOT / "memory" / "longterm.py"}
# The store's edit methods ("_replace" is left out: namedtuples have one, and only the store calls its own).
PRIVATE_WRITES = {"_write", "_apply", "_append", "_replace_section", "_replace_all", "_edit", "_restore"}
PUBLIC_WRITES = {"write", "append", "replace_section", "replace_all", "edit", "restore"}


def _calls(path: Path) -> list[tuple[int, str]]:
    """(line, method) of every `<something other than self>.<store write method>(...)` in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PRIVATE_WRITES:
            receiver = node.func.value
            if not (isinstance(receiver, ast.Name) and receiver.id == "self"):
                found.append((node.lineno, node.func.attr))
    return found


def test_only_the_writer_calls_the_stores_edit_methods() -> None:
    wrong = [f"{path.relative_to(ROOT.parent)}:{line} calls {method}"
             for path in sorted(ROOT.rglob("*.py")) if path not in DOOR for line, method in _calls(path)]
    assert wrong == []
    assert _calls(ROOT / "curate" / "gate.py")  # the check sees calls where they are


def test_the_store_has_no_public_write_methods() -> None:
    assert not PUBLIC_WRITES & set(vars(LongTermStore))
    assert PRIVATE_WRITES <= set(vars(LongTermStore))


def test_the_writer_serves_every_actor_of_the_one_vocabulary() -> None:
    assert set(ACTORS) == {a.value for a in Actor}
    assert {"remember", "reminder", "bootstrap", "editor", "import", "migrate", "agent", "restore"} <= set(ACTORS)
    assert "chat" not in ACTORS  # remember, reminders and bootstrap are recorded as themselves
    assert callable(MemoryWriter.change)


def _raw_writes(source: str) -> list[int]:
    """Lines that write a long-term file around the store: atomic_write / write_text on `home.long_term(...)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        target = node.args[0] if name == "atomic_write" and node.args else (
            node.func.value if name in ("write_text", "write_bytes") and isinstance(node.func, ast.Attribute) else None)
        if target is not None and any(isinstance(n, ast.Attribute) and n.attr == "long_term" for n in ast.walk(target)):
            found.append(node.lineno)
    return found


def test_nothing_writes_a_long_term_file_around_the_store() -> None:
    allowed = {ROOT / "memory" / "setup.py"}  # a new home's templates, before anyone reads them
    wrong = [f"{path.relative_to(ROOT.parent)}:{line}" for path in sorted(ROOT.rglob("*.py"))
             if path not in allowed for line in _raw_writes(path.read_text(encoding="utf-8"))]
    assert wrong == []
    assert _raw_writes('atomic_write(home.long_term("USER.md"), b"")\nhome.long_term("SOUL.md").write_text("")') == [1, 2]
