"""`RemoteMonitor`: post each epoch's logs to an HTTP server."""
import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from kerasish.callbacks.callback import Callback


class RemoteMonitor(Callback):
    """Sends `{"epoch": epoch, **logs}` to `root + path` with an HTTP POST at each epoch end.

    By default the JSON goes in the form field `field` (`application/x-www-form-urlencoded`);
    with `send_as_json=True` it is the request body (`application/json`). An unreachable
    server gives a warning, never an error, as in Keras.

    Args:
        root: the server's root URL.
        path: the path the events are posted to.
        field: the form field holding the JSON (when not `send_as_json`).
        headers: optional dict of extra HTTP headers.
        send_as_json: send the JSON as the request body.

    Example:
        >>> monitor = keras.callbacks.RemoteMonitor(root="http://localhost:9000")
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except (urllib.error.URLError, OSError):
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}",
                          stacklevel=2)
