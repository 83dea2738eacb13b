// WebSocket upgrade and frame abuse: upgrades without or with the wrong subprotocol, version or key;
// frames that break RFC 6455 (unmasked, reserved bits, unknown opcodes, oversized or fragmented control
// frames, stray continuations, 2^63-byte lengths), text frames, messages above the limits before and after
// the handshake, ten thousand one-byte fragments, ping floods and malformed close frames. A frame that
// breaks the protocol must end its connection; nothing may end the server.
#include "hostile.h"

#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum
{
	OP_CONT = 0,
	OP_TEXT = 1,
	OP_BINARY = 2,
	OP_CLOSE = 8,
	OP_PING = 9
};

// An upgrade request as written (no subprotocol check on our side): answered, closed or refused.
static void upgrade_attack(family* f, const char* name, const char* request)
{
	int fd = tcp_open(target.ws_port);
	if (fd < 0)
	{
		hostile_fail(f->name, name, "cannot connect");
	}
	send_all(fd, request, strlen(request), 3000);
	char response[4096];
	size_t kept = 0;
	read_until_closed(fd, response, sizeof(response) - 1, &kept, 400);
	response[kept] = '\0';
	close(fd);
	if (strncmp(response, "HTTP/1.1 101", 12) == 0 && strstr(name, "accept") == NULL)
	{
		hostile_fail(f->name, name, "the server upgraded a connection it should have refused");
	}
	check_alive(f, name);
}

// A sinew.v1 WebSocket, handshaken unless `raw`.
static int ws_session(family* f, const char* name, bool raw)
{
	int status = 0;
	int fd = ws_open(target.ws_port, "/", WIRE_WS_SUBPROTOCOL, NULL, &status);
	if (fd < 0)
	{
		hostile_fail(f->name, name, "the sinew.v1 upgrade was answered %d", status);
	}
	if (!raw)
	{
		size_t n = 0;
		uint8_t* hs = handshake_bytes(true, "ws-attacker", &n);
		send_all(fd, hs, n, 3000);
		free(hs);
	}
	return fd;
}

// Send frames on a session; the server must close it (must_close: what the server itself refuses) or at
// least survive it (what libwebsockets decides: it tolerates some violations, unmasked frames among them).
static void frame_attack(family* f, const char* name, bool raw, const uint8_t* bytes, size_t size, bool must_close)
{
	int fd = ws_session(f, name, raw);
	send_all(fd, bytes, size, 5000);
	bool closed = wait_closed(fd, must_close ? HOSTILE_CLOSE_WAIT_MS : 300);
	close(fd);
	if (must_close && !closed)
	{
		hostile_fail(f->name, name, "the connection was not closed");
	}
	check_alive(f, name);
}

void attack_websocket(void)
{
	family f;
	family_begin(&f, "websocket");
	const char* key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
	char request[8192];

	// ---- upgrades ----
	snprintf(request, sizeof(request),
			 "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 13\r\n\r\n",
			 key);
	upgrade_attack(&f, "upgrade without a subprotocol", request);
	snprintf(request, sizeof(request),
			 "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sinew.v2\r\n\r\n",
			 key);
	upgrade_attack(&f, "upgrade with another subprotocol", request);
	snprintf(request, sizeof(request),
			 "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 99\r\nSec-WebSocket-Protocol: sinew.v1\r\n\r\n",
			 key);
	upgrade_attack(&f, "upgrade with version 99 (lws accepts it)", request);
	upgrade_attack(&f, "upgrade without a key",
				   "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
				   "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sinew.v1\r\n\r\n");
	snprintf(request, sizeof(request),
			 "POST / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sinew.v1\r\nContent-Length: 3\r\n\r\nabc",
			 key);
	upgrade_attack(&f, "upgrade by POST (may be accepted)", request);
	size_t n = (size_t)snprintf(request, sizeof(request),
								"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
								"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ",
								key);
	for (int i = 0; i < 150 && n + 32 < sizeof(request); ++i)
	{
		n += (size_t)snprintf(request + n, sizeof(request) - n, "p%d, ", i);
	}
	snprintf(request + n, sizeof(request) - n, "sinew.v1\r\n\r\n");
	upgrade_attack(&f, "upgrade offering 150 subprotocols (may be accepted)", request);
	snprintf(request, sizeof(request),
			 "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sin",
			 key);
	upgrade_attack(&f, "truncated upgrade", request);
	snprintf(request, sizeof(request),
			 "GET /no/such/path HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s"
			 "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: sinew.v1\r\n"
			 "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n",
			 key);
	upgrade_attack(&f, "upgrade elsewhere with compression asked (may be accepted)", request);

	// ---- frames ----
	static uint8_t frame[2 * 1024 * 1024];
	static uint8_t payload[1100000];
	memset(payload, 0x41, sizeof(payload));
	size_t size = ws_frame(frame, true, 0, OP_BINARY, false, payload, 10, UINT64_MAX);
	frame_attack(&f, "unmasked client frame", false, frame, size, false);
	size = ws_frame(frame, true, 3, OP_BINARY, true, payload, 10, UINT64_MAX);
	frame_attack(&f, "reserved bits set", false, frame, size, false);
	size = ws_frame(frame, true, 0, 3, true, payload, 10, UINT64_MAX);
	frame_attack(&f, "unknown data opcode", false, frame, size, false);
	size = ws_frame(frame, true, 0, 0xb, true, payload, 4, UINT64_MAX);
	frame_attack(&f, "unknown control opcode", false, frame, size, false);
	static const uint8_t bad_text[] = { 0xff, 0xfe, 0xc0, 0x80 };
	size = ws_frame(frame, true, 0, OP_TEXT, true, bad_text, sizeof(bad_text), UINT64_MAX);
	frame_attack(&f, "text frame of invalid UTF-8", false, frame, size, true);
	size = ws_frame(frame, true, 0, OP_PING, true, payload, 200, UINT64_MAX);
	frame_attack(&f, "ping of 200 bytes (control frames hold 125)", false, frame, size, false);
	size = ws_frame(frame, false, 0, OP_PING, true, payload, 4, UINT64_MAX);
	frame_attack(&f, "fragmented ping", false, frame, size, false);
	size = ws_frame(frame, true, 0, OP_CONT, true, payload, 10, UINT64_MAX);
	frame_attack(&f, "continuation without a start", false, frame, size, false);
	size = ws_frame(frame, false, 0, OP_BINARY, true, payload, 10, UINT64_MAX);
	size += ws_frame(frame + size, true, 0, OP_BINARY, true, payload, 10, UINT64_MAX);
	frame_attack(&f, "new message inside a fragmented one", false, frame, size, false);
	size = ws_frame(frame, true, 0, OP_BINARY, true, payload, 0, (uint64_t)1 << 63);
	frame_attack(&f, "length 2^63", false, frame, size, false);
	size = ws_frame(frame, true, 0, OP_BINARY, true, payload, 1000, (uint64_t)1 << 62);
	frame_attack(&f, "length 2^62 with 1000 bytes", false, frame, size, false);
	size = ws_frame(frame, true, 0, OP_BINARY, true, payload, 2048, UINT64_MAX);
	frame_attack(&f, "2 KiB message before the handshake", true, frame, size, true);
	size = ws_frame(frame, true, 0, OP_BINARY, true, payload, 0, UINT64_MAX);
	frame_attack(&f, "empty first message", true, frame, size, true);
	// Above max_message_bytes (1 MiB) after the handshake, in 64 KiB fragments.
	size = 0;
	for (size_t sent = 0; sent < 1048577;)
	{
		size_t part = 1048577 - sent < 65536 ? 1048577 - sent : 65536;
		size += ws_frame(frame + size, sent + part == 1048577, 0, sent == 0 ? OP_BINARY : OP_CONT, true, payload + sent,
						 part, UINT64_MAX);
		sent += part;
	}
	frame_attack(&f, "message of max_message_bytes + 1 in fragments", false, frame, size, true);
	static const uint8_t close_one[] = { 0x03 };
	size = ws_frame(frame, true, 0, OP_CLOSE, true, close_one, 1, UINT64_MAX);
	frame_attack(&f, "close frame of one byte", false, frame, size, false);
	static const uint8_t close_bad[] = { 0x03, 0xe7, 0xff, 0xfe }; // code 999, reason not UTF-8
	size = ws_frame(frame, true, 0, OP_CLOSE, true, close_bad, sizeof(close_bad), UINT64_MAX);
	frame_attack(&f, "close frame with code 999 and an invalid reason", false, frame, size, false);
	size = ws_frame(frame, true, 4, OP_BINARY, true, payload, 10, UINT64_MAX);
	frame_attack(&f, "compressed frame without the extension", false, frame, size, false);

	// Ten thousand one-byte fragments of one valid message (request id 5, an unknown field of 9994
	// bytes): answered (UNKNOWN_COMMAND), the connection goes on.
	static uint8_t message[10000];
	size_t m = 0;
	message[m++] = 0x08;
	message[m++] = 0x05;
	message[m++] = 0x9a; // field 99, length-delimited
	message[m++] = 0x06;
	m += wire_varint_put(message + m, sizeof(message) - m - 2);
	memset(message + m, 'z', sizeof(message) - m);
	size = 0;
	for (size_t i = 0; i < sizeof(message); ++i)
	{
		size += ws_frame(frame + size, i + 1 == sizeof(message), 0, i == 0 ? OP_BINARY : OP_CONT, true, message + i, 1,
						 UINT64_MAX);
	}
	frame_attack(&f, "10000 one-byte fragments", false, frame, size, false);

	// A ping flood whose pongs are never read.
	size = 0;
	for (int i = 0; i < 5000; ++i)
	{
		size += ws_frame(frame + size, true, 0, OP_PING, true, payload, 100, UINT64_MAX);
	}
	frame_attack(&f, "5000 pings, pongs unread", false, frame, size, false);

	// A declared frame whose payload never comes, before the handshake: closed by the handshake timeout.
	size = ws_frame(frame, true, 0, OP_BINARY, true, payload, 10, 900);
	frame_attack(&f, "a frame that never ends, before the handshake", true, frame, size, true);
	family_end(&f);
}
