// The server: one libuv loop that owns every session, world and subscription. Everything here runs on
// the loop thread except the stepping of worlds (stepper.c), which only touches a world while its host
// is marked busy.
//
// Data flow (DESIGN.md, "The server"):
//   commands:  transport (tcp.c, ws.c) -> session.c (framing done, decode, handshake, backpressure)
//              -> command.c (the table and the one gate) -> handlers_*.c -> world_host.c -> core
//   stepping:  stepper.c (paced by time mode, lockstep.c for lockstep) -> worker threads -> back on the
//              loop: replies, events, frames, queued commands
//   streaming: stream.c (subscriptions at their own rates) -> outbox.c (bounded, newest frame wins)
#ifndef SINEW_SERVER_SERVER_H
#define SINEW_SERVER_SERVER_H

#include "assets.h"
#include "config.h"
#include "idpool.h"
#include "metrics.h"
#include "stepper.h"

#include <uv.h>

#include <stdbool.h>
#include <stdint.h>

#define SINEWD_VERSION "0.1.0"

typedef struct session session;
typedef struct world_host world_host;
typedef struct tcp_listener tcp_listener;
typedef struct ws_server ws_server;
typedef struct persist persist;

typedef struct server
{
	uv_loop_t* loop;
	server_config config;
	idpool sessions;      // session*
	idpool worlds;        // world_host*
	idpool subscriptions; // subscription* (stream.c)
	metrics metrics;
	stepper stepper;
	tcp_listener* tcp;
	ws_server* ws;
	persist* persist;   // the state directory (persist.h), NULL without one
	asset_store assets; // model files and meshes by content hash (assets.h)
	int tcp_port;       // bound ports (0 if that listener is off)
	int ws_port;
	uint64_t start_ns;
	uint32_t next_id_tag; // each new world's sn_world_def.id_tag, so ids of one world fail in another
	bool shutting_down;
	uint64_t shutdown_ns;
	bool stopped;         // everything closed; the loop may end
	size_t receive_bytes; // receive buffer bytes beyond each connection's first SV_RECEIVE_FREE_BYTES
	size_t queued_bytes;  // commands waiting for busy worlds (world_host_enqueue), max_queued_bytes
	int clones_pending;   // CloneWorld requests not answered yet (handlers_world.c)
	uv_timer_t housekeeping;
	bool housekeeping_open;
	// Fairness: the loop pass (counted after each poll), and the sessions that used their share of it
	// and wait for the next (session.h). While any wait, poll does not block.
	uint64_t pass;
	uint64_t* yielded; // session ids
	int yielded_count;
	int yielded_capacity;
	uv_check_t pass_check;
	uv_idle_t pass_idle;
	bool pass_open;
} server;

// Set up a server on the loop: no listeners yet, no demo world. Returns 0 or a negative errno-style code.
int server_init(server* srv, uv_loop_t* loop, const server_config* config);
// Start the TCP and HTTP/WebSocket listeners and write the port file. Returns 0 or a negative code.
int server_listen(server* srv);
// Begin a clean shutdown: stop accepting, tell clients, finish in-flight steps and replies (at most
// shutdown_grace_ms), then close everything. The loop ends when all handles are closed.
void server_shutdown(server* srv, const char* reason);
// Session timeouts and the end of a shutdown; runs every 100 ms (and may be called at any time).
void server_housekeeping(server* srv);
// Free what is left after the loop ended (safe to call once the loop has no more handles).
void server_free(server* srv);

// A listening port's failed accepts (out of descriptors under a flood fails once per attempt), logged at
// most once a second.
typedef struct accept_failures
{
	uint64_t count; // since the last warning
	uint64_t logged_ns;
} accept_failures;

// The peer of an accepted connection: its IP address ("1.2.3.4", "::1"), the port, and whether it is
// IPv6. False (ip "unknown") if it cannot be had.
bool server_peer_ip(uv_tcp_t* handle, char* ip, size_t ip_capacity, int* port, bool* v6);
// Who a client is, from its IP address, for the limits per client address and kept worlds: an IPv4
// address as it is (an IPv4-mapped IPv6 one as IPv4), an IPv6 address's /64 network ("2001:db8:1:2::/64":
// a host is given a /64, and would otherwise have 2^64 addresses to spread over).
void server_client_of(const char* ip, char* out, size_t out_capacity);

// Listen on host:port (a numeric IPv4 or IPv6 address; port 0: any free port) with `handle`, which this
// initialises on the server's loop whatever the result (close it when done, or on failure), calling
// on_connection for each connection; *bound_port receives the port. Returns 0 or a libuv error.
int server_listen_tcp(server* srv, uv_tcp_t* handle, const char* host, int port, uv_connection_cb on_connection,
					  int* bound_port);
// Count a failed accept of `transport` (status < 0) and log the count once a second.
void server_accept_failed(accept_failures* failures, const char* transport, int status);

// Each connection's receive buffer holds this much without counting in max_receive_bytes (two reads).
#define SV_RECEIVE_FREE_BYTES ((size_t)131072)

// Resize a connection's receive buffer (*buffer of *capacity bytes, realloc'd or freed for 0) to
// `capacity`, keeping its contents up to the smaller size, within max_receive_bytes. Returns 0, or
// SV_ERR_LIMIT_REACHED or SN_ERR_NO_MEMORY with the buffer as it was.
int32_t server_receive_resize(server* srv, uint8_t** buffer, size_t* capacity, size_t to);

// A session used its share of this loop pass: resume it on the next one.
void server_yield(server* srv, uint64_t session_id);

// CLOCK_MONOTONIC in ns (what uv_hrtime gives).
uint64_t server_now_ns(void);

session* server_session(const server* srv, uint64_t session_id);
world_host* server_world(const server* srv, uint64_t world_id);

#endif
