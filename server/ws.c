// HTTP and WebSocket transport on libwebsockets with the server's libuv loop.
#include "ws.h"

#include "assets.h"
#include "content.h"
#include "errors.h"
#include "log.h"
#include "metrics.h"
#include "server.h"
#include "session.h"
#include "wire.h"

#include <limits.h>

#include <libwebsockets.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

enum
{
	WS_CHUNK = 65536,           // bytes of one outgoing fragment, and of lws's receive buffer
	HTTP_WRITE_AT_ONCE = 65536, // an HTTP answer up to this size is written with its headers, in one send
};

// A response of the HTTP endpoints being written. Kept by the server, keyed by connection, rather than in
// lws's per-session data: lws frees that data on some paths without a notification (a request with a body
// answered before the body was read), and the one notification every connection gets at its end,
// LWS_CALLBACK_WSI_DESTROY, is where a response still here is freed.
typedef struct http_response
{
	struct lws* wsi;
	char* body;       // owned, or the bytes of blob
	asset_blob* blob; // a reference held while an asset is written (GET /assets/HASH)
	size_t size;
	size_t sent;
	struct http_response* next;
} http_response;

// A connection lws holds, and the client address it came from (max_connections_per_client).
typedef struct http_peer
{
	struct lws* wsi;
	char address[64];
} http_peer;

struct ws_server
{
	struct server* srv;
	struct lws_context* context; // NULL once lws has destroyed it
	bool stopping;
	int connections;  // accepted or adopted connections lws holds (HTTP and WebSocket)
	http_peer* peers; // of the accepted ones (not adopted by the fuzz target), max_http_connections
	int peer_count;
	uv_tcp_t listener; // the port: libuv accepts, lws serves what it is given (on_http_connection)
	bool listening;
	accept_failures accept_failed;
	http_response* responses;
	struct lws_protocols protocols[3];
	struct lws_http_mount mounts[4];
	char web_root[512];
};

typedef struct ws_conn
{
	struct lws* wsi;
	ws_server* ws;
	session* session;
	uint8_t* in; // the message being received
	size_t in_size;
	size_t in_capacity;
	bool in_ready; // a whole message waits for the session to accept it
	bool processing;
	outbox_item current; // the message being sent, in fragments
	bool sending;
	size_t sent;
	bool close_now;
	uint8_t out[LWS_PRE + WS_CHUNK];
} ws_conn;

typedef struct ws_pss
{
	ws_conn* conn;
} ws_pss;


static void conn_kick(void* p);
static void conn_resume(void* p);
static void conn_close(void* p);

static const transport_ops ws_ops = { "ws", 1, conn_kick, conn_resume, conn_close };

static ws_server* server_of(struct lws* wsi)
{
	struct lws_context* context = wsi != NULL ? lws_get_context(wsi) : NULL;
	return context != NULL ? lws_context_user(context) : NULL;
}

// ---- WebSocket ----------------------------------------------------------------------------------------

static void conn_kick(void* p)
{
	ws_conn* c = p;
	if (c->wsi != NULL)
	{
		lws_callback_on_writable(c->wsi);
	}
}

static void conn_close(void* p)
{
	ws_conn* c = p;
	if (c->wsi == NULL)
	{
		return;
	}
	c->close_now = true;
	lws_callback_on_writable(c->wsi);
	// If the client does not read, the close frame never goes out: drop the connection after 1 s.
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, 1);
}

// Hand the waiting message to the session if it accepts it now.
static void deliver(ws_conn* c)
{
	if (!c->in_ready || c->processing || c->session == NULL)
	{
		return;
	}
	if (c->session->state == SESSION_CLOSING || !session_accepting(c->session))
	{
		lws_rx_flow_control(c->wsi, 0);
		return;
	}
	c->processing = true;
	c->in_ready = false;
	size_t size = c->in_size;
	c->in_size = 0;
	static const uint8_t empty[1] = { 0 };
	session_receive(c->session, c->in != NULL ? c->in : empty, size);
	c->processing = false;
	if (c->in_capacity > SV_RECEIVE_FREE_BYTES)
	{
		// A large message is done: back to one fragment's room, not the message's size.
		server_receive_resize(c->ws->srv, &c->in, &c->in_capacity, WS_CHUNK);
	}
	if (c->session->state != SESSION_CLOSING && session_accepting(c->session))
	{
		lws_rx_flow_control(c->wsi, 1);
	}
	else
	{
		lws_rx_flow_control(c->wsi, 0);
	}
}

static void conn_resume(void* p)
{
	ws_conn* c = p;
	if (c->wsi == NULL || c->processing)
	{
		return;
	}
	if (c->in_ready)
	{
		deliver(c);
	}
	else if (c->session->state != SESSION_CLOSING)
	{
		lws_rx_flow_control(c->wsi, 1);
	}
}

static int receive(ws_conn* c, const void* in, size_t len)
{
	session* s = c->session;
	if (s->state == SESSION_CLOSING)
	{
		return 0;
	}
	if (!lws_frame_is_binary(c->wsi))
	{
		session_close(s, SV_ERR_BAD_MESSAGE, "text WebSocket messages are not part of the protocol; send binary");
		return 0;
	}
	if (c->in_ready)
	{
		// lws holds further input while rx flow control is off; if it ever delivered more, the waiting
		// message would be overwritten: refuse loudly rather than lose a command.
		log_error("websocket input while a message waits", "session=%llu", (unsigned long long)s->id);
		session_close(s, SV_ERR_INTERNAL, "input arrived while the previous message waited");
		return 0;
	}
	if (lws_is_first_fragment(c->wsi))
	{
		c->in_size = 0;
	}
	size_t max = (size_t)session_max_message(s); // smaller before the handshake
	if (c->in_size + len > max)
	{
		char reason[160];
		snprintf(reason, sizeof(reason), "WebSocket message above %s (%zu)",
				 s->state == SESSION_NEW ? "the largest handshake" : "max_message_bytes", max);
		session_close(s, SV_ERR_MESSAGE_TOO_LARGE, reason);
		lws_rx_flow_control(c->wsi, 0);
		return 0;
	}
	if (c->in_size + len > c->in_capacity)
	{
		size_t capacity = c->in_capacity > 0 ? 2 * c->in_capacity : WS_CHUNK;
		while (capacity < c->in_size + len)
		{
			capacity *= 2;
		}
		capacity = capacity < max ? capacity : max;
		const int32_t err = server_receive_resize(c->ws->srv, &c->in, &c->in_capacity, capacity);
		if (err != 0)
		{
			session_close(s, err,
						  err == SV_ERR_LIMIT_REACHED
							  ? "max_receive_bytes reached: the server holds too much of other clients' messages"
							  : "out of memory for the message");
			lws_rx_flow_control(c->wsi, 0);
			return 0;
		}
	}
	if (len > 0) // an empty message may come before any buffer exists
	{
		memcpy(c->in + c->in_size, in, len);
		c->in_size += len;
	}
	const bool whole = lws_is_final_fragment(c->wsi) && lws_remaining_packet_payload(c->wsi) == 0;
	session_receive_progress(s, whole ? 0 : c->in_size);
	if (whole)
	{
		c->in_ready = true;
		deliver(c);
	}
	return 0;
}

// Write the next fragment of the current message, one lws_write per writeable callback.
static int writeable(ws_conn* c)
{
	if (c->close_now && !c->sending)
	{
		// Tell the client why, in the close frame too, then close.
		const char* reason = "closing";
		lws_close_reason(c->wsi, LWS_CLOSE_STATUS_NORMAL, (unsigned char*)reason, strlen(reason));
		return -1;
	}
	if (!c->sending)
	{
		if (!session_pop(c->session, &c->current))
		{
			if (session_flushed(c->session))
			{
				c->session->close_requested = true;
				c->close_now = true;
				lws_callback_on_writable(c->wsi);
			}
			return 0;
		}
		c->sending = true;
		c->sent = 0;
	}
	size_t total = c->current.head_size + c->current.body_size;
	size_t n = total - c->sent < WS_CHUNK ? total - c->sent : WS_CHUNK;
	uint8_t* out = c->out + LWS_PRE;
	// Copy [sent, sent + n) of head ++ body.
	size_t head = c->current.head_size;
	size_t k = 0;
	if (c->sent < head)
	{
		size_t from_head = head - c->sent < n ? head - c->sent : n;
		memcpy(out, c->current.head + c->sent, from_head);
		k = from_head;
	}
	if (k < n)
	{
		memcpy(out + k, c->current.body + (c->sent + k - head), n - k);
	}
	int flags = c->sent == 0 ? LWS_WRITE_BINARY : LWS_WRITE_CONTINUATION;
	if (c->sent + n < total)
	{
		flags |= LWS_WRITE_NO_FIN;
	}
	int written = lws_write(c->wsi, out, n, (enum lws_write_protocol)flags);
	if (written < (int)n)
	{
		session_written(c->session, &c->current, false);
		c->sending = false;
		return -1;
	}
	c->sent += n;
	if (c->sent == total)
	{
		c->sending = false;
		session_written(c->session, &c->current, true);
	}
	lws_callback_on_writable(c->wsi);
	return 0;
}

// lws calls a protocol's callback for many reasons, some with no per-session data at all (a connection
// it refused while parsing headers, vhost and protocol events): every case checks what it uses.
static int callback_sinew(struct lws* wsi, enum lws_callback_reasons reason, void* user, void* in, size_t len)
{
	ws_pss* pss = user;
	ws_conn* c = pss != NULL ? pss->conn : NULL;
	switch (reason)
	{
		case LWS_CALLBACK_ESTABLISHED:
		{
			ws_server* ws = server_of(wsi);
			if (pss == NULL || ws == NULL)
			{
				return -1;
			}
			c = calloc(1, sizeof(ws_conn));
			if (c == NULL)
			{
				return -1;
			}
			c->wsi = wsi;
			c->ws = ws;
			int sndbuf = (int)ws->srv->config.limits.socket_send_buffer_bytes;
			setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
			char peer[64] = "unknown";
			lws_get_peer_simple(wsi, peer, sizeof(peer));
			c->session = session_open(ws->srv, &ws_ops, c, peer);
			if (c->session == NULL)
			{
				free(c);
				return -1;
			}
			pss->conn = c;
			session_admit(c->session);
			return 0;
		}
		case LWS_CALLBACK_RECEIVE:
			return c != NULL ? receive(c, in, len) : -1;
		case LWS_CALLBACK_SERVER_WRITEABLE:
			return c != NULL ? writeable(c) : -1;
		case LWS_CALLBACK_CLOSED:
			if (c != NULL)
			{
				if (c->sending)
				{
					session_written(c->session, &c->current, false);
				}
				c->wsi = NULL;
				session_detach(c->session);
				server_receive_resize(c->ws->srv, &c->in, &c->in_capacity, 0);
				free(c);
				pss->conn = NULL;
			}
			return 0;
		default:
			return 0;
	}
}

// ---- HTTP ---------------------------------------------------------------------------------------------

static http_response* find_response(ws_server* ws, struct lws* wsi)
{
	for (http_response* r = ws->responses; r != NULL; r = r->next)
	{
		if (r->wsi == wsi)
		{
			return r;
		}
	}
	return NULL;
}

static void drop_response(ws_server* ws, struct lws* wsi)
{
	for (http_response** r = &ws->responses; *r != NULL; r = &(*r)->next)
	{
		if ((*r)->wsi == wsi)
		{
			http_response* gone = *r;
			*r = gone->next;
			if (gone->blob != NULL)
			{
				asset_blob_unref(gone->blob);
			}
			else
			{
				free(gone->body);
			}
			free(gone);
			return;
		}
	}
}

// A request that announces a body (Content-Length or Transfer-Encoding), which no endpoint takes, is
// answered at once and its connection closed, before lws reads further: lws 4.1 spins without end (the
// event loop never returns) on a request with a body pipelined behind one that a callback answers later,
// from its writable callback. The answer is written here, in the request's own callback: a short text
// that a fresh connection's socket takes whole (lws keeps what it could not send, and the close drops it:
// the client then sees the close alone).
static bool request_has_body(struct lws* wsi)
{
	return lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 ||
		lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0;
}

static int refuse_body(struct lws* wsi, unsigned status, const char* text)
{
	uint8_t buffer[LWS_PRE + 512];
	uint8_t* start = buffer + LWS_PRE;
	uint8_t* p = start;
	uint8_t* end = buffer + sizeof(buffer) - 1;
	uint8_t body[LWS_PRE + 128];
	const size_t size = strlen(text) < 128 ? strlen(text) : 128;
	if (lws_add_http_common_headers(wsi, status, "text/plain", (lws_filepos_t)size, &p, end) == 0 &&
		lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char*)"close", 5, &p, end) == 0 &&
		lws_finalize_write_http_header(wsi, start, &p, end) == 0)
	{
		memcpy(body + LWS_PRE, text, size);
		lws_write(wsi, body + LWS_PRE, size, LWS_WRITE_HTTP_FINAL);
	}
	return -1; // closes the connection
}

// Send the headers now, and the body with them (up to HTTP_WRITE_AT_ONCE) or from the writeable callbacks.
// The body is either owned (body, passed here) or an asset's bytes (blob, a reference passed here); an
// asset goes with caching headers: its URL names its content, so a browser may keep it for good.
static int respond_with(ws_server* ws, struct lws* wsi, unsigned status, const char* content_type, char* body,
						asset_blob* blob, size_t size)
{
	drop_response(ws, wsi); // one not yet written when the next request came (pipelining)
	http_response* r = calloc(1, sizeof(http_response));
	if (r == NULL)
	{
		free(body);
		asset_blob_unref(blob);
		return 1;
	}
	r->wsi = wsi;
	r->blob = blob;
	r->body = blob != NULL ? (char*)blob->data : body;
	r->size = size;
	r->next = ws->responses;
	ws->responses = r;
	uint8_t headers[LWS_PRE + 1024];
	uint8_t* start = headers + LWS_PRE;
	uint8_t* p = start;
	uint8_t* end = headers + sizeof(headers) - 1;
	char etag[WIRE_HASH_HEX + 3];
	static const char immutable[] = "public, max-age=31536000, immutable";
	if (blob != NULL)
	{
		char hex[WIRE_HASH_HEX + 1];
		wire_hash_hex(blob->hash, hex);
		snprintf(etag, sizeof(etag), "\"%s\"", hex);
	}
	if (lws_add_http_common_headers(wsi, status, content_type, (lws_filepos_t)size, &p, end) ||
		(blob == NULL &&
		 lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char*)"no-store", 8, &p,
									  end)) ||
		(blob != NULL &&
		 (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char*)immutable,
									   (int)strlen(immutable), &p, end) ||
		  lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_ETAG, (const unsigned char*)etag, (int)strlen(etag), &p,
									   end))) ||
		lws_finalize_write_http_header(wsi, start, &p, end))
	{
		return 1;
	}
	if (size == 0)
	{
		// Nothing to write (304 Not Modified): the transaction ends with the headers.
		drop_response(ws, wsi);
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	if (size <= HTTP_WRITE_AT_ONCE)
	{
		// A small answer goes out with its headers (lws keeps what the socket does not take yet), and the
		// transaction ends here: with requests pipelined behind this one, lws 4.1.6 offered no writable
		// callback, and the client got the headers without the body. lws_write wants LWS_PRE bytes of room
		// before what it writes. A larger answer (an asset above 64 KiB) still goes from the writable
		// callbacks, so requests pipelined behind one go unanswered (browsers do not pipeline).
		unsigned char* out = malloc(LWS_PRE + size);
		if (out != NULL)
		{
			memcpy(out + LWS_PRE, r->body, size);
		}
		drop_response(ws, wsi);
		const bool written = out != NULL && lws_write(wsi, out + LWS_PRE, size, LWS_WRITE_HTTP_FINAL) == (int)size;
		free(out);
		if (!written)
		{
			return -1;
		}
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	lws_callback_on_writable(wsi);
	return 0;
}

static int respond(ws_server* ws, struct lws* wsi, unsigned status, const char* content_type, char* body, size_t size)
{
	return respond_with(ws, wsi, status, content_type, body, NULL, size);
}

static char* copy_text(const char* text, size_t* size)
{
	*size = strlen(text);
	char* out = malloc(*size + 1);
	if (out != NULL)
	{
		memcpy(out, text, *size + 1);
	}
	return out;
}

static int respond_text(ws_server* ws, struct lws* wsi, unsigned status, const char* text)
{
	size_t size = 0;
	char* body = copy_text(text, &size);
	return body == NULL ? 1 : respond(ws, wsi, status, "text/plain", body, size);
}

// GET /assets/HEX: a mesh in the mesh format by its content hash (proto/README.md), 304 when the client's
// copy (If-None-Match) is that one already, 404 for one this server does not have, 400 for a malformed hash.
static int respond_asset(ws_server* ws, struct lws* wsi, const char* hex)
{
	uint8_t hash[WIRE_HASH_SIZE];
	if (!wire_hash_parse(hex, strlen(hex), hash))
	{
		return respond_text(ws, wsi, HTTP_STATUS_BAD_REQUEST, "an asset is named by 64 hexadecimal digits\n");
	}
	asset_blob* blob = asset_store_find(&ws->srv->assets, ASSET_MESH, hash);
	if (blob == NULL)
	{
		return respond_text(ws, wsi, HTTP_STATUS_NOT_FOUND, "no such asset on this server\n");
	}
	asset_blob_ref(blob);
	char seen[160] = "";
	char own[WIRE_HASH_HEX + 1];
	wire_hash_hex(blob->hash, own);
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
		lws_hdr_copy(wsi, seen, sizeof(seen), WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 && strstr(seen, own) != NULL)
	{
		return respond_with(ws, wsi, HTTP_STATUS_NOT_MODIFIED, "application/octet-stream", NULL, blob, 0);
	}
	return respond_with(ws, wsi, HTTP_STATUS_OK, "application/octet-stream", NULL, blob, blob->size);
}

// Connections lws holds from `address`.
static int64_t peers_from(const ws_server* ws, const char* address)
{
	int64_t n = 0;
	for (int i = 0; i < ws->peer_count; ++i)
	{
		n += strcmp(ws->peers[i].address, address) == 0 ? 1 : 0;
	}
	return n;
}

static void forget_peer(ws_server* ws, const struct lws* wsi)
{
	for (int i = 0; i < ws->peer_count; ++i)
	{
		if (ws->peers[i].wsi == wsi)
		{
			ws->peers[i] = ws->peers[--ws->peer_count];
			return;
		}
	}
}

// Like callback_sinew, every case checks what it uses: lws calls this callback for connections it refused
// before any per-session data existed (a malformed or oversized header, an unknown method, %00 in the
// path), for every connection's creation and destruction, and for vhost events.
static int callback_http(struct lws* wsi, enum lws_callback_reasons reason, void* user, void* in, size_t len)
{
	ws_server* ws = server_of(wsi);
	switch (reason)
	{
		case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
			// A WebSocket upgrade without the sinew.v1 subprotocol lands here: refuse it.
			return 1;
		case LWS_CALLBACK_WSI_CREATE:
		case LWS_CALLBACK_WSI_DESTROY:
			// Every accepted or adopted connection is created with this notification. Listening sockets get
			// only the destroy one, and only when the context is destroyed: those are not counted.
			if (ws != NULL && !ws->stopping)
			{
				ws->connections += reason == LWS_CALLBACK_WSI_CREATE ? 1 : -1;
			}
			if (ws != NULL && reason == LWS_CALLBACK_WSI_DESTROY)
			{
				drop_response(ws, wsi);
				forget_peer(ws, wsi);
			}
			return 0;
		case LWS_CALLBACK_HTTP:
		{
			if (ws == NULL)
			{
				return -1;
			}
			ws->srv->metrics.http_requests += 1;
			// Only GET reaches the endpoints (the GET URI header is empty for other methods).
			char uri[256] = "";
			const bool get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
			if (request_has_body(wsi))
			{
				return get ? refuse_body(wsi, HTTP_STATUS_BAD_REQUEST, "a request body is not accepted\n")
						   : refuse_body(wsi, 405, "method not allowed\n");
			}
			if (!get)
			{
				// Answered and closed: a HEAD must get no body, and nothing behind it is read.
				return refuse_body(wsi, 405, "method not allowed\n");
			}
			if (lws_hdr_copy(wsi, uri, sizeof(uri), WSI_TOKEN_GET_URI) < 0)
			{
				return respond_text(ws, wsi, HTTP_STATUS_NOT_FOUND, "not found\n");
			}
			if (strcmp(uri, "/healthz") == 0)
			{
				bool down = ws->srv->shutting_down;
				return respond_text(ws, wsi, down ? 503 : HTTP_STATUS_OK, down ? "shutting down\n" : "ok\n");
			}
			if (strncmp(uri, "/assets/", 8) == 0)
			{
				return respond_asset(ws, wsi, uri + 8);
			}
			if (strcmp(uri, "/metrics") == 0)
			{
				size_t size = 0;
				char* body = metrics_render(ws->srv, &size);
				return body == NULL
					? 1
					: respond(ws, wsi, HTTP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8", body, size);
			}
			return respond_text(ws, wsi, HTTP_STATUS_NOT_FOUND, "not found\n");
		}
		case LWS_CALLBACK_HTTP_WRITEABLE:
		{
			http_response* r = ws != NULL ? find_response(ws, wsi) : NULL;
			if (r == NULL)
			{
				return -1; // nothing of ours to write (file mounts write through lws's own path)
			}
			uint8_t chunk[LWS_PRE + 16384];
			size_t n = r->size - r->sent < 16384 ? r->size - r->sent : 16384;
			memcpy(chunk + LWS_PRE, r->body + r->sent, n);
			bool last = r->sent + n == r->size;
			if (lws_write(wsi, chunk + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
			{
				return -1;
			}
			r->sent += n;
			if (!last)
			{
				lws_callback_on_writable(wsi);
				return 0;
			}
			drop_response(ws, wsi);
			return lws_http_transaction_completed(wsi) ? -1 : 0;
		}
		case LWS_CALLBACK_CLOSED_HTTP:
			if (ws != NULL)
			{
				drop_response(ws, wsi);
			}
			return 0;
		default:
			return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

// ---- context ------------------------------------------------------------------------------------------

// libwebsockets logs a line for every request it refuses ("Ran out of header data space"), so anyone can
// make it write lines as fast as they send requests: at most LWS_LOG_BURST lines a second go to the log,
// and how many were left out is said with the first line of a later second.
enum
{
	LWS_LOG_BURST = 20
};

static void lws_log(int level, const char* line)
{
	static uint64_t window_ns;
	static int written;
	static int suppressed;
	uint64_t now = uv_hrtime();
	if (now - window_ns >= 1000000000u)
	{
		if (suppressed > 0)
		{
			log_warn("libwebsockets lines left out", "count=%d burst_per_s=%d", suppressed, LWS_LOG_BURST);
		}
		window_ns = now;
		written = 0;
		suppressed = 0;
	}
	if (written >= LWS_LOG_BURST)
	{
		suppressed += 1;
		return;
	}
	written += 1;
	char text[512];
	snprintf(text, sizeof(text), "%s", line);
	size_t n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
	{
		text[--n] = '\0';
	}
	char quoted[600];
	log_write((level & LLL_ERR) != 0 ? LOG_ERROR : LOG_WARN, "libwebsockets", "line=%s",
			  log_quote(quoted, sizeof(quoted), text));
}

static bool is_directory(const char* path)
{
	struct stat st;
	return path[0] != '\0' && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// ---- the port ------------------------------------------------------------------------------------------

// libuv accepts on the port and hands each socket to lws as if lws had accepted it. lws's own listener
// retries a failing accept at once, so a process out of descriptors (EMFILE) spun the loop at 100%;
// libuv drops such a connection and goes on. Beyond max_http_connections a connection is closed as soon
// as it is accepted.

// Hand fd to lws (it owns fd from here, also on failure): its connection, or NULL.
static struct lws* adopt(ws_server* ws, int fd)
{
	struct lws_vhost* vhost = ws->context != NULL ? lws_get_vhost_by_name(ws->context, "default") : NULL;
	if (vhost == NULL)
	{
		close(fd);
		return NULL;
	}
	return lws_adopt_socket_vhost(vhost, fd);
}

static void on_accepted_closed(uv_handle_t* handle)
{
	free(handle);
}

static void on_http_connection(uv_stream_t* listener, int status)
{
	ws_server* ws = listener->data;
	if (status < 0)
	{
		server_accept_failed(&ws->accept_failed, "http", status);
		return;
	}
	uv_tcp_t* client = malloc(sizeof(uv_tcp_t));
	if (client == NULL)
	{
		// No memory for a handle: libuv keeps the connection pending and accepts no other on this port
		// until a uv_accept takes it (as on the TCP port, tcp.c). The process is failing by then.
		return;
	}
	uv_tcp_init(ws->srv->loop, client);
	if (uv_accept(listener, (uv_stream_t*)client) != 0)
	{
		uv_close((uv_handle_t*)client, on_accepted_closed);
		return;
	}
	// lws gets a descriptor of its own: libuv's closes with its handle.
	const server_limits* l = &ws->srv->config.limits;
	char ip[64], address[64];
	int port = 0;
	bool v6 = false;
	server_peer_ip(client, ip, sizeof(ip), &port, &v6);
	server_client_of(ip, address, sizeof(address));
	int fd = -1;
	uv_os_fd_t own;
	if (ws->connections < l->max_http_connections && ws->peer_count < l->max_http_connections &&
		peers_from(ws, address) < l->max_connections_per_client && uv_tcp_nodelay(client, 1) == 0 &&
		uv_fileno((uv_handle_t*)client, &own) == 0)
	{
		fd = fcntl(own, F_DUPFD_CLOEXEC, 0); // fails when the accept took the last descriptor
	}
	uv_close((uv_handle_t*)client, on_accepted_closed);
	if (fd >= 0)
	{
		struct lws* wsi = adopt(ws, fd); // lws owns fd from here, also when adopting fails
		if (wsi != NULL)
		{
			http_peer* p = ws->peers + ws->peer_count++;
			p->wsi = wsi;
			snprintf(p->address, sizeof(p->address), "%s", address);
		}
	}
	else
	{
		ws->srv->metrics.connections_refused += 1; // over the limit, or no descriptor for lws's copy
	}
}

static int listen_http(ws_server* ws, const char* host, int port, int* bound_port)
{
	ws->listening = true; // the handle is open from here, whatever the result
	const int err = server_listen_tcp(ws->srv, &ws->listener, host, port, on_http_connection, bound_port);
	ws->listener.data = ws;
	return err;
}

int ws_start(struct server* srv, const char* host, int port, const char* web_root, ws_server** out, int* bound_port)
{
	ws_server* ws = calloc(1, sizeof(ws_server));
	if (ws == NULL)
	{
		return UV_ENOMEM;
	}
	ws->srv = srv;
	ws->peers = malloc((size_t)srv->config.limits.max_http_connections * sizeof(http_peer));
	if (ws->peers == NULL)
	{
		free(ws);
		return UV_ENOMEM;
	}
	snprintf(ws->web_root, sizeof(ws->web_root), "%s", web_root != NULL ? web_root : "");
	lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);

	ws->protocols[0].name = "http";
	ws->protocols[0].callback = callback_http;
	ws->protocols[0].per_session_data_size = 0; // responses are kept in ws->responses
	// One send for an answer written at once (lws's default is 4 KiB a send, and it would copy the rest):
	// lws then keeps only what the socket does not take, at most this much per connection.
	ws->protocols[0].tx_packet_size = HTTP_WRITE_AT_ONCE;
	ws->protocols[1].name = WIRE_WS_SUBPROTOCOL;
	ws->protocols[1].callback = callback_sinew;
	ws->protocols[1].per_session_data_size = sizeof(ws_pss);
	ws->protocols[1].rx_buffer_size = WS_CHUNK;
	ws->protocols[1].tx_packet_size = WS_CHUNK;

	// /healthz, /metrics and /assets by callback; the dashboard directory at / if there is one.
	static const char* const endpoints[3] = { "/healthz", "/metrics", "/assets" };
	for (int i = 0; i < 3; ++i)
	{
		struct lws_http_mount* m = ws->mounts + i;
		m->mountpoint = endpoints[i];
		m->mountpoint_len = (unsigned char)strlen(endpoints[i]);
		m->origin = "http";
		m->origin_protocol = LWSMPRO_CALLBACK;
		m->mount_next = ws->mounts + i + 1;
	}
	ws->mounts[2].mount_next = NULL;
	if (is_directory(ws->web_root))
	{
		struct lws_http_mount* m = ws->mounts + 3;
		m->mountpoint = "/";
		m->mountpoint_len = 1;
		m->origin = ws->web_root;
		m->def = "index.html";
		m->origin_protocol = LWSMPRO_FILE;
		ws->mounts[2].mount_next = m;
	}
	else if (ws->web_root[0] != '\0')
	{
		char quoted[600];
		log_warn("web root is not a directory; / answers 404", "web_root=%s",
				 log_quote(quoted, sizeof(quoted), ws->web_root));
	}

	struct lws_context_creation_info info;
	memset(&info, 0, sizeof(info));
	void* loops[1] = { srv->loop };
	// lws listens on nothing: the port is libuv's (listen_http), and lws serves the sockets it is given.
	info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
	info.protocols = ws->protocols;
	info.mounts = ws->mounts;
	info.options =
		LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN | LWS_SERVER_OPTION_DISABLE_IPV6;
	if (strchr(host, ':') != NULL)
	{
		info.options &= ~(uint64_t)LWS_SERVER_OPTION_DISABLE_IPV6;
	}
	info.foreign_loops = loops;
	info.user = ws;
	// A connection must finish its HTTP request (or WebSocket upgrade) within the handshake timeout, in
	// whole seconds as lws counts: a slow sender (slowloris) holds a socket and a header table no longer.
	int64_t timeout_s = (srv->config.limits.handshake_timeout_ms + 999) / 1000;
	info.timeout_secs = (unsigned)timeout_s;
	info.timeout_secs_ah_idle = (unsigned)timeout_s;
	// lws writes NULL here once the context is wholly destroyed (see ws_free).
	info.pcontext = &ws->context;
	ws->context = lws_create_context(&info);
	if (ws->context == NULL)
	{
		log_error("cannot create the libwebsockets context", "host=%s port=%d", host, port);
		free(ws->peers);
		free(ws);
		return UV_EINVAL;
	}
	// From here the server stops and frees it with the rest, also when the port cannot be had.
	*out = ws;
	*bound_port = 0;
	return port >= 0 ? listen_http(ws, host, port, bound_port) : 0;
}

int ws_adopt(ws_server* ws, int fd)
{
	return adopt(ws, fd) != NULL ? 0 : -1;
}

int ws_connections(const ws_server* ws)
{
	return ws != NULL ? ws->connections : 0;
}

void ws_stop(ws_server* ws)
{
	if (ws != NULL && ws->listening)
	{
		ws->listening = false;
		uv_close((uv_handle_t*)&ws->listener, NULL); // ws outlives the loop (ws_free comes after it)
	}
	if (ws != NULL && ws->context != NULL && !ws->stopping)
	{
		// With a foreign loop this starts closing lws's connections and handles; the loop finishes that.
		ws->stopping = true;
		lws_context_destroy(ws->context);
	}
}

void ws_free(ws_server* ws)
{
	if (ws == NULL)
	{
		return;
	}
	// The final call frees the context once its handles on the (now finished) loop have closed.
	if (ws->context != NULL)
	{
		lws_context_destroy(ws->context);
	}
	while (ws->responses != NULL)
	{
		drop_response(ws, ws->responses->wsi);
	}
	free(ws->peers);
	free(ws);
}
