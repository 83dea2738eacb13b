"""Articulations (trees of links in joint coordinates, core/include/sinew/articulation.h) described from
Python, and the handle that sets their drive targets and reads their joints by name.

Dofs are numbered in link order: link i's inbound joint owns dofs [first, first + count) where count is
0 (fixed), 1 (revolute: rad; prismatic: m) or 3 (spherical: rotation vector, rad); link 0 has none.
A joint is named by its link's `joint_name` (the link's name when not given).
"""

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._pb import pb

if TYPE_CHECKING:  # for the annotations only (world.py and state.py import this module)
    from .state import State
    from .world import World

Vec3 = Tuple[float, float, float]
Quat = Tuple[float, float, float, float]  # x, y, z, w

_JOINT_TYPES = {
    "fixed": (pb.LINK_FIXED, 0),
    "revolute": (pb.LINK_REVOLUTE, 1),
    "prismatic": (pb.LINK_PRISMATIC, 1),
    "spherical": (pb.LINK_SPHERICAL, 3),
}


def quat_from_axis_angle(axis: Sequence[float], angle: float) -> Quat:
    """Unit quaternion (x, y, z, w) of a rotation by `angle` (rad) about `axis` (need not be unit)."""
    n = math.sqrt(sum(a * a for a in axis))
    if n == 0.0:
        raise ValueError("quat_from_axis_angle: zero axis")
    s = math.sin(0.5 * angle) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(0.5 * angle))


@dataclass
class Pose:
    """A rigid transform: `position` (m) and `rotation` (x, y, z, w)."""

    position: Vec3 = (0.0, 0.0, 0.0)
    rotation: Quat = (0.0, 0.0, 0.0, 1.0)


#: A Pose, or (position, rotation) as sequences.
PoseLike = Union[Pose, Tuple[Sequence[float], Sequence[float]]]
#: Values per joint: {joint name or dof: value (a sequence for a spherical joint)}, or one per dof.
DofValues = Union[Mapping[Union[str, int], Union[float, Sequence[float]]], Sequence[float]]


def fill_transform(msg: Any, pose: Optional[PoseLike]) -> None:
    """Write a Pose (or (position, rotation)) into a protobuf Transform; None leaves it absent."""
    if pose is None:
        return
    if not isinstance(pose, Pose):
        pose = Pose(*pose)
    msg.position.x, msg.position.y, msg.position.z = pose.position
    r = msg.rotation
    r.x, r.y, r.z, r.w = pose.rotation


@dataclass
class Drive:
    """An implicit PD drive on a dof: F = stiffness (target - q) + damping (target_velocity - qdot), at
    most max_force (None: unbounded). type "force" (N/m or N*m/rad, N*s/m or N*m*s/rad) or
    "acceleration" (1/s^2, 1/s: scaled by the dof's response)."""

    stiffness: float = 0.0
    damping: float = 0.0
    target: float = 0.0
    target_velocity: float = 0.0
    max_force: Optional[float] = None
    type: str = "force"

    def to_proto(self) -> "pb.Drive":
        """The protobuf Drive. max_force None is sent absent: unbounded, or in load_urdf the joint's URDF
        effort."""
        d = pb.Drive(enabled=True, stiffness=self.stiffness, damping=self.damping,
                     target_position=self.target, target_velocity=self.target_velocity)
        if self.type == "acceleration":
            d.type = pb.DRIVE_ACCELERATION
        elif self.type != "force":
            raise ValueError("Drive.type must be 'force' or 'acceleration', not %r" % self.type)
        if self.max_force is not None:
            d.max_force = self.max_force
        return d


@dataclass
class Link:
    """One link and its inbound joint (see sn_link_def). `parent` is a link index or name (None for
    link 0). The joint frame is `parent_frame` in the parent and `child_frame` in this link; its x axis
    is the joint axis. `limit` is (lower, upper) per dof (one pair, or a list of pairs for a spherical
    joint); `drive` a Drive (or a list per dof); `initial` the initial position(s). Mass in kg, inertia
    (xx, yy, zz[, xy, xz, yz]) in kg*m^2 about the centre of mass `center_of_mass` (m, link frame);
    None takes the core's defaults."""

    name: str
    parent: Union[int, str, None] = None
    joint: str = "fixed"
    joint_name: Optional[str] = None
    parent_frame: Union[Pose, Tuple, None] = None
    child_frame: Union[Pose, Tuple, None] = None
    mass: Optional[float] = None
    inertia: Optional[Sequence[float]] = None
    center_of_mass: Optional[Vec3] = None
    limit: Union[Tuple[float, float], Sequence[Tuple[float, float]], None] = None
    drive: Union[Drive, Sequence[Drive], None] = None
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    initial: Union[float, Sequence[float], None] = None
    user_data: int = 0
    extra: dict = field(default_factory=dict)


def _numpy_array(values):
    from .state import _numpy
    return _numpy().array(values, dtype=float)


def _per_dof(value, dofs):
    if value is None:
        return []
    if isinstance(value, (Drive, int, float)) or (isinstance(value, tuple) and len(value) == 2
                                                  and all(isinstance(v, (int, float)) for v in value)):
        return [value] * dofs if dofs > 0 else []
    return list(value)


def build_links(links: Sequence[Link]) -> Tuple[List[Any], List[Tuple[str, int, int, int]],
                                                Dict[int, Tuple[float, float]]]:
    """(LinkDef messages, joints, limits) for a list of Link: joints is a list of (name, link index, first
    dof, dof count) for the joints that have dofs, in dof order; limits {dof: (lower, upper)}."""
    index_of = {}
    defs = []
    joints = []
    limits = {}
    dof = 0
    for i, link in enumerate(links):
        if link.name in index_of:
            raise ValueError("two links named %r" % link.name)
        index_of[link.name] = i
        if link.joint not in _JOINT_TYPES:
            raise ValueError("link %r: joint must be one of %s" % (link.name, ", ".join(_JOINT_TYPES)))
        joint_type, count = _JOINT_TYPES[link.joint]
        if i == 0:
            parent = -1 if link.parent is None else link.parent
        elif isinstance(link.parent, str):
            if link.parent not in index_of:
                raise ValueError("link %r: parent %r is not an earlier link" % (link.name, link.parent))
            parent = index_of[link.parent]
        else:
            parent = 0 if link.parent is None else int(link.parent)
        d = pb.LinkDef(parent=parent, joint_type=joint_type, joint_damping=link.damping,
                       joint_friction=link.friction, armature=link.armature, user_data=link.user_data)
        fill_transform(d.parent_frame, link.parent_frame)
        fill_transform(d.child_frame, link.child_frame)
        if link.mass is not None:
            d.mass = link.mass
        if link.inertia is not None:
            values = list(link.inertia) + [0.0] * (6 - len(link.inertia))
            d.inertia.xx, d.inertia.yy, d.inertia.zz, d.inertia.xy, d.inertia.xz, d.inertia.yz = values[:6]
        if link.center_of_mass is not None:
            d.center_of_mass.x, d.center_of_mass.y, d.center_of_mass.z = link.center_of_mass
        for k, (lower, upper) in enumerate(_per_dof(link.limit, count)):
            d.limits.add(enabled=True, lower=lower, upper=upper)
            limits[dof + k] = (lower, upper)
        for drive in _per_dof(link.drive, count):
            d.drives.append(drive.to_proto())
        d.initial_position.extend(float(q) for q in _per_dof(link.initial, count))
        for key, value in link.extra.items():
            setattr(d, key, value)
        defs.append(d)
        if count > 0:
            joints.append((link.joint_name or link.name, i, dof, count))
            dof += count
    return defs, joints, limits


def compose(a: Pose, b: Pose) -> Pose:
    """The pose b expressed in a's parent frame: a * b."""
    p = _rotate(a.rotation, b.position)
    return Pose((a.position[0] + p[0], a.position[1] + p[1], a.position[2] + p[2]), _multiply(a.rotation, b.rotation))


def _rotate(q, v):
    """v rotated by the unit quaternion q = (x, y, z, w)."""
    x, y, z, w = q
    tx, ty, tz = 2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


def _multiply(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


class Articulation:
    """A live articulation in a world. `id`, `dof_count`; `joints` lists the names of the joints with
    dofs in dof order (URDF names for a robot loaded from a URDF; "link<i>" after the link a joint moves
    for one described by the server without a URDF); `links` the link names; `limits` {joint name:
    (lower, upper)} in m or rad for the joints that have limits. For one loaded from a URDF, `robot` its
    name, `mimics` {follower joint: (leader joint, multiplier, offset)} (URDF: q_follower = multiplier
    q_leader + offset) and `urdf` the server's UrdfModel. Joints are addressed by name or by dof index.

    Drive targets outside a joint's limits are refused (ValueError, nothing is sent): a drive cannot
    take a joint past its limit, and a target there only makes the drive push against the limit."""

    def __init__(self, world: "World", articulation_id: int, dof_count: int,
                 joints: Sequence[Tuple[str, int, int, int]] = (), links: Sequence[str] = (), urdf: Any = None,
                 limits: Optional[Dict[int, Tuple[float, float]]] = None):
        self.world = world
        self.id: int = articulation_id
        self.dof_count: int = dof_count
        self._dofs: Dict[str, Tuple[int, int]] = {}
        self.joints: List[str] = []
        for name, _link, first, count in joints:
            self._dofs[name] = (first, count)
            self.joints.append(name)
        self.links: List[str] = list(links)
        self.urdf = urdf
        self.info = None
        self.robot: str = urdf.robot_name if urdf is not None else ""
        #: What the importer ignored, merged, substituted or repaired (a URDF robot's warnings).
        self.warnings: List[str] = list(urdf.warnings) if urdf is not None else []
        self.mimics: Dict[str, Tuple[str, float, float]] = {}
        # Where each named link is: (articulation link index, offset Pose in that link) (URDF links
        # merged into their parent by the importer have an offset).
        self._link_frames: Dict[str, Tuple[int, Pose]] = {name: (i, Pose()) for i, name in enumerate(self.links)
                                                          if name}
        self._limits: Dict[int, Tuple[float, float]] = dict(limits or {})
        if urdf is not None:
            for j in urdf.joints:
                if j.mimic_of:
                    self.mimics[j.name] = (j.mimic_of, j.multiplier, j.offset)
                if j.dof >= 0 and j.type in ("revolute", "prismatic") and j.lower <= j.upper:
                    self._limits[j.dof] = (j.lower, j.upper)
            for link in urdf.links:
                o = link.offset
                rotation = (o.rotation.x, o.rotation.y, o.rotation.z, o.rotation.w) if o.HasField("rotation") \
                    else (0.0, 0.0, 0.0, 1.0)
                self._link_frames[link.name] = (link.link, Pose((o.position.x, o.position.y, o.position.z),
                                                                rotation))

    @classmethod
    def from_urdf_model(cls, world: "World", model: Any) -> "Articulation":
        """The handle of an articulation from a UrdfModel (LoadUrdf's reply or DescribeWorld): its joints
        with a dof are named as in the URDF, in dof order; its links after the URDF links in them."""
        joints = sorted(((j.name, j.link, j.dof, 1) for j in model.joints if j.dof >= 0), key=lambda j: j[2])
        links = [""] * model.link_count
        for link in model.links:
            if 0 <= link.link < len(links) and not links[link.link]:
                links[link.link] = link.name
        return cls(world, model.articulation_id, model.dof_count, joints, links, urdf=model)

    def set_info(self, info: Any) -> None:
        """Keep the server's ArticulationInfo (DescribeWorld): its links' limits join `limits`."""
        self.info = info
        for link in info.links:
            for k, limit in enumerate(link.limits):
                if limit.enabled and k < link.dof_count:
                    self._limits[link.first_dof + k] = (limit.lower, limit.upper)

    @property
    def limits(self) -> Dict[str, Tuple[float, float]]:
        return {name: self._limits[first] for name, (first, count) in self._dofs.items()
                if count == 1 and first in self._limits}

    def __repr__(self) -> str:
        return "Articulation(id=%d, dofs=%d, joints=%r)" % (self.id, self.dof_count, self.joints)

    def dof(self, joint: Union[str, int]) -> int:
        """First dof index of a joint (by name, or a dof index passed through)."""
        if isinstance(joint, int):
            if not 0 <= joint < self.dof_count:
                raise IndexError("dof %d is not in [0, %d)" % (joint, self.dof_count))
            return joint
        try:
            return self._dofs[joint][0]
        except KeyError:
            raise KeyError("articulation %d has no joint named %r (joints: %s)"
                           % (self.id, joint, ", ".join(self.joints) or "none named")) from None

    def _dof_values(self, values):
        """(dofs, values) from a dict {name or dof: value or sequence} or a full sequence."""
        if isinstance(values, dict):
            dofs, out = [], []
            for joint, value in values.items():
                first = self.dof(joint)
                count = self._dofs[joint][1] if isinstance(joint, str) else 1
                seq = list(value) if isinstance(value, (list, tuple)) else [value]
                if len(seq) != count:
                    raise ValueError("joint %r has %d dofs, got %d values" % (joint, count, len(seq)))
                dofs.extend(range(first, first + count))
                out.extend(float(v) for v in seq)
            return dofs, out
        seq = [float(v) for v in values]
        if len(seq) != self.dof_count:
            raise ValueError("expected %d values (one per dof), got %d" % (self.dof_count, len(seq)))
        return list(range(self.dof_count)), seq

    def _dof_name(self, dof: int) -> str:
        for name, (first, count) in self._dofs.items():
            if first <= dof < first + count:
                return name
        return "dof %d" % dof

    def targets_message(self, positions: DofValues, velocities: Optional[DofValues] = None) -> "pb.ArticulationTargets":
        """The ArticulationTargets for set_targets (also what a lockstep input carries). Raises
        ValueError for a target outside its joint's limits."""
        dofs, pos = self._dof_values(positions)
        for dof, value in zip(dofs, pos):
            lower, upper = self._limits.get(dof, (-math.inf, math.inf))
            if not lower <= value <= upper and math.isfinite(value):
                raise ValueError("%s: target %g is outside its limits [%g, %g] (m or rad); nothing was sent"
                                 % (self._dof_name(dof), value, lower, upper))
        msg = pb.ArticulationTargets(articulation_id=self.id, dofs=dofs, positions=pos)
        if velocities is not None:
            vdofs, vel = self._dof_values(velocities)
            if vdofs != dofs:
                raise ValueError("velocities must name the same joints, in the same order, as positions")
            msg.velocities.extend(vel)
        return msg

    def set_targets(self, positions: DofValues, velocities: Optional[DofValues] = None) -> None:
        """Set drive targets: `positions` a dict {joint name or dof: target (m or rad)} or a sequence of
        dof_count targets; `velocities` likewise (m/s or rad/s) or None to keep them. All or nothing:
        on any error the server changes none. A target outside its joint's limits (`limits`) raises
        ValueError before anything is sent."""
        msg = pb.SetDriveTargets(world_id=self.world.id)
        msg.articulation.CopyFrom(self.targets_message(positions, velocities))
        self.world.client.request("set_drive_targets", msg)

    def set_state(self, positions: Optional[Sequence[float]] = None,
                  velocities: Optional[Sequence[float]] = None) -> None:
        """Set every dof's position and/or velocity (sequences of dof_count; None keeps them)."""
        msg = pb.SetJointState(world_id=self.world.id, articulation_id=self.id)
        if positions is not None:
            msg.positions.extend(float(v) for v in positions)
        if velocities is not None:
            msg.velocities.extend(float(v) for v in velocities)
        self.world.client.request("set_joint_state", msg)

    def apply_joint_forces(self, forces: Mapping[Union[str, int], float]) -> None:
        """Generalised forces (N or N*m) for the next step: {joint name or dof: force}."""
        msg = pb.ApplyForces(world_id=self.world.id)
        for joint, force in forces.items():
            msg.dofs.add(articulation_id=self.id, dof=self.dof(joint), force=float(force))
        self.world.client.request("apply_forces", msg)

    def destroy(self) -> None:
        """Destroy the articulation (owner only)."""
        self.world.client.request(
            "destroy_articulation", pb.DestroyArticulation(world_id=self.world.id, articulation_id=self.id))

    # ---- reading ---------------------------------------------------------------------------------------

    def _state(self, state, include):
        if state is None:
            state = self.world.state(include)
        return state.articulation(self)

    def positions(self, state: Optional["State"] = None, array: bool = False) -> Any:
        """Joint positions of every dof (m or rad) from `state` (None: a fresh GetState); a list, or a
        numpy array with array=True."""
        s = self._state(state, pb.INCLUDE_JOINT_POSITIONS)
        return s.positions_array if array else s.positions

    def velocities(self, state: Optional["State"] = None, array: bool = False) -> Any:
        """Joint velocities of every dof (m/s or rad/s); the state must include VELOCITIES."""
        s = self._state(state, pb.INCLUDE_VELOCITIES)
        return s.velocities_array if array else s.velocities

    def efforts(self, state: Optional["State"] = None, array: bool = False) -> Any:
        """Drive efforts of every dof (N or N*m); the state must include DRIVE_EFFORTS."""
        s = self._state(state, pb.INCLUDE_DRIVE_EFFORTS)
        return s.efforts_array if array else s.efforts

    def targets(self, state: Optional["State"] = None, array: bool = False) -> Any:
        """Drive target positions of every dof (m or rad; 0 where no drive is enabled); the state must
        include DRIVE_TARGETS."""
        s = self._state(state, pb.INCLUDE_DRIVE_TARGETS)
        return _numpy_array(s.targets) if array else s.targets

    def joint_positions(self, state: Optional["State"] = None) -> Dict[str, Union[float, List[float]]]:
        """{joint name: position} (a list for a spherical joint)."""
        q = self.positions(state)
        out = {}
        for name in self.joints:
            first, count = self._dofs[name]
            out[name] = q[first] if count == 1 else q[first:first + count]
        return out

    def position(self, joint: Union[str, int], state: Optional["State"] = None) -> float:
        """One joint's position (m or rad)."""
        return self.positions(state)[self.dof(joint)]

    def link_pose(self, link: str, state: Optional["State"] = None) -> Pose:
        """Where a link is in the world: its Pose (position m, rotation (x, y, z, w)) by its URDF link
        name (or its Link name), from `state` (a State including POSES; None: a fresh GetState). A URDF
        link the importer merged into its parent is placed at its own frame."""
        try:
            index, offset = self._link_frames[link]
        except KeyError:
            raise KeyError("articulation %d has no link named %r (links: %s)"
                           % (self.id, link, ", ".join(self._link_frames) or "none named")) from None
        if state is None:
            state = self.world.state(pb.INCLUDE_POSES)
        poses = state.articulation(self).link_poses
        if not 0 <= index < len(poses):
            raise KeyError("link %r has no pose in this state (it must include POSES; a world link has none)"
                           % link)
        position, rotation = poses[index]
        p = _rotate(rotation, offset.position)
        return Pose((position[0] + p[0], position[1] + p[1], position[2] + p[2]),
                    _multiply(rotation, offset.rotation))

    def link_frame(self, link: str) -> Tuple[int, Pose]:
        """(articulation link index, offset Pose of the named link's frame in that link) of a URDF link
        (or Link) name: links the importer merged into their parent sit at an offset in it."""
        try:
            return self._link_frames[link]
        except KeyError:
            raise KeyError("articulation %d has no link named %r (links: %s)"
                           % (self.id, link, ", ".join(self._link_frames) or "none named")) from None

    def link_poses(self, state: Optional["State"] = None) -> Dict[str, Pose]:
        """{link name: Pose} of every named link (see link_pose)."""
        if state is None:
            state = self.world.state(pb.INCLUDE_POSES)
        return {name: self.link_pose(name, state) for name, (index, _) in self._link_frames.items() if index >= 0}
