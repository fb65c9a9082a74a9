"""What the CLI's log handler writes has credentials redacted, whoever logged them (SDKs at DEBUG)."""

from __future__ import annotations

import io
import logging

from lakesink.application.log_redaction import REDACTED, RedactingFormatter, redact

BOTOCORE_LINE = (
    "Sending http request: <AWSPreparedRequest stream_output=False, method=HEAD, url=http://127.0.0.1:9000/b, "
    "headers={'User-Agent': b'Boto3/1.44.8', 'X-Amz-Date': b'20261125T083315Z', 'Authorization': "
    "b'AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE123/20261125/us-east-1/s3/aws4_request, "
    "SignedHeaders=host;x-amz-date, Signature=0123abcd', 'x-amz-security-token': b'SESSIONTOKEN'}>"
)


def test_the_authorization_header_of_a_botocore_request_dump_is_redacted() -> None:
    line = redact(BOTOCORE_LINE)

    assert "AKIAEXAMPLE123" not in line and "0123abcd" not in line and "SESSIONTOKEN" not in line
    assert f"'Authorization': b'{REDACTED}'" in line
    assert "'X-Amz-Date': b'20261125T083315Z'" in line  # the rest stays readable


def test_signed_queries_sas_tokens_and_connection_strings_are_redacted() -> None:
    url = "https://a.blob.core.windows.net/c?sv=2021-08-06&sp=r&sig=SASSIG%2B1&se=2030"
    presigned = "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAX%2F2026&X-Amz-Signature=feed"
    connection = "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=S2V5PQ==;EndpointSuffix=core.windows.net"

    assert redact(url) == f"https://a.blob.core.windows.net/c?sv=2021-08-06&sp=r&sig={REDACTED}&se=2030"
    assert "AKIAX" not in redact(presigned) and "feed" not in redact(presigned)
    assert redact(connection) == (
        f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={REDACTED};EndpointSuffix=core.windows.net"
    )
    assert redact("Authorization: Basic dXNlcjpwYXNz") == f"Authorization: {REDACTED}"


def test_the_formatter_redacts_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter("%(message)s"))
    log = logging.getLogger("tests.redaction")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("request %s", BOTOCORE_LINE)
        try:
            raise RuntimeError("AccountKey=S2V5PQ==;")
        except RuntimeError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)

    assert "AKIAEXAMPLE123" not in stream.getvalue()
    assert "S2V5PQ==" not in stream.getvalue()
    assert "RuntimeError" in stream.getvalue()
