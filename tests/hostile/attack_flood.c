// Floods past every limit and slow senders.
// Floods: connections past max_connections on both transports (the one past the limit used to crash the
// server), connect-and-close churn on every port, connections reset at once, worlds past max_worlds and
// max_worlds_per_client, subscriptions past their limit, joints past max_joints_per_world.
// Slowloris: connections that send their handshake (TCP, WebSocket) or their HTTP request one byte at a
// time; the server closes them at its handshake timeout (2 s here) while serving everyone else. And sessions
// that trickle a large message, which it closes at min_receive_bytes_per_s.
#include "hostile.h"

#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum
{
	MAX_CONNECTIONS = 48, // as main() starts the server
	FLOOD = 80            // connections opened in a flood
};

static snc_client* client(snc_transport transport, const char* name, bool* refused)
{
	snc_options o = snc_default_options();
	o.transport = transport;
	o.port = transport == SNC_WS ? target.ws_port : target.tcp_port;
	o.timeout_ms = 10000;
	snc_client* c = NULL;
	*refused = false;
	if (snc_connect(&o, &c) != 0)
	{
		*refused = true;
		return NULL;
	}
	sinew_v1_HandshakeReply reply;
	int err = snc_handshake(c, name, NULL, sinew_v1_Role_ROLE_CONTROLLER, &reply);
	if (err != 0)
	{
		*refused = true;
		snc_close(c);
		return NULL;
	}
	return c;
}

static sinew_v1_ClientMessage command(pb_size_t tag)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = tag;
	return m;
}

static int32_t request(snc_client* c, sinew_v1_ClientMessage* m, snc_message* reply)
{
	if (snc_request(c, m, reply, 20000) != 0)
	{
		hostile_fail("floods", "request", "no reply");
	}
	return snc_reply_code(reply);
}

// Connections past max_connections: the first ones are served, the rest told LIMIT_REACHED and closed.
static void connection_flood(family* f, snc_transport transport, const char* what)
{
	static snc_client* held[FLOOD];
	int accepted = 0, refused = 0;
	for (int i = 0; i < FLOOD; ++i)
	{
		bool was_refused = false;
		held[i] = client(transport, "flood", &was_refused);
		accepted += held[i] != NULL;
		refused += was_refused;
	}
	// Two bystanders are connected throughout.
	if (accepted != MAX_CONNECTIONS - 2 || refused != FLOOD - accepted)
	{
		hostile_fail(f->name, what, "%d accepted and %d refused, expected %d and %d", accepted, refused,
					 MAX_CONNECTIONS - 2, FLOOD - (MAX_CONNECTIONS - 2));
	}
	check_alive(f, what);
	// The held ones are served.
	for (int i = 0; i < FLOOD; ++i)
	{
		if (held[i] != NULL)
		{
			bystander_ping_ms(held[i]);
			snc_close(held[i]);
		}
	}
	figure("%s_connections_held=%d refused=%d", transport == SNC_WS ? "ws" : "tcp", accepted + 2, refused);
}

// Raw connections: open and close at once, or reset.
static void churn(family* f, int port, bool reset, const char* what)
{
	for (int i = 0; i < 300; ++i)
	{
		int fd = tcp_open(port);
		if (fd < 0)
		{
			continue;
		}
		if (reset)
		{
			struct linger l = { 1, 0 };
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		}
		close(fd);
	}
	check_alive(f, what);
}

// Kept worlds past max_kept_worlds_per_client (8 here) by reconnecting (one client once kept 1,024 this
// way); then, left alone, they expire after kept_world_idle_ms (1 s here).
static void kept_worlds(family* f)
{
	int kept = 0;
	char refusal[256] = "";
	for (int round = 0; round < 4 && refusal[0] == '\0'; ++round)
	{
		bool refused = false;
		snc_client* c = client(round % 2 == 0 ? SNC_TCP : SNC_WS, "keeper", &refused);
		if (c == NULL)
		{
			hostile_fail(f->name, "kept worlds", "cannot connect");
		}
		for (int i = 0; i < 5; ++i)
		{
			sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_create_world_tag);
			m.command.create_world.keep_after_disconnect = true;
			snc_message reply;
			int32_t code = request(c, &m, &reply);
			if (code == 0)
			{
				kept += 1;
			}
			else if (code == sinew_v1_ErrorCode_ERR_LIMIT_REACHED)
			{
				snprintf(refusal, sizeof(refusal), "%s", snc_reply_text(&reply));
				snc_message_free(&reply);
				break;
			}
			snc_message_free(&reply);
		}
		snc_close(c);
	}
	if (kept != 8 || strstr(refusal, "max_kept_worlds_per_client") == NULL)
	{
		hostile_fail(f->name, "kept worlds", "%d kept across reconnections (expected 8), refusal \"%s\"", kept,
					 refusal);
	}
	check_alive(f, "kept worlds past max_kept_worlds_per_client by reconnecting");
	// Nobody owns, joins or watches them: gone after kept_world_idle_ms.
	double start = now_ms();
	while (metric("sinew_worlds", NULL) > 0.0 && now_ms() - start < HOSTILE_CLOSE_WAIT_MS)
	{
		sleep_ms(100);
	}
	double expired_ms = now_ms() - start;
	if (metric("sinew_worlds", NULL) > 0.0)
	{
		hostile_fail(f->name, "kept worlds", "idle kept worlds were not destroyed");
	}
	figure("kept_worlds_held=%d expired_after_ms=%.0f (kept_world_idle_ms 1000)", kept, expired_ms);
	check_alive(f, "idle kept worlds expire");
}

void attack_floods(void)
{
	family f;
	family_begin(&f, "floods");
	connection_flood(&f, SNC_TCP, "TCP connections past max_connections");
	connection_flood(&f, SNC_WS, "WebSocket connections past max_connections");
	churn(&f, target.tcp_port, false, "300 TCP connect-and-close");
	churn(&f, target.ws_port, false, "300 HTTP connect-and-close");
	churn(&f, target.tcp_port, true, "300 TCP connections reset");
	churn(&f, target.ws_port, true, "300 HTTP connections reset");

	// Worlds past max_worlds_per_client (32) and max_worlds (128): five clients create until refused.
	snc_client* owners[5];
	int worlds = 0;
	char last_limit[256] = "";
	for (int k = 0; k < 5; ++k)
	{
		bool refused = false;
		owners[k] = client(SNC_TCP, "owner", &refused);
		if (owners[k] == NULL)
		{
			hostile_fail(f.name, "worlds", "cannot connect");
		}
		for (int i = 0; i < 40; ++i)
		{
			sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_create_world_tag);
			snc_message reply;
			int32_t code = request(owners[k], &m, &reply);
			if (code == 0)
			{
				worlds += 1;
			}
			else if (code == sinew_v1_ErrorCode_ERR_LIMIT_REACHED)
			{
				snprintf(last_limit, sizeof(last_limit), "%s", snc_reply_text(&reply));
			}
			else
			{
				hostile_fail(f.name, "worlds", "create_world answered %d", (int)code);
			}
			snc_message_free(&reply);
		}
	}
	if (worlds != 128 || strstr(last_limit, "max_worlds") == NULL)
	{
		hostile_fail(f.name, "worlds", "%d worlds held (expected 128), last refusal \"%s\"", worlds, last_limit);
	}
	check_alive(&f, "worlds past max_worlds_per_client and max_worlds");
	figure("worlds_held=%d", worlds);
	// Subscriptions past their limit, joints past theirs, on one of those worlds.
	sinew_v1_ClientMessage m = command(sinew_v1_ClientMessage_list_worlds_tag);
	snc_message list;
	request(owners[0], &m, &list);
	uint64_t world = 0;
	for (int i = 0; i < list.world_count && world == 0; ++i)
	{
		if (list.worlds[i].your_role == sinew_v1_Role_ROLE_OWNER)
		{
			world = list.worlds[i].world_id;
		}
	}
	snc_message_free(&list);
	int subscriptions = 0;
	for (int i = 0; i < 12; ++i)
	{
		m = command(sinew_v1_ClientMessage_subscribe_tag);
		m.command.subscribe.world_id = world;
		m.command.subscribe.rate_hz = 1;
		snc_message reply;
		subscriptions += request(owners[0], &m, &reply) == 0;
		snc_message_free(&reply);
	}
	if (subscriptions != 8)
	{
		hostile_fail(f.name, "subscriptions", "%d subscriptions taken, expected max_subscriptions_per_client (8)",
					 subscriptions);
	}
	uint64_t bodies[2];
	for (int i = 0; i < 2; ++i)
	{
		m = command(sinew_v1_ClientMessage_create_body_tag);
		m.command.create_body.world_id = world;
		snc_message reply;
		request(owners[0], &m, &reply);
		bodies[i] = reply.msg.message.reply.result.created.id;
		snc_message_free(&reply);
	}
	int joints = 0;
	for (int i = 0; i < 70; ++i)
	{
		m = command(sinew_v1_ClientMessage_create_joint_tag);
		m.command.create_joint.world_id = world;
		m.command.create_joint.has_base = true;
		m.command.create_joint.base.body_a = bodies[0];
		m.command.create_joint.base.body_b = bodies[1];
		m.command.create_joint.which_type = sinew_v1_CreateJoint_distance_tag;
		m.command.create_joint.type.distance.length = 1;
		snc_message reply;
		joints += request(owners[0], &m, &reply) == 0;
		snc_message_free(&reply);
	}
	if (joints != 64)
	{
		hostile_fail(f.name, "joints", "%d joints taken, expected max_joints_per_world (64)", joints);
	}
	check_alive(&f, "subscriptions and joints past their limits");
	// Owners leave: their worlds go with them.
	for (int k = 0; k < 5; ++k)
	{
		snc_close(owners[k]);
	}
	double deadline = now_ms() + HOSTILE_CLOSE_WAIT_MS;
	while (metric("sinew_worlds", NULL) != 0.0 && now_ms() < deadline)
	{
		sleep_ms(50);
	}
	if (metric("sinew_worlds", NULL) != 0.0)
	{
		hostile_fail(f.name, "worlds", "worlds left after their owners disconnected");
	}
	kept_worlds(&f);
	family_end(&f);
}

// ---- slowloris ----------------------------------------------------------------------------------------

enum
{
	SLOW = 40 // slow connections of each kind
};

typedef struct slow_conn
{
	int fd;
	const uint8_t* bytes;
	size_t size;
	size_t sent;
	bool closed;
	double closed_ms;
} slow_conn;

// Dribble one byte every 100 ms on every connection until the server closes them all (or the wait ends).
// Returns the time from the start to the last close, ms.
static double dribble(family* f, slow_conn* conns, int count, const char* what)
{
	double start = now_ms();
	double deadline = start + 2000 + HOSTILE_CLOSE_WAIT_MS;
	int open = count;
	double last_close = 0;
	while (open > 0 && now_ms() < deadline)
	{
		for (int i = 0; i < count; ++i)
		{
			slow_conn* c = conns + i;
			if (c->closed)
			{
				continue;
			}
			if (c->sent < c->size && send_some(c->fd, c->bytes + c->sent, 1) == 1)
			{
				c->sent += 1;
			}
			if (!drain(c->fd))
			{
				c->closed = true;
				c->closed_ms = now_ms() - start;
				last_close = c->closed_ms;
				open -= 1;
			}
		}
		note_ping_under_load(f, what, bystander_ping_ms(bystander_tcp));
		sleep_ms(100);
	}
	for (int i = 0; i < count; ++i)
	{
		close(conns[i].fd);
	}
	if (open > 0)
	{
		hostile_fail(f->name, what, "%d of %d slow connections were not closed within %d ms", open, count,
					 2000 + HOSTILE_CLOSE_WAIT_MS);
	}
	return last_close;
}

// Sessions, handshaken, that send the first 300 KiB of a 1 MiB message at once and then a byte every
// 100 ms: the server closes them once the message has not kept min_receive_bytes_per_s (256 KiB/s here, so
// within about 2 s), and gives their buffers back.
static void large_messages_trickled(family* f)
{
	enum
	{
		TRICKLED = 8, // of each transport
		MESSAGE = 1u << 20,
		FIRST = 300u << 10
	};
	static slow_conn conns[2 * TRICKLED];
	static uint8_t frames[2][MESSAGE + 16];
	uint8_t* payload = calloc(1, MESSAGE);
	if (payload == NULL)
	{
		hostile_fail(f->name, "large messages trickled", "out of memory");
	}
	memset(payload, 0x5a, MESSAGE);
	size_t sizes[2];
	sizes[0] = wire_varint_put(frames[0], MESSAGE);
	memcpy(frames[0] + sizes[0], payload, MESSAGE - 16);
	sizes[0] += MESSAGE - 16; // the message is never whole
	sizes[1] = ws_frame(frames[1], true, 0, 2, true, payload, MESSAGE, UINT64_MAX);
	sizes[1] -= 16;
	free(payload);
	int count = 0;
	for (int t = 0; t < 2; ++t)
	{
		for (int i = 0; i < TRICKLED; ++i)
		{
			int fd = -1;
			size_t n = 0;
			uint8_t* hs = handshake_bytes(t == 1, "trickler", &n);
			if (t == 0)
			{
				fd = tcp_open(target.tcp_port);
			}
			else
			{
				int status = 0;
				fd = ws_open(target.ws_port, "/", WIRE_WS_SUBPROTOCOL, NULL, &status);
			}
			if (fd < 0 || !send_all(fd, hs, n, 3000) || !send_all(fd, frames[t], FIRST, 3000))
			{
				hostile_fail(f->name, "large messages trickled", "cannot start a session");
			}
			free(hs);
			conns[count++] = (slow_conn){ fd, frames[t] + FIRST, sizes[t] - FIRST, 0, false, 0 };
		}
	}
	const double held = metric("sinew_receive_buffer_bytes", NULL);
	const double ms = dribble(f, conns, count, "large messages trickled");
	check_alive(f, "large messages trickled");
	double left = metric("sinew_receive_buffer_bytes", NULL);
	for (int i = 0; i < 20 && left != 0.0; ++i)
	{
		sleep_ms(100);
		left = metric("sinew_receive_buffer_bytes", NULL);
	}
	if (left != 0.0)
	{
		hostile_fail(f->name, "large messages trickled", "%.0f receive buffer bytes still held", left);
	}
	figure("trickled_messages_closed_after_ms=%.0f receive_buffer_bytes_held=%.0f (min_receive_bytes_per_s 262144)", ms,
		   held);
}

void attack_slowloris(void)
{
	family f;
	family_begin(&f, "slowloris");
	static slow_conn conns[SLOW];
	// TCP: a handshake, a byte at a time (it would take 2 s + to arrive; the timeout is 2 s).
	size_t hs_size = 0;
	uint8_t* hs = handshake_bytes(false, "slowloris-with-a-long-enough-name-to-take-a-while", &hs_size);
	for (int i = 0; i < SLOW; ++i)
	{
		conns[i] = (slow_conn){ tcp_open(target.tcp_port), hs, hs_size, 0, false, 0 };
	}
	double tcp_ms = dribble(&f, conns, SLOW, "TCP handshakes a byte at a time");
	check_alive(&f, "TCP handshakes a byte at a time");
	free(hs);
	// HTTP: a request's headers a byte at a time.
	static const char request[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a-very-slow-client/1.0\r\n"
								  "Accept: */*\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
	for (int i = 0; i < SLOW; ++i)
	{
		conns[i] = (slow_conn){ tcp_open(target.ws_port), (const uint8_t*)request, sizeof(request) - 1, 0, false, 0 };
	}
	double http_ms = dribble(&f, conns, SLOW, "HTTP headers a byte at a time");
	check_alive(&f, "HTTP headers a byte at a time");
	// WebSocket: upgraded, then the handshake message a byte at a time.
	hs = handshake_bytes(true, "slowloris-with-a-long-enough-name-to-take-a-while", &hs_size);
	int ws = 0;
	for (int i = 0; i < SLOW && i < MAX_CONNECTIONS - 2; ++i)
	{
		int status = 0;
		int fd = ws_open(target.ws_port, "/", WIRE_WS_SUBPROTOCOL, NULL, &status);
		if (fd < 0)
		{
			hostile_fail(f.name, "WebSocket slowloris", "upgrade answered %d", status);
		}
		conns[ws++] = (slow_conn){ fd, hs, hs_size, 0, false, 0 };
	}
	double ws_ms = dribble(&f, conns, ws, "WebSocket handshakes a byte at a time");
	check_alive(&f, "WebSocket handshakes a byte at a time");
	free(hs);
	figure("slowloris_closed_after_ms tcp=%.0f http=%.0f ws=%.0f (handshake_timeout_ms 2000)", tcp_ms, http_ms, ws_ms);
	large_messages_trickled(&f);
	family_end(&f);
}
