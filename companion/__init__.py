"""Companion: an offline desktop companion with a memory the user owns."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("companion")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
