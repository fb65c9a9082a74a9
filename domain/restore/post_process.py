"""What a post-process action does to a fully restored object (Lenses ``post.process.action``).

Move keeps the key below the root: ``<root prefix><rest>`` becomes ``<move prefix>/<rest>`` in
the move bucket (Lenses replaces the original prefix with the new one). ``retain.dirs`` writes
an empty ``<directory>/`` marker first, so the emptied directory still lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from lakesink.domain.layout.key_segments import normalise_prefix
from lakesink.domain.restore.plan import PostProcess, RestoreRoot


@dataclass(frozen=True, slots=True)
class PostProcessStep:
    """The store calls for one object: optional directory marker, optional copy, then delete."""

    marker_key: str | None
    move_bucket: str | None
    move_key: str | None


def post_process_step(root: RestoreRoot, post: PostProcess, key: str) -> PostProcessStep:
    """The calls to make for ``key`` once its records and progress are committed."""
    directory = key.rpartition("/")[0]
    marker = directory + "/" if post.retain_dirs and directory else None
    if post.action != "Move":
        return PostProcessStep(marker, None, None)
    prefix = normalise_prefix(post.prefix)
    relative = root.relative(key)
    return PostProcessStep(marker, post.bucket or root.bucket, f"{prefix}/{relative}" if prefix else relative)
