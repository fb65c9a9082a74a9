"""The flush and commit model stays pure: importing it loads nothing outside the standard library."""

from __future__ import annotations

import subprocess
import sys

MODULES = ["flush.policy", "commit.locks", "commit.lock_keys", "commit.lenses_chain", "commit.actions", "commit.range_plans"]


def test_importing_the_commit_model_loads_no_third_party_package() -> None:
    imports = "; ".join(f"import lakesink.domain.{name}" for name in MODULES)
    probe = (
        f"import sys; {imports}; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'boto3', 'pyarrow', 'pyspark', "
        "'confluent_kafka', 'fastavro', 'google', 'azure'}))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
