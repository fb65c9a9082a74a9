"""The client's CPU per upload into a moto server process (plain http, as the benchmarks run), by object
size, with botocore's payload signing on (its default over http) and off.

    python -m bench.upload_cpu

Over http, SigV4 signs a SHA-256 of the whole body; over https botocore sends ``UNSIGNED-PAYLOAD``
and TLS protects the body instead. Prints one line per size and setting: the CPU seconds of this
process per ``put_object`` (least of three rounds of ``--uploads``), the S3 server's CPU not
counted. BENCHMARKS.md ("Next levers") quotes it.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import boto3
from botocore.config import Config

from bench.processes import Children
from bench.services import start_moto

BUCKET = "bench-upload-cpu"
SIZES = (100_000, 1_000_000, 4_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=20)
    args = parser.parse_args()
    with Children(Path(tempfile.mkdtemp(prefix="lakesink-upload-cpu-"))) as children:
        endpoint = start_moto(children).endpoint
        endpoint.client().create_bucket(Bucket=BUCKET)
        for signed in (True, False):
            client = boto3.session.Session().client(
                "s3", region_name=endpoint.region, endpoint_url=endpoint.url,
                aws_access_key_id=endpoint.access_key, aws_secret_access_key=endpoint.secret_key,
                config=Config(s3={"addressing_style": "path", "payload_signing_enabled": signed}))
            for size in SIZES:
                body = os.urandom(size)
                client.put_object(Bucket=BUCKET, Key="warm-up", Body=body)
                rounds = []
                for _ in range(3):
                    began = time.process_time()
                    for number in range(args.uploads):
                        client.put_object(Bucket=BUCKET, Key=f"{signed}-{size}-{number}", Body=body)
                    rounds.append((time.process_time() - began) / args.uploads)
                print(f"payload signed={signed!s:5s} {size / 1e6:4.1f} MB: {min(rounds) * 1000:5.2f} ms of CPU an upload",
                      flush=True)


if __name__ == "__main__":
    main()
