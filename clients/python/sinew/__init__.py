"""Sinew's Python client: speaks sinewd's protocol (proto/sinew.proto, varint-delimited protobuf over
TCP). See "The Python client" in the repository's README.md.

    import sinew
    with sinew.connect() as client:              # SINEW_HOST / SINEW_TCP_PORT, else 127.0.0.1:7420
        world = client.create_world("arm", dt=0.002)
        ...
"""

from ._pb import pb
from .articulation import Articulation, Drive, Link, Pose, quat_from_axis_angle
from .assets import Mesh, MeshPart, ModelFiles, read_model_files
from .client import Client, connect
from .errors import (Conflict, ConnectionClosed, ErrorCode, Forbidden, InvalidArgument, LimitReached, NotFound,
                     ProtocolError, SinewError, code_name)
from .joints import Axis, Cone, Limit, Motor, Soft, Spring
from .shapes import (BodyId, Box, Capsule, Cylinder, Filter, Hull, Material, Plane, Shape, ShapeInfo, Sphere,
                     TriangleMesh)
from .state import (CONTACT_EVENTS, CONTACTS, DRIVE_EFFORTS, DRIVE_TARGETS, EVERYTHING, JOINT_FORCES, JOINT_POSITIONS,
                    POSES, VELOCITIES, ArticulationState, BodyState, Contact, ContactChange, ContactPoint, ContactSide,
                    JointState, State, Subscription)
from .world import Lockstep, StepResult, World, WorldInfo

__version__ = "0.1.0"

__all__ = [
    "pb", "connect", "Client", "World", "WorldInfo", "StepResult", "Lockstep", "ModelFiles", "Articulation",
    "Link", "Drive", "Pose", "quat_from_axis_angle", "Limit", "Motor", "Spring", "Soft", "Cone", "Axis", "State",
    "ArticulationState", "BodyState", "JointState", "Subscription", "ErrorCode", "SinewError", "InvalidArgument",
    "NotFound", "Forbidden", "Conflict", "LimitReached", "ConnectionClosed", "ProtocolError", "code_name", "POSES",
    "VELOCITIES", "JOINT_POSITIONS", "JOINT_FORCES", "DRIVE_EFFORTS", "DRIVE_TARGETS", "EVERYTHING", "CONTACTS",
    "CONTACT_EVENTS", "Contact", "ContactPoint", "ContactSide", "ContactChange", "Shape", "Sphere", "Capsule", "Box",
    "Cylinder", "Hull", "TriangleMesh", "Plane", "Material", "Filter", "ShapeInfo", "BodyId", "Mesh", "MeshPart",
    "read_model_files",
]
