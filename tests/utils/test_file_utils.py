"""`keras.utils.get_file`, against a local HTTP server and `file://` URLs."""
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from kerasish.utils import file_utils
from kerasish.utils.file_utils import DownloadError, get_file

PAYLOAD = b"kerasish test payload\n" * 1000
SHA256 = hashlib.sha256(PAYLOAD).hexdigest()
MD5 = hashlib.md5(PAYLOAD).hexdigest()


def _tar_gz_bytes(files):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip_bytes(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


ROUTES = {
    "/data.bin": PAYLOAD,
    "/photos.tar.gz": _tar_gz_bytes({"photos/a.txt": b"A", "photos/b/c.txt": b"C"}),
    "/notes.zip": _zip_bytes({"notes/readme.txt": b"hello"}),
}


class _Handler(http.server.BaseHTTPRequestHandler):
    timeout = 5
    requests = []

    def do_GET(self):  # noqa: N802 (http.server API)
        type(self).requests.append(self.path)
        if self.path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Length", str(len(PAYLOAD)))
            self.end_headers()
            self.wfile.write(PAYLOAD[:100])
            self.wfile.flush()
            self.close_connection = True
            return
        body = ROUTES.get(self.path)
        if body is None:
            self.send_error(404, "Not Found")
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    """A local HTTP server on 127.0.0.1 that stops after the test (or 60 s)."""
    _Handler.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    watchdog = threading.Timer(60, httpd.shutdown)
    watchdog.daemon = True
    thread.start()
    watchdog.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        watchdog.cancel()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fresh cache root through KERASISH_HOME."""
    root = tmp_path / "home"
    monkeypatch.setenv("KERASISH_HOME", str(root))
    monkeypatch.delenv("KERAS_HOME", raising=False)
    return root


def _leftovers(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.startswith(".")]


def test_downloads_into_cache_and_verifies_sha256(server, home):
    path = get_file("data.bin", origin=server + "/data.bin", file_hash=SHA256)
    assert path == str(home / "datasets" / "data.bin")
    assert Path(path).read_bytes() == PAYLOAD
    assert _leftovers(home / "datasets") == []


def test_fname_defaults_to_last_part_of_url(server, home):
    path = get_file(origin=server + "/data.bin")
    assert path == str(home / "datasets" / "data.bin")


def test_cached_valid_file_is_not_downloaded_again(server, home):
    get_file("data.bin", origin=server + "/data.bin", file_hash=SHA256)
    get_file("data.bin", origin=server + "/data.bin", file_hash=SHA256)
    get_file("data.bin", origin=server + "/data.bin")
    assert _Handler.requests == ["/data.bin"]


def test_force_download_fetches_again(server, home):
    get_file("data.bin", origin=server + "/data.bin")
    get_file("data.bin", origin=server + "/data.bin", force_download=True)
    assert _Handler.requests == ["/data.bin", "/data.bin"]


def test_cached_file_with_wrong_hash_is_replaced(server, home, capsys):
    target = home / "datasets" / "data.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"stale")
    path = get_file("data.bin", origin=server + "/data.bin", file_hash=SHA256)
    assert Path(path).read_bytes() == PAYLOAD
    assert "file hash does not match the original value" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs", [
    {"file_hash": MD5},
    {"md5_hash": MD5},
    {"file_hash": MD5, "hash_algorithm": "md5"},
    {"file_hash": SHA256.upper(), "hash_algorithm": "sha256"},
])
def test_md5_and_explicit_algorithms(server, home, kwargs):
    path = get_file("data.bin", origin=server + "/data.bin", **kwargs)
    assert Path(path).read_bytes() == PAYLOAD


def test_hash_mismatch_raises_and_leaves_no_file(server, home):
    with pytest.raises(ValueError, match="file hash does not match the provided value"):
        get_file("data.bin", origin=server + "/data.bin", file_hash="0" * 64)
    assert list((home / "datasets").iterdir()) == []


def test_http_error_names_url_and_leaves_no_file(server, home):
    url = server + "/missing.bin"
    with pytest.raises(DownloadError, match=f"URL fetch failure on {url}: 404") as info:
        get_file(origin=url)
    assert list((home / "datasets").iterdir()) == []
    assert type(info.value) is Exception   # as Keras's get_file: a plain Exception


def test_truncated_download_never_reaches_final_name(server, home):
    url = server + "/truncated"
    with pytest.raises(DownloadError, match=f"URL fetch failure on {url}"):
        get_file("data.bin", origin=url)
    assert list((home / "datasets").iterdir()) == []


def test_failed_redownload_keeps_previous_file_untouched(server, home):
    target = home / "datasets" / "data.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"old")
    with pytest.raises(DownloadError):
        get_file("data.bin", origin=server + "/truncated", force_download=True)
    assert target.read_bytes() == b"old"
    assert _leftovers(target.parent) == []


def test_unreachable_server_names_url(home):
    with pytest.raises(DownloadError, match="URL fetch failure on http://127.0.0.1:9/x"):
        get_file("x", origin="http://127.0.0.1:9/x")


def test_file_url_and_cache_dir_and_absolute_subdir(tmp_path, home):
    source = tmp_path / "source.bin"
    source.write_bytes(PAYLOAD)
    path = get_file("copy.bin", origin=source.as_uri(), file_hash=SHA256,
                    cache_dir=tmp_path / "cache", cache_subdir="sub")
    assert path == str(tmp_path / "cache" / "sub" / "copy.bin")
    absolute = tmp_path / "elsewhere"
    path = get_file("copy.bin", origin=source.as_uri(), cache_subdir=str(absolute))
    assert path == str(absolute / "copy.bin")


def test_missing_file_url_names_url(tmp_path, home):
    url = (tmp_path / "absent.bin").as_uri()
    with pytest.raises(DownloadError, match=f"URL fetch failure on {url}"):
        get_file("absent.bin", origin=url)


def test_cache_root_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv("KERASISH_HOME", raising=False)
    monkeypatch.delenv("KERAS_HOME", raising=False)
    assert file_utils.cache_root() == os.path.join(os.path.expanduser("~"), ".keras")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras"))
    assert file_utils.cache_root() == str(tmp_path / "keras")
    monkeypatch.setenv("KERASISH_HOME", str(tmp_path / "kerasish"))
    assert file_utils.cache_root() == str(tmp_path / "kerasish")


def test_extract_tar_with_dotted_fname(server, home):
    path = get_file("photos.tar.gz", origin=server + "/photos.tar.gz", extract=True)
    folder = home / "datasets"
    assert path == str(folder / "photos_extracted")
    assert (folder / "photos.tar.gz").is_file()
    assert (Path(path) / "photos" / "b" / "c.txt").read_bytes() == b"C"


def test_untar_with_plain_fname(server, home):
    path = get_file("photos", origin=server + "/photos.tar.gz", untar=True)
    folder = home / "datasets"
    assert path == str(folder / "photos")
    assert (folder / "photos_archive").is_file()
    assert (Path(path) / "photos" / "a.txt").read_bytes() == b"A"
    assert _leftovers(folder) == []


def test_extract_zip_without_fname(server, home):
    path = get_file(origin=server + "/notes.zip", extract=True)
    folder = home / "datasets"
    assert path == str(folder / "notes.zip")
    assert (folder / "notes.zip_archive").is_file()
    assert (Path(path) / "notes" / "readme.txt").read_bytes() == b"hello"


def test_non_archive_warns(server, home):
    with pytest.warns(UserWarning, match="Could not extract archive"):
        get_file("data.bin", origin=server + "/data.bin", extract=True)


def test_archive_members_escaping_the_folder_are_skipped(tmp_path):
    archive = tmp_path / "evil.zip"
    archive.write_bytes(_zip_bytes({"../escape.txt": b"x", "ok.txt": b"y"}))
    with pytest.warns(UserWarning, match="Skipping invalid path"):
        assert file_utils.extract_archive(archive, tmp_path / "out", "zip")
    assert (tmp_path / "out" / "ok.txt").read_bytes() == b"y"
    assert not (tmp_path / "escape.txt").exists()


@pytest.mark.parametrize("kwargs, message", [
    ({}, 'specify the "origin" argument'),
    ({"origin": "data.bin"}, "`origin` must be a URL"),
    ({"origin": "http://x.org/a", "fname": "sub/a"}, "Paths are no longer accepted"),
    ({"origin": "http://x.org/"}, "Can't parse the file name"),
    ({"origin": "http://x.org/a", "hash_algorithm": "sha1"}, "`hash_algorithm` must be"),
    ({"origin": "http://x.org/a", "archive_format": "rar"}, "`archive_format` must be"),
])
def test_argument_errors(home, kwargs, message):
    with pytest.raises(ValueError, match=message):
        get_file(**kwargs)


def test_hash_helpers(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert file_utils.hash_file(empty) == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert file_utils.hash_file(empty, "md5") == "d41d8cd98f00b204e9800998ecf8427e"
    assert file_utils.validate_file(empty, "d41d8cd98f00b204e9800998ecf8427e")
    assert not file_utils.validate_file(empty, "0" * 64)
