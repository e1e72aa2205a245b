"""The run report: the same JSON as `npusim run --json`, as a dict with table helpers."""
import json


class Report(dict):
    """Keys as in `npusim run --json`: cycles, latency_us, achieved_tops, mac_utilization,
    ddr, energy, layers, steps, fallbacks, notes, ... (see report/model_report.h)."""

    @classmethod
    def from_json(cls, text):
        return cls(json.loads(text))

    def layers_frame(self):
        """One row per layer (a node after fusion) as a pandas DataFrame."""
        import pandas as pd  # only needed here: keeps `import npusim` light for workers

        return pd.DataFrame(self.get("layers", []))

    def to_json(self, indent=2):
        return json.dumps(self, indent=indent)
