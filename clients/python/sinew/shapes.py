"""Collision shapes described with small dataclasses (World.create_body(shapes=...), World.create_shape),
without protobuf: what each field means is in proto/sinew.proto and core/include/sinew/shape.h.

A geometry alone is a shape with the defaults (at the body's origin, the core's material and filter):

    world.create_body(position=(0, 0, 1), shapes=[sinew.Box((0.1, 0.1, 0.1))], density=1000)

and Shape places one and says what it is made of:

    sinew.Shape(sinew.Sphere(0.05), pose=((0, 0, 0.2), (0, 0, 0, 1)), material=sinew.Material(friction=0.3))

Sizes in m: radii, half-extents, half-lengths (a capsule's segment and a cylinder's height are along the
shape's local z). Triangle meshes and planes are for static bodies and the world's own geometry (a ground:
World.create_shape(sinew.Plane())).
"""

from dataclasses import dataclass, field
from typing import Optional, Sequence, Tuple, Union

from ._pb import pb
from .articulation import Pose, fill_transform
from .joints import Soft

Vec3 = Tuple[float, float, float]


@dataclass
class Sphere:
    radius: float


@dataclass
class Capsule:
    """The segment from -half_length to half_length along local z, swept by a sphere of `radius`."""

    radius: float
    half_length: float


@dataclass
class Box:
    half_extents: Vec3


@dataclass
class Cylinder:
    """Radius about local z, from -half_height to half_height."""

    radius: float
    half_height: float


@dataclass
class Hull:
    """The convex hull of `points` ((x, y, z) each, at least 4, not all in one plane), computed by the
    server (at most 256 vertices kept)."""

    points: Sequence[Vec3]


@dataclass
class TriangleMesh:
    """Triangles over shared vertices: `vertices` (x, y, z) and `triangles` (three vertex indices each,
    counter-clockwise seen from the front). Static bodies and the world only."""

    vertices: Sequence[Vec3]
    triangles: Sequence[Tuple[int, int, int]]


@dataclass
class Plane:
    """The half-space normal . x <= offset (solid below). Static bodies and the world only."""

    normal: Vec3 = (0.0, 0.0, 1.0)
    offset: float = 0.0


@dataclass
class Material:
    """Friction (Coulomb coefficient), restitution in [0, 1] and contact softness; None: the core's
    default (0.6, 0, rigid)."""

    friction: Optional[float] = None
    restitution: Optional[float] = None
    soft: Optional[Soft] = None


@dataclass
class Filter:
    """Two shapes collide when each one's category meets the other's mask; None: category 1, every bit."""

    category: Optional[int] = None
    mask: Optional[int] = None


Geometry = Union[Sphere, Capsule, Box, Cylinder, Hull, TriangleMesh, Plane]


@dataclass
class Shape:
    """A geometry placed on its body by `pose` (a Pose or (position, rotation); None: the body's frame),
    with a material, a filter, and whether it is a sensor (it reports overlaps, exerts nothing)."""

    geometry: Geometry
    pose: Union[Pose, Tuple, None] = None
    material: Optional[Material] = None
    filter: Optional[Filter] = None
    sensor: bool = False
    user_data: int = 0


def _vec(msg, v) -> None:
    msg.x, msg.y, msg.z = (float(x) for x in v)


def shape_message(shape) -> "pb.ShapeDef":
    """The protobuf ShapeDef of a Shape or a bare geometry."""
    if not isinstance(shape, Shape):
        shape = Shape(shape)
    msg = pb.ShapeDef(sensor=shape.sensor, user_data=shape.user_data)
    if shape.pose is not None:
        fill_transform(msg.local_pose, shape.pose)
    if shape.material is not None:
        m = shape.material
        msg.material.SetInParent()
        if m.friction is not None:
            msg.material.friction = m.friction
        if m.restitution is not None:
            msg.material.restitution = m.restitution
        if m.soft is not None:
            m.soft.fill(msg.material.soft)
    if shape.filter is not None:
        msg.filter.SetInParent()
        if shape.filter.category is not None:
            msg.filter.category = shape.filter.category
        if shape.filter.mask is not None:
            msg.filter.mask = shape.filter.mask
    g = shape.geometry
    if isinstance(g, Sphere):
        msg.sphere.radius = g.radius
    elif isinstance(g, Capsule):
        msg.capsule.radius = g.radius
        msg.capsule.half_length = g.half_length
    elif isinstance(g, Box):
        _vec(msg.box.half_extents, g.half_extents)
    elif isinstance(g, Cylinder):
        msg.cylinder.radius = g.radius
        msg.cylinder.half_height = g.half_height
    elif isinstance(g, Hull):
        msg.hull.points.extend(float(x) for p in g.points for x in p)
        msg.hull.SetInParent()
    elif isinstance(g, TriangleMesh):
        msg.mesh.vertices.extend(float(x) for p in g.vertices for x in p)
        msg.mesh.indices.extend(int(i) for t in g.triangles for i in t)
        msg.mesh.SetInParent()
    elif isinstance(g, Plane):
        _vec(msg.plane.normal, g.normal)
        msg.plane.offset = g.offset
    else:
        raise TypeError("a shape's geometry is a Sphere, Capsule, Box, Cylinder, Hull, TriangleMesh or Plane, not %r"
                        % (g,))
    return msg


class BodyId(int):
    """A body's id (an int), with the ids of the shapes made with it (`shape_ids`, in the order given)."""

    shape_ids: Tuple[int, ...] = ()

    def __new__(cls, value, shape_ids=()):
        self = super().__new__(cls, value)
        self.shape_ids = tuple(shape_ids)
        return self


SHAPE_TYPES = {
    pb.SHAPE_SPHERE: "sphere", pb.SHAPE_CAPSULE: "capsule", pb.SHAPE_BOX: "box", pb.SHAPE_CYLINDER: "cylinder",
    pb.SHAPE_HULL: "hull", pb.SHAPE_MESH: "mesh", pb.SHAPE_PLANE: "plane",
}


@dataclass
class ShapeInfo:
    """A shape as the world holds it (World.shapes()): `id`, what it is on (`body` id, or `articulation`
    and `link`; all None for the world's own), `type` ('sphere', ..., 'plane'), `pose` in that body's
    frame, `size` by type (sphere (r,), capsule and cylinder (r, half), box half-extents, plane (nx, ny,
    nz, offset), hull its vertices), `mesh` (a triangle mesh's hash, for Client.get_mesh), `friction`,
    `restitution`, `sensor`; `info` is the protobuf ShapeInfo."""

    id: int
    body: Optional[int]
    articulation: Optional[int]
    link: Optional[int]
    type: str
    pose: Pose
    size: tuple
    mesh: Optional[bytes]
    friction: float
    restitution: float
    sensor: bool
    info: object = field(repr=False, default=None)

    @classmethod
    def from_proto(cls, s) -> "ShapeInfo":
        kind = SHAPE_TYPES.get(s.type, "unknown")
        if kind == "sphere":
            size = (s.radius,)
        elif kind in ("capsule", "cylinder"):
            size = (s.radius, s.half_length)
        elif kind == "box":
            size = (s.half_extents.x, s.half_extents.y, s.half_extents.z)
        elif kind == "plane":
            size = (s.normal.x, s.normal.y, s.normal.z, s.offset)
        elif kind == "hull":
            size = tuple((v.x, v.y, v.z) for v in s.hull_vertices)
        else:
            size = ()
        p = s.local_pose
        rotation = (p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w) if p.HasField("rotation") else \
            (0.0, 0.0, 0.0, 1.0)
        return cls(s.id, s.body_id or None, s.articulation_id or None, s.link if s.articulation_id else None, kind,
                   Pose((p.position.x, p.position.y, p.position.z), rotation), size,
                   bytes(s.mesh.hash) if s.HasField("mesh") else None, s.material.friction, s.material.restitution,
                   s.sensor, s)
