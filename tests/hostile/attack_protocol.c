// Protocol misuse: first messages that are not a handshake (none, unknown, another command), oversized and
// malformed length prefixes before the handshake, wrong versions and roles, a second handshake, tokens
// that are almost right (a trailing NUL and junk, a prefix, a longer one, another case) against a server
// that requires one, and a thousand pipelined requests past max_requests_in_flight.
#include "hostile.h"

#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A new TCP client without a handshake.
static snc_client* raw_client(int port)
{
	snc_options o = snc_default_options();
	o.port = port;
	snc_client* c = NULL;
	if (snc_connect(&o, &c) != 0)
	{
		hostile_fail("protocol", "connect", "cannot connect");
	}
	return c;
}

// Read until the server closes; the Closing event's code (0 if none came).
static int32_t closing_code(snc_client* c, const char* what)
{
	int32_t code = 0;
	double deadline = now_ms() + HOSTILE_CLOSE_WAIT_MS;
	for (;;)
	{
		snc_message m;
		int err = snc_receive(c, &m, 250);
		if (err == -ETIMEDOUT)
		{
			if (now_ms() > deadline)
			{
				hostile_fail("protocol", what, "the connection was not closed");
			}
			continue;
		}
		if (err != 0)
		{
			return code;
		}
		if (m.msg.which_message == sinew_v1_ServerMessage_event_tag &&
			m.msg.message.event.which_event == sinew_v1_Event_closing_tag)
		{
			code = m.msg.message.event.event.closing.status.code;
		}
		snc_message_free(&m);
	}
}

// Send `body` framed as a TCP message (or raw bytes as they are) on a new connection and expect the
// server to close it with `expected`.
static void expect_closed(family* f, const char* what, const void* bytes, size_t size, bool frame, int32_t expected)
{
	snc_client* c = raw_client(target.tcp_port);
	if (frame)
	{
		uint8_t* framed = malloc(size + WIRE_VARINT_MAX);
		size_t p = wire_varint_put(framed, size);
		memcpy(framed + p, bytes, size);
		snc_send_raw(c, framed, p + size);
		free(framed);
	}
	else
	{
		snc_send_raw(c, bytes, size);
	}
	int32_t code = closing_code(c, what);
	snc_close(c);
	if (code != expected)
	{
		hostile_fail(f->name, what, "closed with %d, expected %d", (int)code, (int)expected);
	}
	check_alive(f, what);
}

static void handshake_case(family* f, const char* what, uint32_t version, int role, int32_t expected)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = (sinew_v1_ProtocolVersion)version;
	m.command.handshake.role = (sinew_v1_Role)role;
	size_t size = 0;
	uint8_t* body = encode_message(&m, &size);
	expect_closed(f, what, body, size, true, expected);
	free(body);
}

// Handshake with a token given as raw bytes (which may hold a NUL): accepted or not.
static bool token_accepted(const hostile_server* guarded, const char* token, size_t token_size)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.request_id = 1;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	memset(m.command.handshake.token, 0x7f, token_size); // a marker, replaced below
	size_t size = 0;
	uint8_t* bytes = encode_tcp(&m, &size);
	for (size_t i = 0; i + token_size <= size && token_size > 0; ++i)
	{
		if (memcmp(bytes + i, m.command.handshake.token, token_size) == 0)
		{
			memcpy(bytes + i, token, token_size);
			break;
		}
	}
	snc_client* c = raw_client(guarded->tcp_port);
	snc_send_raw(c, bytes, size);
	free(bytes);
	bool accepted = false;
	snc_message r;
	if (snc_receive(c, &r, 10000) == 0)
	{
		accepted = r.msg.which_message == sinew_v1_ServerMessage_handshake_tag &&
			r.msg.message.handshake.status.code == sinew_v1_ErrorCode_ERR_OK;
		snc_message_free(&r);
	}
	if (!accepted)
	{
		closing_code(c, "token");
	}
	snc_close(c);
	return accepted;
}

void attack_protocol(void)
{
	family f;
	family_begin(&f, "protocol");
	// First messages that are not a handshake: answered NOT_HANDSHAKEN and closed.
	expect_closed(&f, "empty first message", "", 0, true, sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	static const uint8_t unknown[] = { 0x08, 0x05, 0x9a, 0x06, 0x00 }; // request 5, field 99
	expect_closed(&f, "unknown first command", unknown, sizeof(unknown), true, sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_ping_tag;
	size_t size = 0;
	uint8_t* body = encode_message(&m, &size);
	expect_closed(&f, "ping first", body, size, true, sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	free(body);
	m.which_command = sinew_v1_ClientMessage_list_worlds_tag;
	body = encode_message(&m, &size);
	expect_closed(&f, "list_worlds first", body, size, true, sinew_v1_ErrorCode_ERR_NOT_HANDSHAKEN);
	free(body);
	// Before the handshake at most a handshake's worth of bytes is buffered.
	uint8_t prefix[WIRE_VARINT_MAX];
	size = wire_varint_put(prefix, 2000);
	expect_closed(&f, "2000-byte length prefix before the handshake", prefix, size, false,
				  sinew_v1_ErrorCode_ERR_MESSAGE_TOO_LARGE);
	size = wire_varint_put(prefix, UINT64_MAX);
	expect_closed(&f, "2^64 - 1 length prefix", prefix, size, false, sinew_v1_ErrorCode_ERR_MESSAGE_TOO_LARGE);
	static const uint8_t endless[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	expect_closed(&f, "a varint that never ends", endless, sizeof(endless), false, sinew_v1_ErrorCode_ERR_BAD_MESSAGE);
	static const uint8_t garbage[] = { 0x05, 0xff, 0xff, 0xff, 0xff, 0xff };
	expect_closed(&f, "a first message that does not decode", garbage, sizeof(garbage), false,
				  sinew_v1_ErrorCode_ERR_BAD_MESSAGE);
	// Handshakes that are refused.
	handshake_case(&f, "protocol version 0", 0, sinew_v1_Role_ROLE_CONTROLLER, sinew_v1_ErrorCode_ERR_WRONG_VERSION);
	handshake_case(&f, "protocol version 2", 2, sinew_v1_Role_ROLE_CONTROLLER, sinew_v1_ErrorCode_ERR_WRONG_VERSION);
	handshake_case(&f, "protocol version 2^32 - 1", UINT32_MAX, sinew_v1_Role_ROLE_CONTROLLER,
				   sinew_v1_ErrorCode_ERR_WRONG_VERSION);
	handshake_case(&f, "role 99", 1, 99, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);
	handshake_case(&f, "role -1", 1, -1, sinew_v1_ErrorCode_ERR_INVALID_ARGUMENT);

	// A second handshake: refused, the session goes on.
	snc_client* c = raw_client(target.tcp_port);
	if (snc_handshake(c, "twice", NULL, sinew_v1_Role_ROLE_CONTROLLER, NULL) != 0)
	{
		hostile_fail(f.name, "second handshake", "the first handshake failed");
	}
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	snc_message reply;
	if (snc_request(c, &m, &reply, 10000) != 0 || snc_reply_code(&reply) != sinew_v1_ErrorCode_ERR_ALREADY_HANDSHAKEN)
	{
		hostile_fail(f.name, "second handshake", "not refused with ALREADY_HANDSHAKEN");
	}
	snc_message_free(&reply);
	// A thousand pipelined pings (max_requests_in_flight is 64): all answered, in order.
	for (int i = 0; i < 1000; ++i)
	{
		m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_ping_tag;
		m.request_id = 50000 + (uint64_t)i;
		if (snc_send(c, &m) != 0)
		{
			hostile_fail(f.name, "pipelined pings", "send failed");
		}
	}
	for (int i = 0; i < 1000; ++i)
	{
		snc_message r;
		if (snc_receive(c, &r, 20000) != 0 || r.msg.which_message != sinew_v1_ServerMessage_reply_tag ||
			r.msg.message.reply.request_id != 50000 + (uint64_t)i)
		{
			hostile_fail(f.name, "pipelined pings", "reply %d missing or out of order", i);
		}
		snc_message_free(&r);
	}
	snc_close(c);
	check_alive(&f, "second handshake and 1000 pipelined pings");

	// Tokens, against a second server that requires one.
	hostile_server guarded;
	static char long_token[128];
	memset(long_token, 'a', 127);
	memcpy(long_token, "s3cret", 6);
	static const char* const args[] = { "--token", "s3cret", "--log-level", "warn", NULL };
	server_start(&guarded, args);
	static const struct
	{
		const char* name;
		const char* token;
		size_t size;
		bool accepted;
	} tokens[] = {
		{ "the token", "s3cret", 6, true },
		{ "a trailing NUL and junk", "s3cret\0junk", 11, false },
		{ "a trailing NUL", "s3cret\0", 7, false },
		{ "a prefix", "s3cre", 5, false },
		{ "one more byte", "s3cretX", 7, false },
		{ "another case", "S3CRET", 6, false },
		{ "none", "", 0, false },
		{ "127 bytes (the token, then 121 more)", long_token, 127, false },
	};
	for (size_t i = 0; i < sizeof(tokens) / sizeof(tokens[0]); ++i)
	{
		bool accepted = token_accepted(&guarded, tokens[i].token, tokens[i].size);
		f.attacks += 1;
		if (accepted != tokens[i].accepted)
		{
			server_stop(&guarded);
			hostile_fail(f.name, tokens[i].name, "the token was %s", accepted ? "accepted" : "refused");
		}
	}
	int code = server_stop(&guarded);
	if (code != 0)
	{
		hostile_fail(f.name, "tokens", "the token server exited with %d", code);
	}
	check_alive(&f, "tokens");
	family_end(&f);
}
