"""Are all ids distinct? Decided on 64-bit hashes of the Arrow string buffers, with NumPy.

Ids of one format all have the same length, and are then hashed a 64-bit word at a time
(a few nanoseconds an id); any other mix is hashed a byte at a time.

A million ids hash in a few tens of milliseconds into 8 MB (one integer an id), which are
sorted in place; a hash set of the strings, or a database to hash them, holds several
times that. Two equal hashes only send the caller to its exact (slower) path.
"""

from __future__ import annotations

from functools import partial
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = ["may_repeat"]

#: Rows hashed at a time: the temporary arrays are ~32 bytes per byte of text in a slice.
_SLICE_ROWS: Final = 16_384
#: One odd 64-bit multiplier per byte position (mod 4096), drawn once, fixed.
_WEIGHTS: Final = np.random.default_rng(0x5049584F5053).integers(
    1, 2**63, size=4096, dtype=np.uint64
) | np.uint64(1)
_LENGTH_MIX: Final = np.uint64(0x9E3779B97F4A7C15)


def may_repeat(ids: pa.ChunkedArray | pa.Array) -> bool:
    """False when every value is distinct (and not null); True when two values may be
    equal. Values that are not plain strings always answer True (the exact path)."""
    chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
    if any(not pa.types.is_string(chunk.type) or chunk.null_count for chunk in chunks):
        return True
    width = _common_length(chunks)
    hashes = _hashes if width is None else partial(_fixed_width_hashes, width=width)
    parts = [
        hashes(chunk.slice(start, _SLICE_ROWS))
        for chunk in chunks
        for start in range(0, len(chunk), _SLICE_ROWS)
    ]
    if not parts:
        return False
    values = np.concatenate(parts)
    values.sort()
    return bool(np.any(values[1:] == values[:-1]))


def _offsets(strings: pa.Array) -> npt.NDArray[np.int64]:
    return np.frombuffer(
        strings.buffers()[1], dtype=np.int32, count=len(strings) + 1, offset=strings.offset * 4
    ).astype(np.int64)


def _common_length(chunks: list[pa.Array]) -> int | None:
    """The byte length every value shares (ids of one format, e.g. UUIDs), else None."""
    bounds: set[int] = set()
    for chunk in chunks:
        if len(chunk):
            lengths = np.diff(_offsets(chunk))
            bounds.update((int(lengths.min()), int(lengths.max())))
    return bounds.pop() if len(bounds) == 1 else None


def _fixed_width_hashes(strings: pa.Array, width: int) -> npt.NDArray[np.uint64]:
    """Each string's hash when all are ``width`` bytes long: its bytes read as 64-bit
    words (zero-padded), each times its position's multiplier, summed modulo 2**64."""
    count = len(strings)
    first = int(_offsets(strings)[0])
    words = -(-width // 8)
    padded = np.zeros((count, words * 8), dtype=np.uint8)
    data = strings.buffers()[2]
    if data is not None and width:
        text = np.frombuffer(data, dtype=np.uint8, count=count * width, offset=first)
        padded[:, :width] = text.reshape(count, width)
    products = padded.view(np.uint64) * _WEIGHTS[:words]
    sums: npt.NDArray[np.uint64] = products.sum(axis=1, dtype=np.uint64)
    return sums ^ np.uint64(width * int(_LENGTH_MIX) % 2**64)


def _hashes(strings: pa.Array) -> npt.NDArray[np.uint64]:
    """Each string's hash: the sum of (byte + 1) times its position's multiplier, mixed
    with the length (so an empty string and a prefix differ), wrapping modulo 2**64."""
    offsets = _offsets(strings)
    first, last = int(offsets[0]), int(offsets[-1])
    data = strings.buffers()[2]
    text = (
        np.frombuffer(data, dtype=np.uint8, count=last - first, offset=first)
        if data is not None and last > first
        else np.zeros(0, dtype=np.uint8)
    )
    lengths = np.diff(offsets)
    starts = offsets[:-1] - first
    position = np.arange(last - first, dtype=np.int64) - np.repeat(starts, lengths)
    mixed = (text.astype(np.uint64) + np.uint64(1)) * _WEIGHTS[position % len(_WEIGHTS)]
    running = np.zeros(last - first + 1, dtype=np.uint64)
    np.cumsum(mixed, out=running[1:])
    sums = running[starts + lengths] - running[starts]
    return sums ^ (lengths.astype(np.uint64) * _LENGTH_MIX)
