"""Spreading origins over task slots so every slot gets about the same amount of data.

Spark's hash partitioning of a handful of origins is luck: 8 equal origins on 2 slots can land
6 and 2, leaving a core idle for a third of the run. The restore knows each origin's bytes, so
it assigns them itself, largest first, each to the least loaded slot (greedy LPT: within 4/3 of
the best possible makespan, and exact for equal origins that divide evenly).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def balanced_groups(weights: Sequence[int], slots: int) -> list[list[int]]:
    """Indexes of ``weights`` in ``min(slots, len(weights))`` groups of near-equal total weight.

    Each group keeps its indexes in ascending order (the driver's origin order); no group is empty.
    """
    count = max(1, min(slots, len(weights)))
    if not weights:
        return []
    loads = [(0, slot) for slot in range(count)]
    groups: list[list[int]] = [[] for _ in range(count)]
    for index in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        load, slot = heapq.heappop(loads)
        groups[slot].append(index)
        heapq.heappush(loads, (load + weights[index], slot))
    return [sorted(group) for group in groups]
