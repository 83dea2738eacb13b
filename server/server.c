// The server object: start, housekeeping, clean shutdown.
#include "server.h"

#include "errors.h"
#include "lockstep.h"
#include "log.h"
#include "session.h"
#include "tcp.h"
#include "world_host.h"
#include "ws.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum
{
	HOUSEKEEPING_MS = 100
};

// Shutdown: steps stop this long (or a quarter of the grace, if less) before the grace deadline, so their
// replies go out; a single step still running this long after the deadline is not waited for.
#define SHUTDOWN_REPLY_MARGIN_NS 500000000ull
#define SHUTDOWN_STEP_WAIT_NS 1000000000ull

uint64_t server_now_ns(void)
{
	return uv_hrtime();
}

session* server_session(const server* srv, uint64_t session_id)
{
	return idpool_get(&srv->sessions, session_id);
}

world_host* server_world(const server* srv, uint64_t world_id)
{
	return idpool_get(&srv->worlds, world_id);
}

static void finish_shutdown(server* srv);

void server_housekeeping(server* srv)
{
	uint64_t now = server_now_ns();
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		session* s = srv->sessions.items[i];
		if (s != NULL)
		{
			session_housekeeping(s, now);
		}
	}
	if (!srv->shutting_down)
	{
		world_host_expire_idle(srv, now);
	}
	if (srv->shutting_down && !srv->stopped)
	{
		bool steps_done = srv->stepper.jobs_in_flight == 0 && srv->stepper.batch_count == 0;
		if (srv->sessions.count == 0 && steps_done && !persist_busy(srv))
		{
			finish_shutdown(srv);
		}
		else if (!steps_done &&
				 now - srv->shutdown_ns >
					 (uint64_t)srv->config.limits.shutdown_grace_ms * 1000000u + SHUTDOWN_STEP_WAIT_NS)
		{
			// One step alone outlives the grace (the core cannot stop inside a step): leave without it
			// rather than past every orchestrator's patience. The process's memory goes with it, but the
			// kept worlds that are not stepping go to the state directory first, as at any shutdown.
			log_warn("a step is still running after the shutdown grace; exiting without waiting for it",
					 "grace_ms=%lld jobs=%d", (long long)srv->config.limits.shutdown_grace_ms,
					 srv->stepper.jobs_in_flight);
			persist_final(srv);
			_exit(0);
		}
	}
}

static void on_housekeeping(uv_timer_t* timer)
{
	server_housekeeping(timer->data);
}

// ---- fairness -----------------------------------------------------------------------------------------
//
// Each connection gets a bounded share of a loop pass (session.c). One that used it up yields: it is
// listed here and stops being read from. After the poll phase (where every other connection's input was
// handled) a new pass begins and each listed session, in the order it yielded, takes one more share.
// While any session waits, an idle handle keeps poll from blocking, so the loop goes round at once.

static void on_pass_idle(uv_idle_t* idle)
{
	(void)idle;
}

void server_yield(server* srv, uint64_t session_id)
{
	if (srv->yielded_count == srv->yielded_capacity)
	{
		int capacity = srv->yielded_capacity > 0 ? 2 * srv->yielded_capacity : 16;
		uint64_t* ids = realloc(srv->yielded, (size_t)capacity * sizeof(uint64_t));
		if (ids == NULL)
		{
			// Without room to remember it, let it go on now rather than never.
			session* s = server_session(srv, session_id);
			if (s != NULL)
			{
				s->yielded = false;
			}
			return;
		}
		srv->yielded = ids;
		srv->yielded_capacity = capacity;
	}
	srv->yielded[srv->yielded_count++] = session_id;
	if (srv->pass_open)
	{
		uv_idle_start(&srv->pass_idle, on_pass_idle);
	}
}

static void on_pass_check(uv_check_t* check)
{
	server* srv = check->data;
	srv->pass += 1;
	int n = srv->yielded_count;
	if (n == 0)
	{
		uv_idle_stop(&srv->pass_idle);
		return;
	}
	// Sessions that yield again while being resumed go on the list for the pass after this one.
	uint64_t* ids = srv->yielded;
	srv->yielded = NULL;
	srv->yielded_count = 0;
	srv->yielded_capacity = 0;
	for (int i = 0; i < n; ++i)
	{
		session* s = server_session(srv, ids[i]);
		if (s != NULL)
		{
			session_resume_pass(s);
		}
	}
	free(ids);
	if (srv->yielded_count == 0)
	{
		uv_idle_stop(&srv->pass_idle);
	}
}

int server_init(server* srv, uv_loop_t* loop, const server_config* config)
{
	memset(srv, 0, sizeof(*srv));
	srv->loop = loop;
	srv->config = *config;
	srv->start_ns = server_now_ns();
	idpool_init(&srv->sessions);
	idpool_init(&srv->worlds);
	idpool_init(&srv->subscriptions);
	if (metrics_init(&srv->metrics) != 0 ||
		!asset_store_init(&srv->assets, (size_t)config->limits.max_asset_store_bytes))
	{
		metrics_free(&srv->metrics);
		asset_store_free(&srv->assets);
		return UV_ENOMEM;
	}
	stepper_init(&srv->stepper, srv, config->workers > 0 ? config->workers : 1);
	uv_timer_init(loop, &srv->housekeeping);
	srv->housekeeping.data = srv;
	uv_timer_start(&srv->housekeeping, on_housekeeping, HOUSEKEEPING_MS, HOUSEKEEPING_MS);
	srv->housekeeping_open = true;
	uv_check_init(loop, &srv->pass_check);
	uv_idle_init(loop, &srv->pass_idle);
	srv->pass_check.data = srv;
	srv->pass_idle.data = srv;
	uv_check_start(&srv->pass_check, on_pass_check);
	// The check handle alone must not keep the loop alive.
	uv_unref((uv_handle_t*)&srv->pass_check);
	srv->pass_open = true;
	return 0;
}

static int write_port_file(const server* srv)
{
	const char* path = srv->config.port_file;
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE* f = fopen(tmp, "w");
	if (f == NULL)
	{
		return -1;
	}
	fprintf(f, "tcp=%d\nws=%d\n", srv->tcp_port, srv->ws_port);
	if (fclose(f) != 0)
	{
		return -1;
	}
	return rename(tmp, path);
}

int server_listen(server* srv)
{
	const server_config* c = &srv->config;
	if (c->tcp_port >= 0)
	{
		int err = tcp_listen(srv, c->host, c->tcp_port, &srv->tcp, &srv->tcp_port);
		if (err != 0)
		{
			char quoted[128];
			log_error("cannot listen", "transport=tcp host=%s port=%d error=%s", c->host, c->tcp_port,
					  log_quote(quoted, sizeof(quoted), uv_strerror(err)));
			return err;
		}
	}
	if (c->ws_port >= 0)
	{
		int err = ws_start(srv, c->host, c->ws_port, c->web_root, &srv->ws, &srv->ws_port);
		if (err != 0)
		{
			char quoted[128];
			log_error("cannot listen", "transport=ws host=%s port=%d error=%s", c->host, c->ws_port,
					  log_quote(quoted, sizeof(quoted), uv_strerror(err)));
			return err;
		}
	}
	if (c->port_file[0] != '\0' && write_port_file(srv) != 0)
	{
		log_error("cannot write the port file", "path=%s", c->port_file);
		return UV_EIO;
	}
	bool v6 = strchr(c->host, ':') != NULL;
	log_info("listening", "host=%s tcp_port=%d ws_port=%d health=http://%s%s%s:%d/healthz workers=%d", c->host,
			 srv->tcp_port, srv->ws_port, v6 ? "[" : "", c->host, v6 ? "]" : "", srv->ws_port, srv->stepper.workers);
	return 0;
}

int server_listen_tcp(server* srv, uv_tcp_t* handle, const char* host, int port, uv_connection_cb on_connection,
					  int* bound_port)
{
	uv_tcp_init(srv->loop, handle);
	struct sockaddr_storage addr;
	int err = strchr(host, ':') != NULL ? uv_ip6_addr(host, port, (struct sockaddr_in6*)&addr)
										: uv_ip4_addr(host, port, (struct sockaddr_in*)&addr);
	if (err == 0)
	{
		err = uv_tcp_bind(handle, (const struct sockaddr*)&addr, 0);
	}
	if (err == 0)
	{
		err = uv_listen((uv_stream_t*)handle, 128, on_connection);
	}
	if (err != 0)
	{
		return err;
	}
	struct sockaddr_storage bound;
	int len = sizeof(bound);
	uv_tcp_getsockname(handle, (struct sockaddr*)&bound, &len);
	*bound_port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6*)&bound)->sin6_port
													: ((struct sockaddr_in*)&bound)->sin_port);
	return 0;
}

void server_client_of(const char* ip, char* out, size_t cap)
{
	struct in6_addr a;
	if (inet_pton(AF_INET6, ip, &a) != 1)
	{
		snprintf(out, cap, "%s", ip); // IPv4, or what could not be read
		return;
	}
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	char text[INET6_ADDRSTRLEN];
	if (memcmp(a.s6_addr, mapped, sizeof(mapped)) == 0)
	{
		struct in_addr v4;
		memcpy(&v4, a.s6_addr + 12, 4);
		snprintf(out, cap, "%s", inet_ntop(AF_INET, &v4, text, sizeof(text)) != NULL ? text : ip);
		return;
	}
	memset(a.s6_addr + 8, 0, 8);
	snprintf(out, cap, "%s/64", inet_ntop(AF_INET6, &a, text, sizeof(text)) != NULL ? text : ip);
}

bool server_peer_ip(uv_tcp_t* handle, char* ip, size_t cap, int* port, bool* v6)
{
	struct sockaddr_storage addr;
	int len = sizeof(addr);
	snprintf(ip, cap, "unknown");
	*port = 0;
	*v6 = false;
	if (uv_tcp_getpeername(handle, (struct sockaddr*)&addr, &len) != 0)
	{
		return false;
	}
	if (addr.ss_family == AF_INET)
	{
		const struct sockaddr_in* a = (const struct sockaddr_in*)&addr;
		uv_ip4_name(a, ip, cap);
		*port = ntohs(a->sin_port);
		return true;
	}
	if (addr.ss_family == AF_INET6)
	{
		const struct sockaddr_in6* a = (const struct sockaddr_in6*)&addr;
		uv_ip6_name(a, ip, cap);
		*port = ntohs(a->sin6_port);
		*v6 = true;
		return true;
	}
	return false;
}

void server_accept_failed(accept_failures* failures, const char* transport, int status)
{
	failures->count += 1;
	const uint64_t now = server_now_ns();
	if (now - failures->logged_ns >= 1000000000u)
	{
		log_warn("accept failed", "transport=%s error=%s failures=%llu", transport, uv_err_name(status),
				 (unsigned long long)failures->count);
		failures->logged_ns = now;
		failures->count = 0;
	}
}

static size_t receive_charged(size_t capacity)
{
	return capacity > SV_RECEIVE_FREE_BYTES ? capacity - SV_RECEIVE_FREE_BYTES : 0;
}

int32_t server_receive_resize(server* srv, uint8_t** buffer, size_t* capacity, size_t to)
{
	const size_t before = receive_charged(*capacity), after = receive_charged(to);
	const size_t limit = (size_t)srv->config.limits.max_receive_bytes;
	if (after > before && after - before > limit - srv->receive_bytes)
	{
		return SV_ERR_LIMIT_REACHED;
	}
	if (to == 0)
	{
		free(*buffer);
		*buffer = NULL;
	}
	else
	{
		uint8_t* resized = realloc(*buffer, to);
		if (resized == NULL)
		{
			return SN_ERR_NO_MEMORY;
		}
		*buffer = resized;
	}
	*capacity = to;
	srv->receive_bytes = srv->receive_bytes - before + after;
	return 0;
}

void server_shutdown(server* srv, const char* reason)
{
	if (srv->shutting_down)
	{
		log_info("already shutting down", "sessions=%d", srv->sessions.count);
		return;
	}
	srv->shutting_down = true;
	srv->shutdown_ns = server_now_ns();
	// Steps stop between steps a little before the grace deadline, so that their replies (what was done,
	// and ERR_SHUTTING_DOWN) and the Closing after them are written before the connections close.
	uint64_t grace_ns = (uint64_t)srv->config.limits.shutdown_grace_ms * 1000000u;
	uint64_t margin_ns = grace_ns / 4 < SHUTDOWN_REPLY_MARGIN_NS ? grace_ns / 4 : SHUTDOWN_REPLY_MARGIN_NS;
	stepper_set_cutoff(&srv->stepper, srv->shutdown_ns + grace_ns - margin_ns);
	log_info("shutting down", "reason=%s sessions=%d worlds=%d", reason, srv->sessions.count, srv->worlds.count);
	// Stop accepting.
	if (srv->tcp != NULL)
	{
		tcp_listener_close(srv->tcp);
		srv->tcp = NULL;
	}
	// Stop pacing; answer lockstep inputs that would wait for a tick that will not come.
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host != NULL)
		{
			pacing_stop(host);
			lockstep_cancel(host, SV_ERR_SHUTTING_DOWN, "the server is shutting down");
		}
	}
	// Tell every client; each closes once its in-flight replies are written (or after the grace).
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		session* s = srv->sessions.items[i];
		if (s != NULL)
		{
			session_close(s, SV_ERR_SHUTTING_DOWN, reason);
		}
	}
	server_housekeeping(srv);
}

static void finish_shutdown(server* srv)
{
	srv->stopped = true;
	// Every step has ended: the kept worlds go to the state directory as they are now, and keep their
	// files when they are destroyed below.
	persist_final(srv);
	for (int i = 0; i < srv->worlds.high; ++i)
	{
		world_host* host = srv->worlds.items[i];
		if (host != NULL)
		{
			world_host_destroy(host, "the server stopped");
		}
	}
	ws_stop(srv->ws);
	stepper_close(&srv->stepper);
	if (srv->housekeeping_open)
	{
		uv_close((uv_handle_t*)&srv->housekeeping, NULL);
		srv->housekeeping_open = false;
	}
	if (srv->pass_open)
	{
		uv_close((uv_handle_t*)&srv->pass_check, NULL);
		uv_close((uv_handle_t*)&srv->pass_idle, NULL);
		srv->pass_open = false;
	}
	log_info("stopped", "uptime_s=%.3f steps=%llu", (double)(server_now_ns() - srv->start_ns) * 1e-9,
			 (unsigned long long)srv->metrics.steps_total);
}

void server_free(server* srv)
{
	persist_free(srv);
	ws_free(srv->ws);
	srv->ws = NULL;
	asset_store_free(&srv->assets);
	idpool_free(&srv->sessions);
	idpool_free(&srv->worlds);
	idpool_free(&srv->subscriptions);
	metrics_free(&srv->metrics);
	free(srv->yielded);
	srv->yielded = NULL;
}
