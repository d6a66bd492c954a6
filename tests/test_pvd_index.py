"""The .pvd index of a series: valid XML after every line, each line in one 4 KiB page, linear
cost in the number of frames, and valid after a kill -9 at any moment."""

import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fe_contact.io.pvd import PvdIndex

PAGE = 4096  # bytes: the page of the page cache (Linux, x86-64 and arm64 defaults)


def _listed(path):
    """(time, file) of every DataSet of a .pvd, parsed independently of the writer."""
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "Collection"
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


def _time(k):
    return 1e-3 * k + 1e-17 * k  # not round in binary: the repr round trip is tested


def test_every_line_listed_once_in_order_and_the_index_valid_after_each(tmp_path):
    """2500 lines (about 190 kB: two rewrites with more room, some 45 page crossings): after
    every line the file parses and lists exactly the lines so far, times exactly as given."""
    path = tmp_path / "s.pvd"
    index = PvdIndex(path)
    assert _listed(path) == []
    sizes = []
    for k in range(2500):
        index.append(_time(k), f"s_{k:05d}.vtm")
        sizes.append(path.stat().st_size)
        if k < 60 or k % 50 == 0 or sizes[-1] != sizes[-2]:  # parse: the start, samples, rewrites
            assert _listed(path) == [(_time(j), f"s_{j:05d}.vtm") for j in range(k + 1)], k
    assert len(set(sizes)) >= 3  # the index was rewritten with more room at least twice
    index.compact()
    text = path.read_bytes()
    assert b"  " * 8 not in text  # no blank room left after compact
    assert _listed(path) == [(_time(j), f"s_{j:05d}.vtm") for j in range(2500)]


def test_no_line_crosses_a_page(tmp_path):
    """A line crossing a page boundary could be cut by a kill between the two pages' copies;
    the index starts such a line on the next page instead."""
    path = tmp_path / "s.pvd"
    index = PvdIndex(path)
    for k in range(600):  # ~45 kB of lines: ~11 page boundaries inside the first blank room
        index.append(_time(k), f"a_long_series_name_{k:05d}.vtm")
    text = path.read_bytes()
    starts = [i for i in range(len(text)) if text.startswith(b"<DataSet", i)]
    assert len(starts) == 600
    for start in starts:
        end = text.index(b"/>", start) + 2
        assert start // PAGE == (end - 1) // PAGE, start


def test_cost_is_linear_in_the_number_of_lines(tmp_path):
    """Bytes written for n lines: the lines once, plus rewrites whose room doubles (each at
    most twice the file before it), so in all below 2 * (lines + 64 kB) + 2 * (last size): we
    assert 6 x the final compact size + 256 kB. Rewriting the whole index after each line
    costs n^2 / 2 lines: 2.4e8 bytes here, 50 times this bound."""
    path = tmp_path / "s.pvd"
    index = PvdIndex(path)
    n = 10_000
    for k in range(n):
        index.append(_time(k), f"s_{k:05d}.vtm")
    index.compact()
    final = path.stat().st_size
    assert final < 100 * n  # about 75 bytes a line
    assert index.bytes_written < 6 * final + 256 * 1024


_CHILD = """
import sys
from fe_contact.io.pvd import PvdIndex
index = PvdIndex(sys.argv[1])
k = 0
while True:
    index.append(1e-3 * k, f"s_{k:07d}.vtm")
    k += 1
    if k == 1:
        print("started", flush=True)
"""


@pytest.mark.parametrize("delay", [0.05, 0.5])
def test_index_valid_after_kill_9(tmp_path, delay):
    """A process appending lines as fast as it can is killed with SIGKILL: the index parses and
    lists frames 0..k-1, each once, in order (k > 0)."""
    path = tmp_path / "s.pvd"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    listed = _listed(path)
    assert len(listed) > 0
    assert [f for _, f in listed] == [f"s_{k:07d}.vtm" for k in range(len(listed))]
