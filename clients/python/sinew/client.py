"""The entry point: connect to a sinewd, list, create and open worlds."""

import os
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._pb import pb
from .assets import Mesh, sha256
from .connection import Connection
from .errors import ConnectionClosed, NotFound
from .world import ROLES, World, WorldInfo, _enum, role_name, settings_message, time_message

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7420


def _default_host() -> str:
    # The variable sinewd reads; its wildcard listen addresses are reached on loopback.
    host = os.environ.get("SINEW_HOST") or DEFAULT_HOST
    return {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


def _default_port() -> int:
    value = os.environ.get("SINEW_TCP_PORT")
    if not value:
        return DEFAULT_PORT
    try:
        port = int(value)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise ValueError("SINEW_TCP_PORT must be a port in [1, 65535], not %r" % value)
    return port


class Client:
    """A session with a sinewd over TCP. Use connect(); close() (or a `with` block) ends it, and with it
    every world it created without keep_after_disconnect.

    `session_id`, `server_version`, `capabilities` and `role` come from the handshake. Every call sends
    one command and waits for its reply; a refused command raises a SinewError subclass (sinew.errors)
    carrying the server's code and message, and changes nothing on the server."""

    def __init__(self, host: Optional[str] = None, port: Optional[int] = None, token: Optional[str] = None,
                 name: str = "python", role: str = "controller", timeout: Optional[float] = 30.0):
        self.host: str = host or _default_host()
        self.port: int = port or _default_port()
        self.connection: Connection = Connection(self.host, self.port, token=token, name=name,
                                                 role=_enum(ROLES, role, "role"), timeout=timeout)
        hs = self.connection.handshake
        self.session_id: int = hs.session_id
        self.server_version: str = hs.server_version
        self.capabilities: List[str] = list(hs.capabilities)
        self.role: str = role_name(hs.role)
        self.max_steps_per_request: int = hs.max_steps_per_request
        #: Model assets: the largest file, files per load and their bytes together the server takes.
        self.max_asset_bytes: int = hs.max_asset_bytes
        self.max_assets_per_load: int = hs.max_assets_per_load or 256
        self.max_asset_bytes_per_load: int = hs.max_asset_bytes_per_load
        #: A message above 128 KiB must reach the server at least this fast on average (bytes/s).
        self.min_receive_bytes_per_s: int = hs.min_receive_bytes_per_s

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "Client(%s:%d, session=%d)" % (self.host, self.port, self.session_id)

    def close(self) -> None:
        """End the session. Worlds it created without keep_after_disconnect are destroyed by the server."""
        self.connection.close()

    @property
    def closed(self) -> Optional[ConnectionClosed]:
        """None while connected, else the ConnectionClosed saying why it ended."""
        return self.connection.closed

    def ping(self) -> float:
        """Round trip to the server, s."""
        start = time.perf_counter()
        self.connection.request("ping", pb.Ping())
        return time.perf_counter() - start

    def worlds(self) -> List[WorldInfo]:
        """Every world on the server, as WorldInfo."""
        reply = self.connection.request("list_worlds", pb.ListWorlds())
        return [WorldInfo.from_proto(w) for w in reply.worlds.worlds]

    def create_world(self, name: str = "", mode: str = "paused", rate: Optional[float] = None,
                     keep_after_disconnect: bool = False, *, dt: Optional[float] = None,
                     solver: Optional[str] = None, gravity: Optional[Sequence[float]] = None,
                     position_iterations: Optional[int] = None, velocity_iterations: Optional[int] = None,
                     substeps: Optional[int] = None, erp: Optional[float] = None,
                     divergence_speed: Optional[float] = None, warm_start: Optional[float] = None) -> World:
        """Create a world this session owns and return it.

        The world is destroyed when this session ends (the script exits, close() or the end of a `with`
        block) unless `keep_after_disconnect` is true: then it stays on the server, ownerless, and any
        client may open it as its owner (``client.open_world(name, role="owner")``). Names are unique
        on a server: a name another world has raises Conflict (ERR_NAME_TAKEN); "" makes an unnamed
        world.

        `mode` 'paused' (default: it steps on world.step()), 'realtime' (at `rate` simulated seconds per
        second), 'fast' or 'lockstep'. Settings: dt (s, default 0.001), solver ('pgs', 'tgs' (default),
        'xpbd', 'direct'), gravity (m/s^2, default (0, 0, -9.81)), position_iterations,
        velocity_iterations, substeps, erp, divergence_speed (m/s), warm_start."""
        msg = pb.CreateWorld(name=name, keep_after_disconnect=keep_after_disconnect)
        msg.settings.CopyFrom(settings_message(
            dt=dt, solver=solver, gravity=gravity, position_iterations=position_iterations,
            velocity_iterations=velocity_iterations, substeps=substeps, erp=erp, divergence_speed=divergence_speed,
            warm_start=warm_start))
        msg.time.CopyFrom(time_message(mode, rate))
        world_id = self.connection.request("create_world", msg).created.id
        return World(self, world_id, name, "owner")

    def open_world(self, world: Union[int, str], role: str = "controller", controller_key: str = "") -> World:
        """Join an existing world by name or id as 'observer', 'controller' or 'owner' (an ownerless
        world only: the demo world, a kept world whose creator left). A world whose owner set a controller
        key (World.set_controller_key) needs it to control or adopt it. Returns the World with the role the
        server granted. Raises NotFound when no world has that name or id."""
        infos = self.worlds()
        if isinstance(world, str):
            info = next((w for w in infos if w.name == world), None)
        else:
            info = next((w for w in infos if w.id == world), None)
        if info is None:
            raise NotFound(pb.ERR_UNKNOWN_WORLD, "no world %r on the server (worlds: %s)"
                           % (world, ", ".join(w.name or str(w.id) for w in infos) or "none"), "join_world")
        joined = self.connection.request("join_world",
                                         pb.JoinWorld(world_id=info.id, role=_enum(ROLES, role, "role"),
                                                      controller_key=controller_key))
        opened = World(self, info.id, info.name, role_name(joined.joined.role))
        opened.controller_key = controller_key
        return opened

    # ---- model assets and meshes ------------------------------------------------------------------------

    def find_assets(self, hashes: Sequence[bytes]) -> List[bytes]:
        """Which of these files (by SHA-256, 32 bytes each) the server lacks, in the order asked."""
        missing = []
        hashes = list(hashes)
        for start in range(0, len(hashes), self.max_assets_per_load):
            reply = self.connection.request("find_assets",
                                            pb.FindAssets(sha256=hashes[start:start + self.max_assets_per_load]))
            missing += [bytes(h) for h in reply.assets.missing]
        return missing

    def put_asset(self, data: bytes) -> bytes:
        """Send one file to the server's asset store; returns its SHA-256."""
        digest = sha256(data)
        reply = self.connection.request("put_asset", pb.PutAsset(data=bytes(data), sha256=digest))
        return bytes(reply.asset.sha256)

    def upload(self, files: Mapping[str, bytes]) -> Dict[str, bytes]:
        """Make sure the server has these files ({name: bytes}): send those it lacks (FindAssets, then
        PutAsset each). Returns {name: SHA-256}. A file the server has already is not sent again."""
        hashes = {name: sha256(data) for name, data in files.items()}
        missing = set(self.find_assets(list(dict.fromkeys(hashes.values()))))
        for name, data in files.items():
            if hashes[name] in missing:
                self.put_asset(data)
                missing.discard(hashes[name])
        return hashes

    def get_mesh(self, mesh_hash: bytes) -> Mesh:
        """A mesh by its content hash (a MeshRef's hash: a UrdfVisual's mesh_ref, a ShapeInfo's mesh), in
        chunks until whole; checked against the hash. NotFound (ERR_UNKNOWN_ASSET) if the server has none."""
        mesh_hash = bytes(mesh_hash)
        chunks = []
        offset, total = 0, None
        while total is None or offset < total:
            reply = self.connection.request("get_mesh", pb.GetMesh(hash=mesh_hash, offset=offset)).mesh
            total = reply.total_bytes
            if not reply.data and offset < total:
                raise ConnectionError("sinew: the server sent an empty chunk of a mesh")
            chunks.append(bytes(reply.data))
            offset += len(reply.data)
        mesh = Mesh.from_bytes(b"".join(chunks))
        if mesh.hash != mesh_hash:
            raise ValueError("sinew: the mesh's bytes do not have the hash asked for")
        return mesh

    def wait_event(self, kind: Optional[str] = None, world: Union[World, int, None] = None,
                   timeout: Optional[float] = None) -> Optional["pb.Event"]:
        """The next Event (protobuf) of a kind ('diverged', 'demoted', 'destroyed', 'closing',
        'time_mode'; None: any) and world (World or id; None: any), waiting up to `timeout` s; None if none
        came."""
        world_id = getattr(world, "id", world)

        def match(event: "pb.Event") -> bool:
            return ((kind is None or event.WhichOneof("event") == kind)
                    and (world_id is None or event.world_id == world_id))

        return self.connection.wait_event(match, timeout)

    def request(self, command: str, message: Any, timeout: Optional[float] = None) -> "pb.Reply":
        """Send any command by its ClientMessage field name with its protobuf message (sinew.pb); returns
        the Reply. For what the classes here do not wrap."""
        return self.connection.request(command, message, timeout)


def connect(host: Optional[str] = None, port: Optional[int] = None, token: Optional[str] = None,
            name: str = "python", role: str = "controller", timeout: Optional[float] = 30.0) -> Client:
    """Connect and shake hands. Where: `host` and `port` (the TCP port), else the variables sinewd itself
    reads, SINEW_HOST and SINEW_TCP_PORT, else 127.0.0.1:7420. `token` if the server requires one (else
    SINEW_TOKEN); `role` 'controller' (default: may create and control worlds) or 'observer'
    (read-only); `timeout` s for each reply (None: wait forever). Raises ConnectionRefusedError when no
    server listens there, Forbidden (ERR_UNAUTHORISED) or SinewError (ERR_WRONG_VERSION) if the server
    refuses, ProtocolError when the port is sinewd's HTTP/WebSocket port."""
    if token is None:
        token = os.environ.get("SINEW_TOKEN") or None
    return Client(host, port, token=token, name=name, role=role, timeout=timeout)
