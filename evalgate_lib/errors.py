"""Error types that EvalGate raises for problems a user can fix.

Every error here carries a message that says *what* is wrong and *where*
(file, line, key, URL), because the command line prints it verbatim and exits
non-zero. Anything not derived from :class:`EvalGateError` is a bug in EvalGate.
"""

from __future__ import annotations


class EvalGateError(Exception):
    """Base class: a user-facing failure with a message fit to print as is."""


class InputError(EvalGateError):
    """Bad input data: a corpus, gold file, config or prompt template is malformed."""


class FairnessError(InputError):
    """Two configurations differ in more than chunking and prompt."""


class BackendError(EvalGateError):
    """A model backend could not be reached or answered with an error."""


class CacheError(EvalGateError):
    """A cache entry could not be read or written."""


class OutputError(EvalGateError):
    """A file, folder or stream EvalGate must write to cannot take it (permissions, a full disk, a closed pipe).

    Raised with the path (or ``standard output``) and the system's reason, so the command line
    prints one line and exits 2 instead of reporting the operating system's refusal as a bug.
    """

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        #: The system's own wording (``Permission denied``), for a caller that words its own line.
        self.reason = reason or message
