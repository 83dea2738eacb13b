"""The entry point: connect to a sinewd, list, create and open worlds."""

import time

from ._pb import pb
from .connection import Connection
from .errors import SinewError
from .world import ROLES, World, WorldInfo, role_name, settings_message, time_message, _enum

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7420


class Client:
    """A session with a sinewd over TCP. Use connect(); close() (or a `with` block) ends it.

    `session_id`, `server_version`, `capabilities` and `role` come from the handshake. Every call sends
    one command and waits for its reply; a refused command raises SinewError carrying the server's code
    and message, and changes nothing on the server."""

    def __init__(self, host=DEFAULT_HOST, port=DEFAULT_PORT, token=None, name="python", role="controller",
                 timeout=30.0):
        self._conn = Connection(host, port, token=token, name=name, role=_enum(ROLES, role, "role"),
                                timeout=timeout)
        hs = self._conn.handshake
        self.session_id = hs.session_id
        self.server_version = hs.server_version
        self.capabilities = list(hs.capabilities)
        self.role = role_name(hs.role)
        self.max_steps_per_request = hs.max_steps_per_request

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._conn.close()

    @property
    def closed(self):
        """None while connected, else the ConnectionClosed saying why it ended."""
        return self._conn.closed

    def ping(self):
        """Round trip to the server, s."""
        start = time.perf_counter()
        self._conn.request("ping", pb.Ping())
        return time.perf_counter() - start

    def worlds(self):
        """Every world on the server, as WorldInfo."""
        reply = self._conn.request("list_worlds", pb.ListWorlds())
        return [WorldInfo.from_proto(w) for w in reply.worlds.worlds]

    def create_world(self, name="", mode="paused", rate=None, keep_after_disconnect=False, **settings):
        """Create a world this session owns. `mode` 'paused' (default), 'realtime' (at `rate`), 'fast' or
        'lockstep'; settings: dt (s), solver ('pgs', 'tgs', 'xpbd', 'direct'), gravity (m/s^2, default
        (0, 0, -9.81)), position_iterations, velocity_iterations, substeps, erp, divergence_speed. The world
        is destroyed with this session unless keep_after_disconnect."""
        msg = pb.CreateWorld(name=name, keep_after_disconnect=keep_after_disconnect)
        msg.settings.CopyFrom(settings_message(**settings))
        msg.time.CopyFrom(time_message(mode, rate))
        world_id = self._conn.request("create_world", msg).created.id
        return World(self, world_id, name, "owner")

    def open_world(self, world, role="controller"):
        """Join an existing world by id or name as 'observer', 'controller' or 'owner' (an ownerless
        world only). Returns the World with the role the server granted."""
        if isinstance(world, str):
            matches = [w for w in self.worlds() if w.name == world]
            if not matches:
                raise SinewError(pb.ERR_UNKNOWN_WORLD, "no world named %r" % world, "join_world")
            info = matches[0]
        else:
            info = next((w for w in self.worlds() if w.id == world), None)
            if info is None:
                raise SinewError(pb.ERR_UNKNOWN_WORLD, "no world %d" % world, "join_world")
        joined = self._conn.request("join_world", pb.JoinWorld(world_id=info.id, role=_enum(ROLES, role, "role")))
        return World(self, info.id, info.name, role_name(joined.joined.role))

    def wait_event(self, kind=None, world=None, timeout=None):
        """The next Event (protobuf) of a kind ('diverged', 'demoted', 'destroyed', 'closing',
        'time_mode'; None: any) and world (World or id; None: any), waiting up to `timeout` s; None if none
        came."""
        world_id = getattr(world, "id", world)

        def match(event):
            return ((kind is None or event.WhichOneof("event") == kind)
                    and (world_id is None or event.world_id == world_id))

        return self._conn.wait_event(match, timeout)

    def request(self, command, message, timeout=None):
        """Send any command by its ClientMessage field name with its protobuf message; returns the
        Reply. For what the classes here do not wrap."""
        return self._conn.request(command, message, timeout)


def connect(host=DEFAULT_HOST, port=DEFAULT_PORT, token=None, name="python", role="controller", timeout=30.0):
    """Connect and shake hands. `token` if the server requires one; `role` 'controller' (default: may
    create and control worlds) or 'observer' (read-only); `timeout` s for each reply (None: wait
    forever). Raises SinewError (ERR_UNAUTHORISED, ERR_WRONG_VERSION) if the server refuses."""
    return Client(host, port, token=token, name=name, role=role, timeout=timeout)
