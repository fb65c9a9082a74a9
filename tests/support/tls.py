"""TLS for the tests: a throw-away certificate authority, and a TLS terminator in front of a plaintext server.

:func:`make_certificates` writes a self-signed CA and a server certificate it signed for
``127.0.0.1`` / ``localhost`` (the ``cryptography`` package, no ``openssl`` binary). A
:class:`TlsTerminator` accepts TLS on a free 127.0.0.1 port with that certificate and relays the
decrypted bytes to a plaintext server (moto's S3, a Kafka broker), so a client that speaks TLS
reaches an emulator that does not. The relay is byte for byte: it knows nothing of the protocol.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import select
import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True, slots=True)
class Certificates:
    """PEM files: the CA that signs, the server's certificate and key, and a client's (mutual TLS)."""

    ca: Path
    server_certificate: Path
    server_key: Path
    client_certificate: Path
    client_key: Path


def make_certificates(directory: Path) -> Certificates:
    """A new CA (``ca.pem``) and, signed by it, a server certificate for 127.0.0.1 and localhost and
    a client certificate, in ``directory``."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "lakesink test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = Certificates(directory / "ca.pem", directory / "server.pem", directory / "server.key",
                         directory / "client.pem", directory / "client.key")
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    names = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")])
    _signed(files.server_certificate, files.server_key, "127.0.0.1", x509.oid.ExtendedKeyUsageOID.SERVER_AUTH,
            (ca_name, ca_key), names)
    _signed(files.client_certificate, files.client_key, "lakesink test client",
            x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH, (ca_name, ca_key))
    return files


def _signed(certificate: Path, key_file: Path, common_name: str, usage: x509.ObjectIdentifier,
            issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey], names: x509.SubjectAlternativeName | None = None) -> None:
    """A certificate for ``common_name`` and ``usage`` that ``issuer`` signed, and its key, as PEM files."""
    now = dt.datetime.now(dt.UTC)
    ca_name, ca_key = issuer
    key = ec.generate_private_key(ec.SECP256R1())
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
    )
    if names is not None:
        builder = builder.add_extension(names, critical=False)
    certificate.write_bytes(builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))


class TlsTerminator:
    """TLS on ``127.0.0.1:port`` relayed to ``upstream`` in plaintext; a context manager.

    ``port`` may be chosen by the caller (a broker must advertise it before this starts); ``mutual``
    asks every client for a certificate the CA signed.
    """

    def __init__(
        self, certificates: Certificates, upstream: tuple[str, int], *, port: int = 0, mutual: bool = False
    ) -> None:
        self._upstream = upstream
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(certificates.server_certificate, certificates.server_key)
        if mutual:  # mutual TLS: a client must show a certificate the CA signed
            self._context.verify_mode = ssl.CERT_REQUIRED
            self._context.load_verify_locations(certificates.ca)
        self._listener = socket.create_server(("127.0.0.1", port))
        self.port = int(self._listener.getsockname()[1])
        self.handshake_failures = 0
        self.connections = 0
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True, name="tls-terminator")

    def __enter__(self) -> TlsTerminator:
        self._thread.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):  # wakes the accept() that close() alone leaves blocked
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(5)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _address = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            secure = self._context.wrap_socket(client, server_side=True)
        except (ssl.SSLError, OSError):
            self.handshake_failures += 1  # a client that does not trust the CA, or speaks plaintext
            client.close()
            return
        self.connections += 1
        try:
            upstream = socket.create_connection(self._upstream, timeout=10)
        except OSError:
            secure.close()
            return
        upstream.settimeout(None)
        _relay(secure, upstream)


def _relay(secure: ssl.SSLSocket, upstream: socket.socket) -> None:
    """Copy each side to the other until either closes; then close both. One thread per connection:
    an SSL socket read in one thread while written in another (OpenSSL forbids it) garbled requests
    once a client kept eight connections busy at once."""
    other = {secure: upstream, upstream: secure}
    try:
        while True:
            # bytes OpenSSL already decrypted are not on the raw socket: select would not see them
            ready = [secure] if secure.pending() else select.select(list(other), [], [])[0]
            for source in ready:
                data = source.recv(65536)
                if not data:
                    return
                other[source].sendall(data)
    except OSError:
        pass
    finally:
        for end in other:
            with contextlib.suppress(OSError):
                end.close()
