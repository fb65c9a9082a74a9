"""Which of a batch's ranges share a task: a few tasks per core instead of one per range.

Each task has a fixed cost in the scheduler, the driver and the worker, whatever it holds, so a
batch of many small ranges is written by fewer tasks, balanced by size. Two ranges of one
topic-partition never share a task: a task keeps one state per partition. See docs/sink.md,
"One micro-batch".
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Sequence

from lakesink.domain.offset_range import OffsetRange

TASKS_PER_CORE = 4
"""Tasks per core of the cluster a batch is split into at most: enough that a slow range does not
leave the other cores idle for long, few enough that the per-task cost stops mattering."""


def range_groups(ranges: Sequence[OffsetRange], cores: int) -> list[tuple[int, ...]]:
    """The indexes of ``ranges`` each task writes, in offset order within a task.

    ``cores`` is Spark's default parallelism: the executors' cores on a cluster, 4 on a local
    master (lakesink's default), ``spark.default.parallelism`` when set. Largest range first, each
    goes to the least loaded task that holds none of its partition (loads measured in offsets); at
    most :data:`TASKS_PER_CORE` × ``cores`` tasks, or more when one partition has more ranges than that.
    """
    if not ranges:
        return []
    per_partition = Counter((r.topic, r.partition) for r in ranges)
    tasks = min(len(ranges), max(TASKS_PER_CORE * max(cores, 1), max(per_partition.values())))
    loads = [(0, task) for task in range(tasks)]
    members: list[list[int]] = [[] for _ in range(tasks)]
    holds: list[set[tuple[str, int]]] = [set() for _ in range(tasks)]
    weights = [max(r.size, 1) for r in ranges]  # an empty range still costs its task a little
    for index in sorted(range(len(ranges)), key=lambda i: -weights[i]):
        where = (ranges[index].topic, ranges[index].partition)
        passed = []
        load, task = heapq.heappop(loads)
        while where in holds[task]:
            passed.append((load, task))
            load, task = heapq.heappop(loads)
        members[task].append(index)
        holds[task].add(where)
        heapq.heappush(loads, (load + weights[index], task))
        for entry in passed:
            heapq.heappush(loads, entry)
    return [tuple(sorted(group)) for group in members if group]
