"""Maximal-coordinate joints described with keyword arguments and small dataclasses (World.create_joint),
without protobuf: what each field means is in proto/sinew.proto and core/include/sinew/joint.h.

Units: m and rad for positions and limits, m/s and rad/s for motor speeds, N and N*m for forces.
"""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ._pb import pb

if TYPE_CHECKING:  # for the annotations only
    from .articulation import PoseLike


@dataclass
class Soft:
    """How far a row may yield: stiffness (N/m or N*m/rad) and damping (N*s/m or N*m*s/rad), or with
    Soft.frequency(hz, damping_ratio) a natural frequency and damping ratio. Absent: rigid."""

    stiffness: float = 0.0
    damping: float = 0.0
    frequency_hz: Optional[float] = None
    damping_ratio: float = 1.0

    @classmethod
    def frequency(cls, hz: float, damping_ratio: float = 1.0) -> "Soft":
        return cls(frequency_hz=hz, damping_ratio=damping_ratio)

    def fill(self, msg: Any) -> None:
        if self.frequency_hz is not None:
            msg.kind = pb.SOFT_FREQUENCY
            msg.frequency_hz = self.frequency_hz
            msg.damping_ratio = self.damping_ratio
        else:
            msg.kind = pb.SOFT_STIFFNESS
            msg.stiffness = self.stiffness
            msg.damping = self.damping


@dataclass
class Limit:
    """A range on one axis: lower and upper (m or rad), optionally soft."""

    lower: float
    upper: float
    soft: Optional[Soft] = None

    def fill(self, msg: Any) -> None:
        msg.enabled = True
        msg.lower = self.lower
        msg.upper = self.upper
        if self.soft is not None:
            self.soft.fill(msg.soft)


@dataclass
class Motor:
    """A velocity motor: speed (m/s or rad/s) with at most max_force (N or N*m; None: unbounded)."""

    speed: float
    max_force: Optional[float] = None

    def fill(self, msg: Any) -> None:
        msg.enabled = True
        msg.speed = self.speed
        if self.max_force is not None:
            msg.max_force = self.max_force


@dataclass
class Spring:
    """A spring towards target (m or rad); rigid (soft None) makes it a position servo. max_force N or
    N*m (None: unbounded)."""

    target: float
    soft: Optional[Soft] = None
    max_force: Optional[float] = None

    def fill(self, msg: Any) -> None:
        msg.enabled = True
        msg.target = self.target
        if self.soft is not None:
            self.soft.fill(msg.soft)
        if self.max_force is not None:
            msg.max_force = self.max_force


@dataclass
class Cone:
    """A spherical joint's elliptic swing cone: half-angles about y and z (rad, in (0, pi))."""

    y_angle: float = math.pi / 2
    z_angle: float = math.pi / 2
    soft: Optional[Soft] = None

    def fill(self, msg: Any) -> None:
        msg.enabled = True
        msg.y_angle = self.y_angle
        msg.z_angle = self.z_angle
        if self.soft is not None:
            self.soft.fill(msg.soft)


_AXES = {"x": pb.AXIS_X, "y": pb.AXIS_Y, "z": pb.AXIS_Z, "rx": pb.AXIS_RX, "ry": pb.AXIS_RY, "rz": pb.AXIS_RZ}


@dataclass
class Axis:
    """One axis of a six-axis joint: 'x', 'y', 'z' (translations, m) or 'rx', 'ry', 'rz' (rotations,
    rad) of frame B in frame A; free, or limited to [lower, upper] when both are given; with an optional
    motor and spring."""

    axis: str
    lower: Optional[float] = None
    upper: Optional[float] = None
    limit_soft: Optional[Soft] = None
    motor: Optional[Motor] = None
    spring: Optional[Spring] = None

    def fill(self, msg: Any) -> None:
        if self.axis not in _AXES:
            raise ValueError("Axis.axis must be one of %s, not %r" % (", ".join(_AXES), self.axis))
        msg.axis = _AXES[self.axis]
        if (self.lower is None) != (self.upper is None):
            raise ValueError("Axis %s: give both lower and upper, or neither (a free axis)" % self.axis)
        msg.mode = pb.AXIS_FREE if self.lower is None else pb.AXIS_LIMITED
        if self.lower is not None:
            msg.lower, msg.upper = self.lower, self.upper
        if self.limit_soft is not None:
            self.limit_soft.fill(msg.limit_soft)
        if self.motor is not None:
            self.motor.fill(msg.motor)
        if self.spring is not None:
            self.spring.fill(msg.spring)


# The options of each kind: option name -> (field of the kind's message, how to fill it).
_OPTIONS = {
    "fixed": {},
    "hinge": {"limit": "limit", "motor": "motor", "spring": "spring"},
    "prismatic": {"limit": "limit", "motor": "motor", "spring": "spring"},
    "cylindrical": {name: name for name in ("linear_limit", "linear_motor", "linear_spring", "angular_limit",
                                            "angular_motor", "angular_spring")},
    "spherical": {"swing": "swing", "twist": "twist"},
    "distance": {"length": "length", "spring": "spring", "limit": "limit"},
    "six_axis": {"axes": "axes"},
}


def joint_message(kind: str, body_a: int, body_b: int, frame_a: Optional["PoseLike"] = None,
                  frame_b: Optional["PoseLike"] = None, *,
                  break_force: Optional[float] = None, break_torque: Optional[float] = None,
                  lock_soft: Optional[Soft] = None, enabled: bool = True, user_data: int = 0,
                  **options: Any) -> "pb.CreateJoint":
    """The CreateJoint message of World.create_joint (its world_id left 0)."""
    from .articulation import fill_transform

    if kind not in _OPTIONS:
        raise ValueError("joint kind must be one of %s, not %r" % (", ".join(_OPTIONS), kind))
    unknown = sorted(set(options) - set(_OPTIONS[kind]))
    if unknown:
        raise TypeError("a %s joint has no option %s (its options: %s)" % (
            kind, ", ".join(unknown), ", ".join(_OPTIONS[kind]) or "none but the common ones"))
    msg = pb.CreateJoint()
    base = msg.base
    base.body_a, base.body_b = int(body_a), int(body_b)
    fill_transform(base.frame_a, frame_a)
    fill_transform(base.frame_b, frame_b)
    if break_force is not None:
        base.break_force = break_force
    if break_torque is not None:
        base.break_torque = break_torque
    if lock_soft is not None:
        lock_soft.fill(base.lock_soft)
    if not enabled:
        base.enabled = False
    base.user_data = user_data
    body = getattr(msg, kind)
    body.SetInParent()  # the oneof names the kind even with no option set
    for name, value in options.items():
        if value is None:
            continue
        if kind == "distance" and name == "length":
            body.length = float(value)
        elif kind == "distance" and name == "spring":
            body.spring_enabled = True
            value.fill(body.spring)
        elif name == "axes":
            for axis in value:
                axis.fill(body.axes.add())
        else:
            value.fill(getattr(body, name))
    return msg
