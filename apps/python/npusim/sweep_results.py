"""Where a sweep's rows go. Finished rows are appended as small Parquet part files in
<out>.parts/ (each written to a temporary name and renamed, so a killed sweep leaves only
whole files); the results file (<out>, Parquet or CSV) is rewritten atomically from the
parts at the end. A rerun reads the parts and skips every point already there."""
import json
import os
import pathlib
import shutil
import time

import pandas as pd

from .errors import Error

FINGERPRINT_FILE = "sweep.json"


class ResultStore:
    def __init__(self, out_path, fingerprint, restart=False, flush_seconds=2.0, flush_rows=200):
        self.out = pathlib.Path(out_path)
        self.parts = pathlib.Path(str(self.out) + ".parts")
        self.flush_seconds, self.flush_rows = flush_seconds, flush_rows
        self._pending, self._last_flush, self._seq = [], time.monotonic(), 0
        if self.out.suffix not in (".parquet", ".csv"):
            raise Error(f"{self.out}: the results file must end in .parquet or .csv")
        if restart:
            shutil.rmtree(self.parts, ignore_errors=True)
            self.out.unlink(missing_ok=True)
        self._check_fingerprint(fingerprint)
        self.done = self._read_parts()

    def _check_fingerprint(self, fingerprint):
        self.parts.mkdir(parents=True, exist_ok=True)
        stamp = self.parts / FINGERPRINT_FILE
        if stamp.exists():
            old = json.loads(stamp.read_text())
            if old != fingerprint:
                changed = sorted(k for k in set(old) | set(fingerprint) if old.get(k) != fingerprint.get(k))
                raise Error(f"{self.parts}: these results were made with a different {', '.join(changed)}; "
                            "pass --restart to start over, or choose another -o")
        else:
            _atomic_write_text(stamp, json.dumps(fingerprint, indent=1))
            if self.out.exists():  # results from before the parts directory existed
                self._write_part(_read_table(self.out))

    def _part_files(self):
        return sorted(self.parts.glob("part-*.parquet"))

    def _read_parts(self):
        frames = [pd.read_parquet(p) for p in self._part_files()]
        frames = [f for f in frames if len(f)]
        self._seq = len(frames) + 1
        if not frames:
            return pd.DataFrame()
        table = pd.concat(frames, ignore_index=True)
        return table.drop_duplicates("point_id", keep="first")

    def done_ids(self):
        return set(self.done["point_id"]) if len(self.done) else set()

    def add(self, row):
        self._pending.append(row)
        if len(self._pending) >= self.flush_rows or time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self):
        if self._pending:
            self._write_part(pd.DataFrame(self._pending))
            self._pending = []
        self._last_flush = time.monotonic()

    def _write_part(self, frame):
        while True:
            path = self.parts / f"part-{self._seq:06d}-{os.getpid()}.parquet"
            self._seq += 1
            if not path.exists():
                break
        tmp = path.with_suffix(".tmp")
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, path)

    def finish(self, order, leading=(), decorate=None):
        """Writes <out> with one row per point of `order` ({point_id: index}) that has a result,
        in sweep order, `leading` columns first, and returns it. `decorate(table)` may add
        columns and attrs (kept in Parquet files) before it is written."""
        self.flush()
        table = self._read_parts()
        if len(table):
            table = table[table["point_id"].isin(order)].copy()
            table["_order"] = table["point_id"].map(order)
            table = table.sort_values("_order").drop(columns="_order").reset_index(drop=True)
            first = [c for c in leading if c in table.columns]
            table = table[first + [c for c in table.columns if c not in first]]
        if decorate is not None:
            table = decorate(table)
        tmp = self.out.with_name(self.out.name + ".tmp")
        if self.out.suffix == ".csv":
            table.to_csv(tmp, index=False)
        else:
            table.to_parquet(tmp, index=False)
        os.replace(tmp, self.out)
        return table


def _read_table(path):
    return pd.read_csv(path) if str(path).endswith(".csv") else pd.read_parquet(path)


def _atomic_write_text(path, text):
    tmp = pathlib.Path(str(path) + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def read_results(path):
    """A results file (Parquet or CSV) as a DataFrame."""
    return _read_table(path)
