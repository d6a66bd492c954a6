"""The ``.pvd`` index of a ParaView time series, appended at a cost independent of its length.

ParaView's collection format is one XML file listing the data sets with their times. A run
writes a frame at a time and must leave a valid index whenever it stops (an exception, a
kill -9); rewriting the whole index after every frame costs O(n) per frame, O(n^2) in all.
:class:`PvdIndex` keeps blank room before the closing tags and writes each new line into it.
"""

from __future__ import annotations

import os
from pathlib import Path
from xml.sax.saxutils import quoteattr

_HEAD = (
    b'<?xml version="1.0"?>\n'
    b'<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
    b"  <Collection>\n"
)
_TAIL = b"  </Collection>\n</VTKFile>\n"
_PAGE = 4096  # bytes: a write inside one page of the page cache is never cut by a kill
_RESERVE = 16 * _PAGE  # bytes: the least room left for new lines when the index is rewritten


class PvdIndex:
    """The ``.pvd`` file of a series, one ``DataSet`` line per frame, valid after every line.

    The file is ``head, lines, blanks, tail``: a new line is written into the blanks (XML
    whitespace), so nothing before it is written again. A line never crosses a 4 KiB page (it
    goes to the start of the next page when it would; the blanks left behind are whitespace),
    so the one ``write`` that puts it there is done whole or not at all when the process is
    killed. When the blanks run out, the file is rewritten with room for as many bytes again
    as it holds (at least 64 KiB) to a temporary file that atomically replaces it; the
    rewrites double in size, so n frames cost O(n) bytes in all. ``compact`` rewrites it
    without blanks (done by ``PvdWriter.close``).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.pvd`` file.

    Examples
    --------
    The index is valid XML after every line:

    >>> import tempfile, pathlib
    >>> import xml.etree.ElementTree as ET
    >>> from fe_contact.io.pvd import PvdIndex
    >>> with tempfile.TemporaryDirectory() as out:
    ...     index = PvdIndex(pathlib.Path(out) / "run.pvd")
    ...     index.append(0.0, "run_00000.vtm")
    ...     index.append(0.1, "run_00001.vtm")
    ...     times = [d.get("timestep") for d in ET.parse(index.path).getroot().iter("DataSet")]
    >>> times
    ['0.0', '0.1']
    """

    def __init__(self, path):
        self.path = Path(path)
        self.lines: list[bytes] = []
        self.bytes_written = 0  # to the index since it was made (for benchmarks)
        self._next = 0  # offset of the next line
        self._end = 0  # offset of the tail: the blanks are [self._next, self._end)
        self._rewrite(_RESERVE)

    @staticmethod
    def line(time: float, filename: str) -> bytes:
        """The ``DataSet`` line of a frame at ``time`` (s, written as repr: exact round trip)."""
        return (
            f'    <DataSet timestep="{float(time)!r}" group="" part="0" '
            f"file={quoteattr(filename)}/>\n"
        ).encode()

    def append(self, time: float, filename: str) -> None:
        """List the frame ``filename`` (relative to the index's folder) at ``time`` s."""
        line = self.line(time, filename)
        self.lines.append(line)
        start = self._next
        if start // _PAGE != (start + len(line) - 1) // _PAGE:
            start = (start // _PAGE + 1) * _PAGE  # the next page: the line stays in one
        if len(line) > _PAGE or start + len(line) > self._end:
            self._rewrite(max(_RESERVE, self._end))
            return
        with open(self.path, "r+b", buffering=0) as fh:
            fh.seek(start)
            if fh.write(line) != len(line):
                raise OSError(f"{self.path}: short write of a series line")
        self.bytes_written += len(line)
        self._next = start + len(line)

    def compact(self) -> None:
        """Rewrite the index without blanks (atomic replace)."""
        self._rewrite(0)

    def _rewrite(self, reserve: int) -> None:
        body = _HEAD + b"".join(self.lines)
        text = body + b" " * reserve + _TAIL
        tmp = self.path.with_suffix(".pvd.tmp")
        tmp.write_bytes(text)
        os.replace(tmp, self.path)
        self.bytes_written += len(text)
        self._next, self._end = len(body), len(body) + reserve
