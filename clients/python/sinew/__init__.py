"""Sinew's Python client: speaks sinewd's protocol (proto/sinew.proto, varint-delimited protobuf over
TCP). See "The Python client" in the repository's README.md.

    import sinew
    with sinew.connect() as client:              # SINEW_HOST / SINEW_TCP_PORT, else 127.0.0.1:7420
        world = client.create_world("arm", dt=0.002)
        ...
"""

from ._pb import pb
from .articulation import Articulation, Drive, Link, Pose, quat_from_axis_angle
from .client import Client, connect
from .errors import (Conflict, ConnectionClosed, ErrorCode, Forbidden, InvalidArgument, LimitReached, NotFound,
                     ProtocolError, SinewError, code_name)
from .joints import Axis, Cone, Limit, Motor, Soft, Spring
from .state import (DRIVE_EFFORTS, DRIVE_TARGETS, EVERYTHING, JOINT_FORCES, JOINT_POSITIONS, POSES, VELOCITIES,
                    ArticulationState, BodyState, JointState, State, Subscription)
from .world import Lockstep, ModelFiles, StepResult, World, WorldInfo

__version__ = "0.1.0"

__all__ = [
    "pb", "connect", "Client", "World", "WorldInfo", "StepResult", "Lockstep", "ModelFiles", "Articulation",
    "Link", "Drive", "Pose", "quat_from_axis_angle", "Limit", "Motor", "Spring", "Soft", "Cone", "Axis", "State",
    "ArticulationState", "BodyState", "JointState", "Subscription", "ErrorCode", "SinewError", "InvalidArgument",
    "NotFound", "Forbidden", "Conflict", "LimitReached", "ConnectionClosed", "ProtocolError", "code_name", "POSES",
    "VELOCITIES", "JOINT_POSITIONS", "JOINT_FORCES", "DRIVE_EFFORTS", "DRIVE_TARGETS", "EVERYTHING",
]
