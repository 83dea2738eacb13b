"""One TCP connection to sinewd: the delimited framing, the handshake, request/reply matching, and the
reader thread that sorts what the server sends into replies, state frames and events.

Framing (proto/README.md): each message is prefixed by its length as a protobuf varint. The client sends
ClientMessage, the server ServerMessage. Every command gets exactly one Reply carrying the request id the
client chose; StateFrames and Events come unasked; Closing is the last message before the server closes.

Threads: the caller's thread sends and then waits for its reply; one reader thread (a daemon) receives
everything. Nothing a user supplies runs on the reader thread, so a subscription callback may call the
client freely (callbacks run on their subscription's own thread, see state.py).
"""

import collections
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Optional, Tuple

from ._pb import pb
from .errors import ConnectionClosed, ProtocolError, error_for

if TYPE_CHECKING:  # for the annotations only (state.py imports this module's users)
    from .state import Subscription

# The framing's varint is at most 10 bytes; a length above the session limit closes the connection.
_MAX_VARINT_BYTES = 10
# Before the handshake reply tells the limit: the server's default max_message_bytes (16 MiB).
_DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
# Events kept for wait_event()/events() when nobody reads them (the oldest are dropped beyond this).
_EVENT_BACKLOG = 256


def encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def decode_varint(buf: bytes, pos: int) -> Tuple[Optional[int], int]:
    """(value, next position) of the varint at buf[pos:], or (None, pos) if it is incomplete.
    Raises ProtocolError for a varint longer than 10 bytes."""
    value = 0
    shift = 0
    for i in range(_MAX_VARINT_BYTES):
        if pos + i >= len(buf):
            return None, pos
        byte = buf[pos + i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos + i + 1
        shift += 7
    raise ProtocolError(pb.ERR_BAD_MESSAGE, "malformed length prefix from the server")


class _Pending:
    __slots__ = ("event", "reply", "error", "command", "on_reply")

    def __init__(self, command, on_reply):
        self.event = threading.Event()
        self.reply = None
        self.error = None
        self.command = command
        self.on_reply = on_reply


class Connection:
    """A handshaken session over TCP. Use Client (client.py) rather than this directly."""

    def __init__(self, host: str, port: int, token: Optional[str] = None, name: str = "python",
                 role: int = pb.ROLE_CONTROLLER, timeout: Optional[float] = 30.0, connect_timeout: float = 10.0):
        self.timeout: Optional[float] = timeout
        self._sock = socket.create_connection((host, port), timeout=connect_timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending = {}
        self._next_id = 1
        self._closed = None  # the ConnectionClosed every later call raises
        self._subscriptions = {}
        self._early_frames = {}
        self._events = collections.deque(maxlen=_EVENT_BACKLOG)
        self._event_cond = threading.Condition(self._lock)
        self._event_listeners = []
        self._buf = bytearray()
        self._pos = 0
        self.max_message_bytes = _DEFAULT_MAX_MESSAGE_BYTES
        try:
            self.handshake = self._shake_hands(token, name, role, connect_timeout)
        except BaseException:
            self._sock.close()
            raise
        self.max_message_bytes = self.handshake.max_message_bytes or _DEFAULT_MAX_MESSAGE_BYTES
        self._sock.settimeout(None)
        self._reader = threading.Thread(target=self._read_loop, name="sinew-reader", daemon=True)
        self._reader.start()

    # ---- handshake (before the reader thread exists) -------------------------------------------------

    def _shake_hands(self, token, name, role, timeout):
        msg = pb.ClientMessage(request_id=0)
        msg.handshake.protocol_version = pb.PROTOCOL_VERSION_CURRENT
        msg.handshake.client_name = name or ""
        msg.handshake.token = token or ""
        msg.handshake.role = role
        self._write(msg)
        deadline = time.monotonic() + timeout
        closing = None
        while True:
            message = self._read_one_blocking(deadline)
            if message is None:
                status = closing or (pb.ERR_INTERNAL, "the server closed the connection during the handshake")
                raise ConnectionClosed(status[0], status[1], "handshake")
            kind = message.WhichOneof("message")
            if kind == "handshake":
                reply = message.handshake
                if reply.status.code != pb.ERR_OK:
                    raise error_for(reply.status.code, reply.status.message, "handshake")
                return reply
            if kind == "event" and message.event.WhichOneof("event") == "closing":
                st = message.event.closing.status
                closing = (st.code, st.message)

    def _read_one_blocking(self, deadline):
        while True:
            # sinewd's TCP port answers with a varint length; "HTTP/" (never a valid start of a message
            # here) is its HTTP/WebSocket port answering.
            head = bytes(self._buf[:5])
            if head and b"HTTP/".startswith(head):
                if len(head) == 5:
                    raise ProtocolError(pb.ERR_BAD_MESSAGE, "this port answers in HTTP: it is sinewd's "
                                        "HTTP/WebSocket port (default 7421), not its TCP port (default 7420)",
                                        "handshake")
                message = None
            else:
                message = self._take_message()
            if message is not None:
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("sinew: no handshake reply from the server")
            self._sock.settimeout(remaining)
            try:
                data = self._sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("sinew: no handshake reply from the server") from None
            if not data:
                return None
            self._buf += data

    # ---- framing -------------------------------------------------------------------------------------

    def _write(self, message):
        body = message.SerializeToString()
        if len(body) > self.max_message_bytes:
            raise error_for(pb.ERR_MESSAGE_TOO_LARGE,
                             "message of %d bytes is above the server's max_message_bytes (%d)"
                             % (len(body), self.max_message_bytes))
        data = encode_varint(len(body)) + body
        with self._send_lock:
            self._sock.sendall(data)

    def _take_message(self):
        """The next complete ServerMessage in the receive buffer, or None."""
        length, start = decode_varint(self._buf, self._pos)
        if length is None:
            return None
        if length > self.max_message_bytes:
            raise ProtocolError(pb.ERR_MESSAGE_TOO_LARGE,
                                "the server sent a message of %d bytes, above %d" % (length, self.max_message_bytes))
        end = start + length
        if end > len(self._buf):
            return None
        try:
            message = pb.ServerMessage.FromString(bytes(self._buf[start:end]))
        except Exception as exc:  # the protobuf runtime's DecodeError
            raise ProtocolError(pb.ERR_BAD_MESSAGE, "undecodable message from the server: %s" % exc) from None
        self._pos = end
        # Compact once the consumed part dominates, so the buffer never holds more than a message or two.
        if self._pos > 65536 and self._pos * 2 > len(self._buf):
            del self._buf[:self._pos]
            self._pos = 0
        return message

    # ---- the reader thread ---------------------------------------------------------------------------

    def _read_loop(self):
        closing = None
        error = None
        try:
            while True:
                message = self._take_message()
                if message is None:
                    data = self._sock.recv(262144)
                    if not data:
                        break
                    self._buf += data
                    continue
                kind = message.WhichOneof("message")
                if kind == "reply":
                    self._on_reply(message.reply)
                elif kind == "state":
                    self._on_state(message.state)
                elif kind == "event":
                    if message.event.WhichOneof("event") == "closing":
                        closing = message.event.closing.status
                    self._on_event(message.event)
        except ProtocolError as exc:
            error = exc
        except OSError as exc:
            if self._closed is None:
                error = ConnectionClosed(pb.ERR_INTERNAL, "connection lost: %s" % exc)
        if error is None:
            if closing is not None:
                error = ConnectionClosed(closing.code, closing.message)
            else:
                error = ConnectionClosed(pb.ERR_INTERNAL, "the server closed the connection")
        self._fail_all(error)

    def _on_reply(self, reply):
        with self._lock:
            pending = self._pending.pop(reply.request_id, None)
        if pending is None:
            return
        if pending.on_reply is not None and reply.status.code == pb.ERR_OK:
            pending.on_reply(reply)
        pending.reply = reply
        pending.event.set()

    def _on_state(self, frame):
        with self._lock:
            sub = self._subscriptions.get(frame.subscription_id)
            if sub is None:
                # A frame can only precede its subscription's registration if the reply hook has not run;
                # keep the latest one per id for a moment (bounded by the subscription limit).
                if len(self._early_frames) < 128:
                    self._early_frames[frame.subscription_id] = frame
                return
        sub.deliver(frame)

    def _on_event(self, event):
        if event.WhichOneof("event") == "contacts":
            with self._lock:
                sub = self._subscriptions.get(event.contacts.subscription_id)
            if sub is not None:
                sub.deliver_events(event.contacts)
        with self._lock:
            self._events.append(event)
            listeners = list(self._event_listeners)
            self._event_cond.notify_all()
        for listener in listeners:
            listener(event)

    def _fail_all(self, error):
        with self._lock:
            if self._closed is None:
                self._closed = error
            pending = list(self._pending.values())
            self._pending.clear()
            subs = list(self._subscriptions.values())
            self._event_cond.notify_all()
        for p in pending:
            p.error = self._closed
            p.event.set()
        for sub in subs:
            sub.end(self._closed)

    # ---- requests ------------------------------------------------------------------------------------

    def request(self, command: str, message: Any, timeout: Optional[float] = None,
                on_reply: Optional[Callable[[Any], None]] = None) -> Any:
        """Send one command (the name of ClientMessage's oneof field and its message) and return its
        Reply. Raises SinewError with the server's code and message if it refused the command,
        ConnectionClosed if the connection ended, TimeoutError after `timeout` seconds (default: the
        connection's timeout; None in both waits forever). `on_reply(reply)` runs on the reader thread
        for a successful reply before anything later is read (used to register subscriptions)."""
        with self._lock:
            if self._closed is not None:
                raise self._closed
            rid = self._next_id
            self._next_id += 1
            pending = _Pending(command, on_reply)
            self._pending[rid] = pending
        envelope = pb.ClientMessage(request_id=rid)
        getattr(envelope, command).CopyFrom(message)
        try:
            self._write(envelope)
        except OSError as exc:
            with self._lock:
                self._pending.pop(rid, None)
            raise ConnectionClosed(pb.ERR_INTERNAL, "connection lost: %s" % exc, command) from None
        except BaseException:
            with self._lock:
                self._pending.pop(rid, None)
            raise
        wait = self.timeout if timeout is None else timeout
        if not pending.event.wait(wait if wait is not None and wait > 0 else None):
            with self._lock:
                self._pending.pop(rid, None)
            raise TimeoutError("sinew: no reply to %s within %.3g s" % (command, wait))
        if pending.error is not None:
            raise pending.error
        status = pending.reply.status
        if status.code != pb.ERR_OK:
            raise error_for(status.code, status.message, command)
        return pending.reply

    # ---- subscriptions and events --------------------------------------------------------------------

    def register_subscription(self, sub_id: int, sub: "Subscription") -> None:
        """Frames of `sub_id` go to `sub` from now on (and one that came before the reply did)."""
        with self._lock:
            self._subscriptions[sub_id] = sub
            early = self._early_frames.pop(sub_id, None)
        if early is not None:
            sub.deliver(early)

    def forget_subscription(self, sub_id: int) -> None:
        """No more frames of `sub_id` are delivered."""
        with self._lock:
            self._subscriptions.pop(sub_id, None)
            self._early_frames.pop(sub_id, None)

    def add_event_listener(self, listener: Callable[[Any], None]) -> None:
        """`listener(event)` runs on the reader thread for every Event: keep it short and never call the
        client from it (wait_event() is the way to react to events with calls)."""
        with self._lock:
            self._event_listeners.append(listener)

    def remove_event_listener(self, listener: Callable[[Any], None]) -> None:
        with self._lock:
            if listener in self._event_listeners:
                self._event_listeners.remove(listener)

    def wait_event(self, predicate: Optional[Callable[[Any], bool]] = None,
                   timeout: Optional[float] = None) -> Optional[Any]:
        """Remove and return the oldest kept Event for which predicate(event) is true (any if None),
        waiting up to `timeout` seconds; None if none came. Raises ConnectionClosed once closed and no
        matching event is left."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                for event in self._events:
                    if predicate is None or predicate(event):
                        self._events.remove(event)
                        return event
                if self._closed is not None:
                    raise self._closed
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._event_cond.wait(remaining)

    @property
    def closed(self) -> Optional[ConnectionClosed]:
        """None while open, else the ConnectionClosed that ended it."""
        return self._closed

    def close(self) -> None:
        """End the connection; waiting calls raise ConnectionClosed."""
        with self._lock:
            if self._closed is None:
                self._closed = ConnectionClosed(pb.ERR_OK, "closed by the client")
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        if self._reader is not threading.current_thread():
            self._reader.join(5.0)
