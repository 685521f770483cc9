"""The notebooks in JupyterLab and the support desk page in Voilà, as servers.

    pixops lab                 # JupyterLab on ./notebooks, prints a URL with a fresh token
    pixops desk                # the investigation notebook as a page, no code visible

    from pixops.desk import lab_command, start, stop
    command = lab_command(Path("notebooks"), port=0)
    process = start(command)   # returns once the server accepts connections
    print(command.url); stop(process)

Both run as child processes of this interpreter with pixops' Jupyter configuration
(JupyterLab's news announcement turned off) ahead of the user's own.
"""

from pixops.desk._cli import describe_source, register, run_desk, run_lab
from pixops.desk._servers import (
    JUPYTER_CONFIG_DIR,
    ServerCommand,
    ServerError,
    default_notebooks_dir,
    desk_command,
    find_investigation_notebook,
    free_port,
    jupyter_environment,
    lab_command,
    start,
    stop,
    wait_until_listening,
)

__all__ = [
    "JUPYTER_CONFIG_DIR",
    "ServerCommand",
    "ServerError",
    "default_notebooks_dir",
    "describe_source",
    "desk_command",
    "find_investigation_notebook",
    "free_port",
    "jupyter_environment",
    "lab_command",
    "register",
    "run_desk",
    "run_lab",
    "start",
    "stop",
    "wait_until_listening",
]
