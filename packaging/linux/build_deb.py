"""Build dist/companion_<version>_<arch>.deb: freeze the app with PyInstaller, lay out the package, run dpkg-deb."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
PREFIX = "opt/companion"  # the frozen one-folder app; /usr/bin/companion links to its executable
# Found at build time only if installed; without them Qt's xcb plugin cannot start.
XCB_RUNTIME = (
    "libxcb-cursor0", "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1", "libxcb-randr0",
    "libxcb-render-util0", "libxcb-shape0", "libxcb-xinerama0", "libxcb-xkb1", "libxkbcommon-x11-0",
)
# Wanted only by the GTK theme plugin, which the bundle leaves out; and the Vulkan loader, which only the
# GPU backend module needs (without it llama.cpp runs on the CPU): Recommends, not Depends.
OPTIONAL_LIBS = re.compile(r"libgtk-3|libgdk-3|libvulkan\.so")
GPU_MODULES = re.compile(r"libggml-(vulkan|cuda|hip)[^/]*\.so$")
RECOMMENDS = "libvulkan1, mesa-vulkan-drivers"


def project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def freeze(python: str, workdir: Path) -> Path:
    """Run PyInstaller with packaging/companion.spec; returns the one-folder app."""
    distpath = workdir / "freeze"
    subprocess.run(
        [python, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(distpath), "--workpath", str(workdir / "pyinstaller"),
         str(ROOT / "packaging" / "companion.spec")],
        cwd=ROOT,
        check=True,
    )
    return distpath / "companion"


def check_version(app: Path, version: str) -> None:
    """The frozen app reports the version from pyproject.toml (stale install metadata would not)."""
    shown = subprocess.run([str(app / "companion"), "--version"], capture_output=True, text=True).stdout.strip()
    if shown != f"companion {version}":
        raise SystemExit(
            f"The frozen app says {shown!r}, pyproject.toml says {version}: run `pip install -e .` and build again."
        )


def elf_files(folder: Path) -> list[Path]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    found.append(path)
    return found


def system_libraries(app: Path) -> set[Path]:
    """Libraries the app loads from the system (what ldd resolves outside the bundle)."""
    internal = app / "_internal"
    search = [internal, internal / "PySide6" / "Qt" / "lib", internal / "llama_cpp" / "lib"]
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(map(str, search)))
    libs: set[Path] = set()
    missing: set[str] = set()
    for elf in elf_files(app):
        if GPU_MODULES.search(elf.name):
            continue  # loaded only when the system's GPU driver is there
        result = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env=env)
        for line in result.stdout.splitlines():
            name, _, target = line.strip().partition(" => ")
            if target.startswith("not found"):
                if not OPTIONAL_LIBS.search(name):
                    missing.add(f"{name} (needed by {elf.relative_to(app)})")
            elif target.startswith("/") and not target.startswith(str(app)):
                libs.add(Path(target.split(" (")[0]).resolve())
    if missing:
        raise SystemExit(
            "These libraries are missing on the build machine; install them first "
            "(packaging/linux/build-deps.txt lists the Debian packages):\n  " + "\n  ".join(sorted(missing))
        )
    return libs


def glibc_floor(app: Path) -> str:
    """The newest GLIBC_x.y symbol version any file in the bundle needs."""
    versions: set[tuple[int, ...]] = set()
    for elf in elf_files(app):
        out = subprocess.run(["objdump", "-T", str(elf)], capture_output=True, text=True).stdout
        versions.update(tuple(map(int, v.split("."))) for v in re.findall(r"GLIBC_(\d+(?:\.\d+)+)", out))
    return ".".join(map(str, max(versions))) if versions else "2.31"


def owning_packages(libs: set[Path]) -> set[str]:
    packages: set[str] = set()
    for lib in sorted(libs):
        result = subprocess.run(["dpkg-query", "-S", str(lib)], capture_output=True, text=True)
        if result.returncode != 0:  # merged /usr: dpkg may know the /lib spelling
            alt = str(lib).replace("/usr/lib/", "/lib/", 1)
            result = subprocess.run(["dpkg-query", "-S", alt], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"No Debian package owns {lib}; cannot compute Depends.")
        packages.add(result.stdout.split(":", 1)[0].strip())
    return packages


def depends(app: Path) -> str:
    packages = owning_packages(system_libraries(app)) | set(XCB_RUNTIME)
    packages.discard("libc6")
    return ", ".join([f"libc6 (>= {glibc_floor(app)})", *sorted(packages)])


def installed_size_kib(stage: Path) -> int:
    total = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file() and not p.is_symlink())
    return (total + 1023) // 1024


def lay_out(app: Path, stage: Path, version: str, arch: str) -> None:
    if stage.exists():
        shutil.rmtree(stage)
    shutil.copytree(app, stage / PREFIX, symlinks=True)
    (stage / "usr/bin").mkdir(parents=True)
    os.symlink(f"/{PREFIX}/companion", stage / "usr/bin/companion")
    apps = stage / "usr/share/applications"
    apps.mkdir(parents=True)
    shutil.copy(HERE / "companion.desktop", apps / "companion.desktop")
    icons = ROOT / "resources" / "icons"
    for size in ICON_SIZES:
        target = stage / f"usr/share/icons/hicolor/{size}x{size}/apps"
        target.mkdir(parents=True)
        shutil.copy(icons / f"companion-{size}.png", target / "companion.png")
    scalable = stage / "usr/share/icons/hicolor/scalable/apps"
    scalable.mkdir(parents=True)
    shutil.copy(icons / "companion.svg", scalable / "companion.svg")
    metainfo = stage / "usr/share/metainfo"
    metainfo.mkdir(parents=True)
    template = (HERE / "companion.metainfo.xml").read_text(encoding="utf-8")
    (metainfo / "companion.metainfo.xml").write_text(
        template.replace("@VERSION@", version).replace("@DATE@", date.today().isoformat()), encoding="utf-8"
    )
    docs = stage / "usr/share/doc/companion"
    docs.mkdir(parents=True)
    shutil.copy(HERE / "copyright", docs / "copyright")
    for path in [stage, *stage.rglob("*")]:
        if path.is_symlink():
            continue
        executable = path.is_dir() or path.stat().st_mode & 0o111
        path.chmod(0o755 if executable else 0o644)
    control = (HERE / "control.in").read_text(encoding="utf-8").format(
        version=version, arch=arch, installed_size=installed_size_kib(stage), depends=depends(stage / PREFIX),
        recommends=RECOMMENDS,
    )
    (stage / "DEBIAN").mkdir()
    (stage / "DEBIAN/control").write_text(control, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable, help="Python with Companion, PyInstaller and the model installed")
    parser.add_argument("--app", type=Path, help="use this frozen one-folder app instead of running PyInstaller")
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument(
        "--compress", choices=("xz", "zstd", "gzip"), default="xz", help="xz: smallest download (default); zstd: much faster to build"
    )
    args = parser.parse_args(argv)

    version = project_version()
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    workdir = ROOT / "build" / "deb"
    app = args.app or freeze(args.python, workdir)
    check_version(app, version)
    stage = workdir / f"companion_{version}_{arch}"
    lay_out(app, stage, version, arch)
    args.out.mkdir(parents=True, exist_ok=True)
    deb = args.out / f"companion_{version}_{arch}.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", f"-Z{args.compress}", "--build", str(stage), str(deb)], check=True)
    print(f"{deb} ({deb.stat().st_size / 1e6:.0f} MB, installs {installed_size_kib(stage) / 1024:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
