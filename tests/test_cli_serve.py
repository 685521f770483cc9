"""`pixops dev-cert` and `pixops serve` given what they cannot use: one line, a status."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509

from pixops.cli import main

pytestmark = pytest.mark.timeout(60)


def test_a_non_ascii_host_goes_into_the_certificate_in_its_ascii_form(tmp_path: Path) -> None:
    # Was: cryptography's ValueError ("should be passed as an A-label string") as a traceback.
    assert main(["dev-cert", "--out", str(tmp_path), "--host", "café.test"]) == 0
    cert = x509.load_pem_x509_certificate((tmp_path / "cert.pem").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "xn--caf-dma.test" in names.get_values_for_type(x509.DNSName)


@pytest.mark.parametrize("host", ["bad..host", "x_y.test", "a b", ""])
def test_a_host_that_is_no_name_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    # Was: written into the certificate as given (a name no client will ever match).
    with pytest.raises(SystemExit) as stopped:
        main(["dev-cert", "--out", str(tmp_path / "tls"), "--host", host])
    assert stopped.value.code == 2
    assert f"argument --host: not a host name or IP address: {host!r}" in capsys.readouterr().err
    assert not (tmp_path / "tls").exists()


@pytest.mark.parametrize(
    ("inside", "problem"), [("", "is a file, not a folder"), ("sub", "is under a file")]
)
def test_an_out_that_is_a_file_exits_2_and_keeps_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inside: str, problem: str
) -> None:
    # Was: exit 1, "cannot write: [Errno 17] File exists: '…'".
    blocker = tmp_path / "tls"
    blocker.write_text("keep me")
    out = blocker / inside if inside else blocker
    assert main(["dev-cert", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pixops dev-cert: --out {out}: {problem}")
    assert err.endswith(": give a folder\n")
    assert blocker.read_text() == "keep me"


def test_serve_with_a_file_that_is_no_pem_names_the_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was: "pixops serve: cannot start: [SSL] PEM lib (_ssl.c:3905)".
    junk = tmp_path / "cert.pem"
    junk.write_text("not a certificate")
    assert main(["serve", "--port", "0", "--tls-cert", str(junk), "--tls-key", str(junk)]) == 1
    assert capsys.readouterr().err == (
        f"pixops serve: cannot start: --tls-cert {junk} and --tls-key {junk} are not a PEM"
        " certificate and its key: pixops dev-cert --out DIR writes a pair\n"
    )


def test_serve_on_a_host_name_that_does_not_resolve_names_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Was: "pixops serve: cannot start: [Errno -2] Name or service not known".
    assert main(["serve", "--port", "0", "--host", "nowhere.invalid"]) == 1
    said = capsys.readouterr().err
    assert said.startswith(
        "pixops serve: cannot start: --host nowhere.invalid is not an address of this machine ("
    )
    assert said.endswith("): use 127.0.0.1, or 0.0.0.0 for every interface\n")
