"""`keras.utils.get_file`: download a file once, verify it, keep it in a cache.

Mirrors `keras/src/utils/file_utils.py` of Keras 3: the same cache layout
(`<cache_dir>/<cache_subdir>/<fname>`, `_archive` / `_extracted` names when
extracting), the same hash rules (`"auto"` picks sha256 for a 64-character hash,
md5 otherwise) and the same messages, so a cache filled by Keras is reused here.

Differences that only make failures safer:
- the download goes to a temporary file beside the target, is flushed to disk
  (fsync), checked against `file_hash` and only then renamed onto the final
  name, so an interrupted or corrupted download never leaves a file under it;
- archives are extracted into a temporary folder that is renamed into place,
  and members that would land outside the extraction folder are skipped.

The cache root is `$KERASISH_HOME`, else `$KERAS_HOME`, else `~/.keras`
(falling back to `/tmp/.keras` when that is not writable, as Keras does).
"""
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.parse
import warnings
import zipfile

_CHUNK_BYTES = 1 << 16
_TIMEOUT_S = 60
_HASH_ALGORITHMS = ("auto", "sha256", "md5")
_ARCHIVE_TYPES = ("tar", "zip")


# What `get_file` raises when it cannot fetch `origin` (the message names the URL): a
# plain Exception, as Keras's `get_file` raises (a program printing `type(e).__name__`
# prints "Exception").
DownloadError = Exception


def cache_root():
    """Returns the root of the download cache.

    Returns:
        str: `$KERASISH_HOME` if set, else `$KERAS_HOME` if set, else
        `~/.keras`.

    Example:
        >>> os.environ["KERASISH_HOME"] = "/data/cache"
        >>> cache_root()
        '/data/cache'
    """
    for name in ("KERASISH_HOME", "KERAS_HOME"):
        value = os.environ.get(name)
        if value:
            return value
    return os.path.join(os.path.expanduser("~"), ".keras")


def resolve_hasher(algorithm, file_hash=None):
    """Returns a fresh hashlib object for `algorithm`.

    Args:
        algorithm: `"sha256"`, `"md5"` or `"auto"` (sha256 when `file_hash`
            has 64 characters, md5 otherwise, as in Keras).
        file_hash: the expected hash, used by `"auto"`.

    Returns:
        A `hashlib` hash object.

    Example:
        >>> resolve_hasher("auto", "d41d8cd98f00b204e9800998ecf8427e").name
        'md5'
    """
    if algorithm not in _HASH_ALGORITHMS:
        raise ValueError(
            f"`hash_algorithm` must be one of {_HASH_ALGORITHMS}; "
            f"received: {algorithm!r}")
    if algorithm == "sha256":
        return hashlib.sha256()
    if algorithm == "auto" and file_hash is not None and len(str(file_hash)) == 64:
        return hashlib.sha256()
    return hashlib.md5()


def hash_file(fpath, algorithm="sha256", chunk_size=65535):
    """Computes the sha256 or md5 hex digest of a file.

    Args:
        fpath: path of the file.
        algorithm: `"sha256"`, `"md5"`, `"auto"` (sha256), or a hashlib object.
        chunk_size: bytes read at a time.

    Returns:
        str: the lowercase hex digest.

    Example:
        >>> hash_file("/path/to/empty_file")
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
    """
    hasher = resolve_hasher(algorithm) if isinstance(algorithm, str) else algorithm
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Checks a file against an expected sha256 or md5 hash.

    Args:
        fpath: path of the file.
        file_hash: the expected hex digest (case is ignored).
        algorithm: `"auto"`, `"sha256"` or `"md5"`.
        chunk_size: bytes read at a time.

    Returns:
        bool: whether the file's digest equals `file_hash`.

    Example:
        >>> validate_file("/path/to/empty_file", "d41d8cd98f00b204e9800998ecf8427e")
        True
    """
    hasher = resolve_hasher(algorithm, file_hash)
    return hash_file(fpath, hasher, chunk_size) == str(file_hash).lower()


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """Downloads a file from a URL if it is not already in the cache.

    The file at `origin` is stored as `<cache_dir>/<cache_subdir>/<fname>`
    (by default `~/.keras/datasets/<fname>`). A cached copy is reused unless
    `force_download` is set or it fails the `file_hash` check, in which case it
    is downloaded again. Tar (`.tar`, `.tar.gz`, `.tar.bz2`) and zip archives
    can be extracted.

    Args:
        fname: local file name; `None` takes the last part of `origin`'s path.
            When extracting, a name with a dot keeps the archive under `fname`
            and extracts into `<stem>_extracted`; a name without a dot extracts
            into `fname` and keeps the archive as `<fname>_archive`.
        origin: URL of the file (`http://`, `https://`, `file://`, ...).
        untar: deprecated; same as `extract=True, archive_format="tar"`.
        md5_hash: deprecated; an md5 hash to check (when `file_hash` is None).
        file_hash: the expected sha256 or md5 hex digest of the file.
        cache_subdir: folder under `cache_dir`; an absolute path is used as is.
        hash_algorithm: `"auto"` (sha256 for a 64-character hash, else md5),
            `"sha256"` or `"md5"`.
        extract: whether to extract the downloaded archive.
        archive_format: `"auto"` (tar then zip), `"tar"`, `"zip"`, a list of
            those, or `None` (no extraction).
        cache_dir: cache root; `None` means `$KERASISH_HOME`, else
            `$KERAS_HOME`, else `~/.keras`.
        force_download: download even if a valid cached copy exists.

    Returns:
        str: path of the downloaded file, or of the extraction folder when
        `extract` or `untar` is set.

    Raises:
        ValueError: missing `origin`, an `fname` with a folder in it, an
            unknown `hash_algorithm`/`archive_format`, or a downloaded file
            whose hash differs from `file_hash`.
        DownloadError: the URL could not be fetched (the message names it).

    Example:
        >>> path = keras.utils.get_file(
        ...     origin="https://storage.googleapis.com/tensorflow/"
        ...            "tf-keras-datasets/mnist.npz",
        ...     file_hash="731c5ac602752760c8e48fbffcf8c3b8"
        ...               "50d9dc2a2aedcf2cc48468fc17b673d1")
        >>> path.endswith("datasets/mnist.npz")
        True
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file '
                         "to download).")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    resolve_hasher(hash_algorithm, file_hash)  # validates the argument early
    if untar:
        archive_format = "tar"
    archive_types = _archive_types(archive_format)
    provided = bool(fname)
    fname = _file_name(fname, origin)
    datadir = _cache_folder(cache_dir, cache_subdir)
    target, extraction_dir = _targets(datadir, fname, provided, extracting=extract or untar)
    downloaded = False
    if _needs_download(target, file_hash, hash_algorithm, force_download):
        _download(origin, target, file_hash, hash_algorithm)
        downloaded = True
    if not (extract or untar):
        return target
    if downloaded or not os.path.exists(extraction_dir):
        if not _extract_into(target, extraction_dir, archive_types):
            warnings.warn("Could not extract archive.", stacklevel=2)
    return extraction_dir


def _name_from_url(origin):
    return os.path.basename(urllib.parse.urlsplit(str(origin)).path)


def _file_name(fname, origin):
    if not urllib.parse.urlsplit(str(origin)).scheme:
        raise ValueError(
            "`origin` must be a URL with a scheme, such as 'https://...' or "
            f"'file:///...'; received: {origin!r}")
    fname = os.fspath(fname) if fname is not None else None
    if not fname:
        fname = _name_from_url(origin)
        if not fname:
            raise ValueError(
                "Can't parse the file name from the origin provided: "
                f"'{origin}'. Please specify the `fname` argument.")
        return fname
    if os.sep in fname or "/" in fname or fname in (".", ".."):
        raise ValueError(
            "Paths are no longer accepted as the `fname` argument. "
            "To specify the file's parent directory, use "
            f"the `cache_dir` argument. Received: fname={fname}")
    return fname


def _archive_types(archive_format):
    if archive_format is None:
        return []
    if archive_format == "auto":
        return list(_ARCHIVE_TYPES)
    types = [archive_format] if isinstance(archive_format, str) else list(archive_format)
    for kind in types:
        if kind not in _ARCHIVE_TYPES:
            raise ValueError(
                "`archive_format` must be 'auto', 'tar', 'zip', a list of "
                f"'tar'/'zip', or None; received: {archive_format!r}")
    return types


def _cache_folder(cache_dir, cache_subdir):
    base = os.path.expanduser(os.fspath(cache_dir) if cache_dir is not None
                              else cache_root())
    try:
        os.makedirs(base, exist_ok=True)
    except OSError:
        pass
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(),
                            ".keras")
    datadir = os.path.join(base, os.fspath(cache_subdir))
    os.makedirs(datadir, exist_ok=True)
    return datadir


def _targets(datadir, fname, provided, extracting):
    """Returns (download target, extraction folder) as Keras 3 names them."""
    if not extracting:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        stem = fname[:fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def _needs_download(target, file_hash, hash_algorithm, force_download):
    if force_download or not os.path.exists(target):
        return True
    if file_hash is None or validate_file(target, file_hash, hash_algorithm):
        return False
    print("A local file was found, but it seems to be incomplete or outdated "
          f"because the {hash_algorithm} file hash does not match the original "
          f"value of {file_hash} so we will re-download the data.")
    return True


def _download(origin, target, file_hash, hash_algorithm):
    """Fetches `origin` into a temporary file, checks it, renames it to `target`."""
    print(f"Downloading data from {origin}")
    folder = os.path.dirname(target)
    fd, tmp_path = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.",
                                    suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            _fetch(origin, out, os.path.basename(target))
            out.flush()
            os.fsync(out.fileno())
        if file_hash is not None and not validate_file(tmp_path, file_hash, hash_algorithm):
            raise ValueError(
                "Incomplete or corrupted file detected. "
                f"The {hash_algorithm} file hash does not match the provided value "
                f"of {file_hash}. Downloaded from: {origin}")
        os.replace(tmp_path, target)
    except BaseException:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise
    _fsync_folder(folder)


def _fetch(origin, out, label):
    """Streams `origin` into the open binary file `out` with a progress bar."""
    # Imported here: urllib.request pulls in http/email/ssl (~25 ms), only
    # worth paying when something is actually downloaded.
    import http.client
    import urllib.error
    import urllib.request
    error_msg = "URL fetch failure on {}: {} -- {}"
    try:
        with urllib.request.urlopen(origin, timeout=_TIMEOUT_S) as response:
            total = _content_length(response)
            received = _copy_with_progress(response, out, total, label)
    except urllib.error.HTTPError as e:
        raise DownloadError(error_msg.format(origin, e.code, e.msg)) from e
    except urllib.error.URLError as e:
        raise DownloadError(error_msg.format(origin, e.errno, e.reason)) from e
    except (OSError, http.client.HTTPException) as e:
        raise DownloadError(error_msg.format(origin, type(e).__name__, e)) from e
    if total is not None and received < total:
        raise DownloadError(error_msg.format(
            origin, "incomplete", f"received {received} of {total} bytes"))


def _content_length(response):
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _copy_with_progress(response, out, total, label):
    from tqdm import tqdm
    received = 0
    with tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
              desc=label, file=sys.stderr, leave=True) as bar:
        for chunk in iter(lambda: response.read(_CHUNK_BYTES), b""):
            out.write(chunk)
            received += len(chunk)
            bar.update(len(chunk))
    return received


def _fsync_folder(folder):
    """Makes the rename durable on POSIX; a no-op where folders can't be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extracts a tar or zip archive, skipping members that would escape `path`.

    The archive is unpacked into a temporary folder beside `path` that is then
    renamed to `path` (replacing an older extraction), so a failure leaves no
    half-extracted folder.

    Args:
        file_path: path of the archive.
        path: folder to extract into.
        archive_format: `"auto"` (tar then zip), `"tar"`, `"zip"`, a list of
            those, or `None`.

    Returns:
        bool: True if the archive matched a format and was extracted.

    Example:
        >>> extract_archive("photos.tar.gz", "photos")
        True
    """
    return _extract_into(os.fspath(file_path), os.fspath(path),
                         _archive_types(archive_format))


def _extract_into(file_path, path, archive_types):
    for kind in archive_types:
        is_match = tarfile.is_tarfile if kind == "tar" else zipfile.is_zipfile
        if os.path.isfile(file_path) and is_match(file_path):
            _extract_atomically(file_path, path, kind)
            return True
    return False


def _extract_atomically(file_path, path, kind):
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent, prefix=f".{os.path.basename(path)}.",
                               suffix=".extracting")
    try:
        if kind == "tar":
            with tarfile.open(file_path) as archive:
                _extract_tar(archive, staging)
        else:
            with zipfile.ZipFile(file_path) as archive:
                archive.extractall(staging, members=_safe_zip_members(archive, staging))
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
        os.replace(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _extract_tar(archive, staging):
    members = list(_safe_tar_members(archive, staging))
    if hasattr(tarfile, "data_filter"):
        archive.extractall(staging, members=members, filter="data")
    else:
        archive.extractall(staging, members=members)


def _inside(base, relative):
    base = os.path.realpath(base)
    target = os.path.realpath(os.path.join(base, relative))
    try:
        return os.path.commonpath([target, base]) == base
    except ValueError:
        return False


def _safe_tar_members(archive, base):
    for info in archive:
        ok = _inside(base, info.name)
        if ok and info.issym():
            ok = _inside(base, os.path.join(os.path.dirname(info.name), info.linkname))
        elif ok and info.islnk():
            ok = _inside(base, info.linkname)
        if ok:
            yield info
        else:
            warnings.warn(f"Skipping invalid path during archive extraction: "
                          f"'{info.name}'.", stacklevel=3)


def _safe_zip_members(archive, base):
    for info in archive.infolist():
        if _inside(base, info.filename):
            yield info
        else:
            warnings.warn(f"Skipping invalid path during archive extraction: "
                          f"'{info.filename}'.", stacklevel=3)
