// TCP transport: varint-delimited messages over uv_tcp.
#include "tcp.h"

#include "errors.h"
#include "log.h"
#include "server.h"
#include "session.h"
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum
{
	READ_CHUNK = 65536,   // bytes offered to each read
	WRITE_BATCH = 32,     // messages gathered into one write
	WRITE_BYTES = 1 << 20 // stop gathering after this many bytes
};

struct tcp_listener
{
	uv_tcp_t handle;
	struct server* srv;
	accept_failures accept_failed;
};

typedef struct tcp_conn
{
	uv_tcp_t handle;
	struct server* srv;
	session* session;
	uint8_t* in; // received bytes not yet handled
	size_t in_size;
	size_t in_capacity;
	int32_t alloc_error; // why on_alloc had no room (on_read closes the session with it)
	bool reading;
	bool processing;
	bool writing;
	bool closing;
	uv_write_t write_req;
	int item_count;
	outbox_item items[WRITE_BATCH];
	uint8_t prefixes[WRITE_BATCH][WIRE_VARINT_MAX];
	uv_buf_t bufs[3 * WRITE_BATCH];
} tcp_conn;

static void conn_kick(void* p);
static void conn_resume(void* p);
static void conn_close(void* p);

static const transport_ops tcp_ops = { "tcp", 0, conn_kick, conn_resume, conn_close };

static void on_closed(uv_handle_t* handle)
{
	tcp_conn* c = handle->data;
	if (c->session != NULL)
	{
		session_detach(c->session);
	}
	server_receive_resize(c->srv, &c->in, &c->in_capacity, 0);
	free(c);
}

static void conn_close(void* p)
{
	tcp_conn* c = p;
	if (c->closing)
	{
		return;
	}
	c->closing = true;
	uv_close((uv_handle_t*)&c->handle, on_closed);
}

// Room for `need` more bytes after what is buffered (the message size limit bounds what is buffered),
// within max_receive_bytes: 0, or why not.
static int32_t reserve(tcp_conn* c, size_t need)
{
	if (c->in_capacity - c->in_size >= need)
	{
		return 0;
	}
	return server_receive_resize(c->srv, &c->in, &c->in_capacity, c->in_size + need);
}

static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf)
{
	(void)suggested;
	tcp_conn* c = handle->data;
	const int32_t err = reserve(c, READ_CHUNK);
	if (err != 0)
	{
		// libuv then reports UV_ENOBUFS to on_read, which closes the session with the reason (not here:
		// closing may stop the read, and libuv calls the read callback right after this one).
		c->alloc_error = err;
		buf->base = NULL;
		buf->len = 0;
		return;
	}
	buf->base = (char*)(c->in + c->in_size);
	buf->len = c->in_capacity - c->in_size;
}

static void stop_reading(tcp_conn* c)
{
	if (c->reading)
	{
		uv_read_stop((uv_stream_t*)&c->handle);
		c->reading = false;
	}
}

static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);

static void start_reading(tcp_conn* c)
{
	if (!c->reading && !c->closing)
	{
		c->reading = uv_read_start((uv_stream_t*)&c->handle, on_alloc, on_read) == 0;
	}
}

// Hand whole messages to the session while it accepts them.
static void process(tcp_conn* c)
{
	if (c->processing || c->closing)
	{
		return;
	}
	c->processing = true;
	size_t pos = 0;
	bool partial = false; // the buffer ends in part of a message
	bool paused = false;  // the session takes no more messages for now
	for (;;)
	{
		if (c->session->state == SESSION_CLOSING || !session_accepting(c->session))
		{
			paused = true;
			break;
		}
		uint64_t max = session_max_message(c->session); // smaller before the handshake
		uint64_t size = 0;
		int n = wire_varint_get(c->in + pos, c->in_size - pos, &size);
		if (n == 0)
		{
			partial = c->in_size > pos;
			break;
		}
		if (n < 0)
		{
			session_close(c->session, SV_ERR_BAD_MESSAGE, "malformed length prefix (not a varint)");
			break;
		}
		if (size > max)
		{
			char reason[160];
			snprintf(reason, sizeof(reason), "length prefix %llu is above %s (%llu)", (unsigned long long)size,
					 c->session->state == SESSION_NEW ? "the largest handshake" : "max_message_bytes",
					 (unsigned long long)max);
			session_close(c->session, SV_ERR_MESSAGE_TOO_LARGE, reason);
			break;
		}
		if (c->in_size - pos - (size_t)n < size)
		{
			partial = true; // the rest of the message has not arrived yet
			break;
		}
		session_receive(c->session, c->in + pos + n, (size_t)size);
		pos += (size_t)n + (size_t)size;
		if (c->closing)
		{
			break;
		}
	}
	const bool consumed = pos > 0;
	if (pos > 0 && !c->closing)
	{
		memmove(c->in, c->in + pos, c->in_size - pos);
		c->in_size -= pos;
		// A large message is done: keep what is left and room for one read, not the message's size.
		if (c->in_capacity > SV_RECEIVE_FREE_BYTES && c->in_size + READ_CHUNK < c->in_capacity)
		{
			server_receive_resize(c->srv, &c->in, &c->in_capacity, c->in_size + READ_CHUNK);
		}
	}
	c->processing = false;
	if (c->closing)
	{
		return;
	}
	if (consumed)
	{
		session_receive_progress(c->session, 0); // what is left is another message
	}
	if (paused)
	{
		session_receive_paused(c->session);
	}
	else
	{
		session_receive_progress(c->session, partial ? c->in_size : 0);
	}
	if (c->session->state == SESSION_CLOSING || !session_accepting(c->session))
	{
		stop_reading(c);
	}
	else
	{
		start_reading(c);
	}
}

static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf)
{
	(void)buf;
	tcp_conn* c = stream->data;
	if (nread == UV_ENOBUFS && c->alloc_error != 0)
	{
		// on_alloc found no room: the session says why and closes the connection once that is written.
		stop_reading(c);
		if (c->session->state != SESSION_CLOSING)
		{
			session_close(c->session, c->alloc_error,
						  c->alloc_error == SV_ERR_LIMIT_REACHED
							  ? "max_receive_bytes reached: the server holds too much of other clients' messages"
							  : "out of memory for the message");
		}
		return;
	}
	if (nread < 0)
	{
		if (nread != UV_EOF)
		{
			log_debug("tcp read failed", "session=%llu error=%s", (unsigned long long)c->session->id,
					  uv_err_name((int)nread));
		}
		conn_close(c);
		return;
	}
	if (nread == 0)
	{
		return;
	}
	c->in_size += (size_t)nread;
	process(c);
}

static void on_write(uv_write_t* req, int status)
{
	tcp_conn* c = req->data;
	for (int i = 0; i < c->item_count; ++i)
	{
		session_written(c->session, c->items + i, status == 0);
	}
	c->item_count = 0;
	c->writing = false;
	if (status < 0)
	{
		conn_close(c);
		return;
	}
	conn_kick(c);
}

static void conn_kick(void* p)
{
	tcp_conn* c = p;
	if (c->writing || c->closing)
	{
		return;
	}
	int nbufs = 0;
	size_t bytes = 0;
	c->item_count = 0;
	while (c->item_count < WRITE_BATCH && bytes < WRITE_BYTES)
	{
		outbox_item* item = c->items + c->item_count;
		if (!session_pop(c->session, item))
		{
			break;
		}
		size_t size = item->head_size + item->body_size;
		size_t n = wire_varint_put(c->prefixes[c->item_count], size);
		c->bufs[nbufs++] = uv_buf_init((char*)c->prefixes[c->item_count], (unsigned)n);
		if (item->head_size > 0)
		{
			c->bufs[nbufs++] = uv_buf_init((char*)item->head, (unsigned)item->head_size);
		}
		c->bufs[nbufs++] = uv_buf_init((char*)item->body, (unsigned)item->body_size);
		bytes += n + size;
		c->item_count += 1;
	}
	if (c->item_count == 0)
	{
		if (session_flushed(c->session))
		{
			c->session->close_requested = true;
			conn_close(c);
		}
		return;
	}
	c->write_req.data = c;
	c->writing = true;
	// Taking messages out of the outbox may have released backpressure.
	if (!c->processing && !c->reading && c->session->state != SESSION_CLOSING && session_accepting(c->session))
	{
		conn_resume(c);
	}
	if (uv_write(&c->write_req, (uv_stream_t*)&c->handle, c->bufs, (unsigned)nbufs, on_write) != 0)
	{
		for (int i = 0; i < c->item_count; ++i)
		{
			session_written(c->session, c->items + i, false);
		}
		c->item_count = 0;
		c->writing = false;
		conn_close(c);
	}
}

static void conn_resume(void* p)
{
	tcp_conn* c = p;
	if (c->processing)
	{
		return; // the loop in process() goes on by itself
	}
	process(c);
}

static void peer_name(uv_tcp_t* handle, char* out, size_t cap)
{
	char ip[64];
	int port = 0;
	bool v6 = false;
	if (!server_peer_ip(handle, ip, sizeof(ip), &port, &v6))
	{
		snprintf(out, cap, "unknown");
		return;
	}
	snprintf(out, cap, v6 ? "[%s]:%d" : "%s:%d", ip, port);
}

static void on_connection(uv_stream_t* server_handle, int status)
{
	tcp_listener* l = server_handle->data;
	if (status < 0)
	{
		server_accept_failed(&l->accept_failed, "tcp", status);
		return;
	}
	tcp_conn* c = calloc(1, sizeof(tcp_conn));
	if (c == NULL)
	{
		return;
	}
	c->srv = l->srv;
	uv_tcp_init(l->srv->loop, &c->handle);
	c->handle.data = c;
	if (uv_accept(server_handle, (uv_stream_t*)&c->handle) != 0)
	{
		uv_close((uv_handle_t*)&c->handle, on_closed);
		return;
	}
	uv_tcp_nodelay(&c->handle, 1);
	int sndbuf = (int)l->srv->config.limits.socket_send_buffer_bytes;
	uv_send_buffer_size((uv_handle_t*)&c->handle, &sndbuf);
	char peer[64];
	peer_name(&c->handle, peer, sizeof(peer));
	c->session = session_open(l->srv, &tcp_ops, c, peer);
	if (c->session == NULL)
	{
		c->closing = true;
		uv_close((uv_handle_t*)&c->handle, on_closed);
		return;
	}
	if (session_admit(c->session))
	{
		start_reading(c);
	}
}

int tcp_listen(struct server* srv, const char* host, int port, tcp_listener** out, int* bound_port)
{
	tcp_listener* l = calloc(1, sizeof(tcp_listener));
	if (l == NULL)
	{
		return UV_ENOMEM;
	}
	l->srv = srv;
	const int err = server_listen_tcp(srv, &l->handle, host, port, on_connection, bound_port);
	l->handle.data = l;
	if (err != 0)
	{
		tcp_listener_close(l);
		return err;
	}
	*out = l;
	return 0;
}

static void on_listener_closed(uv_handle_t* handle)
{
	free(handle->data);
}

void tcp_listener_close(tcp_listener* l)
{
	if (l != NULL)
	{
		uv_close((uv_handle_t*)&l->handle, on_listener_closed);
	}
}
