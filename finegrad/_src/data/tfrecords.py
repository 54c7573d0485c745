"""TFRecord files as TensorFlow's ``RecordWriter`` and ``RecordReader`` write and read them,
the container of ``tf.data``'s saved datasets and snapshots.

A record is its length (8 bytes, little-endian), the masked CRC-32C of those 8 bytes, the
data, and the masked CRC-32C of the data. The whole stream may be compressed: ``"GZIP"`` (one
gzip stream), ``"ZLIB"`` (one zlib stream) or ``"SNAPPY"`` (TensorFlow's snappy framing:
blocks, each its compressed size as 4 big-endian bytes and a raw snappy block; TensorFlow
writes a block per write call, we write 64 KiB blocks, and either reads the other's). Snappy needs
the optional ``cramjam`` package (``pip install "finegrad[data]"``).

The CRCs are computed with NumPy over many records at once (a record's bytes are a row of
a table, the table's columns one vector step each), since Python cannot loop over bytes fast.
"""
from __future__ import annotations

import functools
import importlib
import os
import zlib
from typing import Any, BinaryIO

import numpy as np

from finegrad._src.errors import DataLossError

COMPRESSIONS = (None, "GZIP", "ZLIB", "SNAPPY")
_POLY = 0x82F63B78                  # CRC-32C (Castagnoli), reflected
_BLOCK = 4096                       # longer records are hashed in blocks of this many bytes
_SNAPPY_BLOCK = 64 << 10            # uncompressed bytes per snappy block we write
_MASK_DELTA = 0xA282EAD8


def _table() -> np.ndarray:
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T = _table()
_TL = _T.tolist()


def _raw_python(crc: int, data: bytes) -> int:
    t = _TL
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


@functools.lru_cache(maxsize=4096)
def _ones_through(n: int) -> int:
    """The raw CRC register after n zero bytes from 0xFFFFFFFF (what the initial value adds
    to a message of n bytes, the CRC being linear)."""
    return _raw_python(0xFFFFFFFF, bytes(n))


@functools.lru_cache(maxsize=1)
def _shift_tables() -> list[list[int]]:
    """The linear map 'run _BLOCK zero bytes through the register', as four byte tables."""
    regs = (np.arange(256, dtype=np.uint32)[None, :] << (8 * np.arange(4, dtype=np.uint32)
                                                         [:, None])).reshape(-1)
    for _ in range(_BLOCK):
        regs = _T[regs & 0xFF] ^ (regs >> 8)
    return regs.reshape(4, 256).tolist()


@functools.lru_cache(maxsize=1)
def _word_tables() -> tuple[np.ndarray, np.ndarray]:
    """Four register steps (one little-endian word) as two 16-bit tables: the register after
    a word w is ``lo[r & 0xFFFF] ^ hi[r >> 16]`` with r the register xor w."""
    regs = np.concatenate([np.arange(1 << 16, dtype=np.uint32),
                           np.arange(1 << 16, dtype=np.uint32) << 16])
    for _ in range(4):
        regs = _T[regs & 0xFF] ^ (regs >> 8)
    return regs[:1 << 16], regs[1 << 16:]


def _raw_zero_init(rows: list[bytes]) -> np.ndarray:
    """Each row's raw CRC from register 0 (leading zero bytes change nothing, so rows are
    left-padded to one length and hashed together, a word of each per step)."""
    out = np.zeros(len(rows), dtype=np.uint32)
    lo, hi = _word_tables()
    buckets: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        buckets.setdefault(max(len(r), 4).bit_length(), []).append(i)
    for bits, idx in buckets.items():
        width = 1 << bits
        table = np.zeros((len(idx), width), dtype=np.uint8)
        for j, i in enumerate(idx):
            if rows[i]:
                table[j, width - len(rows[i]):] = np.frombuffer(rows[i], np.uint8)
        words = np.ascontiguousarray(table.view("<u4").T).astype(np.uint32)
        crc = np.zeros(len(idx), dtype=np.uint32)
        for w in words:
            crc ^= w
            crc = lo[crc & 0xFFFF] ^ hi[crc >> 16]
        out[idx] = crc
    return out


def crc32c(messages: list[bytes]) -> list[int]:
    """The CRC-32C of each message (``crc32c([b"123456789"]) == [0xE3069283]``)."""
    heads: list[bytes] = []
    blocks: list[bytes] = []
    plan: list[tuple[int, int, int]] = []
    for m in messages:
        cut = len(m) % _BLOCK
        heads.append(m[:cut])
        plan.append((cut, len(blocks), (len(m) - cut) // _BLOCK))
        blocks.extend(m[k:k + _BLOCK] for k in range(cut, len(m), _BLOCK))
    head_raw = _raw_zero_init(heads).tolist()
    block_raw = _raw_zero_init(blocks).tolist() if blocks else []
    t0, t1, t2, t3 = _shift_tables() if blocks else ([], [], [], [])
    out = []
    for (cut, first, count), h in zip(plan, head_raw, strict=True):
        r = h ^ _ones_through(cut)
        for b in block_raw[first:first + count]:
            r = t0[r & 0xFF] ^ t1[(r >> 8) & 0xFF] ^ t2[(r >> 16) & 0xFF] ^ t3[r >> 24] ^ b
        out.append(r ^ 0xFFFFFFFF)
    return out


def _mask(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def is_record_header(head: bytes) -> bool:
    """Whether 12 bytes are a TFRecord's length and its CRC (an uncompressed file)."""
    return len(head) == 12 and _mask(crc32c([head[:8]])[0]) == int.from_bytes(head[8:],
                                                                                "little")


def frame(records: list[bytes]) -> bytes:
    """``records`` framed as TFRecords, one after another."""
    lengths = [len(r).to_bytes(8, "little") for r in records]
    crcs = crc32c(lengths + records)
    n = len(records)
    return b"".join(length + _mask(crcs[i]).to_bytes(4, "little") + r
                    + _mask(crcs[n + i]).to_bytes(4, "little")
                    for i, (length, r) in enumerate(zip(lengths, records, strict=True)))


def snappy_module(fn: str, argument: str = "compression") -> Any:
    """``cramjam``'s snappy codec, or an error saying how to install it."""
    try:
        return importlib.import_module("cramjam").snappy
    except ImportError:
        raise ImportError(f"{fn}: {argument}='SNAPPY' needs the optional 'cramjam' package: "
                          f"pip install \"finegrad[data]\" (or pip install cramjam)") from None


class RecordWriter:
    """A TFRecord file being written, compressed as asked."""

    def __init__(self, path: str, compression: Any, fn: str) -> None:
        self._snappy = snappy_module(fn) if compression == "SNAPPY" else None
        self._zlib = zlib.compressobj(6, zlib.DEFLATED, 31 if compression == "GZIP" else 15) \
            if compression in ("GZIP", "ZLIB") else None
        self._file: BinaryIO = open(path, "wb")
        self._pending = bytearray()

    def write(self, records: list[bytes]) -> None:
        data = frame(records)
        if self._zlib is not None:
            self._file.write(self._zlib.compress(data))
        elif self._snappy is not None:
            self._pending += data
            while len(self._pending) >= _SNAPPY_BLOCK:
                self._snappy_block(bytes(self._pending[:_SNAPPY_BLOCK]))
                del self._pending[:_SNAPPY_BLOCK]
        else:
            self._file.write(data)

    def _snappy_block(self, data: bytes) -> None:
        assert self._snappy is not None
        block = bytes(self._snappy.compress_raw(data))
        self._file.write(len(block).to_bytes(4, "big") + block)

    def abort(self) -> None:
        """Closes the file as it is (the caller removes it)."""
        self._file.close()

    def close(self) -> None:
        if self._zlib is not None:
            self._file.write(self._zlib.flush())
        elif self._snappy is not None and self._pending:
            self._snappy_block(bytes(self._pending))
        self._file.close()


_CHUNK = 1 << 20


def _chunks(f: BinaryIO, compression: Any, fn: str, path: str) -> Any:
    """The decompressed bytes of an open file, a chunk at a time."""
    if compression is None:
        while chunk := f.read(_CHUNK):
            yield chunk
    elif compression == "SNAPPY":
        yield from _snappy_chunks(f, snappy_module(fn), fn, path)
    else:
        yield from _zlib_chunks(f, 31 if compression == "GZIP" else 15, fn, path)


def _zlib_chunks(f, wbits, fn, path):
    d = zlib.decompressobj(wbits)
    try:
        while chunk := f.read(_CHUNK):
            while chunk:
                yield d.decompress(chunk)
                chunk = b""
                if d.eof and d.unused_data:      # another gzip member follows
                    chunk, d = d.unused_data, zlib.decompressobj(wbits)
        if not d.eof:
            raise DataLossError(f"{fn}: {path} ends inside its compressed stream")
    except zlib.error as e:
        raise DataLossError(f"{fn}: {path} is not readable with this compression "
                            f"({e})") from None


def _snappy_chunks(f, snappy, fn, path):
    total = os.fstat(f.fileno()).st_size
    while head := f.read(4):
        size = int.from_bytes(head, "big")
        block = f.read(size) if size <= total - f.tell() else b""
        if len(head) < 4 or len(block) < size:
            raise DataLossError(f"{fn}: {path} ends inside a snappy block (is it "
                                f"SNAPPY-compressed?)")
        try:
            yield bytes(snappy.decompress_raw(block))
        except Exception as e:   # cramjam raises its own DecompressionError
            raise DataLossError(f"{fn}: {path} holds a corrupted snappy block "
                                f"({e})") from None


def read_records(path: str, compression: Any, fn: str) -> Any:
    """The records of a TFRecord file in order, each checked against its CRCs.

    Raises:
        finegrad.errors.DataLossError: at a corrupted or cut record, or a stream that is not
            compressed as ``compression`` says.
    """
    with open(path, "rb") as f:
        buf, offset = b"", 0
        parts: list[bytes] = []
        for chunk in _chunks(f, compression, fn, path):
            parts.append(chunk)
            if sum(map(len, parts)) < _CHUNK:
                continue                   # CRCs are cheaper over many records at once
            buf, parts = buf + b"".join(parts), []
            records, used = _split(buf, offset, fn, path)
            yield from records
            buf, offset = buf[used:], offset + used
        buf += b"".join(parts)
        records, used = _split(buf, offset, fn, path)
        yield from records
        if buf[used:]:
            raise DataLossError(f"{fn}: truncated record at {offset + used} in {path}")


def _split(buf, offset, fn, path):
    """The complete records at the front of ``buf`` (checked), and how many bytes they use."""
    pos, heads, datas, starts = 0, [], [], []
    while pos + 12 <= len(buf):
        n = int.from_bytes(buf[pos:pos + 8], "little")
        if pos + 16 + n > len(buf):
            if _mask(crc32c([buf[pos:pos + 8]])[0]) != int.from_bytes(buf[pos + 8:pos + 12],
                                                                        "little"):
                break                      # checked below, with the records before it
            return _checked(buf, heads, datas, starts, offset, fn, path), pos
        heads.append(buf[pos:pos + 8])
        datas.append(buf[pos + 12:pos + 12 + n])
        starts.append(pos)
        pos += 16 + n
    else:
        return _checked(buf, heads, datas, starts, offset, fn, path), pos
    heads.append(buf[pos:pos + 8])
    datas.append(b"")
    starts.append(pos)
    _checked(buf, heads, datas, starts, offset, fn, path)
    raise AssertionError("unreachable: a bad length header passes its CRC")


def _checked(buf, heads, datas, starts, offset, fn, path):
    crcs = crc32c(heads + datas)
    k = len(heads)
    for i, start in enumerate(starts):
        n = len(datas[i])
        stored_head = int.from_bytes(buf[start + 8:start + 12], "little")
        stored_data = int.from_bytes(buf[start + 12 + n:start + 16 + n], "little")
        if _mask(crcs[i]) != stored_head or _mask(crcs[k + i]) != stored_data:
            raise DataLossError(f"{fn}: corrupted record at {offset + start} in {path} "
                                f"(is it compressed as the `compression` given says?)")
    return datas
