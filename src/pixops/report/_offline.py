"""Keep a report free of the network: strip remote `<script src>` tags, then prove none is left.

plotly's notebook renderer adds a MathJax `<script src="https://...">` to every figure
(the charts use no TeX, and plotly.js itself is inlined); nbconvert's page template would
fetch require.js, MathJax and the widget renderer from CDNs. The template in `_templates`
drops the latter; this module removes the former from outputs and widget state and then
checks the finished page.
"""

from __future__ import annotations

import re
from typing import Any

#: A `<script>` element whose `src` is an absolute or protocol-relative web address.
_REMOTE_SCRIPT_ELEMENT = re.compile(
    r"<script\b[^>]*?\bsrc\s*=\s*[\"']?\s*(?:https?:)?//[^>]*>\s*</script\s*>",
    re.IGNORECASE,
)
#: The same reference anywhere in a page, also inside JSON where quotes are escaped.
_REMOTE_SCRIPT_REFERENCE = re.compile(
    r"<script\b[^>]*?\bsrc\s*=\s*\\?[\"']?\s*(?:https?:)?//[^\s\"'\\>]*",
    re.IGNORECASE,
)
_REMOTE_STYLESHEET = re.compile(
    r"<link\b[^>]*?\bhref\s*=\s*\\?[\"']?\s*(?:https?:)?//[^\s\"'\\>]*", re.IGNORECASE
)
#: A CSS import of a web address; the renderer's one commented-out `/* @import ... */` is inert.
_REMOTE_IMPORT = re.compile(r"(?<!/\* )@import\s+(?:url\()?\s*[\"']?\s*(?:https?:)?//[^\s\"')]*")


def strip_remote_scripts(html: str) -> str:
    """`html` without any `<script src="http(s)://...">` element."""
    return _REMOTE_SCRIPT_ELEMENT.sub("", html)


def strip_remote_scripts_in(value: Any) -> Any:
    """A copy of a JSON-like value (widget state) with remote scripts removed from every string."""
    if isinstance(value, str):
        return strip_remote_scripts(value) if "<script" in value.lower() else value
    if isinstance(value, list):
        return [strip_remote_scripts_in(item) for item in value]
    if isinstance(value, dict):
        return {key: strip_remote_scripts_in(item) for key, item in value.items()}
    return value


def remote_references(page: str) -> list[str]:
    """Every script, stylesheet or CSS import in `page` that would be fetched from the web."""
    found: list[str] = []
    for pattern in (_REMOTE_SCRIPT_REFERENCE, _REMOTE_STYLESHEET, _REMOTE_IMPORT):
        found.extend(match.group(0) for match in pattern.finditer(page))
    return found
