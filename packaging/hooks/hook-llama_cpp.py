"""PyInstaller hook: llama-cpp-python loads llama.cpp from llama_cpp/lib/ with ctypes, so collect it by hand."""

import os
import sys
from pathlib import Path

from PyInstaller.utils.hooks import collect_data_files, collect_dynamic_libs, get_package_paths

binaries = collect_dynamic_libs("llama_cpp")
# Anything else beside the libraries (a Metal shader when it is not embedded, for one).
datas = collect_data_files("llama_cpp", subdir="lib")
# The OpenAI-compatible server pulls in web frameworks; Companion runs llama.cpp in-process.
excludedimports = ["llama_cpp.server"]

if sys.platform == "win32":
    # ggml-cpu.dll links the MSVC OpenMP runtime; Windows looks for it beside the DLL first.
    _lib = Path(get_package_paths("llama_cpp")[1]) / "lib"
    _system = Path(os.environ.get("SystemRoot", r"C:\Windows")) / "System32"
    for _name in ("vcomp140.dll", "msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll"):
        if not (_lib / _name).exists() and (_system / _name).exists():
            binaries.append((str(_system / _name), "llama_cpp/lib"))
