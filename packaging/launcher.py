"""Entry point of the frozen app: the same `companion` command that a pip install provides."""

import sys

if sys.platform == "win32":
    # llama.cpp before Qt: Qt's DLL search path otherwise shadows the OpenMP runtime llama.dll needs.
    import llama_cpp  # noqa: F401

from companion.cli import main

sys.exit(main())
