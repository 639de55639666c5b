"""RemoteMonitor posts each epoch's logs to a local HTTP server (loopback only)."""
import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import kerasish as keras


class _Recorder(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Recorder.received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Recorder.received = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _fit(callback):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[callback])


@pytest.mark.parametrize("as_json", [False, True])
def test_posts_every_epoch(server, as_json):
    history = _fit(keras.callbacks.RemoteMonitor(root=server, path="/epochs",
                                                 send_as_json=as_json))
    assert len(_Recorder.received) == 2
    for epoch, (path, kind, body) in enumerate(_Recorder.received):
        assert path == "/epochs"
        if as_json:
            assert kind == "application/json"
            sent = json.loads(body)
        else:
            assert kind == "application/x-www-form-urlencoded"
            sent = json.loads(urllib.parse.parse_qs(body.decode())["data"][0])
        assert sent == {"epoch": epoch, "loss": pytest.approx(history.history["loss"][epoch])}


def test_unreachable_server_warns():
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor root server"):
        _fit(keras.callbacks.RemoteMonitor(root="http://127.0.0.1:9"))
