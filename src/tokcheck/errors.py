"""Errors a user can cause and fix: printed as one line, exit code 1, no traceback."""


class TokcheckError(Exception):
    """A user-facing error. ``str(err)`` is a single line that says what is wrong and, where
    possible, what to do (e.g. ``unknown GPU 'H2000' — did you mean H200?``)."""

    def __init__(self, message: str) -> None:
        # One line, always: a multi-line message would break the CLI's contract.
        super().__init__(" ".join(str(message).split()))
