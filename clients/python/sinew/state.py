"""World state as it comes from the server (a StateFrame: a GetState reply or a subscription's frame),
and subscriptions.

Units are SI: m, rad, m/s, rad/s, N, N*m. Poses are (position (x, y, z), rotation (x, y, z, w)).
Lists are plain Python lists; the `*_array` properties give numpy arrays (numpy is imported only then).
"""

import collections
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Tuple, Union

from ._pb import pb
from .errors import ConnectionClosed

if TYPE_CHECKING:  # for the annotations only (world.py imports this module)
    from .articulation import Articulation
    from .world import World

Vec3 = Tuple[float, float, float]
Quat = Tuple[float, float, float, float]

# Include bits of a state frame (proto Include). 0 means POSES | JOINT_POSITIONS.
POSES = pb.INCLUDE_POSES
VELOCITIES = pb.INCLUDE_VELOCITIES
JOINT_POSITIONS = pb.INCLUDE_JOINT_POSITIONS
JOINT_FORCES = pb.INCLUDE_JOINT_FORCES
DRIVE_EFFORTS = pb.INCLUDE_DRIVE_EFFORTS
DRIVE_TARGETS = pb.INCLUDE_DRIVE_TARGETS
CONTACTS = pb.INCLUDE_CONTACTS
CONTACT_EVENTS = pb.INCLUDE_CONTACT_EVENTS  # subscriptions only: begin/end events between frames
EVERYTHING = POSES | VELOCITIES | JOINT_POSITIONS | JOINT_FORCES | DRIVE_EFFORTS | DRIVE_TARGETS | CONTACTS


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ImportError("sinew: arrays need numpy (Debian: apt-get install python3-numpy); "
                          "the list properties work without it") from None
    return numpy


def vec3(v: Any) -> Vec3:
    return (v.x, v.y, v.z)


def quat(q: Any, present: bool = True) -> Quat:
    # An absent rotation is the identity (proto/README.md).
    return (q.x, q.y, q.z, q.w) if present else (0.0, 0.0, 0.0, 1.0)


def pose(t: Any) -> Tuple[Vec3, Quat]:
    return (vec3(t.position), quat(t.rotation, t.HasField("rotation")))


class BodyState:
    """One body: `position` (m), `rotation` (x, y, z, w), `linear_velocity` (m/s, centre of mass),
    `angular_velocity` (rad/s)."""

    __slots__ = ("id", "position", "rotation", "linear_velocity", "angular_velocity")

    def __init__(self, b: Any):
        self.id: int = b.id
        self.position: Vec3 = vec3(b.position)
        self.rotation: Quat = quat(b.rotation, b.HasField("rotation"))
        self.linear_velocity: Vec3 = vec3(b.linear_velocity)
        self.angular_velocity: Vec3 = vec3(b.angular_velocity)


class JointState:
    """One maximal-coordinate joint: coordinates of its moving axes (`position`, m or rad; `velocity`),
    the reaction `force` (N) and `torque` (N*m) on body B in the last step, and `broken`."""

    __slots__ = ("id", "position", "velocity", "force", "torque", "broken")

    def __init__(self, j: Any):
        self.id: int = j.id
        self.position: List[float] = list(j.position)
        self.velocity: List[float] = list(j.velocity)
        self.force: Vec3 = vec3(j.force)
        self.torque: Vec3 = vec3(j.torque)
        self.broken: bool = j.broken


class ArticulationState:
    """One articulation, per dof in the articulation's dof order: `positions` (m or rad), `velocities`
    (m/s or rad/s), `efforts` (drive force, N or N*m), `targets` (drive target positions, 0 where no
    drive is enabled); `link_poses` per link in the world frame. Each list is empty when the frame did
    not include it."""

    __slots__ = ("id", "positions", "velocities", "efforts", "targets", "link_poses")

    def __init__(self, a: Any):
        self.id: int = a.id
        self.positions: List[float] = list(a.position)
        self.velocities: List[float] = list(a.velocity)
        self.efforts: List[float] = list(a.effort)
        self.targets: List[float] = list(a.target_position)
        self.link_poses: List[Tuple[Vec3, Quat]] = [pose(t) for t in a.link_poses]

    @property
    def positions_array(self) -> Any:
        return _numpy().array(self.positions, dtype=float)

    @property
    def velocities_array(self) -> Any:
        return _numpy().array(self.velocities, dtype=float)

    @property
    def efforts_array(self) -> Any:
        return _numpy().array(self.efforts, dtype=float)


class ContactSide:
    """One side of a contact: `shape` (id), and what it is on: `body` (id), or `articulation` (id) and
    `link` (index); all None for the world's own shapes."""

    __slots__ = ("shape", "body", "articulation", "link")

    def __init__(self, side: Any):
        self.shape = side.shape_id
        self.body = side.body_id or None
        self.articulation = side.articulation_id or None
        self.link = side.link if side.articulation_id else None

    def __repr__(self) -> str:
        on = ("body %d" % self.body if self.body else "link %d of articulation %d" % (self.link, self.articulation)
              if self.articulation else "the world")
        return "ContactSide(shape=%d on %s)" % (self.shape, on)


class ContactPoint:
    """`position` (world, m), `separation` (m, negative when overlapping), `normal_force` and
    `friction_force` (N, magnitudes over the last step), and `force` (N, world): the whole force on side B
    at this point, normal plus friction (side A takes its opposite)."""

    __slots__ = ("position", "separation", "normal_force", "friction_force", "force")

    def __init__(self, p: Any):
        self.position = vec3(p.position)
        self.separation = p.separation
        self.normal_force = p.normal_force
        self.friction_force = p.friction_force
        self.force = vec3(p.force)


class Contact:
    """What two shapes touch with (a manifold): sides `a` and `b`, the unit `normal` from A to B (world),
    `touching`, and 1 to 4 `points`."""

    __slots__ = ("a", "b", "normal", "touching", "points")

    def __init__(self, c: Any):
        self.a = ContactSide(c.a)
        self.b = ContactSide(c.b)
        self.normal = vec3(c.normal)
        self.touching = c.touching
        self.points = [ContactPoint(p) for p in c.points]

    def __repr__(self) -> str:
        return "Contact(%r, %r, normal=%r, points=%d)" % (self.a, self.b, self.normal, len(self.points))


CONTACT_KINDS = {pb.CONTACT_BEGIN: "begin", pb.CONTACT_END: "end", pb.SENSOR_BEGIN: "sensor_begin",
                 pb.SENSOR_END: "sensor_end"}


class ContactChange:
    """A contact event: `kind` ('begin', 'end', 'sensor_begin', 'sensor_end'; a sensor is side `a`),
    `tick` (the step count after the step it happened in), sides `a` and `b`."""

    __slots__ = ("kind", "tick", "a", "b")

    def __init__(self, c: Any):
        self.kind = CONTACT_KINDS.get(c.kind, "unknown")
        self.tick = c.tick
        self.a = ContactSide(c.a)
        self.b = ContactSide(c.b)

    def __repr__(self) -> str:
        return "ContactChange(%s, tick=%d, %r, %r)" % (self.kind, self.tick, self.a, self.b)


class State:
    """A world's state at one tick: `tick` (step count), `time` (s), `diverged`, `dropped` (frames of this
    subscription replaced by newer ones before they were sent), `server_clock_ns`; `bodies`, `joints`
    and `articulations` are lists in the server's order (``for a in state.articulations: a.positions``),
    and body(id), joint(id) and articulation(Articulation or id) find one; `frame` is the protobuf
    StateFrame. What a list holds depends on what the frame included (sinew.state's bits)."""

    def __init__(self, frame: Any):
        self.frame = frame
        self.world_id: int = frame.world_id
        self.subscription_id: int = frame.subscription_id
        self.tick: int = frame.tick
        self.time: float = frame.time
        self.diverged: bool = frame.diverged
        self.dropped: int = frame.dropped
        self.server_clock_ns: int = frame.server_clock_ns
        self._bodies = None
        self._joints = None
        self._articulations = None
        self._contacts = None
        #: Manifolds the server left out of this frame (max_contacts_per_frame).
        self.contacts_dropped: int = frame.contacts_dropped

    @property
    def contacts(self) -> List[Contact]:
        """The contacts of the last step (a frame including CONTACTS): manifolds that touch or carry a
        force."""
        if self._contacts is None:
            self._contacts = [Contact(c) for c in self.frame.contacts]
        return self._contacts

    @property
    def bodies(self) -> List[BodyState]:
        if self._bodies is None:
            self._bodies = [BodyState(b) for b in self.frame.bodies]
        return self._bodies

    @property
    def joints(self) -> List[JointState]:
        if self._joints is None:
            self._joints = [JointState(j) for j in self.frame.joints]
        return self._joints

    @property
    def articulations(self) -> List[ArticulationState]:
        if self._articulations is None:
            self._articulations = [ArticulationState(a) for a in self.frame.articulations]
        return self._articulations

    @staticmethod
    def _find(items, key, what):
        for item in items:
            if item.id == key:
                return item
        raise KeyError("%s %d is not in this state (ids: %s)" % (what, key, ", ".join(str(i.id) for i in items)
                                                                 or "none"))

    def body(self, body_id: int) -> BodyState:
        """The BodyState of a body id; KeyError if the frame lacks it."""
        return self._find(self.bodies, body_id, "body")

    def joint(self, joint_id: int) -> JointState:
        """The JointState of a maximal joint id; KeyError if the frame lacks it."""
        return self._find(self.joints, joint_id, "joint")

    def articulation(self, articulation: Union["Articulation", int]) -> ArticulationState:
        """The ArticulationState of an Articulation (or id); KeyError if the frame lacks it."""
        return self._find(self.articulations, getattr(articulation, "id", articulation), "articulation")

    def __repr__(self) -> str:
        return "State(world=%d, tick=%d, time=%.6f, bodies=%d, joints=%d, articulations=%d)" % (
            self.world_id, self.tick, self.time, len(self.frame.bodies), len(self.frame.joints),
            len(self.frame.articulations))


class Subscription:
    """A stream of a world's state at `rate_hz`. Iterate it (`for state in sub:`), take frames with
    get() or latest(), or give a callback to World.subscribe. At most `queue_size` frames wait here;
    beyond that the oldest are dropped (counted in `dropped_here`; the server's own replacements are in
    each State's `dropped`). close() (or leaving a `with` block) unsubscribes."""

    def __init__(self, world: "World", sub_id: int, rate_hz: float, include: int, queue_size: int,
                 callback: Optional[Callable[[State], Any]]):
        self.world = world
        self.id: int = sub_id
        self.rate_hz: float = rate_hz
        self.include: int = include
        self.dropped_here: int = 0
        self.callback_error: Optional[BaseException] = None
        #: Contact events that the server left out (its max_contact_events_per_frame, or overwritten).
        self.contact_events_dropped = 0
        self._changes = collections.deque(maxlen=4096)
        self._frames = collections.deque()
        self._queue_size = max(1, int(queue_size))
        self._cond = threading.Condition()
        self._closed = None
        self._unsubscribed = False
        self._thread = None
        if callback is not None:
            self._thread = threading.Thread(target=self._run_callback, args=(callback,),
                                            name="sinew-subscription-%d" % sub_id, daemon=True)

    def start(self) -> None:
        """Start the callback thread (World.subscribe does)."""
        if self._thread is not None:
            self._thread.start()

    def deliver(self, frame: Any) -> None:
        """A frame arrived (the connection's reader thread calls this)."""
        with self._cond:
            if len(self._frames) >= self._queue_size:
                self._frames.popleft()
                self.dropped_here += 1
            self._frames.append(frame)
            self._cond.notify_all()

    def deliver_events(self, events: Any) -> None:
        """Contact events of this subscription arrived (the reader thread calls this)."""
        with self._cond:
            self.contact_events_dropped += events.dropped
            self._changes.extend(ContactChange(c) for c in events.changes)
            self._cond.notify_all()

    def contact_changes(self) -> List[ContactChange]:
        """The contact events received since the last call (subscriptions including CONTACT_EVENTS), in
        step order; at most the last 4096 are kept here."""
        with self._cond:
            out = list(self._changes)
            self._changes.clear()
            return out

    def end(self, reason: BaseException) -> None:
        """No more frames will come (the connection ended, or close()); `reason` is what get() raises."""
        with self._cond:
            if self._closed is None:
                self._closed = reason
            self._cond.notify_all()

    def get(self, timeout: Optional[float] = None) -> State:
        """The oldest waiting State, waiting up to `timeout` s (None: forever). Raises TimeoutError if
        none came, ConnectionClosed once the subscription or connection is closed and nothing waits."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._frames:
                if self._closed is not None:
                    raise self._closed
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError("sinew: no state frame within %.3g s" % timeout)
                self._cond.wait(remaining)
            return State(self._frames.popleft())

    def latest(self) -> Optional[State]:
        """The newest waiting State (older waiting ones are discarded), or None if none waits."""
        with self._cond:
            if not self._frames:
                return None
            frame = self._frames.pop()
            self._frames.clear()
            return State(frame)

    def __iter__(self) -> Iterator[State]:
        while True:
            try:
                yield self.get()
            except ConnectionClosed:
                return

    def _run_callback(self, callback):
        for state in self:
            try:
                callback(state)
            except Exception as exc:  # kept for close() to raise; the stream stops
                self.callback_error = exc
                self.end(ConnectionClosed(pb.ERR_OK, "callback raised %r" % exc))
                return

    def close(self) -> None:
        """Unsubscribe (if the connection is still open) and stop the callback thread. Raises the
        callback's exception, if it raised one."""
        conn = self.world.client.connection
        self.end(ConnectionClosed(pb.ERR_OK, "unsubscribed"))
        conn.forget_subscription(self.id)
        if not self._unsubscribed and conn.closed is None:
            self._unsubscribed = True
            msg = pb.Unsubscribe(subscription_id=self.id)
            try:
                conn.request("unsubscribe", msg)
            except ConnectionClosed:
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5.0)
        if self.callback_error is not None:
            error, self.callback_error = self.callback_error, None
            raise error

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
