"""A world on the server, seen through one client: stepping, time modes, state, subscriptions,
articulations, snapshots, and lockstep control."""

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._pb import pb
from .articulation import Articulation, Drive, Link, Pose, PoseLike, build_links, compose, fill_transform
from .assets import read_model_files, sha256
from .errors import NotFound
from .joints import joint_message
from .shapes import BodyId, Geometry, Shape, ShapeInfo, shape_message
from .state import State, Subscription

if TYPE_CHECKING:  # for the annotations only (client.py imports this module)
    from .client import Client

TIME_MODES = {
    "paused": pb.TIME_PAUSED,
    "realtime": pb.TIME_REALTIME,
    "fast": pb.TIME_FAST,
    "lockstep": pb.TIME_LOCKSTEP,
}
SOLVERS = {
    None: pb.SOLVER_DEFAULT,
    "default": pb.SOLVER_DEFAULT,
    "pgs": pb.SOLVER_PGS,
    "tgs": pb.SOLVER_TGS,
    "xpbd": pb.SOLVER_XPBD,
    "direct": pb.SOLVER_DIRECT,
}
ROLES = {
    "observer": pb.ROLE_OBSERVER,
    "controller": pb.ROLE_CONTROLLER,
    "owner": pb.ROLE_OWNER,
}


def role_name(role: int) -> str:
    return {v: k for k, v in ROLES.items()}.get(role, "none")


def mode_name(mode: int) -> str:
    return {v: k for k, v in TIME_MODES.items()}.get(mode, "unknown")


def _enum(table, value, what):
    if isinstance(value, int):
        return value
    try:
        return table[value]
    except KeyError:
        raise ValueError("%s must be one of %s, not %r"
                         % (what, ", ".join(k for k in table if k), value)) from None


def settings_message(dt: Optional[float] = None, solver: Optional[str] = None,
                     gravity: Optional[Sequence[float]] = None, position_iterations: Optional[int] = None,
                     velocity_iterations: Optional[int] = None, substeps: Optional[int] = None,
                     erp: Optional[float] = None, divergence_speed: Optional[float] = None,
                     warm_start: Optional[float] = None) -> "pb.WorldSettings":
    """WorldSettings: dt (s), solver ('pgs', 'tgs', 'xpbd', 'direct'), gravity (m/s^2), iterations,
    substeps, erp, divergence_speed (m/s or rad/s), warm_start. None leaves a field absent (the core's
    default at creation, unchanged when configuring)."""
    s = pb.WorldSettings(solver=_enum(SOLVERS, solver, "solver"))
    if gravity is not None:
        s.gravity.x, s.gravity.y, s.gravity.z = gravity
    for name, value in (("time_step", dt), ("position_iterations", position_iterations),
                        ("velocity_iterations", velocity_iterations), ("substeps", substeps), ("erp", erp),
                        ("divergence_speed", divergence_speed), ("warm_start", warm_start)):
        if value is not None:
            setattr(s, name, value)
    return s


def time_message(mode: Union[str, int], rate: Optional[float] = None,
                 lockstep_timeout_ms: Optional[int] = None) -> "pb.TimeSettings":
    t = pb.TimeSettings(mode=_enum(TIME_MODES, mode, "mode"))
    if rate is not None:
        t.rate = rate
    if lockstep_timeout_ms is not None:
        t.lockstep_timeout_ms = lockstep_timeout_ms
    return t


@dataclass
class StepResult:
    """Where a world stands after a step: `step_count` (its tick), `time` (s), `diverged`."""

    step_count: int
    time: float
    diverged: bool


@dataclass
class WorldInfo:
    """A world as the server lists it. `role` is the asking session's role in it ('owner',
    'controller', 'observer' or 'none'); `mode` the time mode's name; `time` in s; `dt` its time step,
    s; `link_count` the links of its articulations; `destroy_protected` for the demo world, which the
    server refuses to destroy (unless started with --allow-demo-destroy); `controller_key` when
    controlling the world needs the key its owner set (World.set_controller_key)."""

    id: int
    name: str
    owner_session: int
    mode: str
    rate: float
    time: float
    step_count: int
    body_count: int
    joint_count: int
    articulation_count: int
    diverged: bool
    role: str
    dt: float
    lag_s: float
    lag_resets: int
    link_count: int = 0
    destroy_protected: bool = False
    controller_key: bool = False

    @classmethod
    def from_proto(cls, w: Any) -> "WorldInfo":
        return cls(w.world_id, w.name, w.owner_session, mode_name(w.mode), w.rate, w.time, w.step_count,
                   w.body_count, w.joint_count, w.articulation_count, w.diverged, role_name(w.your_role),
                   w.settings.time_step, w.lag_s, w.lag_resets, w.link_count, w.destroy_protected,
                   w.controller_key)


def _step(reply):
    return StepResult(reply.step.step_count, reply.step.time, reply.step.diverged)


class World:
    """A world this client created or opened. `id`, `name`, `role` (this session's role in it)."""

    def __init__(self, client: "Client", world_id: int, name: str, role: str):
        self.client = client
        self.id: int = world_id
        self.name: str = name
        self.role: str = role
        #: The controller key this client joined with (Client.open_world), given again by lockstep().
        self.controller_key: str = ""
        #: The Articulation handles this client knows in this world, by id.
        self.articulations: Dict[int, Articulation] = {}

    def __repr__(self) -> str:
        return "World(id=%d, name=%r, role=%r)" % (self.id, self.name, self.role)

    def _request(self, command, message, timeout=None, on_reply=None):
        return self.client.connection.request(command, message, timeout, on_reply)

    # ---- information and time ----------------------------------------------------------------------------

    def info(self) -> WorldInfo:
        """This world's WorldInfo (from the server's world list). NotFound once it is gone."""
        for w in self.client.worlds():
            if w.id == self.id:
                return w
        raise NotFound(pb.ERR_UNKNOWN_WORLD, "world %d is not on the server's list" % self.id, "list_worlds")

    def configure(self, **settings: Any) -> WorldInfo:
        """Change world settings between steps (see settings_message for the names); owner only.
        Returns the new WorldInfo."""
        msg = pb.ConfigureWorld(world_id=self.id)
        msg.settings.CopyFrom(settings_message(**settings))
        return WorldInfo.from_proto(self._request("configure_world", msg).world)

    def set_time_mode(self, mode: Union[str, int], rate: Optional[float] = None,
                      lockstep_timeout_ms: Optional[int] = None) -> StepResult:
        """'paused', 'realtime' (at `rate` simulated seconds per wall second, default 1), 'fast' or
        'lockstep'; owner only. Returns where the world stands."""
        msg = pb.SetTimeMode(world_id=self.id)
        msg.time.CopyFrom(time_message(mode, rate, lockstep_timeout_ms))
        return _step(self._request("set_time_mode", msg))

    def pause(self) -> StepResult:
        return self.set_time_mode("paused")

    def play(self, rate: float = 1.0) -> StepResult:
        return self.set_time_mode("realtime", rate)

    def step(self, count: int = 1, timeout: Optional[float] = None) -> StepResult:
        """Step a paused world `count` times (1 to the server's max_steps_per_request); returns when they
        are done. Controller or owner."""
        return _step(self._request("step", pb.Step(world_id=self.id, count=count), timeout))

    def reset(self) -> None:
        """Back to the reset point (the state at creation, or the last restore or reset-point snapshot)."""
        self._request("reset", pb.Reset(world_id=self.id))

    def snapshot(self, make_reset_point: bool = False) -> bytes:
        """The world's whole state as bytes (the core's versioned format)."""
        return self._request("snapshot", pb.Snapshot(world_id=self.id, make_reset_point=make_reset_point)).snapshot.data

    def restore(self, data: bytes) -> None:
        """Replace the world's whole state by a snapshot's bytes; it becomes the reset point."""
        self._request("restore", pb.Restore(world_id=self.id, data=data))

    # ---- state -----------------------------------------------------------------------------------------

    def state(self, include: int = 0) -> State:
        """The current State (include: bits from sinew.state, 0 means poses and joint positions)."""
        return State(self._request("get_state", pb.GetState(world_id=self.id, include=include)).state)

    def subscribe(self, rate_hz: float = 60.0, include: int = 0, callback: Optional[Callable[[State], Any]] = None,
                  queue_size: int = 64) -> Subscription:
        """A Subscription streaming this world's state at up to `rate_hz` frames per second. With
        `callback`, callback(state) runs for every frame on the subscription's own thread (it may call
        the client); otherwise iterate the subscription or call get()/latest()."""
        conn = self.client.connection
        holder = {}

        def register(reply):
            sub = Subscription(self, reply.created.id, rate_hz, include, queue_size, callback)
            holder["sub"] = sub
            conn.register_subscription(sub.id, sub)

        self._request("subscribe", pb.Subscribe(world_id=self.id, rate_hz=rate_hz, include=include),
                      on_reply=register)
        sub = holder["sub"]
        sub.start()
        return sub

    # ---- contents --------------------------------------------------------------------------------------

    def create_articulation(self, links: Sequence[Link], fixed_base: bool = True, base_pose: Optional[PoseLike] = None,
                            gravity_scale: Optional[float] = None) -> Articulation:
        """Create an articulation from a list of Link (link 0 first, parents before children); owner
        only. Returns an Articulation whose joints are addressed by their links' joint names."""
        defs, joints, limits = build_links(links)
        msg = pb.CreateArticulation(world_id=self.id)
        msg.articulation.fixed_base = fixed_base
        if base_pose is not None:
            fill_transform(msg.articulation.base_pose, base_pose)
        if gravity_scale is not None:
            msg.articulation.gravity_scale = gravity_scale
        msg.links.extend(defs)
        created = self._request("create_articulation", msg).created
        art = Articulation(self, created.id, created.dof_count, joints, [link.name for link in links],
                           limits=limits)
        self.articulations[art.id] = art
        return art

    def articulation(self, articulation_id: int, dof_count: Optional[int] = None) -> Articulation:
        """A handle on an articulation by id: one this client made, else as the server describes it
        (named joints if it came from a URDF). With dof_count, no request is made (joints by dof index)."""
        if articulation_id in self.articulations:
            return self.articulations[articulation_id]
        if dof_count is not None:
            art = Articulation(self, articulation_id, dof_count)
            self.articulations[art.id] = art
            return art
        return self.describe(articulation_id)[0]

    def shapes(self, articulation: Union[Articulation, int, None] = None) -> List[ShapeInfo]:
        """The world's collision shapes as ShapeInfo (DescribeWorld): every one, or those of one
        articulation's links (an Articulation or id)."""
        art = getattr(articulation, "id", articulation) or 0
        reply = self._request("describe_world", pb.DescribeWorld(world_id=self.id, articulation_id=art))
        return [ShapeInfo.from_proto(s) for s in reply.description.shapes]

    def describe(self, articulation_id: int = 0) -> List[Articulation]:
        """Ask the server what the world's articulations are (DescribeWorld): a list of Articulation
        handles, with joint and link names, mimic couplings and visuals (`urdf`) for those loaded from a
        URDF (the demo robot too). Also kept in `articulations` by id. `articulation_id`: just that one."""
        reply = self._request("describe_world", pb.DescribeWorld(world_id=self.id, articulation_id=articulation_id))
        self.description = reply.description
        out = []
        for info in reply.description.articulations:
            if info.HasField("urdf"):
                art = Articulation.from_urdf_model(self, info.urdf)
            else:
                # Without a URDF, a joint is named after the link it moves.
                joints = [("link%d" % i, i, link.first_dof, link.dof_count)
                          for i, link in enumerate(info.links) if link.dof_count > 0]
                art = Articulation(self, info.id, info.dof_count, joints, ["link%d" % i for i in range(len(info.links))])
            art.set_info(info)
            self.articulations[art.id] = art
            out.append(art)
        return out

    def robot(self, name: Optional[str] = None) -> Articulation:
        """The articulation loaded from the URDF robot `name` (None: the world's only URDF robot)."""
        robots = [a for a in self.describe() if a.robot and (name is None or a.robot == name)]
        if len(robots) != 1:
            raise KeyError("world %d has %d robots named %r (robots: %s)" % (
                self.id, len(robots), name, ", ".join(a.robot for a in self.articulations.values() if a.robot) or "none"))
        return robots[0]

    def load_urdf(self, urdf: Union[str, bytes, None] = None, file_name: str = "", base_pose: Optional[PoseLike] = None,
                  base_mode: str = "auto", drive_all: Optional[Drive] = None,
                  drives: Optional[Mapping[str, Drive]] = None, initial: Optional[Mapping[str, float]] = None,
                  assets: Optional[Mapping[str, bytes]] = None, asset_hashes: Optional[Mapping[str, bytes]] = None,
                  model: Optional[str] = None, missing_meshes_ok: bool = False) -> Articulation:
        """Load a robot from URDF text (str or bytes) into this world (owner only): one articulation, one
        mimic joint per <mimic>, collision shapes from its <collision> elements, visual meshes by hash. URDF
        has no drives: `drive_all` (a Drive for every joint but mimic followers, holding its initial
        position) and `drives` {joint name: Drive} give them (a Drive without max_force takes the URDF
        effort). `initial` {joint name: position}. `base_mode` 'auto' (floating under a root floating joint,
        else fixed), 'fixed' or 'floating'. `assets` {URI as the URDF writes it: bytes} are the mesh files it
        names, sent with the load, and `asset_hashes` {URI: SHA-256} those the server has already (Client.
        upload; load_urdf_file does all this by itself); its package:// files may also come from the
        server's model path. `model`, instead of
        urdf: a URDF on the server's model path ("package://NAME/PATH" or "NAME/PATH"). With
        `missing_meshes_ok` a mesh file nobody has is left out with a warning. Returns the Articulation,
        joints named as in the URDF; `warnings` on it. Errors name the file, line and element."""
        modes = {"auto": pb.BASE_AUTO, "fixed": pb.BASE_FIXED, "floating": pb.BASE_FLOATING}
        msg = pb.LoadUrdf(world_id=self.id, file_name=file_name, base_mode=_enum(modes, base_mode, "base_mode"),
                          missing_meshes_ok=missing_meshes_ok)
        if model is not None:
            msg.model = model
        if urdf is not None:
            msg.urdf = urdf.encode("utf-8") if isinstance(urdf, str) else bytes(urdf)
        if base_pose is not None:
            fill_transform(msg.base_pose, base_pose)
        if drive_all is not None:
            msg.drive_all.drive.CopyFrom(drive_all.to_proto())
        for joint, drive in (drives or {}).items():
            msg.drives.add(joint=joint).drive.CopyFrom(drive.to_proto())
        for joint, value in (initial or {}).items():
            msg.initial.add(joint=joint, value=float(value))
        for uri, content in (assets or {}).items():
            content = bytes(content)
            msg.assets.add(uri=uri, sha256=sha256(content), data=content)
        for uri, digest in (asset_hashes or {}).items():
            msg.assets.add(uri=uri, sha256=bytes(digest))
        model_reply = self._request("load_urdf", msg).urdf
        art = Articulation.from_urdf_model(self, model_reply)
        self.articulations[art.id] = art
        return art

    def load_urdf_file(self, path: str, package_path: Optional[str] = None, **kwargs: Any) -> Articulation:
        """load_urdf with a URDF file and the mesh files it names, found on this disk as the server's
        importer finds them (package:// through `package_path`, SINEW_MODEL_PATH and the folders above
        the URDF; file://, absolute and relative paths; see sinew.assets). Each file reaches the server
        once: those it has already (by SHA-256) are named, not sent, so loading the same robot again sends
        no file. Files not found here are left to the server (its model path). The keyword arguments are
        load_urdf's."""
        files = read_model_files(path, package_path)
        kwargs.setdefault("file_name", files.file_name)
        for attempt in range(2):
            hashes = self.client.upload(files.assets)
            try:
                return self.load_urdf(files.urdf, asset_hashes=hashes, **kwargs)
            except NotFound as err:
                # A file the server dropped from its store between the upload and the load: once more.
                if err.code != pb.ERR_UNKNOWN_ASSET or attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def load_model(self, model: str, **kwargs: Any) -> Articulation:
        """load_urdf of a URDF on the server's model path (its --model-path): "package://NAME/PATH" or
        "NAME/PATH", with its mesh files from there."""
        return self.load_urdf(model=model, **kwargs)

    def create_mimic(self, articulation: Articulation, joints: Sequence[Union[str, int]], gearing: Sequence[float],
                     offset: float = 0.0, max_force: Optional[float] = None) -> int:
        """Couple dofs: q_0 + sum_{i>=1} gearing[i] q_i + offset = 0 (gearing[0] is ignored). `joints` are
        names or dof indices of `articulation`. Returns the mimic joint's id."""
        msg = pb.CreateMimic(world_id=self.id)
        msg.mimic.articulation_id = articulation.id
        msg.mimic.dofs.extend(articulation.dof(j) for j in joints)
        msg.mimic.gearing.extend(float(g) for g in gearing)
        msg.mimic.offset = offset
        if max_force is not None:
            msg.mimic.max_force = max_force
        return self._request("create_mimic", msg).created.id

    def create_body(self, position: Sequence[float] = (0.0, 0.0, 0.0),
                    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0), mass: Optional[float] = None,
                    kind: str = "dynamic", inertia: Optional[Sequence[float]] = None,
                    linear_velocity: Optional[Sequence[float]] = None,
                    angular_velocity: Optional[Sequence[float]] = None,
                    shapes: Optional[Sequence[Union[Shape, Geometry]]] = None,
                    density: Optional[float] = None) -> BodyId:
        """Create a rigid body (maximal coordinates); returns its id (a BodyId: an int whose `shape_ids`
        are its shapes'). kind 'dynamic', 'static' or 'kinematic'; mass kg (None: 1); inertia (xx, yy,
        zz[, xy, xz, yz]) kg*m^2; `shapes` a list of sinew.Shape or bare geometries (sinew.Box, Sphere,
        Capsule, Cylinder, Hull; TriangleMesh and Plane on static bodies); `density` kg/m^3 gives the body
        the mass, centre and inertia of its solid shapes instead. A shape the server refuses creates
        nothing (the body neither)."""
        kinds = {"dynamic": pb.BODY_DYNAMIC, "static": pb.BODY_STATIC, "kinematic": pb.BODY_KINEMATIC}
        msg = pb.CreateBody(world_id=self.id)
        b = msg.body
        b.type = _enum(kinds, kind, "kind")
        fill_transform(b.pose, Pose(position, rotation))
        if mass is not None:
            b.mass = mass
        if inertia is not None:
            values = list(inertia) + [0.0] * (6 - len(inertia))
            b.inertia.xx, b.inertia.yy, b.inertia.zz, b.inertia.xy, b.inertia.xz, b.inertia.yz = values[:6]
        if linear_velocity is not None:
            b.linear_velocity.x, b.linear_velocity.y, b.linear_velocity.z = linear_velocity
        if angular_velocity is not None:
            b.angular_velocity.x, b.angular_velocity.y, b.angular_velocity.z = angular_velocity
        for shape in shapes or ():
            msg.shapes.add().CopyFrom(shape_message(shape))
        if density is not None:
            msg.density = density
        created = self._request("create_body", msg).created
        return BodyId(created.id, created.shape_ids)

    def create_shape(self, shape: Union[Shape, Geometry], body: Optional[int] = None,
                     articulation: Union[Articulation, int, None] = None, link: Union[int, str, None] = None) -> int:
        """Add a shape (a sinew.Shape or a bare geometry) to a body (its id), to an articulation's link
        (an Articulation or id, and the link's index or URDF name), or, with neither, to the world itself
        (static geometry in world coordinates: `world.create_shape(sinew.Plane())` is a ground). Returns
        the shape's id."""
        msg = pb.CreateShape(world_id=self.id)
        if articulation is not None and isinstance(link, str):
            if not isinstance(articulation, Articulation):
                raise ValueError("a link by name needs the Articulation, not its id")
            # A URDF link merged into its parent: the shape is placed in the named link's own frame.
            link, offset = articulation.link_frame(link)
            if not isinstance(shape, Shape):
                shape = Shape(shape)
            pose = shape.pose if isinstance(shape.pose, Pose) or shape.pose is None else Pose(*shape.pose)
            shape = replace(shape, pose=compose(offset, pose or Pose()))
        msg.shape.CopyFrom(shape_message(shape))
        if body is not None:
            msg.body_id = body
        if articulation is not None:
            msg.articulation_id = getattr(articulation, "id", articulation)
            msg.link = link or 0
        return self._request("create_shape", msg).created.id

    def destroy_shape(self, shape_id: int) -> None:
        """Destroy a shape (owner only)."""
        self._request("destroy_shape", pb.DestroyShape(world_id=self.id, shape_id=shape_id))

    def create_joint(self, kind: Union[str, "pb.CreateJoint"], body_a: int = 0, body_b: int = 0,
                     frame_a: Optional[PoseLike] = None, frame_b: Optional[PoseLike] = None, **options: Any) -> int:
        """Create a maximal-coordinate joint between two bodies (ids from create_body; 0 is the world)
        and return its id. `kind` is 'fixed', 'hinge', 'prismatic', 'cylindrical', 'spherical',
        'distance' or 'six_axis'; `frame_a` and `frame_b` are the joint's frame in each body (a Pose or
        (position, rotation)): its x axis is the joint axis. Options, all keyword arguments or small
        dataclasses of sinew.joints (Limit, Motor, Spring, Soft, Cone, Axis):

        - every kind: break_force (N), break_torque (N*m), lock_soft (Soft), enabled, user_data;
        - hinge, prismatic: limit, motor, spring (rad or m);
        - cylindrical: linear_limit, linear_motor, linear_spring, angular_limit, angular_motor,
          angular_spring;
        - spherical: swing (Cone), twist (Limit);
        - distance: length (m), spring (Soft: a soft rod), limit (min and max length, m);
        - six_axis: axes, a list of Axis (axes not listed stay locked).

        For example ``world.create_joint("hinge", 0, bob, frame_b=((-1, 0, 0), (0, 0, 0, 1)),
        limit=Limit(-1.0, 1.0), motor=Motor(speed=0.5, max_force=20))``. A pb.CreateJoint message is
        accepted as `kind` too."""
        if isinstance(kind, pb.CreateJoint):
            msg = pb.CreateJoint()
            msg.CopyFrom(kind)
        else:
            msg = joint_message(kind, body_a, body_b, frame_a, frame_b, **options)
        msg.world_id = self.id
        return self._request("create_joint", msg).created.id

    def destroy_joint(self, joint_id: int) -> None:
        """Destroy a maximal-coordinate joint (owner only)."""
        self._request("destroy_joint", pb.DestroyJoint(world_id=self.id, joint_id=joint_id))

    def destroy_body(self, body_id: int) -> None:
        """Destroy a body and the joints attached to it (owner only)."""
        self._request("destroy_body", pb.DestroyBody(world_id=self.id, body_id=body_id))

    # ---- lockstep and membership --------------------------------------------------------------------------

    def lockstep(self, controller_key: Optional[str] = None) -> "Lockstep":
        """A Lockstep controller: joins this world as a controller (lockstep inputs come from the
        sessions that joined as controllers) and steps tick by tick, with the world's controller key if
        its owner set one (default: the key this World was opened with). The world's owner sets the time
        mode to 'lockstep'."""
        key = self.controller_key if controller_key is None else controller_key
        joined = self._request("join_world", pb.JoinWorld(world_id=self.id, role=pb.ROLE_CONTROLLER,
                                                          controller_key=key)).joined
        self.role = role_name(joined.role)
        return Lockstep(self, joined.tick)

    def set_controller_key(self, key: str) -> None:
        """Owner only: from now on only sessions that give `key` may control this world (or adopt it
        once its owner is gone); those controlling it now without the key become observers. An empty key
        lets every controller session control it again. A lockstep world waits for each controller, so a
        world shared with other clients is safer with a key. At most 127 bytes."""
        self._request("set_controller_key", pb.SetControllerKey(world_id=self.id, key=key))

    def leave(self) -> None:
        """End this session's membership (an owner stays the owner but leaves lockstep)."""
        self._request("leave_world", pb.LeaveWorld(world_id=self.id))

    def destroy(self) -> None:
        """Destroy the world (owner only)."""
        self._request("destroy_world", pb.DestroyWorld(world_id=self.id))


class Lockstep:
    """Drive a lockstep world as one of its controllers: each step() sends this controller's input for
    the current tick and returns when the tick has stepped (every controller's input arrived, or the
    world's lockstep timeout demoted the ones that did not). `tick` is the next tick to send."""

    def __init__(self, world: World, tick: int):
        self.world = world
        self.tick: int = tick

    def step(self, targets: Optional[Union[Mapping[Articulation, Mapping[Union[str, int], float]],
                                           Tuple[Articulation, Mapping[Union[str, int], float]]]] = None,
             joint_forces: Optional[Mapping[Articulation, Mapping[Union[str, int], float]]] = None,
             timeout: Optional[float] = None) -> StepResult:
        """Send the input for `tick`: `targets` {Articulation: {joint: target}} (or (Articulation, {..}));
        `joint_forces` {Articulation: {joint: force}}. Returns the StepResult; `tick` advances."""
        msg = pb.LockstepInput(world_id=self.world.id, tick=self.tick)
        if targets:
            items = targets.items() if isinstance(targets, dict) else [targets]
            items = list(items)
            if len(items) > 1:
                raise ValueError("one articulation's targets per lockstep input (the protocol's limit)")
            art, values = items[0]
            msg.targets.articulation.CopyFrom(art.targets_message(values))
        if joint_forces:
            for art, forces in joint_forces.items():
                for joint, force in forces.items():
                    msg.forces.dofs.add(articulation_id=art.id, dof=art.dof(joint), force=float(force))
        result = _step(self.world.client.request("lockstep_input", msg, timeout))
        self.tick = result.step_count
        return result
