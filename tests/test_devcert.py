"""The development certificate: names, lifetime, key file mode."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from pixops.devcert import write_dev_certificate


def test_dev_certificate_names_loopback_and_extra_hosts(tmp_path: Path) -> None:
    from cryptography import x509

    written = write_dev_certificate(tmp_path / "certs", hosts=("pix.test", "10.1.2.3"))
    certificate = x509.load_pem_x509_certificate(written.cert.read_bytes())
    names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["localhost", "pix.test"]
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == [
        "127.0.0.1",
        "::1",
        "10.1.2.3",
    ]
    lifetime = certificate.not_valid_after_utc - certificate.not_valid_before_utc
    assert timedelta(days=30) <= lifetime <= timedelta(days=30, minutes=10)
    assert written.key.stat().st_mode & 0o777 == 0o600


def test_the_output_directory_is_created_and_files_are_pem(tmp_path: Path) -> None:
    written = write_dev_certificate(tmp_path / "a" / "b")
    assert written.cert.read_text().startswith("-----BEGIN CERTIFICATE-----")
    assert written.key.read_text().startswith("-----BEGIN PRIVATE KEY-----")


def test_a_file_in_the_way_of_the_directory_is_an_os_error(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a directory")
    with pytest.raises(FileExistsError):
        write_dev_certificate(blocker)
