"""Import contract: each package imports only the layers below it, and the core never loads Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "companion"

# package -> packages of ours it may import (files at the root: paths, errors, atomic, ... serve all).
ALLOWED: dict[str, set[str]] = {
    "memory": set(),
    "llm": set(),
    "curate": {"memory"},
    "portability": {"memory", "curate"},
    "agent": {"memory", "llm", "curate"},
    "sleep": {"memory", "llm", "curate"},
    "evaluation": {"memory", "llm", "curate", "agent", "sleep"},
    "commands": {"memory", "llm", "curate", "portability", "agent", "sleep", "evaluation"},
    "ui": {"memory", "llm", "curate", "portability", "agent", "sleep"},
}
ROOT_MODULES = {"paths", "errors", "atomic", "filelock", "settings", "runtime", "cli", "__main__", "__init__", "__version__"}


def _imports(path: Path) -> set[str]:
    """Every `companion.X` module a file imports, at top level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("companion"):
            found.add(node.module)
            if node.module == "companion":
                found.update(f"companion.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("companion"))
    return found


def _package_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_lower_layers(package: str) -> None:
    allowed = ALLOWED[package] | {package} | ROOT_MODULES
    wrong = []
    for file in sorted((ROOT / package).rglob("*.py")):
        for module in _imports(file):
            target = _package_of(module)
            if target is not None and target not in allowed:
                wrong.append(f"{file.relative_to(ROOT.parent)} imports {module}")
    assert wrong == [], "\n".join(wrong)


def test_every_package_is_in_the_contract() -> None:
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(ALLOWED)


def test_root_modules_import_no_package_above_memory() -> None:
    wrong = []
    for file in ROOT.glob("*.py"):
        if file.stem in {"cli", "__main__"}:
            continue
        for module in _imports(file):
            target = _package_of(module)
            if target is not None and target not in ROOT_MODULES and target != "memory":
                wrong.append(f"{file.name} imports {module}")
    assert wrong == [], "\n".join(wrong)


def test_commands_import_no_qt_except_the_self_test() -> None:
    for file in (ROOT / "commands").glob("*.py"):
        if file.stem == "selftest":
            continue
        text = file.read_text(encoding="utf-8")
        assert "PySide6" not in text, file.name
        assert not any(m.startswith("companion.ui") for m in _imports(file)), file.name


def _modules_loaded_by(packages: tuple[str, ...], roots: tuple[str, ...]) -> str:
    """In a fresh interpreter, import every module of `packages`; the loaded modules under `roots`."""
    code = (
        "import sys, pkgutil, importlib\n"
        "import companion\n"
        f"for pkg in {packages!r}:\n"
        "    mod = importlib.import_module('companion.' + pkg)\n"
        "    for info in pkgutil.walk_packages(mod.__path__, mod.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "import companion.cli, companion.runtime, companion.settings\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {roots!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_core_packages_do_not_import_pyside6() -> None:
    core = ("memory", "llm", "curate", "portability", "agent", "sleep", "evaluation")
    assert _modules_loaded_by(core, ("PySide6", "shiboken6")) == "[]"


def test_curate_loads_no_model_runtime() -> None:
    assert _modules_loaded_by(("curate",), ("llama_cpp", "PySide6", "httpx", "httpx2")) == "[]"
