// libFuzzer target for the decode-and-dispatch path: bytes as a client would send them over TCP
// (varint-delimited messages) go through the session (framing, decode, handshake, backpressure), the
// command table's gate and every handler, the world hosts and the core, on a real server object without
// sockets. Each input gets a fresh server, which must shut down cleanly; ASan and UBSan watch.
//
// Input: byte 0 holds flags (bit 0: shake hands first, so the fuzzer need not find the handshake), the
// rest is the TCP byte stream.
#include "command.h"
#include "config.h"
#include "log.h"
#include "server.h"
#include "session.h"
#include "wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct memory_conn
{
	session* session;
	bool close_wanted;
	uint64_t messages_out;
} memory_conn;

// Everything written is consumed at once (a client that reads instantly).
static void mem_kick(void* p)
{
	memory_conn* c = p;
	if (c->session == NULL)
	{
		return;
	}
	outbox_item item;
	while (session_pop(c->session, &item))
	{
		c->messages_out += 1;
		session_written(c->session, &item, true);
	}
	if (session_flushed(c->session))
	{
		c->close_wanted = true;
	}
}

static void mem_resume(void* p)
{
	(void)p; // the feeding loop checks session_accepting itself
}

static void mem_close(void* p)
{
	memory_conn* c = p;
	c->close_wanted = true; // detached by the feeding loop, outside the session's own calls
}

static const transport_ops memory_ops = { "tcp", 0, mem_kick, mem_resume, mem_close };

static uv_loop_t loop;
static server_config config;

int LLVMFuzzerInitialize(int* argc, char*** argv);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
	(void)argc;
	(void)argv;
	uv_loop_init(&loop);
	config_default(&config);
	config.demo = false;
	config.workers = 2;
	log_set_level(LOG_ERROR);
	// Small limits keep each input fast; steps run inline where they can.
	config.limits.max_message_bytes = 65536;
	config.limits.max_bodies_per_world = 64;
	config.limits.max_joints_per_world = 64;
	config.limits.max_links_per_articulation = 64;
	config.limits.max_worlds = 16;
	config.limits.max_steps_per_request = 200;
	config.limits.inline_step_budget_us = 1000000;
	config.limits.fast_slice_ms = 1;
	config.limits.lockstep_timeout_ms = 1;
	return 0;
}

static void handshake(session* s)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	uint8_t* bytes = NULL;
	size_t n = 0;
	if (wire_encode_alloc(sinew_v1_ClientMessage_fields, &m, 0, &bytes, &n))
	{
		session_receive(s, bytes, n);
		free(bytes);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size == 0)
	{
		return 0;
	}
	server srv;
	if (server_init(&srv, &loop, &config) != 0)
	{
		abort();
	}
	memory_conn conn = { NULL, false, 0 };
	conn.session = session_open(&srv, &memory_ops, &conn, "fuzz");
	if (conn.session == NULL)
	{
		abort();
	}
	session_admit(conn.session);
	if ((data[0] & 1u) != 0)
	{
		handshake(conn.session);
	}
	// Frame the stream like the TCP transport does, message by message.
	size_t pos = 1;
	while (pos < size && !conn.close_wanted)
	{
		if (!session_accepting(conn.session))
		{
			// Let queued work finish (steps on the workers) before more input.
			uv_run(&loop, UV_RUN_NOWAIT);
			if (!session_accepting(conn.session))
			{
				break;
			}
		}
		uint64_t length = 0;
		int n = wire_varint_get(data + pos, size - pos, &length);
		if (n <= 0 || length > (uint64_t)config.limits.max_message_bytes || length > size - pos - (size_t)n)
		{
			break; // malformed, too large, or truncated: the transport would close here
		}
		session_receive(conn.session, data + pos + n, (size_t)length);
		pos += (size_t)n + (size_t)length;
		uv_run(&loop, UV_RUN_NOWAIT);
	}
	// The client leaves; the server shuts down and must close everything.
	session_detach(conn.session);
	conn.session = NULL;
	server_shutdown(&srv, "fuzz input done");
	while (!srv.stopped)
	{
		uv_run(&loop, UV_RUN_NOWAIT);
		server_housekeeping(&srv);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	server_free(&srv);
	return 0;
}
