"""Sinew's Python client: speaks sinewd's protocol (proto/sinew.proto, varint-delimited protobuf over
TCP). See "The Python client" in the repository's README.md.

    import sinew
    with sinew.connect("127.0.0.1", 7420) as client:
        world = client.create_world("arm", dt=0.002)
        ...
"""

from ._pb import pb
from .articulation import Articulation, Drive, Link, Pose, quat_from_axis_angle
from .client import Client, connect
from .errors import ConnectionClosed, ProtocolError, SinewError, code_name
from .state import (DRIVE_EFFORTS, DRIVE_TARGETS, EVERYTHING, JOINT_FORCES, JOINT_POSITIONS, POSES, VELOCITIES,
                    ArticulationState, BodyState, JointState, State, Subscription)
from .world import Lockstep, StepResult, World, WorldInfo

__all__ = [
    "pb", "connect", "Client", "World", "WorldInfo", "StepResult", "Lockstep", "Articulation", "Link",
    "Drive", "Pose", "quat_from_axis_angle", "State", "ArticulationState", "BodyState", "JointState",
    "Subscription", "SinewError", "ConnectionClosed", "ProtocolError", "code_name", "POSES", "VELOCITIES",
    "JOINT_POSITIONS", "JOINT_FORCES", "DRIVE_EFFORTS", "DRIVE_TARGETS", "EVERYTHING",
]
