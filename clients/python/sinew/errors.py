"""Exceptions. Every error the server reports carries its code (proto/sinew.proto ErrorCode, the same
numbers as the C server's and core's tables) and the server's one-line message."""

from ._pb import pb


def code_name(code):
    """The ErrorCode name of a number ("ERR_INVALID_ID"), or "ERR_<code>" for one this schema lacks."""
    try:
        return pb.ErrorCode.Name(code)
    except ValueError:
        return "ERR_%d" % code


class SinewError(Exception):
    """The server refused a command. `code` is the ErrorCode number (negative), `name` its name,
    `message` the server's line naming the field and value at fault; `command` the command's name."""

    def __init__(self, code, message, command=None):
        self.code = int(code)
        self.name = code_name(self.code)
        self.message = message
        self.command = command
        where = "%s: " % command if command else ""
        super().__init__("%s%s (%d): %s" % (where, self.name, self.code, message))


class ConnectionClosed(SinewError):
    """The connection ended: the server said why in its Closing message (shutdown, a protocol error, a
    slow reader), or the socket closed without one (code ERR_INTERNAL then, message saying so). Every
    request still waiting raises it, and so does every later call."""


class ProtocolError(ConnectionClosed):
    """The server sent something this client cannot read (a malformed frame or message)."""


# The ErrorCode numbers by name, for comparisons such as `err.code == ERR_UNKNOWN_WORLD`.
globals().update({name: number for name, number in pb.ErrorCode.items()})
