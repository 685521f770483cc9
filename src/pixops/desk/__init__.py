"""The notebooks in JupyterLab and the support desk page in Voilà, as servers.

    pixops lab                 # JupyterLab on ./notebooks, prints a URL with a fresh token
    pixops desk                # the investigation notebook as a page, no code visible

    from pathlib import Path
    from pixops.desk import lab_command, start, stop
    command = lab_command(Path("notebooks"), port=0)
    process = start(command)   # returns once the server accepts connections
    print(command.url); stop(process)

Both run as child processes of this interpreter with pixops' Jupyter configuration
(JupyterLab's news announcement turned off) ahead of the user's own. Their kernels get
the ``PIXOPS_*`` settings of the environment, else of the nearest `.env` file (beside
the notebooks or where the command is started), and the command's first lines say which
service that is. A port another program holds is refused before anything starts.
"""

from pixops.desk._cli import (
    describe_source,
    nearest_dotenv,
    register,
    run_desk,
    run_lab,
    service_environment,
)
from pixops.desk._servers import (
    JUPYTER_CONFIG_DIR,
    PortInUseError,
    ServerCommand,
    ServerError,
    default_notebooks_dir,
    desk_command,
    find_investigation_notebook,
    free_port,
    jupyter_environment,
    lab_command,
    port_in_use,
    start,
    stop,
    wait_until_listening,
)

__all__ = [
    "JUPYTER_CONFIG_DIR",
    "PortInUseError",
    "ServerCommand",
    "ServerError",
    "default_notebooks_dir",
    "describe_source",
    "desk_command",
    "find_investigation_notebook",
    "free_port",
    "jupyter_environment",
    "lab_command",
    "nearest_dotenv",
    "port_in_use",
    "register",
    "run_desk",
    "run_lab",
    "service_environment",
    "start",
    "stop",
    "wait_until_listening",
]
