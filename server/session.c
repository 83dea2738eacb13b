// Sessions: accepting messages under backpressure, the outbox, replies and events, closing with a reason.
#include "session.h"

#include "command.h"
#include "errors.h"
#include "log.h"
#include "server.h"
#include "stream.h"
#include "wire.h"
#include "world_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	// A closing session that cannot flush its last messages within this is closed anyway, ms.
	CLOSE_FLUSH_MS = 1000
};

static void push_closing_event(session* s);

// The client a peer is (server_client_of) from its text: "1.2.3.4:5678" -> "1.2.3.4", "[2001:db8::5]:5678"
// -> "2001:db8::/64"; an address without a port ("::1", as lws gives it) is read as it is.
static void peer_address(const char* peer, char* out, size_t cap)
{
	char ip[64];
	const char* colon = strrchr(peer, ':');
	size_t n = strlen(peer);
	if (peer[0] == '[')
	{
		const char* close = strchr(peer, ']');
		peer += 1;
		n = close != NULL ? (size_t)(close - peer) : strlen(peer);
	}
	else if (colon != NULL && strchr(peer, ':') == colon)
	{
		n = (size_t)(colon - peer); // one colon: IPv4 with a port
	}
	snprintf(ip, sizeof(ip), "%.*s", (int)(n < sizeof(ip) ? n : sizeof(ip) - 1), peer);
	server_client_of(ip, out, cap);
}

session* session_open(server* srv, const transport_ops* ops, void* conn, const char* peer)
{
	session* s = calloc(1, sizeof(session));
	if (s == NULL)
	{
		return NULL;
	}
	s->srv = srv;
	s->ops = ops;
	s->conn = conn;
	s->state = SESSION_NEW;
	s->role = sinew_v1_Role_ROLE_CONTROLLER;
	s->opened_ns = server_now_ns();
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	peer_address(peer, s->address, sizeof(s->address));
	outbox_init(&s->out);
	s->id = idpool_add(&srv->sessions, s);
	if (s->id == 0)
	{
		free(s);
		return NULL;
	}
	srv->metrics.connections_open[ops->index] += 1;
	srv->metrics.connections_total[ops->index] += 1;
	char quoted[96];
	log_info("client connected", "session=%llu transport=%s peer=%s", (unsigned long long)s->id, ops->name,
			 log_quote(quoted, sizeof(quoted), peer));
	return s;
}

bool session_admit(session* s)
{
	server* srv = s->srv;
	if (srv->shutting_down)
	{
		session_close(s, SV_ERR_SHUTTING_DOWN, "the server is shutting down");
		return false;
	}
	if (srv->sessions.count > srv->config.limits.max_connections)
	{
		srv->metrics.connections_refused += 1;
		char reason[128];
		snprintf(reason, sizeof(reason), "max_connections (%lld) reached",
				 (long long)srv->config.limits.max_connections);
		session_close(s, SV_ERR_LIMIT_REACHED, reason);
		return false;
	}
	int64_t mine = 0;
	for (int i = 0; i < srv->sessions.high; ++i)
	{
		const session* other = srv->sessions.items[i];
		// Sessions on their way out (refused ones among them) are not held.
		bool held = other != NULL && (other == s || other->state != SESSION_CLOSING);
		mine += held && strcmp(other->address, s->address) == 0 ? 1 : 0;
	}
	if (mine > srv->config.limits.max_connections_per_client)
	{
		srv->metrics.connections_refused += 1;
		char reason[160];
		snprintf(reason, sizeof(reason), "max_connections_per_client (%lld) reached for %s",
				 (long long)srv->config.limits.max_connections_per_client, s->address);
		session_close(s, SV_ERR_LIMIT_REACHED, reason);
		return false;
	}
	return true;
}

bool session_accepting(const session* s)
{
	const server_limits* l = &s->srv->config.limits;
	// Reading stops at outbox_pause_bytes, or at half of max_outbox_bytes if that is less: the replies to
	// commands already read then still fit before the client would be closed.
	int64_t pause = l->outbox_pause_bytes < l->max_outbox_bytes / 2 ? l->outbox_pause_bytes : l->max_outbox_bytes / 2;
	return s->state != SESSION_CLOSING && !s->yielded && s->holding == 0 && s->in_flight < l->max_requests_in_flight &&
		(int64_t)s->out.reliable_bytes < pause;
}

uint64_t session_max_message(const session* s)
{
	uint64_t max = (uint64_t)s->srv->config.limits.max_message_bytes;
	return s->state == SESSION_NEW && max > SESSION_HANDSHAKE_MAX_BYTES ? SESSION_HANDSHAKE_MAX_BYTES : max;
}

// Count work against this pass's share; past it, yield until the next pass.
static void charge(session* s, int64_t commands, int64_t bytes, uint64_t ns)
{
	server* srv = s->srv;
	if (s->pass != srv->pass)
	{
		s->pass = srv->pass;
		s->pass_commands = 0;
		s->pass_bytes = 0;
		s->pass_ns = 0;
	}
	s->pass_commands += commands;
	s->pass_bytes += bytes;
	s->pass_ns += ns;
	const server_limits* l = &srv->config.limits;
	if (!s->yielded && s->state != SESSION_CLOSING &&
		(s->pass_commands >= l->max_commands_per_pass || s->pass_bytes >= l->max_bytes_per_pass ||
		 s->pass_ns >= (uint64_t)l->max_pass_time_us * 1000u))
	{
		s->yielded = true;
		srv->metrics.connection_yields += 1;
		server_yield(srv, s->id);
	}
}

void session_resume_pass(session* s)
{
	if (!s->yielded)
	{
		return;
	}
	s->yielded = false;
	s->pass = s->srv->pass;
	s->pass_commands = 0;
	s->pass_bytes = 0;
	s->pass_ns = 0;
	if (s->state != SESSION_CLOSING && session_accepting(s))
	{
		s->ops->resume(s->conn);
	}
}

void session_receive(session* s, const uint8_t* data, size_t size)
{
	s->srv->metrics.messages_in += 1;
	s->srv->metrics.bytes_in += size;
	s->in_flight += 1;
	s->requests += 1;
	uint64_t t0 = uv_hrtime();
	command_receive(s, data, size);
	charge(s, 1, (int64_t)size, uv_hrtime() - t0);
}

bool session_pop(session* s, outbox_item* item)
{
	if (!outbox_pop(&s->out, item))
	{
		return false;
	}
	if (item->frame != NULL)
	{
		s->srv->metrics.frames_sent += 1;
	}
	if (item->msg != NULL)
	{
		// Handed to the transport but not yet written: still undelivered for the reply timeout.
		if (s->unwritten_count++ == 0)
		{
			s->unwritten_since_ns = item->msg->queued_ns;
		}
	}
	s->srv->metrics.bytes_out += item->head_size + item->body_size;
	return true;
}

void session_written(session* s, outbox_item* item, bool delivered)
{
	(void)delivered;
	if (item->msg != NULL && s->unwritten_count > 0 && --s->unwritten_count == 0)
	{
		s->unwritten_since_ns = 0;
	}
	outbox_item_release(item);
	// Replies leaving the outbox may release backpressure.
	if (s->state != SESSION_CLOSING && session_accepting(s))
	{
		s->ops->resume(s->conn);
	}
}

bool session_flushed(const session* s)
{
	return s->state == SESSION_CLOSING && s->closing_sent && s->out.head == NULL;
}

// Encode and queue; *size receives the encoded size. Past max_outbox_bytes of replies and events unread,
// the client is closed (it stopped being read from at outbox_pause_bytes).
// After a message went into the outbox: a client that does not read is closed past max_outbox_bytes, and
// the transport is told to write.
static void outbox_checked(session* s)
{
	const server_limits* l = &s->srv->config.limits;
	if (s->state != SESSION_CLOSING && (int64_t)s->out.reliable_bytes > l->max_outbox_bytes)
	{
		char reason[160];
		snprintf(reason, sizeof(reason), "replies and events unread past max_outbox_bytes (%lld bytes)",
				 (long long)l->max_outbox_bytes);
		session_close(s, SV_ERR_SLOW_CLIENT, reason);
	}
	s->ops->kick(s->conn);
}

static bool queue_message(session* s, const sinew_v1_ServerMessage* message, size_t* size)
{
	*size = 0;
	if (s->close_requested)
	{
		return false;
	}
	uint8_t* buffer = NULL;
	if (!wire_encode_alloc(sinew_v1_ServerMessage_fields, message, OUTBOX_MSG_HEADROOM, &buffer, size))
	{
		log_error("could not encode a message", "session=%llu", (unsigned long long)s->id);
		return false;
	}
	outbox_msg* msg = outbox_msg_adopt(buffer, *size);
	msg->queued_ns = server_now_ns();
	outbox_push(&s->out, msg);
	outbox_checked(s);
	return true;
}

bool session_send(session* s, const sinew_v1_ServerMessage* message)
{
	size_t size = 0;
	return queue_message(s, message, &size);
}

static void set_status(sinew_v1_Status* status, int32_t code, const char* detail)
{
	status->code = (sinew_v1_ErrorCode)code;
	const char* text = detail != NULL && detail[0] != '\0' ? detail : sv_error_message(code);
	snprintf(status->message, sizeof(status->message), "%s", text);
	// A detail may quote a client's (valid) string and be cut in the middle of a character.
	wire_utf8_trim(status->message);
}

static void send_reply(session* s, uint64_t request_id, int32_t code, const char* detail, sinew_v1_Reply* result,
					   bool keep_result);

void session_reply(session* s, uint64_t request_id, int32_t code, const char* detail, sinew_v1_Reply* result)
{
	send_reply(s, request_id, code, detail, result, false);
}

void session_reply_message(sinew_v1_ServerMessage* message, uint64_t request_id, int32_t code, const char* detail,
						   const sinew_v1_Reply* result, bool keep_result)
{
	*message = (sinew_v1_ServerMessage)sinew_v1_ServerMessage_init_zero;
	message->which_message = sinew_v1_ServerMessage_reply_tag;
	if (result != NULL)
	{
		message->message.reply = *result;
	}
	sinew_v1_Reply* r = &message->message.reply;
	r->request_id = request_id;
	r->has_status = true;
	set_status(&r->status, code, detail);
	if (code != 0 && !keep_result)
	{
		r->which_result = 0; // an error carries no result
	}
}

static void reply_queued(session* s, size_t size);

static void send_reply(session* s, uint64_t request_id, int32_t code, const char* detail, sinew_v1_Reply* result,
					   bool keep_result)
{
	sinew_v1_ServerMessage message;
	session_reply_message(&message, request_id, code, detail, result, keep_result);
	size_t size = 0;
	bool sent = queue_message(s, &message, &size);
	if (!sent && code == 0)
	{
		// The result could not be encoded (a callback failed): say so instead.
		sinew_v1_ServerMessage failed;
		session_reply_message(&failed, request_id, SV_ERR_INTERNAL, "the reply could not be encoded", NULL, false);
		session_send(s, &failed);
	}
	reply_queued(s, size);
}

void session_reply_encoded_to(server* srv, uint64_t session_id, uint8_t* buffer, size_t size)
{
	session* s = server_session(srv, session_id);
	if (s == NULL || s->close_requested)
	{
		free(buffer);
		if (s != NULL)
		{
			reply_queued(s, 0);
		}
		return;
	}
	outbox_msg* msg = outbox_msg_adopt(buffer, size);
	msg->queued_ns = server_now_ns();
	outbox_push(&s->out, msg);
	outbox_checked(s);
	reply_queued(s, size);
}

// A reply of `size` bytes was queued (or could not be): the request is answered.
static void reply_queued(session* s, size_t size)
{
	if (s->in_flight > 0)
	{
		s->in_flight -= 1;
	}
	charge(s, 0, (int64_t)size, 0);
	if (s->state == SESSION_CLOSING)
	{
		if (s->in_flight == 0)
		{
			push_closing_event(s);
		}
	}
	else if (session_accepting(s))
	{
		s->ops->resume(s->conn);
	}
}

void session_reply_to(server* srv, uint64_t session_id, uint64_t request_id, int32_t code, const char* detail,
					  sinew_v1_Reply* reply)
{
	session* s = server_session(srv, session_id);
	if (s != NULL)
	{
		session_reply(s, request_id, code, detail, reply);
	}
}

void session_reply_partial_to(server* srv, uint64_t session_id, uint64_t request_id, int32_t code, const char* detail,
							  sinew_v1_Reply* result)
{
	session* s = server_session(srv, session_id);
	if (s != NULL)
	{
		send_reply(s, request_id, code, detail, result, true);
	}
}

void session_event(session* s, sinew_v1_Event* event)
{
	sinew_v1_ServerMessage message = sinew_v1_ServerMessage_init_zero;
	message.which_message = sinew_v1_ServerMessage_event_tag;
	message.message.event = *event;
	session_send(s, &message);
}

// The Closing event is the session's last message: it goes out once no reply is owed any more.
static void push_closing_event(session* s)
{
	if (s->closing_sent || s->close_requested || s->in_flight > 0)
	{
		return;
	}
	s->closing_sent = true;
	sinew_v1_Event event = sinew_v1_Event_init_zero;
	event.which_event = sinew_v1_Event_closing_tag;
	event.event.closing.has_status = true;
	set_status(&event.event.closing.status, s->close_code, s->close_reason);
	session_event(s, &event);
	s->ops->kick(s->conn);
}

void session_close(session* s, int32_t code, const char* reason)
{
	if (s->state == SESSION_CLOSING)
	{
		return;
	}
	s->state = SESSION_CLOSING;
	s->closing_ns = server_now_ns();
	if (code != 0)
	{
		s->srv->metrics.sessions_closed_with_error += 1;
	}
	char quoted[300];
	log_info("closing client", "session=%llu code=%s reason=%s", (unsigned long long)s->id, sv_error_name(code),
			 log_quote(quoted, sizeof(quoted), reason));
	s->close_code = code;
	snprintf(s->close_reason, sizeof(s->close_reason), "%s", reason);
	push_closing_event(s);
}

void session_detach(session* s)
{
	server* srv = s->srv;
	world_host_session_gone(srv, s->id);
	stream_session_gone(srv, s);
	outbox_clear(&s->out);
	idpool_remove(&srv->sessions, s->id);
	srv->metrics.connections_open[s->ops->index] -= 1;
	log_info("client disconnected", "session=%llu requests=%llu frames_sent=%llu frames_dropped=%llu",
			 (unsigned long long)s->id, (unsigned long long)s->requests, (unsigned long long)s->out.frames_sent,
			 (unsigned long long)s->out.frames_dropped);
	free(s);
}

uint64_t session_undelivered_age_ns(const session* s, uint64_t now_ns)
{
	uint64_t age = outbox_oldest_age_ns(&s->out, now_ns);
	if (s->unwritten_count > 0 && now_ns > s->unwritten_since_ns && now_ns - s->unwritten_since_ns > age)
	{
		age = now_ns - s->unwritten_since_ns;
	}
	return age;
}

void session_receive_progress(session* s, size_t bytes)
{
	if (bytes <= SV_RECEIVE_FREE_BYTES || bytes < s->large_bytes)
	{
		// None, small, or a new message (the buffer shrank): timed from when it outgrows the free share.
		s->large_since_ns = 0;
		s->large_bytes = 0;
		s->large_paused_ns = 0;
		s->large_late = false;
		if (bytes <= SV_RECEIVE_FREE_BYTES)
		{
			return;
		}
	}
	const uint64_t now = server_now_ns();
	if (s->large_since_ns == 0)
	{
		s->large_since_ns = now;
	}
	else if (s->large_paused_ns != 0)
	{
		s->large_since_ns += now - s->large_paused_ns; // the pause was the server's
	}
	s->large_paused_ns = 0;
	s->large_bytes = bytes;
}

void session_receive_paused(session* s)
{
	if (s->large_since_ns != 0 && s->large_paused_ns == 0)
	{
		s->large_paused_ns = server_now_ns();
	}
}

// A large message in progress arrives too slowly: each of its bytes so far (the free share's among them)
// buys 1 / min_receive_bytes_per_s s from when it outgrew that share, so a client that sends most of a
// message and stops, or trickles it, holds its share of max_receive_bytes for a time its bytes pay for.
// The time counts the server's reads, not the client's sends: a loop that was busy, or a process the
// machine did not run, would see the time and not yet the bytes waiting in the socket (libuv runs timers
// before it polls). So a message must be found too slow twice in a row, with a poll of its socket between.
static bool receive_too_slow(session* s, uint64_t now_ns)
{
	if (s->large_since_ns == 0 || s->large_paused_ns != 0 || now_ns <= s->large_since_ns)
	{
		s->large_late = false;
		return false;
	}
	const double allowed_s = (double)s->large_bytes / (double)s->srv->config.limits.min_receive_bytes_per_s;
	const bool slow = (double)(now_ns - s->large_since_ns) * 1e-9 > allowed_s;
	const bool twice = slow && s->large_late;
	s->large_late = slow;
	return twice;
}

void session_housekeeping(session* s, uint64_t now_ns)
{
	const server_limits* l = &s->srv->config.limits;
	uint64_t ms = 1000000u;
	if (s->state == SESSION_NEW && now_ns - s->opened_ns > (uint64_t)l->handshake_timeout_ms * ms)
	{
		char reason[128];
		snprintf(reason, sizeof(reason), "no handshake within handshake_timeout_ms (%lld ms)",
				 (long long)l->handshake_timeout_ms);
		session_close(s, SV_ERR_TIMEOUT, reason);
	}
	else if (s->state == SESSION_READY && session_undelivered_age_ns(s, now_ns) > (uint64_t)l->reply_timeout_ms * ms)
	{
		char reason[160];
		snprintf(reason, sizeof(reason), "replies undelivered for more than reply_timeout_ms (%lld ms)",
				 (long long)l->reply_timeout_ms);
		session_close(s, SV_ERR_SLOW_CLIENT, reason);
	}
	else if (s->state != SESSION_CLOSING && receive_too_slow(s, now_ns))
	{
		char reason[200];
		snprintf(reason, sizeof(reason),
				 "a message arrived slower than min_receive_bytes_per_s (%lld): %llu bytes of it in %.1f s",
				 (long long)l->min_receive_bytes_per_s, (unsigned long long)s->large_bytes,
				 (double)(now_ns - s->large_since_ns) * 1e-9);
		session_close(s, SV_ERR_TIMEOUT, reason);
	}
	else if (s->state == SESSION_CLOSING && !s->close_requested)
	{
		uint64_t grace = (uint64_t)CLOSE_FLUSH_MS * ms;
		if (s->srv->shutting_down && (uint64_t)l->shutdown_grace_ms * ms > grace)
		{
			grace = (uint64_t)l->shutdown_grace_ms * ms;
		}
		if (session_flushed(s) || now_ns - s->closing_ns > grace)
		{
			s->close_requested = true;
			s->ops->close(s->conn);
		}
	}
}
