"""The one error hierarchy: every failure a user can see is a CompanionError."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of all errors Companion raises on purpose; the message is for the user."""


class AlreadyRunningError(CompanionError):
    """Another Companion process holds this home folder."""


class SchemaVersionError(CompanionError):
    """A file on disk was written by a newer Companion."""


class SettingsError(CompanionError):
    """settings.toml cannot be read."""


# --- storage ---------------------------------------------------------------


class StorageError(CompanionError):
    """Reading or writing the memory folder failed (disk full, permissions...)."""


class InvalidMemoryFileError(CompanionError):
    """A file name outside the whitelist of long-term files (or a path trick)."""


class FrontmatterError(CompanionError):
    """The YAML frontmatter of a long-term file does not parse."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class ConflictError(CompanionError):
    """A compare-and-swap write found the file changed since the writer read it."""


class EditError(CompanionError):
    """An edit operation could not be applied."""


class NoMatchError(EditError):
    """edit(): old_string occurs nowhere in the file."""


class AmbiguousMatchError(EditError):
    """edit(): old_string occurs more than once."""

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class RefusedWriteError(CompanionError):
    """The write policy refused an entry; the message says why (a secret, an instruction in disguise...)."""


class HistoryError(CompanionError):
    """A snapshot to restore does not exist."""


# --- portability ---------------------------------------------------------------


class PortabilityError(CompanionError):
    """Exporting, importing or migrating the memory failed."""


class UnsafeArchiveError(PortabilityError):
    """A .zip to import has unsafe entries (.. or absolute paths, links) or is too large."""


class TransferCancelledError(PortabilityError):
    """The user stopped an export or import; nothing was changed."""


class UnrecognizedSourceError(PortabilityError):
    """An import source is neither a memory folder nor a format Companion can migrate."""


# --- model -------------------------------------------------------------------


class ModelError(CompanionError):
    """The language model cannot be used."""


class ModelNotFoundError(ModelError):
    """The GGUF file does not exist."""


class NotAGGUFError(ModelError):
    """The file is not a GGUF model (wrong magic bytes or truncated)."""


class UnsupportedModelError(ModelError):
    """llama.cpp cannot load this model (architecture, version)."""


class ModelMemoryError(ModelError):
    """Not enough RAM/VRAM to load the model with these settings."""


class GenerationError(ModelError):
    """Generating a reply failed."""


class SleepError(CompanionError):
    """The nightly sleep job could not run or finish."""


class SleepBusyError(SleepError):
    """Another process is already running the sleep job on this home."""


class SleepCancelledError(SleepError):
    """The sleep job was cancelled; what it finished is kept and the rest runs next time."""


class ToolError(CompanionError):
    """A memory tool call was malformed or refused; the message is shown to the model."""


class SearchError(CompanionError):
    """The search index cannot be used or rebuilt (memory itself is unaffected)."""


class RemoteServerError(ModelError):
    """The model server (OpenAI-compatible API) is unreachable, refused the request, or failed."""


class DownloadError(ModelError):
    """Downloading a model failed (network, disk space, checksum)."""


class DownloadCancelled(DownloadError):
    """The user stopped a download; the partial file is kept so it can resume."""


class DatasetError(CompanionError):
    """A memory-quality dataset file is missing or malformed."""


# --- other assistants and other computers ---------------------------------------


class ProposalError(CompanionError):
    """A proposed change could not be applied (refused by the policy, gone, or already decided)."""


class SharingError(CompanionError):
    """Another assistant asked for what the user has not allowed it, or for something that cannot be answered."""
