"""The history file of a run: a CSV of named scalar columns, written row by row and read back.

``HistoryWriter`` appends the rows that ``steppers.step_report.history_row`` makes of each
step's report (the ``CsvObserver`` of ``steppers.observers`` drives it); ``read_history`` reads
such a file back as columns by bare name. Steppers write no files: this is the writer they feed.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


class HistoryWriter:
    """Appends rows of a fixed set of columns to a CSV file (header ``name [unit]``).

    Each row is flushed, so that a run that stops leaves every row written so far.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (created, or overwritten).
    columns : list of tuple of str
        (name, unit) of each column, in order.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fe_contact.io.history_file import HistoryWriter, read_history
    >>> with tempfile.TemporaryDirectory() as out:
    ...     writer = HistoryWriter(pathlib.Path(out) / "h.csv", [("t", "s"), ("gap", "m")])
    ...     writer.write({"t": 0.0, "gap": 1e-3})
    ...     writer.close()
    ...     print(pathlib.Path(writer.path).read_text().splitlines()[0])
    t [s],gap [m]
    """

    def __init__(self, path, columns: list[tuple[str, str]]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.names = [name for name, _ in columns]
        self._fh = open(self.path, "w", newline="")  # noqa: SIM115 - closed in close()
        self._csv = csv.writer(self._fh)
        self._csv.writerow([f"{n} [{unit}]" if unit else n for n, unit in columns])
        self._fh.flush()

    def write(self, row: dict) -> None:
        self._csv.writerow([_cell(row[n]) for n in self.names])
        self._fh.flush()

    def write_columns(self, columns: dict, n: int) -> None:
        """n rows given as columns (each of n entries, by name), flushed once: the cells of
        ``write`` for each row."""
        cells = [_cells(columns[name]) for name in self.names]
        self._csv.writerows(zip(*cells, strict=True) if cells else [[]] * n)
        self._fh.flush()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()


def _cell(value) -> str:
    return value if isinstance(value, str) else repr(float(value))


def _cells(values) -> list[str]:
    """``_cell`` of every entry of a column."""
    values = np.asarray(values)
    if values.dtype.kind in "UO":
        return [_cell(v) for v in values.tolist()]
    return [repr(v) for v in values.astype(float).tolist()]


def read_history(path) -> dict[str, np.ndarray]:
    """Columns of a history CSV by bare name (units stripped); text columns stay strings.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file (written by ``HistoryWriter``).

    Returns
    -------
    dict of str to ndarray
        Column name -> values, shape (n_rows,).

    Examples
    --------
    A CSV written by ``CsvObserver`` read back as columns (units dropped from the names):

    >>> from fe_contact import Body, Joint, Model, TreeModel, assemble, simulate
    >>> pendulum = TreeModel(bodies=(Body(1.0, 0.0, (0.5, 0.0)),), joints=(Joint("revolute"),))
    >>> system = assemble(Model(tree=pendulum))
    >>> import tempfile, pathlib
    >>> from fe_contact.steppers.observers import CsvObserver
    >>> from fe_contact.io.history_file import read_history
    >>> with tempfile.TemporaryDirectory() as out:
    ...     path = pathlib.Path(out) / "history.csv"
    ...     result = simulate(system, (0.0, 0.005), system.initial_state(), h=1e-3,
    ...                       observers=[CsvObserver(path)])
    ...     history = read_history(path)
    >>> bool(np.array_equal(history["joint_0_q"], result["joint_0_q"]))
    True
    """
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        header = [h.split(" [")[0] for h in next(reader)]
        rows = list(reader)
    out = {}
    for j, name in enumerate(header):
        values = [r[j] for r in rows]
        try:
            out[name] = np.array([float(v) for v in values])
        except ValueError:
            out[name] = np.array(values)
    return out


__all__ = ["HistoryWriter", "read_history"]
