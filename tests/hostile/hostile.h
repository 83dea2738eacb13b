// The hostile client: attacks a real sinewd on loopback as anyone who can reach its ports could, family
// by family (malformed HTTP, WebSocket abuse, connection floods, slowloris, pipelined large replies and
// slow readers, extreme numbers in every numeric field, invalid UTF-8 in every string, protocol misuse).
// After each attack the server must be alive, answer GET /healthz, and answer a bystander client's ping
// (one on TCP, one on WebSocket, connected throughout) within HOSTILE_PING_BOUND_MS. At the end the
// server must shut down cleanly (exit 0: under ASan, also free of leaks).
//
// Every wait is bounded; the whole run takes about a minute. HOSTILE_FAMILIES=http,load runs only those
// families; HOSTILE_SINEWD=path attacks another sinewd. It prints one line per family:
//   HOSTILE family=http attacks=41 worst_ping_ms=3.1 ...
// and the figures of the load families (RSS under slow readers, pings under load).
#ifndef SINEW_HOSTILE_H
#define SINEW_HOSTILE_H

#include "sinew_client.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// The bound on a bystander's ping after (and, for the load families, during) every attack, ms.
//
// Why this bound: the server gives every connection at most one share of a loop pass
// (max_commands_per_pass commands, max_bytes_per_pass bytes of requests and replies or max_pass_time_us
// of loop time, at least one command), so a ping waits for at most one share of each busy connection.
// The heaviest share here is the load family's: one GetState reply of a 2000-body world (89 KB), which
// takes the loop 6 to 8 ms in the release build and about 18 ms under ASan + UBSan (the sinewd thread's
// CPU time over 100 of them; nanopb sizes every nested message by encoding it, and a body's pose is three
// deep): more than max_pass_time_us, so a share is one reply, and its 12 attackers cost about 100 ms a
// pass in the release build and 220 ms under the sanitizers (get_state_round_trip_ms, printed, is that
// plus the client's decoding). Before the fairness shares one such client made a ping wait 9.8 s. What the bound is checked against
// is the ping's round trip less the time its two threads waited for a CPU that other processes had
// (bystander_ping_ms): under ASan, next to another test on two cores, that wait alone reached 1.6 s.
#define HOSTILE_PING_BOUND_MS 1000.0

// How long a connection the server should close may take to be closed, ms (its timeouts plus slack).
#define HOSTILE_CLOSE_WAIT_MS 8000

// Limits given to the sinewd under attack that the load family's bounds are derived from (hostile.c
// passes them on its command line): a client whose oldest reply has waited reply_timeout_ms undelivered
// is closed, and the kernel holds at most twice socket_send_buffer_bytes (Linux doubles SO_SNDBUF) of
// replies on the server's side of a connection.
#define HOSTILE_REPLY_TIMEOUT_MS 3000
#define HOSTILE_SOCKET_SEND_BUFFER_BYTES 262144
// sinewd's own periods, which are not options: its housekeeping timer runs every 100 ms (HOUSEKEEPING_MS,
// server/server.c) and a closing session's last messages get at most 1 s to flush before its connection
// is closed (CLOSE_FLUSH_MS, server/session.c).
#define SINEWD_HOUSEKEEPING_MS 100
#define SINEWD_CLOSE_FLUSH_MS 1000
// A number macro as a string literal (for sinewd's arguments).
#define HOSTILE_STRING_(x) #x
#define HOSTILE_STRING(x) HOSTILE_STRING_(x)

typedef struct hostile_server
{
	pid_t pid;
	int tcp_port;
	int ws_port;
	char dir[64];
	char log_path[128];
	char web_root[128];
} hostile_server;

// One attack family's counts and figures.
typedef struct family
{
	const char* name;
	int attacks;
	double worst_ping_ms;
	double worst_ping_under_load_ms; // measured while the attack was going on (load families)
	double most_cpu_wait_ms;         // the most a ping's threads waited for a CPU (not counted in its time)
	double start_s;
} family;

// The server under attack and the two bystanders (hostile.c).
extern hostile_server target;
extern snc_client* bystander_tcp;
extern snc_client* bystander_ws;

// ---- the server ---------------------------------------------------------------------------------------

// Start sinewd (--no-demo, ports 0, a web root with an index.html) with extra arguments (NULL-terminated).
void server_start(hostile_server* s, const char* const* extra);
// SIGTERM and wait (at most 20 s, then SIGKILL); returns the exit code (0 expected) or -1.
int server_stop(hostile_server* s);
bool server_alive(const hostile_server* s);
// Resident memory, bytes.
size_t server_rss(const hostile_server* s);
// Print the end of the server's log.
void server_dump_log(const hostile_server* s);

// ---- sockets ------------------------------------------------------------------------------------------

double now_ms(void);
void sleep_ms(int ms);
// The attacks come from 127.0.0.1; the bystanders (their sessions, the health and metrics requests) are
// another client on loopback, as they would be another machine: the per-address limits
// (max_connections_per_client, max_queued_bytes's half) are the attacker's alone.
#define BYSTANDER_ADDRESS "127.0.0.2"
// A TCP connection from 127.0.0.1 to 127.0.0.1:port (blocking connect, then non-blocking), or -1.
int tcp_open(int port);
// The same with a small receive buffer (SO_RCVBUF, set before connecting): a slow reader whose kernel
// buffers fill as fast as a real one's would (loopback's can otherwise grow to megabytes).
int tcp_open_small(int port, int receive_buffer_bytes);
// Write all bytes within timeout_ms (the socket is non-blocking). Returns false on error or timeout.
bool send_all(int fd, const void* data, size_t size, int timeout_ms);
// Write what the socket takes now, without waiting. Returns bytes written (0 if none), -1 on error.
ssize_t send_some(int fd, const void* data, size_t size);
// Read until the peer closes or timeout_ms passes; keeps the first `cap` bytes. Returns true if the peer
// closed (EOF or reset) within the time.
bool read_until_closed(int fd, char* keep, size_t cap, size_t* kept, int timeout_ms);
// Read and discard what is there now. Returns false once the peer has closed.
bool drain(int fd);
// True if the peer has closed the connection (EOF or reset) within timeout_ms; data is read and dropped.
bool wait_closed(int fd, int timeout_ms);

// HTTP GET on the server's HTTP port, from the bystanders' address: returns the status (0 on failure),
// body into out.
int http_get(int port, const char* path, char* out, size_t cap);
// A metric's value from /metrics (first sample whose line starts with `name` and contains `labels`).
double metric(const char* name, const char* labels);

// ---- WebSocket framing --------------------------------------------------------------------------------

// Upgrade a new connection to a WebSocket with the given subprotocol (NULL: none) and extra header lines
// (each ending in \r\n; may be NULL). Returns the fd if the server answered 101, else -1 (status in
// *status when not NULL).
int ws_open(int port, const char* path, const char* protocol, const char* extra_headers, int* status);
// Build a client frame: fin, rsv bits (0..7), opcode, masked or not, payload. declared (if not
// UINT64_MAX) overrides the length written in the header. Returns the frame's size; out must hold
// len + 14 bytes.
size_t ws_frame(uint8_t* out, bool fin, int rsv, int opcode, bool masked, const void* payload, size_t len,
				uint64_t declared);

// ---- protocol -----------------------------------------------------------------------------------------

// Encode a ClientMessage (without framing). Returns a malloc'd buffer and its size.
uint8_t* encode_message(const sinew_v1_ClientMessage* m, size_t* size);
// The same, with the TCP length prefix in front.
uint8_t* encode_tcp(const sinew_v1_ClientMessage* m, size_t* size);
// A Handshake message for the given transport (TCP: prefixed; WS: a masked binary frame).
uint8_t* handshake_bytes(bool websocket, const char* name, size_t* size);

// ---- checks -------------------------------------------------------------------------------------------

// One ping round trip of a bystander, ms (fails the run if it does not come back), less the time the
// two threads it goes through, sinewd's loop thread and the calling one, waited runnable for a CPU
// (/proc's schedstat): what the server answers for, not what other processes on the machine took. That
// excluded time is left in ping_cpu_wait_ms.
double bystander_ping_ms(snc_client* c);
extern double ping_cpu_wait_ms;
// How long, in all, sinewd's loop thread has waited runnable for a CPU, ms: the difference over an
// interval is the part of it that other processes took from the server.
double server_cpu_wait_ms(void);
void family_begin(family* f, const char* name);
// One attack done: the server lives, /healthz answers, both bystanders' pings come back within the bound.
// Anything else fails the run at once with the attack's name.
void check_alive(family* f, const char* attack);
// A ping measured while an attack is going on (counts towards worst_ping_under_load_ms; bound checked).
void note_ping_under_load(family* f, const char* attack, double ms);
// Print the family's line and add it to the summary.
void family_end(family* f);
// Fail the run now.
void hostile_fail(const char* family, const char* attack, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4), noreturn))
#endif
	;
// Extra figures for the summary ("key=value" text).
void figure(const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

// ---- the families (attack_*.c) -------------------------------------------------------------------------

void attack_http(void);
void attack_websocket(void);
void attack_floods(void);
void attack_slowloris(void);
void attack_load(void);
void attack_numbers(void);
void attack_strings(void);
void attack_protocol(void);

#endif
