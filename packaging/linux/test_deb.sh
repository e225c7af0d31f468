#!/usr/bin/env bash
# Install the .deb on this machine, self-test the installed copy, start its window under Xvfb
# (screenshot + start time), reinstall, remove, and check that user data survived. Needs root.
# Usage: packaging/linux/test_deb.sh [path/to/companion_X_arch.deb] (default: build one with make package)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:-$ROOT/build/deb-test}"
DEB="${1:-}"
VERSION="$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$ROOT/pyproject.toml")"

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

[ "$(id -u)" = 0 ] || fail "run as root (it installs and removes a package)"
for tool in apt-get dpkg xvfb-run xdotool import identify; do
  command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install xvfb xdotool imagemagick"
done
if [ -z "$DEB" ]; then
  step "building the package"
  make -C "$ROOT" package
  DEB="$ROOT/dist/companion_${VERSION}_$(dpkg --print-architecture).deb"
fi
DEB="$(readlink -f "$DEB")"
[ -f "$DEB" ] || fail "no package at $DEB"
case "$(basename "$DEB")" in companion_"$VERSION"_*.deb) ;; *) fail "$DEB is not named for version $VERSION" ;; esac
rm -rf "$OUT" && mkdir -p "$OUT"

# A throwaway user whose memory must survive install, reinstall and removal untouched.
export HOME="$OUT/home"
USER_MEMORY="$HOME/.local/share/companion/companion-memory"
mkdir -p "$USER_MEMORY"
printf -- '---\nname: user\n---\n## Profile\n- Likes tea 喜欢喝茶 (2026-11-29#1)\n' > "$USER_MEMORY/USER.md"
user_files() { (cd "$HOME/.local/share/companion" && find . -type f ! -name '*.lock' -exec sha256sum {} + | sort); }

dpkg -s companion >/dev/null 2>&1 && fail "companion is already installed; remove it first"
step "installing $(basename "$DEB")"
apt-get install -y -qq "$DEB" >"$OUT/apt-install.log" 2>&1 || { cat "$OUT/apt-install.log"; fail "apt-get install"; }
[ "$(readlink -f /usr/bin/companion)" = /opt/companion/companion ] || fail "/usr/bin/companion does not lead to the app"
for size in 16 32 48 128 256 512; do
  [ -f "/usr/share/icons/hicolor/${size}x${size}/apps/companion.png" ] || fail "icon ${size}px missing"
done
[ -f /usr/share/metainfo/companion.metainfo.xml ] || fail "AppStream metadata missing"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate /usr/share/applications/companion.desktop || fail "desktop entry does not validate"
fi
[ "$(companion --version)" = "companion $VERSION" ] || fail "installed version is not $VERSION"

step "self-test of the installed copy"
(cd / && companion --self-test) | tee "$OUT/self-test.txt"

step "missing system libraries"
missing="$(find /opt/companion -name '*.so*' -type f ! -path '*/platformthemes/*' -exec ldd {} + 2>/dev/null | grep 'not found' | sort -u || true)"
[ -z "$missing" ] || fail "libraries not found after install: $missing"

step "window under Xvfb"
# Cold start: empty the page cache first when the kernel lets us.
if sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then cache=cold; else cache=warm; fi
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -u
  start=$(date +%s.%N)
  QT_QPA_PLATFORM=xcb companion >"$1/app.log" 2>&1 &  # a real X11 window, whatever the caller set
  pid=$!
  wid=$(timeout 120 xdotool search --sync --onlyvisible --name "Companion" | head -1) || { echo "no window"; kill $pid; exit 1; }
  shown=$(date +%s.%N)
  echo "$start $shown" >"$1/start-times.txt"
  sleep 3  # let the first paint and the model load settle
  import -window root "$1/window.png"
  xdotool getwindowclassname "$wid" >"$1/wm-class.txt" 2>/dev/null || true
  xdotool windowfocus --sync "$wid" key ctrl+q 2>/dev/null || true
  for _ in $(seq 40); do kill -0 $pid 2>/dev/null || break; sleep 0.25; done
  if kill -0 $pid 2>/dev/null; then echo "ctrl+q did not quit; sending SIGTERM" >>"$1/app.log"; kill $pid; fi
  wait $pid; echo "exit status $?" >>"$1/app.log"
' _ "$OUT" || { cat "$OUT/app.log" 2>/dev/null; fail "the installed app did not show its window"; }
# A window that painted has many colours; an empty screen has one.
colours="$(identify -format %k "$OUT/window.png")"
[ "$colours" -ge 50 ] || fail "the screenshot is nearly blank ($colours colours): the window did not paint"
read -r t0 t1 <"$OUT/start-times.txt"
start_s="$(python3 -c "print(f'{$t1 - $t0:.2f}')")"
if grep -E "Traceback|Error|QThread: Destroyed" "$OUT/app.log"; then fail "the app printed errors (see $OUT/app.log)"; fi

step "reinstall keeps user data"
grep -q "Likes tea 喜欢喝茶" "$USER_MEMORY/USER.md" || fail "the app lost what USER.md held"
before="$(user_files)"
installed_mib="$(du -sm /opt/companion | cut -f1)"
apt-get install -y -qq --reinstall "$DEB" >>"$OUT/apt-install.log" 2>&1 || fail "reinstall"
[ "$before" = "$(user_files)" ] || fail "reinstalling changed the user's files"

step "removing"
apt-get remove -y -qq companion >"$OUT/apt-remove.log" 2>&1 || fail "apt-get remove"
dpkg --purge companion >>"$OUT/apt-remove.log" 2>&1 || fail "dpkg --purge"
dpkg -s companion >/dev/null 2>&1 && fail "companion is still known to dpkg after purge"
[ ! -e /opt/companion ] || fail "/opt/companion left behind"
[ ! -e /usr/bin/companion ] || fail "/usr/bin/companion left behind"
[ ! -e /usr/share/applications/companion.desktop ] || fail "desktop entry left behind"
[ ! -e /usr/share/metainfo/companion.metainfo.xml ] || fail "AppStream metadata left behind"
[ "$before" = "$(user_files)" ] || fail "removing the package changed the user's files"

deb_mb="$(du -m "$DEB" | cut -f1)"
{
  echo "package:        $(basename "$DEB")  ${deb_mb} MiB"
  echo "installed size: ${installed_mib} MiB (/opt/companion)"
  echo "start to window: ${start_s} s ($cache page cache, Xvfb)"
  echo "screenshot:     $OUT/window.png"
} | tee "$OUT/summary.txt"
echo "PASS"
