"""A report three ways: a terminal table, a JSON document and one self-contained HTML
page. Every text comes from results the session already redacted; the HTML escapes all
of it (an answer is text from outside), and files are written whole or not at all."""

from __future__ import annotations

import html
import json
import os
import tempfile
import textwrap
from pathlib import Path
from typing import Any, Final

from pixops.conformance._model import Report, Result

__all__ = [
    "check_output_path",
    "report_dict",
    "report_html",
    "report_json",
    "table_footer",
    "table_header",
    "table_row",
    "write_text",
]

_VERDICT_WORDS: Final = {"pass": "PASS", "fail": "FAIL", "unchecked": "UNCHECKED"}
_COLOURS: Final = {"pass": "#1a7f37", "fail": "#cf222e", "unchecked": "#9a6700"}
_TINTS: Final = {"pass": "transparent", "fail": "#ffebe9", "unchecked": "#fff8c5"}


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def _widths(total: int) -> tuple[int, int, int, int, int]:
    check, verdict = 34, 9
    rest = max(total - check - verdict - 8, 60)
    rule = rest * 3 // 10
    expected = (rest - rule) // 2
    return check, rule, expected, rest - rule - expected, verdict


def table_header(report_target: str, write: bool, width: int = 120) -> str:
    """The title line and the column names (check, rule, expected, got, verdict)."""
    mode = "with --write" if write else "read-only"
    c, r, e, g, v = _widths(width)
    title = f"pixops conformance: {report_target} ({mode})"
    names = f"{'CHECK':<{c}}  {'RULE':<{r}}  {'EXPECTED':<{e}}  {'GOT':<{g}}  {'VERDICT':<{v}}"
    return f"{title}\n{names.rstrip()}"


def table_row(result: Result, width: int = 120) -> str:
    """One row; a check that did not pass adds its whole expected and got beneath."""
    c, r, e, g, _ = _widths(width)
    line = (
        f"{_cut(result.name, c):<{c}}  {_cut(result.rule, r):<{r}}  "
        f"{_cut(result.expected, e):<{e}}  {_cut(result.got, g):<{g}}  "
        f"{_VERDICT_WORDS[result.verdict]}"
    )
    if result.verdict == "pass":
        return line
    indent = " " * 4
    wrap = max(width - 20, 40)
    lines = [line]
    label = "cause" if result.verdict == "unchecked" else "got"
    if result.verdict == "fail":
        lines += textwrap.wrap(
            f"expected: {result.expected}",
            wrap,
            initial_indent=indent,
            subsequent_indent=indent * 2,
        )
    lines += textwrap.wrap(
        f"{label}: {result.got}", wrap, initial_indent=indent, subsequent_indent=indent * 2
    )
    return "\n".join(lines)


def table_footer(report: Report) -> str:
    """The verdict of the whole run, with what could not be checked."""
    if report.passed:
        return f"all {len(report.results)} checks passed"
    return report.summary()


def report_dict(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data (what `--json FILE` writes)."""
    return {
        "tool": "pixops conformance",
        "base_url": report.base_url,
        "client_id": report.client_id,
        "started_at": report.started_at,
        "write": report.write,
        "passed": report.passed,
        "counts": {
            "pass": report.count("pass"),
            "fail": report.count("fail"),
            "unchecked": report.count("unchecked"),
        },
        "summary": table_footer(report),
        "results": [
            {
                "check": r.name,
                "rule": r.rule,
                "sends": r.sends,
                "expected": r.expected,
                "got": r.got,
                "verdict": r.verdict,
            }
            for r in report.results
        ],
    }


_STYLE: Final = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5rem;color:#1f2328}
h1{font-size:1.3rem;margin:0 0 .3rem}p{margin:.2rem 0 .8rem}ul{margin:0 0 1rem;padding-left:1.2rem}
li{margin:.2rem 0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere;font-size:.85rem}
th{background:#f6f8fa}td.v{font-weight:700;white-space:nowrap}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.8rem}
col.c{width:15%}col.r{width:18%}col.e{width:28%}col.g{width:29%}col.v{width:10%}
"""


def report_html(report: Report) -> str:
    """One HTML page, no script and nothing fetched: opens offline, prints as it shows."""
    e = html.escape
    rows = "".join(
        f"<tr id='{e(r.name)}' style='background:{_TINTS[r.verdict]}'>"
        f"<td><code>{e(r.name)}</code></td>"
        f"<td>{e(r.rule)}</td>"
        f"<td><code>{e(r.expected)}</code><br><small>sent: {e(r.sends)}</small></td>"
        f"<td><code>{e(r.got)}</code></td>"
        f"<td class='v' style='color:{_COLOURS[r.verdict]}'>{_VERDICT_WORDS[r.verdict]}</td>"
        "</tr>"
        for r in report.results
    )
    mode = "with --write" if report.write else "read-only"
    client = f", key {e(report.client_id)}" if report.client_id else ""
    not_passed = "".join(
        f"<li><a href='#{e(r.name)}'><code>{e(r.name)}</code></a>"
        f" <b style='color:{_COLOURS[r.verdict]}'>{_VERDICT_WORDS[r.verdict]}</b>: {e(r.got)}</li>"
        for r in report.results
        if r.verdict != "pass"
    )
    listed = f"<ul>{not_passed}</ul>" if not_passed else ""
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>pixops conformance: {e(report.base_url)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>pixops conformance</h1><p><code>{e(report.base_url)}</code>{client},"
        f" {e(report.started_at)}, {mode}</p>"
        f"<p><b>{e(table_footer(report))}</b></p>{listed}"
        "<table><colgroup><col class='c'><col class='r'><col class='e'><col class='g'>"
        "<col class='v'></colgroup><thead><tr><th>check</th><th>rule (docs/api.md)</th>"
        "<th>expected</th><th>got</th><th>verdict</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></body></html>\n"
    )


def check_output_path(path: Path) -> str | None:
    """Why `path` cannot take a report (checked before anything is sent), or None."""
    if path.is_dir():
        return f"{path} is a folder: give a file name in it"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"the folder {parent} does not exist"
    if not os.access(parent, os.W_OK):
        return f"the folder {parent} is not writable"
    return None


def write_text(path: Path, text: str) -> None:
    """Write `text` whole: to a temporary file beside `path`, then renamed over it."""
    parent = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def report_json(report: Report) -> str:
    return json.dumps(report_dict(report), ensure_ascii=False, indent=2) + "\n"
