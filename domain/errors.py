"""Every lakesink error, rooted at one class so callers can catch the whole family.

Each class also derives from the nearest builtin meaning (ValueError, FileNotFoundError,
PermissionError, ...) so code that knows nothing about lakesink still handles them sensibly.
Messages name the setting, bucket/key or record at fault and never contain a secret.
"""

from __future__ import annotations


class LakesinkError(Exception):
    """Root of every error raised by lakesink."""


# --- configuration -------------------------------------------------------------------------


class ConfigError(LakesinkError, ValueError):
    """A setting is missing, unknown or has a value of the wrong type or range."""


class KcqlError(ConfigError):
    """A KCQL statement cannot be parsed or uses an invalid clause or property.

    Attributes:
        statement: the statement text at fault (one statement, not the whole setting).
        position: 0-based character offset inside ``statement`` where the problem starts,
            or None when the problem is not tied to one place.
    """

    def __init__(self, message: str, *, statement: str = "", position: int | None = None) -> None:
        self.statement = statement
        self.position = position
        self.reason = message
        super().__init__(self._render(message, statement, position))

    @staticmethod
    def _render(message: str, statement: str, position: int | None) -> str:
        if not statement:
            return message
        if position is None:
            return f"{message}\n  in KCQL: {statement}"
        caret = " " * position + "^"
        return f"{message} (at position {position})\n  in KCQL: {statement}\n           {caret}"


class BackendNotInstalledError(ConfigError, ImportError):
    """The storage backend named by the settings needs a package that is not installed."""


class UnknownBackendError(ConfigError):
    """No storage backend is registered under the requested name."""


class MissingExtraError(LakesinkError, ImportError):
    """What is asked for needs an optional part of lakesink (an extra: ``lakesink[s3]``) that is
    not installed. Not invalid input: the config is fine, the environment lacks a library.

    Attributes:
        extra: the extra to install (``spark``, ``s3``, ``gcs``, ``azure``, ``iceberg``, ``delta``, ``demo``).
        module: the missing module, as Python named it.
    """

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(self.line("lakesink"))

    def line(self, subject: str) -> str:
        """The one-line message with ``subject`` (``lakesink sink``, ``lakesink.spark``) as what needs the extra."""
        return (
            f"{subject} needs the {self.extra} extra ({self.module} is not installed): "
            f"pip install 'lakesink[{self.extra}]'"
        )


# --- storage -------------------------------------------------------------------------------


class StorageError(LakesinkError, OSError):
    """An object-store operation failed; the message names bucket and key."""


class ObjectNotFoundError(StorageError, FileNotFoundError):
    """The object does not exist."""


class BucketNotFoundError(StorageError, FileNotFoundError):
    """The bucket (container) does not exist."""


class PreconditionFailedError(StorageError, FileExistsError):
    """A conditional write lost: the object exists (create-only) or its ETag changed."""


class AccessDeniedError(StorageError, PermissionError):
    """The credentials are missing, wrong, or not allowed to perform the operation."""


class TransientStorageError(StorageError):
    """The store failed in a way that may succeed later (5xx, throttling, reset, timeout)."""


class StoreTlsError(StorageError):
    """TLS to the store failed: its certificate is not signed by a trusted CA, or the handshake broke."""


# --- data ----------------------------------------------------------------------------------


class RecordError(LakesinkError, ValueError):
    """One record cannot be processed (poison record); the message names topic, partition and offset."""


class FormatError(LakesinkError, ValueError):
    """Data cannot be written or read in the requested storage format."""


class SchemaChangedError(FormatError):
    """A record does not fit the open file's schema; the writer must roll to a new file."""


# --- environment ---------------------------------------------------------------------------


class StagingFullError(LakesinkError, OSError):
    """The disk a task stages its files on is full: the environment's problem (exit 1), not the data's."""


class KafkaUnavailableError(LakesinkError, ConnectionError):
    """No Kafka broker answered: the environment's problem (exit 1), not the config's."""


class KafkaAccessDeniedError(ConfigError, PermissionError):
    """Kafka refused the client's principal an operation (a missing ACL): the config's problem (exit 2),
    since granting the ACL the message names, not retrying, is what fixes it."""


# --- commit --------------------------------------------------------------------------------


class CommitError(LakesinkError):
    """The exactly-once commit protocol could not advance."""


class CommitConflictError(CommitError):
    """Another writer owns the index (fenced by a conditional write); safe to stop and retry later."""


class PlanChangedError(CommitConflictError):
    """A pending plan's range was written again into other objects (its rows changed since: a
    transformation that is not deterministic, a lookup table that changed): the plan must be rolled
    back, and the range written afresh."""


class CommitOutcomeUnknownError(CommitError):
    """A commit step may or may not have happened; recovery must reconcile before retrying."""


class TableMovedError(CommitError):
    """A table commit conflicted with one that landed since the table was read; nothing was
    committed, and the commit protocol reads the table again and decides anew."""


def error_of_kind(kind: str, message: str) -> LakesinkError:
    """The error named ``kind`` (:class:`LakesinkError` or any subclass loaded here) carrying ``message``.

    Errors cross process boundaries (a Spark task to its driver) as data, class name and message:
    this rebuilds them on the other side, so the driver applies ``error.policy``, stops on a fencing
    conflict and picks the CLI's exit code as if the task had raised in-process. The classes are
    looked up when called, so subclasses defined outside this module (``LockFormatError``, the
    Schema Registry's errors) count too. An unknown name (another version on the executors) gives
    the root class, message kept.
    """
    found = next((cls for cls in _subclasses(LakesinkError) if cls.__name__ == kind), LakesinkError)
    return found(message)


def _subclasses(root: type[LakesinkError]) -> list[type[LakesinkError]]:
    return [root, *(deeper for child in root.__subclasses__() for deeper in _subclasses(child))]
