// A client session, whatever its transport. The transport (tcp.c, ws.c) frames bytes into whole
// messages and hands them here one at a time while session_accepting() says so. A session stops
// accepting:
// - while max_requests_in_flight requests wait for replies, or while outbox_pause_bytes of replies and
//   events wait to be written (backpressure: the client is not reading; past max_outbox_bytes it is
//   closed);
// - when it has used its share of this loop pass: max_commands_per_pass commands, max_bytes_per_pass
//   bytes of requests and replies, or max_pass_time_us of loop time (fairness: it yields, and server.c
//   resumes it on the next pass, after every other connection had its turn).
// The transport asks session_pop() for what to write and calls session_written()
// after. A session that must end (protocol error, slow reader, shutdown) is told why with a Closing event,
// flushed, and then closed by its transport, which finally calls session_detach().
#ifndef SINEW_SERVER_SESSION_H
#define SINEW_SERVER_SESSION_H

#include "outbox.h"
#include "sinew.pb.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;

typedef struct transport_ops
{
	const char* name;           // "tcp" or "ws"
	int index;                  // 0 tcp, 1 ws (metrics)
	void (*kick)(void* conn);   // the outbox has something: write when the socket allows
	void (*resume)(void* conn); // the session accepts messages again
	void (*close)(void* conn);  // close now; the transport calls session_detach when closed
} transport_ops;

typedef enum session_state
{
	SESSION_NEW = 0,     // connected, no handshake yet
	SESSION_READY = 1,   // handshaken
	SESSION_CLOSING = 2, // told to close: flushing, then closed
} session_state;

typedef struct session
{
	struct server* srv;
	uint64_t id;
	const transport_ops* ops;
	void* conn;
	session_state state;
	char peer[64];
	char address[64]; // who the client is across reconnections (server_client_of): kept worlds, per-client limits
	char name[64];
	sinew_v1_Role role; // OBSERVER or CONTROLLER
	uint64_t opened_ns;
	uint64_t closing_ns;
	bool close_requested; // the transport has been asked to close
	bool closing_sent;    // the Closing event is queued (after the replies still owed)
	int32_t close_code;
	char close_reason[256];
	outbox out;
	int in_flight;               // requests received, not yet answered
	int unwritten_count;         // replies and events handed to the transport, not yet written
	uint64_t unwritten_since_ns; // when the oldest of those was queued
	int worlds_owned;            // live worlds this session owns (max_worlds_per_client)
	int clones_pending;          // its CloneWorld requests not answered yet (they count as worlds it owns)
	size_t queued_bytes;         // its commands waiting for busy worlds (world_host_enqueue)
	int subscription_count;
	uint64_t requests;
	// This loop pass's share: commands handled and bytes of requests and replies (server.h: pass).
	uint64_t pass;
	int64_t pass_commands;
	int64_t pass_bytes;
	uint64_t pass_ns; // loop time its commands took
	bool yielded;     // the share is used up: resumed on the next pass
	// Commands of this session running off the loop that later ones must not overtake (a PutAsset being
	// hashed, which a LoadUrdf right after it names): while any runs, its next messages wait.
	int holding;
	// A message above the receive buffer's free share (SV_RECEIVE_FREE_BYTES) that is not whole yet
	// (session_receive_progress): since when it is timed, how much of it has arrived, whether the server has
	// stopped reading (since when), and whether the last housekeeping found it too slow.
	uint64_t large_since_ns; // 0: none
	uint64_t large_bytes;
	uint64_t large_paused_ns; // 0: not paused
	bool large_late;
} session;

// The most bytes a message may have before the handshake: a Handshake with the longest name and token
// takes under 220, so an unauthenticated connection never makes the server buffer more.
#define SESSION_HANDSHAKE_MAX_BYTES 1024

// A new connection. Returns NULL if memory ran out (the transport then closes it). Nothing is sent yet:
// the transport attaches the session to its connection, then calls session_admit.
session* session_open(struct server* srv, const transport_ops* ops, void* conn, const char* peer);
// Once attached: over max_connections, or while shutting down, the session is told why and closed
// (returns false; the transport reads nothing from it). Returns true for a session that may go on.
bool session_admit(session* s);

// May the transport hand over another message now?
bool session_accepting(const session* s);
// The largest message the transport may buffer for this session now (max_message_bytes, or
// SESSION_HANDSHAKE_MAX_BYTES before the handshake).
uint64_t session_max_message(const session* s);
// The next loop pass has begun and this yielded session may take its share (server.c).
void session_resume_pass(session* s);
// One whole message from the client.
void session_receive(session* s, const uint8_t* data, size_t size);

// The transport's receive buffer after a read: `bytes` of a message that is not whole yet (0: none). One
// above SV_RECEIVE_FREE_BYTES must keep arriving at min_receive_bytes_per_s (session_housekeeping).
void session_receive_progress(session* s, size_t bytes);
// The transport stops reading because the session does not accept messages: the wait is the server's, and
// the message in progress is not timed until the next session_receive_progress.
void session_receive_paused(session* s);

// The next thing to write; release it with session_written once written (or dropped).
bool session_pop(session* s, outbox_item* item);
void session_written(session* s, outbox_item* item, bool delivered);
// True when a closing session has written everything: the transport may close it now.
bool session_flushed(const session* s);

// Queue a message for the client (encoded now). Returns false if it could not be encoded.
bool session_send(session* s, const sinew_v1_ServerMessage* message);
// Reply to a request. reply may be NULL (status only); its request id and status are set here. The
// request counts as answered (in_flight decreases).
void session_reply(session* s, uint64_t request_id, int32_t code, const char* detail, sinew_v1_Reply* reply);
void session_event(session* s, sinew_v1_Event* event);

// Tell the client why and close after flushing (bounded by the housekeeping timer).
void session_close(session* s, int32_t code, const char* reason);
// The transport closed: leave worlds, end subscriptions, free.
void session_detach(session* s);

// How long the oldest reply or event not yet written has waited (in the outbox or in the transport), ns.
uint64_t session_undelivered_age_ns(const session* s, uint64_t now_ns);
// Housekeeping (every 100 ms): handshake timeout, undelivered replies, closing sessions that do not flush.
void session_housekeeping(session* s, uint64_t now_ns);

// Reply to a request of a session that may be gone (deferred replies: steps, lockstep).
void session_reply_to(struct server* srv, uint64_t session_id, uint64_t request_id, int32_t code, const char* detail,
					  sinew_v1_Reply* reply);
// The same for a command that failed part way and says how far it got: the error code and the result
// both (a Step stopped by shutdown: ERR_SHUTTING_DOWN with the StepResult of the steps done).
void session_reply_partial_to(struct server* srv, uint64_t session_id, uint64_t request_id, int32_t code,
							  const char* detail, sinew_v1_Reply* reply);
// The reply message session_reply sends, filled in without sending it (any thread): its request id and
// status set, the result dropped on an error unless keep_result.
void session_reply_message(sinew_v1_ServerMessage* message, uint64_t request_id, int32_t code, const char* detail,
						   const sinew_v1_Reply* result, bool keep_result);
// Reply with a message a worker encoded (session_reply_message, then wire_encode_alloc with
// OUTBOX_MSG_HEADROOM): the outbox adopts `buffer` (freed if the session is gone).
void session_reply_encoded_to(struct server* srv, uint64_t session_id, uint8_t* buffer, size_t size);

#endif
