// Pipelined large replies: clients that send hundreds of GetState requests of a 2000-body world at once
// (each reply about 200 KB), some reading their replies as fast as they can, some never reading. While
// they do, a bystander pings every 20 ms: its worst round trip is the figure (bound HOSTILE_PING_BOUND_MS).
// The slow readers must be stopped being read from (their memory stays bounded: RSS is sampled
// throughout) and closed after reply_timeout_ms (3 s here), within a bound derived from the server's
// limits (slow_close_bound_ms), and they are never read from while the test waits: a client that reads,
// however late, is served and rightly kept open.
#include "hostile.h"

#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum
{
	BODIES = 2000,
	FAST = 4,       // pipelining clients that read
	SLOW = 8,       // pipelining clients that never read
	REQUESTS = 400, // GetState requests each sends
	LOAD_SECONDS_MS = 4000,
	SLOW_RECEIVE_BUFFER = 16384 // SO_RCVBUF of a slow reader (Linux doubles it too)
};

typedef struct drainer
{
	int fds[FAST];
	int count;
	atomic_bool stop;
	atomic_ullong bytes;
} drainer;

static void* drain_thread(void* arg)
{
	drainer* d = arg;
	static char buf[1 << 16];
	while (!atomic_load(&d->stop))
	{
		struct pollfd p[FAST];
		for (int i = 0; i < d->count; ++i)
		{
			p[i] = (struct pollfd){ d->fds[i], POLLIN, 0 };
		}
		if (poll(p, (nfds_t)d->count, 20) <= 0)
		{
			continue;
		}
		for (int i = 0; i < d->count; ++i)
		{
			if ((p[i].revents & POLLIN) != 0)
			{
				ssize_t r = recv(d->fds[i], buf, sizeof(buf), MSG_DONTWAIT);
				if (r > 0)
				{
					atomic_fetch_add(&d->bytes, (unsigned long long)r);
				}
			}
		}
	}
	return NULL;
}

// A handshaken raw connection, TCP or WebSocket (the handshake reply is left unread with the rest). A slow
// one has a 16 KiB receive buffer.
static int pipeliner(bool slow, bool websocket)
{
	int status = 0;
	int fd = websocket ? ws_open(target.ws_port, "/", WIRE_WS_SUBPROTOCOL, NULL, &status)
					   : tcp_open_small(target.tcp_port, slow ? SLOW_RECEIVE_BUFFER : 0);
	size_t n = 0;
	uint8_t* hs = handshake_bytes(websocket, "pipeliner", &n);
	if (fd < 0 || !send_all(fd, hs, n, 5000))
	{
		hostile_fail("load", "pipeliner", "cannot connect");
	}
	free(hs);
	return fd;
}

typedef struct pending
{
	int fd;
	const uint8_t* bytes;
	size_t size;
	size_t sent;
} pending;

// Keep writing the requests of every pipeliner without blocking; ping and sample RSS every 20 ms.
static void run_load(family* f, pending* p, int count, double ms, const char* what, size_t* peak_rss)
{
	double end = now_ms() + ms;
	while (now_ms() < end)
	{
		for (int i = 0; i < count; ++i)
		{
			if (p[i].sent < p[i].size)
			{
				ssize_t n = send_some(p[i].fd, p[i].bytes + p[i].sent, p[i].size - p[i].sent);
				p[i].sent += n > 0 ? (size_t)n : 0;
			}
		}
		note_ping_under_load(f, what, bystander_ping_ms(bystander_tcp));
		size_t rss = server_rss(&target);
		if (rss > *peak_rss)
		{
			*peak_rss = rss;
		}
		sleep_ms(20);
	}
}

// The longest the server may take to close a client that never reads, from its connection, ms. A pass of
// the loop takes at most HOSTILE_PING_BOUND_MS (a bystander's ping waits at most one pass, and is checked
// against that bound all along). The client's handshake is read within a pass; then each pass writes it
// at least one reply until the kernel's buffers between the two are full (twice the server's send buffer
// and twice the client's receive buffer). The oldest reply then waits undelivered: after reply_timeout_ms
// the next housekeeping (at most a period and a pass late) closes the session, whose Closing event cannot
// be flushed to a client that does not read, so one more housekeeping after CLOSE_FLUSH_MS closes the
// connection. With 89 KB replies that is 10 passes and 4.2 s: 14.2 s; a run on an idle machine closes
// them within about 5 s of their connection. The time the loop thread waited for a CPU other processes
// had is added to it (passes stretch by it; the timeouts may overlap it, so on a starved machine the
// bound is looser, never tighter).
static double slow_close_bound_ms(size_t reply_size)
{
	size_t kernel_bytes = 2 * (size_t)HOSTILE_SOCKET_SEND_BUFFER_BYTES + 2 * (size_t)SLOW_RECEIVE_BUFFER;
	double passes = 1.0 + (double)((kernel_bytes + reply_size - 1) / reply_size) + 2.0;
	return passes * HOSTILE_PING_BOUND_MS + HOSTILE_REPLY_TIMEOUT_MS + SINEWD_CLOSE_FLUSH_MS +
		2.0 * SINEWD_HOUSEKEEPING_MS;
}

// Has the server closed this connection? Seen without reading from it (reading would make it a reader the
// server keeps serving): a closed socket answers data sent to it with a reset, so a whole Ping is sent
// (finishing one cut short first) and the socket is asked for an error or hang-up.
typedef struct probe
{
	const uint8_t* bytes;
	size_t size;
	size_t sent;
} probe;

static bool closed_unread(int fd, probe* pr)
{
	struct pollfd p = { fd, 0, 0 };
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP)) != 0)
	{
		return true;
	}
	ssize_t n = send_some(fd, pr->bytes + pr->sent, pr->size - pr->sent);
	if (n < 0)
	{
		return true;
	}
	pr->sent = (pr->sent + (size_t)n) % pr->size;
	return false;
}

// A world made heavy after it was created (a chain, then many substeps of 100 iterations) stepped once:
// its first step must not run on the loop thread, however cheap the empty world looked.
static void heavy_step(family* f, snc_client* owner)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_world_tag;
	snc_message reply;
	if (snc_request(owner, &m, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
	{
		hostile_fail(f->name, "heavy step", "create_world failed");
	}
	uint64_t world = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	uint64_t previous = 0;
	for (int i = 0; i < 40; ++i)
	{
		m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_body_tag;
		m.command.create_body.world_id = world;
		m.command.create_body.has_body = true;
		m.command.create_body.body.has_pose = true;
		m.command.create_body.body.pose.has_position = true;
		m.command.create_body.body.pose.position.x = 0.5 * i + 0.25;
		if (snc_request(owner, &m, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
		{
			hostile_fail(f->name, "heavy step", "create_body failed");
		}
		uint64_t body = reply.msg.message.reply.result.created.id;
		snc_message_free(&reply);
		m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_joint_tag;
		m.command.create_joint.world_id = world;
		m.command.create_joint.has_base = true;
		m.command.create_joint.base.body_a = previous;
		m.command.create_joint.base.body_b = body;
		m.command.create_joint.base.has_frame_b = true;
		m.command.create_joint.base.frame_b.has_position = true;
		m.command.create_joint.base.frame_b.position.x = -0.25;
		m.command.create_joint.which_type = sinew_v1_CreateJoint_spherical_tag;
		if (snc_request(owner, &m, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
		{
			hostile_fail(f->name, "heavy step", "create_joint failed");
		}
		snc_message_free(&reply);
		previous = body;
	}
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_configure_world_tag;
	m.command.configure_world.world_id = world;
	m.command.configure_world.has_settings = true;
	m.command.configure_world.settings.has_substeps = true;
	// About 1.3 s of stepping in the release build; a tenth of the substeps under the sanitizers, which
	// are some 20 times slower: still seconds, far above the ping bound.
#if defined(HOSTILE_SANITIZED)
	m.command.configure_world.settings.substeps = 100;
#else
	m.command.configure_world.settings.substeps = 1000;
#endif
	m.command.configure_world.settings.has_position_iterations = true;
	m.command.configure_world.settings.position_iterations = 100;
	if (snc_request(owner, &m, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
	{
		hostile_fail(f->name, "heavy step", "configure_world failed");
	}
	snc_message_free(&reply);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_step_tag;
	m.command.step.world_id = world;
	m.command.step.count = 1;
	double t0 = now_ms();
	snc_send(owner, &m);
	uint64_t id = m.request_id;
	// Ping while it steps, until its reply comes.
	for (;;)
	{
		note_ping_under_load(f, "one heavy step", bystander_ping_ms(bystander_tcp));
		snc_message r;
		int err = snc_receive(owner, &r, 20);
		if (err == 0)
		{
			bool done = r.msg.which_message == sinew_v1_ServerMessage_reply_tag && r.msg.message.reply.request_id == id;
			snc_message_free(&r);
			if (done)
			{
				break;
			}
		}
		else if (err != -ETIMEDOUT || now_ms() - t0 > 120000)
		{
			hostile_fail(f->name, "heavy step", "no reply to the step");
		}
	}
	figure("heavy_step_ms=%.0f ping_during_heavy_step_ms=%.1f", now_ms() - t0, f->worst_ping_under_load_ms);
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_destroy_world_tag;
	m.command.destroy_world.world_id = world;
	if (snc_request(owner, &m, &reply, 20000) == 0)
	{
		snc_message_free(&reply);
	}
	check_alive(f, "one heavy step");
}

void attack_load(void)
{
	family f;
	family_begin(&f, "load");
	// The world: 2000 bodies, created pipelined.
	snc_options o = snc_default_options();
	o.port = target.tcp_port;
	snc_client* owner = NULL;
	if (snc_connect(&o, &owner) != 0 || snc_handshake(owner, "load-owner", NULL, sinew_v1_Role_ROLE_CONTROLLER, NULL))
	{
		hostile_fail(f.name, "owner", "cannot connect");
	}
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_world_tag;
	snprintf(m.command.create_world.name, sizeof(m.command.create_world.name), "load");
	snc_message reply;
	if (snc_request(owner, &m, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
	{
		hostile_fail(f.name, "owner", "create_world failed");
	}
	uint64_t world = reply.msg.message.reply.result.created.id;
	snc_message_free(&reply);
	heavy_step(&f, owner);
	double heavy_worst = f.worst_ping_under_load_ms;
	f.worst_ping_under_load_ms = 0;
	for (int i = 0; i < BODIES; ++i)
	{
		m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_create_body_tag;
		m.command.create_body.world_id = world;
		m.command.create_body.has_body = true;
		m.command.create_body.body.has_pose = true;
		m.command.create_body.body.pose.has_position = true;
		m.command.create_body.body.pose.position.x = i;
		m.command.create_body.body.has_linear_velocity = true;
		m.command.create_body.body.linear_velocity.y = 1;
		snc_send(owner, &m);
	}
	for (int i = 0; i < BODIES; ++i)
	{
		if (snc_receive(owner, &reply, 20000) != 0 || snc_reply_code(&reply) != 0)
		{
			hostile_fail(f.name, "owner", "create_body %d failed", i);
		}
		snc_message_free(&reply);
	}
	// The requests each pipeliner sends: REQUESTS GetStates of poses and velocities.
	m = (sinew_v1_ClientMessage)sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_get_state_tag;
	m.command.get_state.world_id = world;
	m.command.get_state.include = sinew_v1_Include_INCLUDE_POSES | sinew_v1_Include_INCLUDE_VELOCITIES;
	if (snc_request(owner, &m, &reply, 20000) != 0)
	{
		hostile_fail(f.name, "owner", "get_state failed");
	}
	size_t reply_size = reply.wire_size;
	snc_message_free(&reply);
	// One client's GetStates back to back: the cost of one reply on the loop (encoding and writing).
	double t_serial = now_ms();
	for (int i = 0; i < 20; ++i)
	{
		if (snc_request(owner, &m, &reply, 20000) != 0)
		{
			hostile_fail(f.name, "owner", "get_state failed");
		}
		snc_message_free(&reply);
	}
	double get_state_ms = (now_ms() - t_serial) / 20;
	size_t one = 0;
	uint8_t* single = encode_tcp(&m, &one);
	size_t all_size = one * REQUESTS;
	uint8_t* all = malloc(all_size);
	for (int i = 0; i < REQUESTS; ++i)
	{
		memcpy(all + (size_t)i * one, single, one);
	}
	free(single);
	// The same requests as WebSocket frames, for the pipeliners that use it.
	size_t bare = 0;
	uint8_t* message = encode_message(&m, &bare);
	uint8_t* frames = malloc((bare + 14) * REQUESTS);
	size_t frames_size = 0;
	for (int i = 0; i < REQUESTS; ++i)
	{
		frames_size += ws_frame(frames + frames_size, true, 0, 2, true, message, bare, UINT64_MAX);
	}
	free(message);
	figure("load_world_bodies=%d get_state_reply_bytes=%zu get_state_round_trip_ms=%.2f requests_per_client=%d", BODIES,
		   reply_size, get_state_ms, REQUESTS);
	size_t baseline = server_rss(&target);

	// 1. Pipeliners that read.
	drainer d;
	memset(&d, 0, sizeof(d));
	atomic_init(&d.stop, false);
	atomic_init(&d.bytes, 0);
	pending p[FAST + SLOW];
	for (int i = 0; i < FAST; ++i)
	{
		bool websocket = i % 2 == 1; // half of them over WebSocket
		d.fds[d.count++] = pipeliner(false, websocket);
		p[i] = websocket ? (pending){ d.fds[i], frames, frames_size, 0 } : (pending){ d.fds[i], all, all_size, 0 };
	}
	pthread_t thread;
	pthread_create(&thread, NULL, drain_thread, &d);
	size_t peak = baseline;
	double t0 = now_ms();
	run_load(&f, p, FAST, LOAD_SECONDS_MS, "4 clients pipelining GetState (2 TCP, 2 WebSocket), reading", &peak);
	double fast_worst = f.worst_ping_under_load_ms;
	double mib_per_s = (double)atomic_load(&d.bytes) / 1048576.0 / ((now_ms() - t0) * 1e-3);
	check_alive(&f, "4 clients pipelining GetState (2 TCP, 2 WebSocket), reading");

	// 2. Pipeliners that never read, while the readers go on.
	for (int i = 0; i < FAST; ++i)
	{
		p[i].sent = 0; // another round of requests for the readers
	}
	for (int i = FAST; i < FAST + SLOW; ++i)
	{
		p[i] = (pending){ pipeliner(true, false), all, all_size, 0 };
	}
	f.worst_ping_under_load_ms = 0;
	size_t slow_peak = baseline;
	double slow_start = now_ms();
	double slow_cpu_wait = server_cpu_wait_ms();
	const char* slow_attack = "8 clients pipelining GetState, never reading";
	run_load(&f, p, FAST + SLOW, LOAD_SECONDS_MS, slow_attack, &slow_peak);
	// Then, still never reading from them, until the server has closed each (or the bound has passed),
	// the bystander's pings and the RSS go on being measured.
	sinew_v1_ClientMessage ping = sinew_v1_ClientMessage_init_zero;
	ping.request_id = 7;
	ping.which_command = sinew_v1_ClientMessage_ping_tag;
	size_t ping_size = 0;
	uint8_t* ping_bytes = encode_tcp(&ping, &ping_size);
	probe probes[SLOW];
	bool seen_closed[SLOW];
	for (int i = 0; i < SLOW; ++i)
	{
		probes[i] = (probe){ ping_bytes, ping_size, 0 };
		seen_closed[i] = false;
	}
	double bound_ms = slow_close_bound_ms(reply_size);
	int closed = 0;
	double slow_closed_ms = 0;
	double not_counted_ms = 0;
	while (closed < SLOW && now_ms() - slow_start - not_counted_ms <= bound_ms)
	{
		run_load(&f, p, FAST, 20, slow_attack, &slow_peak); // the readers' requests, a ping, the RSS
		for (int i = 0; i < SLOW; ++i)
		{
			if (!seen_closed[i] && closed_unread(p[FAST + i].fd, &probes[i]))
			{
				seen_closed[i] = true;
				closed += 1;
				slow_closed_ms = now_ms() - slow_start;
			}
		}
		not_counted_ms = server_cpu_wait_ms() - slow_cpu_wait;
	}
	free(ping_bytes);
	for (int i = FAST; i < FAST + SLOW; ++i)
	{
		close(p[i].fd);
	}
	double slow_worst = f.worst_ping_under_load_ms;
	atomic_store(&d.stop, true);
	pthread_join(thread, NULL);
	for (int i = 0; i < FAST; ++i)
	{
		close(d.fds[i]);
	}
	if (closed != SLOW)
	{
		hostile_fail(f.name, "slow readers",
					 "%d of %d clients that never read were closed within %.0f ms (and %.0f ms of waiting for a CPU)",
					 closed, SLOW, bound_ms, not_counted_ms);
	}
	check_alive(&f, "8 clients pipelining GetState, never reading");
	f.worst_ping_under_load_ms = fast_worst > slow_worst ? fast_worst : slow_worst;
	f.worst_ping_under_load_ms = heavy_worst > f.worst_ping_under_load_ms ? heavy_worst : f.worst_ping_under_load_ms;
	double growth_mib = (double)(slow_peak > baseline ? slow_peak - baseline : 0) / 1048576.0;
	figure("ping_under_fast_pipeliners_ms=%.1f ping_under_slow_readers_ms=%.1f replies_mib_per_s=%.1f", fast_worst,
		   slow_worst, mib_per_s);
	figure(
		"rss_baseline_mib=%.1f rss_peak_under_slow_readers_mib=%.1f growth_mib=%.1f slow_readers_closed_within_ms=%.0f "
		"slow_readers_close_bound_ms=%.0f cpu_wait_not_counted_ms=%.0f",
		(double)baseline / 1048576.0, (double)slow_peak / 1048576.0, growth_mib, slow_closed_ms, bound_ms,
		not_counted_ms);
#if !defined(HOSTILE_SANITIZED)
	// Each slow reader holds at most outbox_pause_bytes (1 MiB) of replies, one write in flight (1 MiB),
	// one reply being encoded and the kernel's buffers: about 3 MiB. 8 of them and the 4 readers, with
	// the allocator's slack: 64 MiB. (Under ASan freed memory waits in its quarantine: not measured.)
	if (growth_mib > 64.0)
	{
		hostile_fail(f.name, "slow readers", "the server grew by %.1f MiB", growth_mib);
	}
#endif
	free(all);
	free(frames);
	snc_close(owner);
	family_end(&f);
}
