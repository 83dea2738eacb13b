"""Errors. Every error the server reports carries its code (``ErrorCode``, the ``ErrorCode`` enum of
proto/sinew.proto: the same numbers as the server's and the core's tables) and the server's one-line
message. Each family of codes has its own exception class, so a script catches what it can handle::

    try:
        world = client.create_world("arm")
    except sinew.Conflict as err:          # ERR_NAME_TAKEN: another world has that name
        world = client.open_world("arm")

=====================  ==============================================================================
class                  codes
=====================  ==============================================================================
``InvalidArgument``    a value the core or the server refuses: ERR_INVALID_ARGUMENT, ERR_NOT_FINITE,
                       ERR_NON_POSITIVE_MASS, ERR_INERTIA_NOT_PD, ERR_ZERO_AXIS, ERR_LIMITS_ORDER,
                       ERR_SELF_JOINT, ERR_WRONG_TYPE, ERR_NEGATIVE_VALUE, ERR_TOPOLOGY, ERR_UNSUPPORTED,
                       ERR_BAD_SNAPSHOT, ERR_BAD_MESSAGE (also a ``ValueError``)
``NotFound``           ERR_INVALID_ID, ERR_UNKNOWN_WORLD, ERR_UNKNOWN_SUBSCRIPTION, ERR_UNKNOWN_COMMAND,
                       ERR_UNKNOWN_ASSET (also a ``LookupError``)
``Forbidden``          ERR_FORBIDDEN_BY_ROLE, ERR_UNAUTHORISED, ERR_PROTECTED (also a ``PermissionError``)
``Conflict``           the world's state does not allow it now: ERR_NAME_TAKEN, ERR_WRONG_TIME_MODE,
                       ERR_STALE_TICK, ERR_DIVERGED, ERR_BUSY
``LimitReached``       ERR_LIMIT_REACHED, ERR_CAPACITY, ERR_NO_MEMORY, ERR_MESSAGE_TOO_LARGE
``ConnectionClosed``   the session ended (ERR_SHUTTING_DOWN, ERR_SLOW_CLIENT, ERR_TIMEOUT, ...);
                       ``ProtocolError`` when the other side does not speak the protocol
``SinewError``         the base of all of them (and of codes this client does not know)
=====================  ==============================================================================
"""

import enum
from typing import Dict, Optional, Type

from ._pb import pb

#: The protocol's error codes, as an IntEnum: ``ErrorCode.ERR_UNKNOWN_WORLD == -108``.
ErrorCode = enum.IntEnum("ErrorCode", {name: number for name, number in pb.ErrorCode.items()})
ErrorCode.__doc__ = "The protocol's error codes (proto/sinew.proto ErrorCode)."
ErrorCode.__module__ = __name__


def code_name(code: int) -> str:
    """The ErrorCode name of a number ("ERR_INVALID_ID"), or "ERR_<code>" for one this schema lacks."""
    try:
        return ErrorCode(code).name
    except ValueError:
        return "ERR_%d" % code


class SinewError(Exception):
    """The server refused a command. `code` is the ErrorCode (an int; ``ErrorCode`` member when known),
    `name` its name, `message` the server's line naming the field and value at fault, `command` the
    command's name."""

    def __init__(self, code: int, message: str, command: Optional[str] = None):
        try:
            self.code: int = ErrorCode(int(code))
        except ValueError:
            self.code = int(code)
        self.name: str = code_name(self.code)
        self.message: str = message
        self.command: Optional[str] = command
        where = "%s: " % command if command else ""
        super().__init__("%s%s (%d): %s" % (where, self.name, self.code, message))


class InvalidArgument(SinewError, ValueError):
    """A value the core or the server refuses; nothing changed."""


class NotFound(SinewError, LookupError):
    """A world, object or subscription that does not exist (any more)."""


class Forbidden(SinewError, PermissionError):
    """The session's role, the token, or a protected world does not allow the command."""


class Conflict(SinewError):
    """The server's or the world's state does not allow the command now (a taken name, a world that is
    not paused, a lockstep tick already past, a diverged world)."""


class LimitReached(SinewError):
    """A server limit or the world's capacity."""


class ConnectionClosed(SinewError):
    """The connection ended: the server said why in its Closing message (shutdown, a protocol error, a
    slow reader), or the socket closed without one (code ERR_INTERNAL then, message saying so). Every
    request still waiting raises it, and so does every later call."""


class ProtocolError(ConnectionClosed):
    """The other side sent something this client cannot read (a malformed frame or message, or an HTTP
    answer: the address is sinewd's HTTP/WebSocket port, not its TCP port)."""


_FAMILIES: Dict[str, Type[SinewError]] = {}
for _cls, _names in (
        (InvalidArgument, ("INVALID_ARGUMENT", "NOT_FINITE", "NON_POSITIVE_MASS", "INERTIA_NOT_PD", "ZERO_AXIS",
                           "LIMITS_ORDER", "SELF_JOINT", "WRONG_TYPE", "NEGATIVE_VALUE", "TOPOLOGY", "UNSUPPORTED",
                           "BAD_SNAPSHOT", "BAD_MESSAGE")),
        (NotFound, ("INVALID_ID", "UNKNOWN_WORLD", "UNKNOWN_SUBSCRIPTION", "UNKNOWN_COMMAND", "UNKNOWN_ASSET")),
        (Forbidden, ("FORBIDDEN_BY_ROLE", "UNAUTHORISED", "PROTECTED")),
        (Conflict, ("NAME_TAKEN", "WRONG_TIME_MODE", "STALE_TICK", "DIVERGED", "BUSY")),
        (LimitReached, ("LIMIT_REACHED", "CAPACITY", "NO_MEMORY", "MESSAGE_TOO_LARGE"))):
    for _name in _names:
        _FAMILIES["ERR_" + _name] = _cls


def error_for(code: int, message: str, command: Optional[str] = None) -> SinewError:
    """The exception of a refused command: an instance of its family's class."""
    return _FAMILIES.get(code_name(int(code)), SinewError)(code, message, command)
