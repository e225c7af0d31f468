#!/bin/sh
# Build llama-cpp-python with the Vulkan backend loaded at run time (GGML_BACKEND_DL) beside the CPU backend.
#
#   packaging/vulkan/build.sh                 # into the Python that runs it ($PYTHON, default python3)
#   packaging/vulkan/build.sh --target DIR    # into DIR (a plain folder for PYTHONPATH; leaves the venv alone)
#
# Needs cmake, a C++ compiler, glslc and spirv-headers, and Vulkan headers 1.3.275 or newer
# (Debian 12's are too old: VULKAN_HEADERS=auto fetches Debian trixie's into build/vulkan-headers).
# CPU_VARIANTS=1 also builds one CPU backend per x86 instruction-set level (what the installers ship);
# it is off by default because it compiles the CPU backend about fourteen times.
set -eu

PYTHON=${PYTHON:-python3}
VERSION=${LLAMA_CPP_VERSION:-0.3.36}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-$ROOT/build/vulkan}
TARGET=""
if [ "${1:-}" = "--target" ]; then TARGET=$2; fi
mkdir -p "$WORK"

headers_dir() {
    # The Vulkan headers to build against: $VULKAN_HEADERS, the system's when new enough, or trixie's.
    if [ -n "${VULKAN_HEADERS:-}" ] && [ "$VULKAN_HEADERS" != auto ]; then echo "$VULKAN_HEADERS"; return; fi
    system=$(sed -n 's/^#define VK_HEADER_VERSION \([0-9]*\)/\1/p' /usr/include/vulkan/vulkan_core.h 2>/dev/null || true)
    if [ -n "$system" ] && [ "$system" -ge 275 ] && [ "${VULKAN_HEADERS:-}" != auto ]; then echo /usr/include; return; fi
    apt="$WORK/apt"
    if [ -f "$apt/headers/usr/include/vulkan/vulkan_core.h" ]; then echo "$apt/headers/usr/include"; return; fi
    mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/headers"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$apt/sources.list"
    opts="-o Dir::Etc::sourcelist=$apt/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt -o APT::Get::List-Cleanup=0"
    # shellcheck disable=SC2086
    apt-get $opts update >&2
    # shellcheck disable=SC2086
    (cd "$apt" && apt-get $opts download libvulkan-dev >&2)
    dpkg -x "$apt"/libvulkan-dev_*.deb "$apt/headers"
    echo "$apt/headers/usr/include"
}

INCLUDE=$(headers_dir)
echo "Vulkan headers: $INCLUDE" >&2
ARGS="-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_VULKAN=ON -DVulkan_INCLUDE_DIR=$INCLUDE"
if [ "${CPU_VARIANTS:-0}" = 1 ]; then ARGS="$ARGS -DGGML_CPU_ALL_VARIANTS=ON"; fi
export CMAKE_ARGS="$ARGS ${EXTRA_CMAKE_ARGS:-}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
BUILD="$WORK/cmake"

# The sources live at a fixed path: CMake's cache and ninja's log name them, so a second run (or one after
# an interrupted build) recompiles only what is missing instead of starting over in a new temporary folder.
SRC=${LLAMA_CPP_SRC:-$WORK/src/llama_cpp_python-$VERSION}
if [ ! -f "$SRC/pyproject.toml" ]; then
    mkdir -p "$WORK/sdist" "$(dirname "$SRC")"
    "$PYTHON" -m pip download --no-deps --no-binary llama-cpp-python -d "$WORK/sdist" "llama-cpp-python==$VERSION"
    rm -rf "$SRC.partial"
    mkdir -p "$SRC.partial"
    tar -xzf "$WORK/sdist/llama_cpp_python-$VERSION.tar.gz" -C "$SRC.partial" --strip-components=1
    rm -rf "$SRC"
    mv "$SRC.partial" "$SRC"
fi

if [ -n "$TARGET" ]; then
    set -- --target "$TARGET" --upgrade
else
    set -- --force-reinstall
fi
"$PYTHON" -m pip install --no-deps --no-cache-dir \
    --config-settings=build-dir="$BUILD" "$@" "$SRC"

# llama-cpp-python installs the backends it names; the CPU variants are extra modules beside them.
LIB=$("$PYTHON" - "$TARGET" <<'PY'
import sys, importlib.util
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
spec = importlib.util.find_spec("llama_cpp")
print(spec.submodule_search_locations[0] + "/lib")
PY
)
if [ "${CPU_VARIANTS:-0}" = 1 ]; then
    find "$BUILD" -name 'libggml-cpu-*.so' -exec cp {} "$LIB/" \;
    find "$BUILD" -name 'ggml-cpu-*.dll' -exec cp {} "$LIB/" \;
fi
echo "Built into $LIB:" >&2
ls -l "$LIB" >&2
