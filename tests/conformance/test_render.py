"""The report's three faces: the terminal table, the JSON and the HTML page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pixops.conformance import Report, Result
from pixops.conformance._render import (
    report_dict,
    report_html,
    report_json,
    table_footer,
    table_header,
    table_row,
    write_text,
)

HOSTILE = "<img src=x onerror=alert(1)> & \"quoted\" 'single'"


def report(*verdicts: str) -> Report:
    results = tuple(
        Result(f"check-{i}", f"Rule {i}", "GET /balance", "HTTP 200", f"got {HOSTILE}", v)  # type: ignore[arg-type]
        for i, v in enumerate(verdicts)
    )
    return Report("http://h/api/external", "cli_1", "2026-01-05T12:00:00Z", False, results)


def test_the_table_has_the_five_columns_and_details_under_what_did_not_pass() -> None:
    header = table_header("http://h/api/external", write=False, width=120)
    assert header.splitlines()[0] == "pixops conformance: http://h/api/external (read-only)"
    assert header.splitlines()[1].split() == ["CHECK", "RULE", "EXPECTED", "GOT", "VERDICT"]
    shown = report("pass", "fail", "unchecked")
    passed, failed, unchecked = (table_row(r, 120) for r in shown.results)
    assert passed.endswith("PASS")
    assert "\n" not in passed
    assert failed.splitlines()[0].endswith("FAIL")
    assert failed.splitlines()[1].strip() == "expected: HTTP 200"
    assert unchecked.splitlines()[1].strip().startswith("cause: got <img")
    assert table_footer(shown) == "1 passed, 1 failed, 1 could not be checked (check-2)"
    assert table_footer(report("pass", "pass")) == "all 2 checks passed"


def test_the_json_says_each_result_and_the_verdict() -> None:
    data = json.loads(report_json(report("pass", "unchecked")))
    assert data == report_dict(report("pass", "unchecked"))
    assert data["passed"] is False
    assert data["counts"] == {"pass": 1, "fail": 0, "unchecked": 1}
    assert data["results"][1] == {
        "check": "check-1",
        "rule": "Rule 1",
        "sends": "GET /balance",
        "expected": "HTTP 200",
        "got": f"got {HOSTILE}",
        "verdict": "unchecked",
    }


def test_the_html_escapes_every_answer_and_links_what_did_not_pass() -> None:
    page = report_html(report("fail", "pass"))
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &#x27;single&#x27;" in page
    assert "<a href='#check-0'>" in page
    assert "<tr id='check-0' style='background:#ffebe9'>" in page
    assert "<script" not in page
    assert "http" not in page.replace("http://h/api/external", "")  # nothing fetched


def test_a_report_file_is_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", broken)
    with pytest.raises(OSError, match="No space left"):
        write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
