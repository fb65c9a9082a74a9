"""versitygw, a real S3-compatible server, for the tests: the S3 side that moto (a Python mock) plays
everywhere else, built by ``make install`` (tools/s3server/fetch pins the version) into ``.tools/go/bin``.

versitygw (the Versity S3 Gateway, Apache-2.0, Go) serves the S3 API over a POSIX directory: each
bucket is a sub-directory, each object a file (its ETag and metadata in extended attributes). It
enforces ``If-None-Match: *`` and ``If-Match`` on PutObject and CompleteMultipartUpload, and checks
SigV4 signatures, so a wrong secret is a real ``SignatureDoesNotMatch``. It listens on 127.0.0.1
only, on a free port, in a temp directory that :meth:`VersityGw.stop` removes. It starts in well
under a second.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakesink.adapters.demo.s3 import S3Endpoint, free_port
from tests.support.jvm_process import dies_with_pytest

REPO = Path(__file__).resolve().parents[2]
BINARY = REPO / ".tools" / "go" / "bin" / "versitygw"
VERSION_FILE = REPO / ".tools" / "go" / "versitygw.version"
#: The root account of the test server: fixed, public, and guarding nothing but a temp directory.
ACCESS_KEY = "lakesink-versitygw"
SECRET_KEY = "lakesink-versitygw-secret"


def versitygw_missing_reason() -> str | None:
    """Why the server cannot start here (one line naming what to run), or None."""
    if not BINARY.is_file():
        return (
            f"versitygw is not built in {BINARY.parent.relative_to(REPO)}: run `make install` (needs Go 1.25+ "
            "with access to the Go module proxy; tools/s3server/fetch)"
        )
    return None


def versitygw_version() -> str:
    """The versitygw version ``make install`` built (tools/s3server/fetch pins it)."""
    return VERSION_FILE.read_text().strip() if VERSION_FILE.is_file() else "unknown"


def serve_versitygw() -> Iterator[VersityGw]:
    """A fixture body: a started :class:`VersityGw`, stopped afterwards; skips, naming what to run, when
    ``make install`` could not build it. Declared where needed as
    ``versitygw_server = pytest.fixture(scope="session")(serve_versitygw)``, so the server runs only
    when a test asks for it."""
    reason = versitygw_missing_reason()
    if reason is not None:
        pytest.skip(reason)
    with VersityGw() as server:
        yield server


class VersityGw:
    """versitygw's posix backend on a free 127.0.0.1 port over a temp directory; a context manager.

    With ``iam`` the gateway keeps accounts (its internal IAM, in the temp directory): an account made by
    :meth:`create_user` may do only what a bucket policy (:meth:`put_bucket_policy`) grants it, action
    by action and key by key, as AWS evaluates one (HeadBucket is authorized as ``s3:ListBucket``, a
    DeleteObjects batch key by key as ``s3:DeleteObject``, a copy's source as ``s3:GetObject``).
    """

    name = "S3 (versitygw)"

    def __init__(self, *, iam: bool = False) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="lakesink-versitygw-"))
        self._port = free_port()
        self._iam = iam
        self._process: subprocess.Popen[bytes] | None = None
        self.endpoint = S3Endpoint(f"http://127.0.0.1:{self._port}", ACCESS_KEY, SECRET_KEY)

    def __enter__(self) -> VersityGw:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return self.endpoint.url

    def start(self, timeout_s: float = 20.0) -> None:
        """Start the gateway and wait until it answers an HTTP request (a 403 to an unsigned one)."""
        data = self._dir / "data"
        data.mkdir(exist_ok=True)
        iam = ["--iam-dir", str(self._dir / "iam")] if self._iam else []
        if self._iam:
            (self._dir / "iam").mkdir(exist_ok=True)
        with open(self._dir / "versitygw.out", "ab") as out:
            self._process = subprocess.Popen(
                [str(BINARY), "--port", f"127.0.0.1:{self._port}", "--access", ACCESS_KEY, "--secret", SECRET_KEY,
                 *iam, "--quiet", "posix", str(data)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self._dir, preexec_fn=dies_with_pytest(),
            )
        deadline = time.monotonic() + timeout_s
        while not self._answers():
            returncode = self._process.poll()
            if returncode is not None:
                output = (self._dir / "versitygw.out").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"versitygw exited with {returncode}: {output}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"versitygw did not answer on {self.url} within {timeout_s} s")
            time.sleep(0.02)

    def _answers(self) -> bool:
        """An HTTP status line came back: the listener is up and the S3 router serves."""
        try:
            with socket.create_connection(("127.0.0.1", self._port), timeout=0.5) as connection:
                connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return connection.recv(12).startswith(b"HTTP/1.1")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the gateway and remove its directory (the buckets with it)."""
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)
            self._process = None
        shutil.rmtree(self._dir, ignore_errors=True)

    def create_bucket(self, bucket: str) -> None:
        self.endpoint.client().create_bucket(Bucket=bucket)

    def create_user(self, access_key: str, secret_key: str) -> S3Endpoint:
        """An account of role ``user`` (the server must run with ``iam``), through versitygw's admin CLI;
        the endpoint it signs its requests for."""
        subprocess.run(
            [str(BINARY), "admin", "--access", ACCESS_KEY, "--secret", SECRET_KEY, "--endpoint-url", self.url,
             "create-user", "--access", access_key, "--secret", secret_key, "--role", "user"],
            check=True, capture_output=True, timeout=30,
        )
        return S3Endpoint(self.url, access_key, secret_key)

    def put_bucket_policy(self, bucket: str, policy: str) -> None:
        """Replace ``bucket``'s policy (JSON text), as the root account."""
        self.endpoint.client().put_bucket_policy(Bucket=bucket, Policy=policy)
