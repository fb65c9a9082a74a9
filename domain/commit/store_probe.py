"""Does the store enforce conditional writes? Exactly-once fencing stands on them.

A store that ignores ``If-None-Match: *`` and ``If-Match`` (older MinIO releases, some S3-compatible
services) accepts every write: a second sink of the same name, or a superseded task, then overwrites
locks and plans silently. So before a sink claims its partitions it proves, on a probe object of its
own under ``.indexes/`` (deleted afterwards), that the store refuses a create over an existing
object and a write conditional on another ETag. See docs/sink.md, "Start-up (the store is the source of truth)".
"""

from __future__ import annotations

from lakesink.domain.commit.actions import Delete, PutIfAbsent, PutIfMatch, Steps
from lakesink.domain.errors import PreconditionFailedError

#: A version no object has on any backend: S3, Azure and the local store compare it with an MD5 or
#: a quoted hash, GCS with a generation (a microsecond timestamp); it is a valid number for GCS, so
#: the request reaches the store instead of being refused by the adapter.
_FOREIGN_ETAG = "1"


def probe_key(indexes_name: str, connector: str, owner: str) -> str:
    """This run's probe object: next to the connector's locks, named by the run."""
    return f"{indexes_name}/{connector}/.probes/{owner}"


def checksum_probe_key(indexes_name: str, connector: str, owner: str) -> str:
    """The object a sink writes, reads and deletes at start to learn how the store takes the SDK's
    request checksums (S3 only): next to the conditions probe."""
    return f"{probe_key(indexes_name, connector, owner)}.checksums"


def read_probe_key(list_prefix: str, run: str) -> str:
    """The key a restore reads at start to learn how the store takes the SDK's response checksums
    (S3 only), which never exists: under the prefix it lists, so credentials that may read only the
    objects it restores may read it (docs/storage.md, "Permissions")."""
    return f"{list_prefix}.lakesink-probe-{run}.checksums"


def ignored_conditions(bucket: str, key: str) -> Steps[tuple[str, ...]]:
    """The conditions the store ignored on ``bucket/key``: none when it enforces both."""
    ignored = []
    try:
        yield PutIfAbsent(bucket, key, b"probe")
    except PreconditionFailedError:
        pass  # the key is this run's: only our own attempt, its answer lost and retried, made it
    try:
        try:
            yield PutIfAbsent(bucket, key, b"probe, created again")
            ignored.append("a create-only write (If-None-Match: *) replaced an existing object")
        except PreconditionFailedError:
            pass
        try:
            yield PutIfMatch(bucket, key, b"probe, overwritten", _FOREIGN_ETAG)
            ignored.append("a write conditional on another ETag (If-Match) was applied")
        except PreconditionFailedError:
            pass
    except GeneratorExit:
        raise  # abandoned unfinished (the run is dying): no more store calls
    except BaseException:
        yield Delete(bucket, key)  # a failed probe leaves no object behind either
        raise
    yield Delete(bucket, key)
    return tuple(ignored)
