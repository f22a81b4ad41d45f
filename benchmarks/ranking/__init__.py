"""Issue 6: ranking quality on real Italian legal text (`python -m benchmarks ranking`).

data.py builds the test collections from the shared data dir, systems.py holds the setups,
tests/ranking_metrics.py the metrics (shared with their unit tests), run.py the table and the regression check against expected.json.
"""

from .run import main  # noqa: F401
