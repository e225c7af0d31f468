"""Companion: an offline desktop companion with a memory the user owns."""


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed package's metadata when first asked for (not at every start)."""
    if name != "__version__":
        raise AttributeError(f"module 'companion' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("companion")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+source"
    globals()["__version__"] = found
    return found
