"""The files a robot description names, found on the client's disk the way the server's importer finds them
(core/model: package://NAME/PATH on a model path, file:// and absolute paths, paths relative to the URDF),
and meshes in the mesh format the server sends them in (proto/README.md, "Meshes").

Where package://NAME/PATH is looked for, in order: the folders of `package_path` (colon-separated, like
ROS_PACKAGE_PATH), then those of SINEW_MODEL_PATH, then the URDF's own folder and every folder above it
(so a URDF inside its package, or inside a workspace of packages, finds its files without a path):
FOLDER/NAME/PATH when FOLDER/NAME is a folder, or FOLDER/PATH when FOLDER/package.xml names NAME.
"""

import hashlib
import os
import re
import struct
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from typing import Dict, List, Optional

_NAME = re.compile(rb"<name>\s*(.*?)\s*</name>", re.S)


def sha256(data: bytes) -> bytes:
    """The content address of a file: its SHA-256 (32 bytes)."""
    return hashlib.sha256(data).digest()


def mesh_uris(urdf: bytes) -> List[str]:
    """The distinct <mesh filename> of a URDF's visuals and collisions, in document order."""
    root = ElementTree.fromstring(urdf)
    seen = []
    for mesh in root.iter("mesh"):
        name = mesh.get("filename")
        if name and name not in seen:
            seen.append(name)
    return seen


def _names_package(folder: str, name: str) -> bool:
    try:
        with open(os.path.join(folder, "package.xml"), "rb") as f:
            text = f.read(1 << 16)
    except OSError:
        return False
    m = _NAME.search(text)
    return m is not None and m.group(1).decode("utf-8", "replace") == name


def _ancestors(folder: str) -> List[str]:
    out = []
    folder = os.path.abspath(folder)
    while True:
        out.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def resolve(uri: str, base_dir: str, package_path: Optional[str] = None) -> Optional[str]:
    """Where a URI of a URDF in base_dir is on this disk, or None (not found, or a scheme the server
    reads from elsewhere)."""
    if uri.startswith("package://"):
        rest = uri[len("package://"):]
        name, _, path = rest.partition("/")
        if not name or not path or ".." in path.split("/") or name in (".", ".."):
            return None
        folders = []
        for listing in (package_path, os.environ.get("SINEW_MODEL_PATH")):
            folders += [f for f in (listing or "").split(":") if f]
        folders += _ancestors(base_dir)
        for folder in folders:
            if os.path.isdir(os.path.join(folder, name)):
                candidate = os.path.join(folder, name, path)
            elif _names_package(folder, name):
                candidate = os.path.join(folder, path)
            else:
                continue
            if os.path.isfile(candidate):
                return candidate
        return None
    if uri.startswith("file://"):
        path = uri[len("file://"):]
    elif "://" in uri:
        return None
    else:
        path = uri
    candidate = path if os.path.isabs(path) else os.path.join(base_dir, path)
    return candidate if os.path.isfile(candidate) else None


@dataclass
class ModelFiles:
    """A robot description and the files it refers to, gathered before LoadUrdf: `urdf` the text,
    `file_name` what error messages call it, `assets` the files found ({URI as the URDF writes it:
    bytes}), `missing` the URIs not found on this disk (the server may have them on its model path)."""

    urdf: bytes
    file_name: str
    assets: Dict[str, bytes] = field(default_factory=dict)
    missing: List[str] = field(default_factory=list)


def read_model_files(path: str, package_path: Optional[str] = None) -> ModelFiles:
    """Read a URDF file and the mesh files it names (see the module's docstring for where they are looked
    for)."""
    with open(path, "rb") as f:
        text = f.read()
    name = os.path.basename(path) if len(path) > 127 else path
    model = ModelFiles(text, name)
    try:
        uris = mesh_uris(text)
    except ElementTree.ParseError:
        return model  # the server says what is wrong with it, with line and column
    base = os.path.dirname(os.path.abspath(path))
    for uri in uris:
        found = resolve(uri, base, package_path)
        if found is None:
            model.missing.append(uri)
            continue
        with open(found, "rb") as f:
            model.assets[uri] = f.read()
    return model


# ---- the mesh format ------------------------------------------------------------------------------------

_HEADER = struct.Struct("<4sIIIII")
_PART = struct.Struct("<IIIffff")


@dataclass
class MeshPart:
    """A run of triangles with the file's own colour (`rgba`, when `has_color`)."""

    first_triangle: int
    triangle_count: int
    has_color: bool
    rgba: tuple


@dataclass
class Mesh:
    """A mesh as the server sends it (Client.get_mesh): `positions` and `normals` (x, y, z per vertex,
    m, the mesh's frame), `indices` (three per triangle), `parts` with colours; `data` the bytes, whose
    SHA-256 is `hash`. `positions_array()` etc. give numpy arrays."""

    positions: List[float]
    normals: List[float]
    indices: List[int]
    parts: List[MeshPart]
    data: bytes = field(repr=False, default=b"")
    hash: bytes = b""

    @property
    def vertex_count(self) -> int:
        return len(self.positions) // 3

    @property
    def triangle_count(self) -> int:
        return len(self.indices) // 3

    @classmethod
    def from_bytes(cls, data: bytes) -> "Mesh":
        """Parse and check the mesh format; ValueError if the bytes are not one."""
        if len(data) < _HEADER.size:
            raise ValueError("not a mesh: shorter than its header")
        magic, version, v, t, p, reserved = _HEADER.unpack_from(data, 0)
        if magic != b"SNMS" or version != 1 or reserved != 0:
            raise ValueError("not a mesh of version 1 (SNMS)")
        if len(data) != _HEADER.size + 24 * v + 12 * t + _PART.size * p:
            raise ValueError("the mesh's size does not match its counts")
        at = _HEADER.size
        positions = list(struct.unpack_from("<%df" % (3 * v), data, at))
        at += 12 * v
        normals = list(struct.unpack_from("<%df" % (3 * v), data, at))
        at += 12 * v
        indices = list(struct.unpack_from("<%dI" % (3 * t), data, at))
        at += 12 * t
        if any(i >= v for i in indices):
            raise ValueError("a triangle index is out of range")
        parts = []
        for k in range(p):
            first, count, has_color, r, g, b, a = _PART.unpack_from(data, at + k * _PART.size)
            parts.append(MeshPart(first, count, bool(has_color), (r, g, b, a)))
        return cls(positions, normals, indices, parts, bytes(data), sha256(data))

    def positions_array(self):
        from .state import _numpy
        return _numpy().array(self.positions, dtype="float32").reshape(-1, 3)

    def normals_array(self):
        from .state import _numpy
        return _numpy().array(self.normals, dtype="float32").reshape(-1, 3)

    def triangles_array(self):
        from .state import _numpy
        return _numpy().array(self.indices, dtype="uint32").reshape(-1, 3)
