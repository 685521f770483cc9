"""The files pixops ships for offline reports: the widget renderer and the page template."""

from __future__ import annotations

import base64
from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: The nbconvert template folder (`pixops_report`, based on JupyterLab's `lab` template).
TEMPLATES_DIR = _HERE / "_templates"
TEMPLATE_NAME = "pixops_report"
#: `dist/embed.js` of `@jupyter-widgets/html-manager`, shipped as package data.
WIDGET_RENDERER_PATH = _HERE / "_static" / "html-manager" / "embed.js"
WIDGET_RENDERER_VERSION = "1.0.15"


@cache
def widget_renderer_data_url() -> str:
    """The widget renderer as a `data:` URL, for a `<script src>` that needs no network.

    A `src` (rather than an inline script) matters: the bundle finds its own location
    through `document.currentScript.src` and refuses to start without one.
    """
    payload = base64.b64encode(WIDGET_RENDERER_PATH.read_bytes()).decode("ascii")
    return f"data:text/javascript;base64,{payload}"
