"""nbval runs every notebook on the demo month, never on a service set in
this shell.

Kernels inherit this process's environment, so the service settings are
dropped here; `pixops.connect()` in the notebooks then opens the sandbox,
whose outputs are stored.
"""

from __future__ import annotations

import os

for _name in (
    "PIXOPS_BASE_URL",
    "PIXOPS_CLIENT_ID",
    "PIXOPS_CLIENT_SECRET",
):
    os.environ.pop(_name, None)
