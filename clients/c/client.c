// The C client: sockets, the two framings (varint prefix; WebSocket frames), request/reply, the queue.
#define _POSIX_C_SOURCE 200809L
#include "sinew_client.h"

#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

enum
{
	READ_CHUNK = 65536,
	WS_HEADER_MAX = 14,
	HTTP_HEADER_MAX = 8192
};

struct snc_client
{
	int fd;
	snc_options options;
	char host[256];
	uint8_t* in; // bytes read, not yet parsed
	size_t in_size;
	size_t in_capacity;
	size_t consumed;     // bytes of `in` used by the last message handed out
	uint8_t* ws_message; // WebSocket fragments assembled
	size_t ws_size;
	size_t ws_capacity;
	uint64_t next_id;
	uint64_t rng;
	snc_message* queue; // ring of received messages
	int queue_head;
	int queue_count;
	uint64_t dropped;
};

uint64_t snc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

snc_options snc_default_options(void)
{
	snc_options o;
	memset(&o, 0, sizeof(o));
	o.transport = SNC_TCP;
	o.host = "127.0.0.1";
	o.port = 0;
	o.timeout_ms = 5000;
	o.max_message_bytes = (size_t)256 << 20;
	o.queue_capacity = 1024;
	return o;
}

const char* snc_error_string(int error)
{
	if (error == SNC_REFUSED)
	{
		return "the server refused the handshake";
	}
	if (error == SNC_ERR_HTTP_PORT)
	{
		return "this port answers in HTTP: it is sinewd's HTTP/WebSocket port (default 7421; use it with the "
			   "WebSocket transport), not its TCP port (default 7420)";
	}
	if (error == SNC_ERR_TCP_PORT)
	{
		return "this port does not answer in HTTP: it is sinewd's TCP port (default 7420; use it with the TCP "
			   "transport), not its HTTP/WebSocket port (default 7421)";
	}
	return error < 0 ? strerror(-error) : "ok";
}

int snc_fd(const snc_client* c)
{
	return c->fd;
}

uint64_t snc_queue_dropped(const snc_client* c)
{
	return c->dropped;
}

static uint64_t next_random(snc_client* c)
{
	// xorshift64*: mask keys and the handshake key need to vary, not to be secret.
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 2685821657736338717ull;
}

// ---- sockets ------------------------------------------------------------------------------------------

static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;)
	{
		int timeout = -1;
		if (deadline_ns != 0)
		{
			uint64_t now = snc_now_ns();
			if (now >= deadline_ns)
			{
				timeout = 0;
			}
			else
			{
				uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
				timeout = ms > 86400000u ? 86400000 : (int)ms;
			}
		}
		struct pollfd p = { fd, events, 0 };
		int n = poll(&p, 1, timeout);
		if (n < 0 && errno == EINTR)
		{
			continue;
		}
		if (n < 0)
		{
			return -errno;
		}
		return n == 0 ? -ETIMEDOUT : 0;
	}
}

static int send_all(snc_client* c, const uint8_t* data, size_t size)
{
	while (size > 0)
	{
		ssize_t n = send(c->fd, data, size, MSG_NOSIGNAL);
		if (n < 0)
		{
			if (errno == EINTR)
			{
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				int err = wait_fd(c->fd, POLLOUT, snc_now_ns() + (uint64_t)c->options.timeout_ms * 1000000u);
				if (err != 0)
				{
					return err;
				}
				continue;
			}
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		data += n;
		size -= (size_t)n;
	}
	return 0;
}

// Read more bytes into `in`. Returns > 0 bytes, or a negative error.
static int fill(snc_client* c, uint64_t deadline_ns)
{
	if (c->in_capacity - c->in_size < READ_CHUNK)
	{
		size_t capacity = c->in_capacity * 2 > c->in_size + READ_CHUNK ? c->in_capacity * 2 : c->in_size + READ_CHUNK;
		uint8_t* in = realloc(c->in, capacity);
		if (in == NULL)
		{
			return -ENOMEM;
		}
		c->in = in;
		c->in_capacity = capacity;
	}
	for (;;)
	{
		ssize_t n = recv(c->fd, c->in + c->in_size, c->in_capacity - c->in_size, MSG_DONTWAIT);
		if (n > 0)
		{
			c->in_size += (size_t)n;
			return (int)n;
		}
		if (n == 0)
		{
			return -ECONNRESET;
		}
		if (errno == EINTR)
		{
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
		{
			return -errno;
		}
		int err = wait_fd(c->fd, POLLIN, deadline_ns);
		if (err != 0)
		{
			return err;
		}
	}
}

static void consume(snc_client* c)
{
	if (c->consumed > 0)
	{
		memmove(c->in, c->in + c->consumed, c->in_size - c->consumed);
		c->in_size -= c->consumed;
		c->consumed = 0;
	}
}

// ---- WebSocket ----------------------------------------------------------------------------------------

static void base64(const uint8_t* in, size_t n, char* out)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3)
	{
		uint32_t v = (uint32_t)in[i] << 16;
		v |= i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0u;
		v |= i + 2 < n ? (uint32_t)in[i + 2] : 0u;
		out[k++] = digits[(v >> 18) & 63];
		out[k++] = digits[(v >> 12) & 63];
		out[k++] = i + 1 < n ? digits[(v >> 6) & 63] : '=';
		out[k++] = i + 2 < n ? digits[v & 63] : '=';
	}
	out[k] = '\0';
}

// The opening handshake with subprotocol sinew.v1. (The loopback client does not check
// Sec-WebSocket-Accept; it checks the status and the subprotocol.)
static int ws_open(snc_client* c, uint64_t deadline_ns)
{
	uint8_t key[16];
	for (int i = 0; i < 16; ++i)
	{
		key[i] = (uint8_t)next_random(c);
	}
	char key64[32];
	base64(key, sizeof(key), key64);
	char request[512];
	int n = snprintf(request, sizeof(request),
					 "GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
					 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\n\r\n",
					 c->host, c->options.port, key64, WIRE_WS_SUBPROTOCOL);
	int err = send_all(c, (const uint8_t*)request, (size_t)n);
	if (err != 0)
	{
		return err;
	}
	for (;;)
	{
		// An answer that does not start like an HTTP response comes from a port of another protocol.
		size_t seen = c->in_size < 5 ? c->in_size : 5;
		if (seen > 0 && memcmp(c->in, "HTTP/", seen) != 0)
		{
			return SNC_ERR_TCP_PORT;
		}
		for (size_t i = 3; i < c->in_size; ++i)
		{
			if (memcmp(c->in + i - 3, "\r\n\r\n", 4) == 0)
			{
				size_t header = i + 1;
				char text[HTTP_HEADER_MAX + 1];
				memcpy(text, c->in, header < HTTP_HEADER_MAX ? header : HTTP_HEADER_MAX);
				text[header < HTTP_HEADER_MAX ? header : HTTP_HEADER_MAX] = '\0';
				c->consumed = header;
				consume(c);
				if (strncmp(text, "HTTP/1.1 101", 12) != 0 || strstr(text, WIRE_WS_SUBPROTOCOL) == NULL)
				{
					return -EPROTO;
				}
				return 0;
			}
		}
		if (c->in_size > HTTP_HEADER_MAX)
		{
			return -EPROTO;
		}
		err = fill(c, deadline_ns);
		if (err < 0)
		{
			return err == -ECONNRESET && c->in_size > 0 && memcmp(c->in, "HTTP/", c->in_size < 5 ? c->in_size : 5) != 0
				? SNC_ERR_TCP_PORT
				: err;
		}
	}
}

// Frame and send payload[0, size) (which has WS_HEADER_MAX bytes of headroom before it) as one masked
// binary message. opcode 2 binary, 9 ping, 10 pong.
static int ws_send(snc_client* c, uint8_t* payload, size_t size, int opcode)
{
	uint8_t header[WS_HEADER_MAX];
	size_t h = 0;
	header[h++] = (uint8_t)(0x80 | opcode);
	if (size < 126)
	{
		header[h++] = (uint8_t)(0x80 | size);
	}
	else if (size < 65536)
	{
		header[h++] = 0x80 | 126;
		header[h++] = (uint8_t)(size >> 8);
		header[h++] = (uint8_t)size;
	}
	else
	{
		header[h++] = 0x80 | 127;
		for (int i = 7; i >= 0; --i)
		{
			header[h++] = (uint8_t)((uint64_t)size >> (8 * i));
		}
	}
	uint32_t mask = (uint32_t)next_random(c);
	uint8_t m[4] = { (uint8_t)(mask >> 24), (uint8_t)(mask >> 16), (uint8_t)(mask >> 8), (uint8_t)mask };
	memcpy(header + h, m, 4);
	h += 4;
	for (size_t i = 0; i < size; ++i)
	{
		payload[i] ^= m[i & 3];
	}
	uint8_t* start = payload - h;
	memcpy(start, header, h);
	return send_all(c, start, h + size);
}

// ---- framing in ---------------------------------------------------------------------------------------

// The next whole message's bytes (valid until the next call). Returns 0, or a negative error.
static int next_message(snc_client* c, uint64_t deadline_ns, const uint8_t** data, size_t* size)
{
	consume(c);
	for (;;)
	{
		if (c->options.transport == SNC_TCP)
		{
			// sinewd's TCP port answers with a varint length first; "HTTP/" is the HTTP port answering.
			if (c->in_size >= 5 && memcmp(c->in, "HTTP/", 5) == 0)
			{
				return SNC_ERR_HTTP_PORT;
			}
			uint64_t length = 0;
			int n = wire_varint_get(c->in, c->in_size, &length);
			if (n < 0)
			{
				return -EPROTO;
			}
			if (n > 0)
			{
				if (length > c->options.max_message_bytes)
				{
					return -EMSGSIZE;
				}
				if (c->in_size - (size_t)n >= length)
				{
					*data = c->in + n;
					*size = (size_t)length;
					c->consumed = (size_t)n + (size_t)length;
					return 0;
				}
			}
		}
		else if (c->in_size >= 2)
		{
			const uint8_t* p = c->in;
			bool fin = (p[0] & 0x80) != 0;
			int opcode = p[0] & 0x0f;
			bool masked = (p[1] & 0x80) != 0;
			uint64_t length = p[1] & 0x7f;
			size_t h = 2;
			if (length == 126)
			{
				h = 4;
				length = c->in_size >= 4 ? ((uint64_t)p[2] << 8) | p[3] : 0;
			}
			else if (length == 127)
			{
				h = 10;
				length = 0;
				for (int i = 0; i < 8 && c->in_size >= 10; ++i)
				{
					length = (length << 8) | p[2 + i];
				}
			}
			h += masked ? 4u : 0u;
			if (length > c->options.max_message_bytes)
			{
				return -EMSGSIZE;
			}
			if (c->in_size >= h && c->in_size - h >= length)
			{
				const uint8_t* payload = p + h;
				c->consumed = h + (size_t)length;
				if (opcode == 0x8)
				{
					return -ECONNRESET;
				}
				if (opcode == 0x9)
				{
					uint8_t pong[WS_HEADER_MAX + 125];
					size_t n = length < 125 ? (size_t)length : 125;
					memcpy(pong + WS_HEADER_MAX, payload, n);
					ws_send(c, pong + WS_HEADER_MAX, n, 0xA);
					consume(c);
					continue;
				}
				if (opcode == 0xA)
				{
					consume(c);
					continue;
				}
				if (opcode != 0x0 && opcode != 0x2)
				{
					return -EPROTO;
				}
				if (opcode == 0x2)
				{
					c->ws_size = 0;
				}
				if (fin && c->ws_size == 0)
				{
					*data = payload; // unfragmented: no copy
					*size = (size_t)length;
					return 0;
				}
				if (c->ws_size + length > c->options.max_message_bytes)
				{
					return -EMSGSIZE;
				}
				if (c->ws_size + length > c->ws_capacity)
				{
					size_t capacity = (c->ws_size + (size_t)length) * 2;
					uint8_t* m = realloc(c->ws_message, capacity);
					if (m == NULL)
					{
						return -ENOMEM;
					}
					c->ws_message = m;
					c->ws_capacity = capacity;
				}
				memcpy(c->ws_message + c->ws_size, payload, (size_t)length);
				c->ws_size += (size_t)length;
				consume(c);
				if (fin)
				{
					*data = c->ws_message;
					*size = c->ws_size;
					c->ws_size = 0;
					return 0;
				}
				continue;
			}
		}
		int err = fill(c, deadline_ns);
		if (err < 0)
		{
			return err;
		}
	}
}

// ---- decoding -----------------------------------------------------------------------------------------

#define GROW_(array, count, type)                                                                                      \
	do                                                                                                                 \
	{                                                                                                                  \
		if (((count) & ((count)-1)) == 0)                                                                              \
		{                                                                                                              \
			size_t capacity_ = (count) == 0 ? 8 : 2 * (size_t)(count);                                                 \
			type* grown_ = realloc((array), capacity_ * sizeof(type));                                                 \
			if (grown_ == NULL)                                                                                        \
				return false;                                                                                          \
			(array) = grown_;                                                                                          \
		}                                                                                                              \
	} while (0)

// Growing fields of a ServerMessage into the arrays of the snc_message being decoded. An array is grown
// when its count reaches a power of two (>= 8).
static bool decode_hook(pb_istream_t* stream, const pb_field_iter_t* field, void* context)
{
	snc_message* m = context;
	if (field->descriptor == &sinew_v1_StateFrame_msg)
	{
		if (field->tag == sinew_v1_StateFrame_bodies_tag)
		{
			if (m->body_count >= 8 || m->body_count == 0)
			{
				GROW_(m->bodies, m->body_count, sinew_v1_BodyState);
			}
			sinew_v1_BodyState* b = m->bodies + m->body_count;
			*b = (sinew_v1_BodyState)sinew_v1_BodyState_init_zero;
			if (!pb_decode(stream, sinew_v1_BodyState_fields, b))
			{
				return false;
			}
			m->body_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_StateFrame_joints_tag)
		{
			if (m->joint_count >= 8 || m->joint_count == 0)
			{
				GROW_(m->joints, m->joint_count, sinew_v1_JointState);
			}
			sinew_v1_JointState* j = m->joints + m->joint_count;
			*j = (sinew_v1_JointState)sinew_v1_JointState_init_zero;
			if (!pb_decode(stream, sinew_v1_JointState_fields, j))
			{
				return false;
			}
			m->joint_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_StateFrame_articulations_tag)
		{
			if (m->articulation_count >= 8 || m->articulation_count == 0)
			{
				GROW_(m->articulations, m->articulation_count, sinew_v1_ArticulationState);
			}
			sinew_v1_ArticulationState* a = m->articulations + m->articulation_count;
			*a = (sinew_v1_ArticulationState)sinew_v1_ArticulationState_init_zero;
			if (!pb_decode(stream, sinew_v1_ArticulationState_fields, a))
			{
				return false;
			}
			m->articulation_count += 1;
			return true;
		}
	}
	if (field->descriptor == &sinew_v1_WorldList_msg && field->tag == sinew_v1_WorldList_worlds_tag)
	{
		if (m->world_count >= 8 || m->world_count == 0)
		{
			GROW_(m->worlds, m->world_count, sinew_v1_WorldInfo);
		}
		sinew_v1_WorldInfo* w = m->worlds + m->world_count;
		*w = (sinew_v1_WorldInfo)sinew_v1_WorldInfo_init_zero;
		if (!pb_decode(stream, sinew_v1_WorldInfo_fields, w))
		{
			return false;
		}
		m->world_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_UrdfModel_msg)
	{
		if (field->tag == sinew_v1_UrdfModel_links_tag)
		{
			if (m->urdf_link_count >= 8 || m->urdf_link_count == 0)
			{
				GROW_(m->urdf_links, m->urdf_link_count, sinew_v1_UrdfLink);
			}
			sinew_v1_UrdfLink* l = m->urdf_links + m->urdf_link_count;
			*l = (sinew_v1_UrdfLink)sinew_v1_UrdfLink_init_zero;
			if (!pb_decode(stream, sinew_v1_UrdfLink_fields, l))
			{
				return false;
			}
			m->urdf_link_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_UrdfModel_joints_tag)
		{
			if (m->urdf_joint_count >= 8 || m->urdf_joint_count == 0)
			{
				GROW_(m->urdf_joints, m->urdf_joint_count, sinew_v1_UrdfJoint);
			}
			sinew_v1_UrdfJoint* j = m->urdf_joints + m->urdf_joint_count;
			*j = (sinew_v1_UrdfJoint)sinew_v1_UrdfJoint_init_zero;
			if (!pb_decode(stream, sinew_v1_UrdfJoint_fields, j))
			{
				return false;
			}
			m->urdf_joint_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_UrdfModel_visuals_tag)
		{
			if (m->urdf_visual_count >= 8 || m->urdf_visual_count == 0)
			{
				GROW_(m->urdf_visuals, m->urdf_visual_count, sinew_v1_UrdfVisual);
			}
			sinew_v1_UrdfVisual* v = m->urdf_visuals + m->urdf_visual_count;
			*v = (sinew_v1_UrdfVisual)sinew_v1_UrdfVisual_init_zero;
			if (!pb_decode(stream, sinew_v1_UrdfVisual_fields, v))
			{
				return false;
			}
			m->urdf_visual_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_UrdfModel_warnings_tag)
		{
			if (m->urdf_warning_count >= 8 || m->urdf_warning_count == 0)
			{
				GROW_(m->urdf_warnings, m->urdf_warning_count, snc_warning_text);
			}
			char* w = m->urdf_warnings[m->urdf_warning_count];
			size_t size = stream->bytes_left < 639 ? stream->bytes_left : 639;
			if (!pb_read(stream, (pb_byte_t*)w, size) || !pb_read(stream, NULL, stream->bytes_left))
			{
				return false;
			}
			w[size] = '\0';
			m->urdf_warning_count += 1;
			return true;
		}
	}
	if (field->descriptor == &sinew_v1_WorldDescription_msg &&
		field->tag == sinew_v1_WorldDescription_articulations_tag)
	{
		if (m->articulation_info_count >= 8 || m->articulation_info_count == 0)
		{
			GROW_(m->articulation_infos, m->articulation_info_count, snc_articulation_info);
		}
		// Its links and URDF model arrive through this hook while it decodes (below), into the flat arrays.
		snc_articulation_info* a = m->articulation_infos + m->articulation_info_count;
		memset(a, 0, sizeof(*a));
		a->info = (sinew_v1_ArticulationInfo)sinew_v1_ArticulationInfo_init_zero;
		a->first_link = m->link_info_count;
		if (!pb_decode(stream, sinew_v1_ArticulationInfo_fields, &a->info))
		{
			return false;
		}
		a->link_count = m->link_info_count - a->first_link;
		m->articulation_info_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_ArticulationInfo_msg && m->articulation_infos != NULL)
	{
		snc_articulation_info* a = m->articulation_infos + m->articulation_info_count; // being decoded
		if (field->tag == sinew_v1_ArticulationInfo_links_tag)
		{
			if (m->link_info_count >= 8 || m->link_info_count == 0)
			{
				GROW_(m->link_infos, m->link_info_count, sinew_v1_LinkInfo);
			}
			sinew_v1_LinkInfo* l = m->link_infos + m->link_info_count;
			*l = (sinew_v1_LinkInfo)sinew_v1_LinkInfo_init_zero;
			if (!pb_decode(stream, sinew_v1_LinkInfo_fields, l))
			{
				return false;
			}
			m->link_info_count += 1;
			return true;
		}
		if (field->tag == sinew_v1_ArticulationInfo_urdf_tag)
		{
			a->has_urdf = true;
			a->urdf = (sinew_v1_UrdfModel)sinew_v1_UrdfModel_init_zero;
			a->first_urdf_link = m->urdf_link_count;
			a->first_urdf_joint = m->urdf_joint_count;
			a->first_urdf_visual = m->urdf_visual_count;
			if (!pb_decode(stream, sinew_v1_UrdfModel_fields, &a->urdf))
			{
				return false;
			}
			a->urdf_link_count = m->urdf_link_count - a->first_urdf_link;
			a->urdf_joint_count = m->urdf_joint_count - a->first_urdf_joint;
			a->urdf_visual_count = m->urdf_visual_count - a->first_urdf_visual;
			return true;
		}
	}
	if (field->descriptor == &sinew_v1_WorldDescription_msg && field->tag == sinew_v1_WorldDescription_shapes_tag)
	{
		if (m->shape_info_count >= 8 || m->shape_info_count == 0)
		{
			GROW_(m->shape_infos, m->shape_info_count, sinew_v1_ShapeInfo);
		}
		sinew_v1_ShapeInfo* s = m->shape_infos + m->shape_info_count;
		*s = (sinew_v1_ShapeInfo)sinew_v1_ShapeInfo_init_zero;
		if (!pb_decode(stream, sinew_v1_ShapeInfo_fields, s))
		{
			return false;
		}
		m->shape_info_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_Created_msg && field->tag == sinew_v1_Created_shape_ids_tag)
	{
		while (stream->bytes_left > 0)
		{
			if (m->shape_id_count >= 8 || m->shape_id_count == 0)
			{
				GROW_(m->shape_ids, m->shape_id_count, uint64_t);
			}
			if (!pb_decode_varint(stream, m->shape_ids + m->shape_id_count))
			{
				return false;
			}
			m->shape_id_count += 1;
		}
		return true;
	}
	if (field->descriptor == &sinew_v1_StateFrame_msg && field->tag == sinew_v1_StateFrame_contacts_tag)
	{
		if (m->contact_count >= 8 || m->contact_count == 0)
		{
			GROW_(m->contacts, m->contact_count, sinew_v1_Contact);
		}
		sinew_v1_Contact* c = m->contacts + m->contact_count;
		*c = (sinew_v1_Contact)sinew_v1_Contact_init_zero;
		if (!pb_decode(stream, sinew_v1_Contact_fields, c))
		{
			return false;
		}
		m->contact_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_ContactEvents_msg && field->tag == sinew_v1_ContactEvents_changes_tag)
	{
		if (m->contact_change_count >= 8 || m->contact_change_count == 0)
		{
			GROW_(m->contact_changes, m->contact_change_count, sinew_v1_ContactChange);
		}
		sinew_v1_ContactChange* c = m->contact_changes + m->contact_change_count;
		*c = (sinew_v1_ContactChange)sinew_v1_ContactChange_init_zero;
		if (!pb_decode(stream, sinew_v1_ContactChange_fields, c))
		{
			return false;
		}
		m->contact_change_count += 1;
		return true;
	}
	if (field->descriptor == &sinew_v1_AssetList_msg && field->tag == sinew_v1_AssetList_missing_tag)
	{
		if (stream->bytes_left != 32)
		{
			return false;
		}
		if (m->hash_count >= 8 || m->hash_count == 0)
		{
			size_t capacity = m->hash_count == 0 ? 8 : 2 * (size_t)m->hash_count;
			uint8_t(*grown)[32] = realloc(m->hashes, capacity * 32);
			if (grown == NULL)
			{
				return false;
			}
			m->hashes = grown;
		}
		if (!pb_read(stream, m->hashes[m->hash_count], 32))
		{
			return false;
		}
		m->hash_count += 1;
		return true;
	}
	if ((field->descriptor == &sinew_v1_SnapshotData_msg && field->tag == sinew_v1_SnapshotData_data_tag) ||
		(field->descriptor == &sinew_v1_MeshData_msg && field->tag == sinew_v1_MeshData_data_tag))
	{
		size_t size = stream->bytes_left;
		free(m->bytes);
		m->bytes = malloc(size > 0 ? size : 1);
		if (m->bytes == NULL || !pb_read(stream, m->bytes, size))
		{
			return false;
		}
		m->byte_count = size;
		return true;
	}
	return true;
}
#undef GROW_

void snc_message_free(snc_message* m)
{
	free(m->bodies);
	free(m->joints);
	free(m->articulations);
	free(m->worlds);
	free(m->bytes);
	free(m->urdf_links);
	free(m->urdf_joints);
	free(m->urdf_visuals);
	free(m->urdf_warnings);
	free(m->articulation_infos);
	free(m->link_infos);
	free(m->shape_infos);
	free(m->shape_ids);
	free(m->contacts);
	free(m->contact_changes);
	free(m->hashes);
	memset(m, 0, sizeof(*m));
}

static int read_message(snc_client* c, snc_message* out, uint64_t deadline_ns)
{
	const uint8_t* data = NULL;
	size_t size = 0;
	int err = next_message(c, deadline_ns, &data, &size);
	if (err != 0)
	{
		return err;
	}
	memset(out, 0, sizeof(*out));
	out->msg = (sinew_v1_ServerMessage)sinew_v1_ServerMessage_init_zero;
	if (!wire_decode(sinew_v1_ServerMessage_fields, &out->msg, data, size, decode_hook, out, NULL))
	{
		snc_message_free(out);
		return -EPROTO;
	}
	out->received_ns = snc_now_ns();
	out->wire_size = size;
	return 0;
}

// ---- the queue ----------------------------------------------------------------------------------------

static void enqueue(snc_client* c, snc_message* m)
{
	int cap = c->options.queue_capacity;
	if (c->queue_count == cap)
	{
		// Full: drop the oldest state frame (or the oldest message if there is none).
		int victim = 0;
		for (int k = 0; k < c->queue_count; ++k)
		{
			int i = (c->queue_head + k) % cap;
			if (c->queue[i].msg.which_message == sinew_v1_ServerMessage_state_tag)
			{
				victim = k;
				break;
			}
		}
		int vi = (c->queue_head + victim) % cap;
		snc_message_free(c->queue + vi);
		for (int k = victim; k > 0; --k)
		{
			c->queue[(c->queue_head + k) % cap] = c->queue[(c->queue_head + k - 1) % cap];
		}
		c->queue_head = (c->queue_head + 1) % cap;
		c->queue_count -= 1;
		c->dropped += 1;
	}
	c->queue[(c->queue_head + c->queue_count) % cap] = *m;
	c->queue_count += 1;
}

static bool dequeue(snc_client* c, snc_message* out)
{
	if (c->queue_count == 0)
	{
		return false;
	}
	*out = c->queue[c->queue_head];
	c->queue_head = (c->queue_head + 1) % c->options.queue_capacity;
	c->queue_count -= 1;
	return true;
}

// ---- public -------------------------------------------------------------------------------------------

// Bind fd to the numeric `address` of `family` (any port).
static bool bind_local(int fd, int family, const char* address)
{
	struct addrinfo hints;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	struct addrinfo* local = NULL;
	if (getaddrinfo(address, NULL, &hints, &local) != 0 || local == NULL)
	{
		return false;
	}
	bool ok = bind(fd, local->ai_addr, local->ai_addrlen) == 0;
	freeaddrinfo(local);
	return ok;
}

int snc_connect(const snc_options* options, snc_client** out)
{
	snc_client* c = calloc(1, sizeof(snc_client));
	if (c == NULL)
	{
		return -ENOMEM;
	}
	c->options = *options;
	if (c->options.host == NULL)
	{
		c->options.host = "127.0.0.1";
	}
	if (c->options.port == 0)
	{
		c->options.port = c->options.transport == SNC_WS ? 7421 : 7420;
	}
	if (c->options.queue_capacity < 1)
	{
		c->options.queue_capacity = 1024;
	}
	if (c->options.max_message_bytes == 0)
	{
		c->options.max_message_bytes = (size_t)256 << 20;
	}
	snprintf(c->host, sizeof(c->host), "%s", c->options.host);
	c->options.host = c->host;
	c->rng = snc_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)c;
	c->rng = c->rng != 0 ? c->rng : 1;
	c->next_id = 1;
	c->fd = -1;
	c->queue = calloc((size_t)c->options.queue_capacity, sizeof(snc_message));
	if (c->queue == NULL)
	{
		free(c);
		return -ENOMEM;
	}
	char port[16];
	snprintf(port, sizeof(port), "%d", c->options.port);
	struct addrinfo hints;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	struct addrinfo* found = NULL;
	if (getaddrinfo(c->host, port, &hints, &found) != 0 || found == NULL)
	{
		snc_close(c);
		return -EHOSTUNREACH;
	}
	uint64_t deadline = snc_now_ns() + (uint64_t)c->options.timeout_ms * 1000000u;
	int err = -ECONNREFUSED;
	for (struct addrinfo* a = found; a != NULL && c->fd < 0; a = a->ai_next)
	{
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
		{
			err = -errno;
			continue;
		}
		if (c->options.receive_buffer_bytes > 0)
		{
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &c->options.receive_buffer_bytes, sizeof(int));
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (c->options.local_address != NULL && !bind_local(fd, a->ai_family, c->options.local_address))
		{
			err = -EADDRNOTAVAIL;
			close(fd);
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS)
		{
			err = -errno;
			close(fd);
			continue;
		}
		err = wait_fd(fd, POLLOUT, deadline);
		int so_error = 0;
		socklen_t len = sizeof(so_error);
		if (err == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) == 0 && so_error != 0)
		{
			err = -so_error;
		}
		if (err != 0)
		{
			close(fd);
			continue;
		}
		c->fd = fd;
	}
	freeaddrinfo(found);
	if (c->fd < 0)
	{
		snc_close(c);
		return err;
	}
	if (c->options.transport == SNC_WS)
	{
		err = ws_open(c, deadline);
		if (err != 0)
		{
			snc_close(c);
			return err;
		}
	}
	*out = c;
	return 0;
}

void snc_close(snc_client* c)
{
	if (c == NULL)
	{
		return;
	}
	if (c->fd >= 0)
	{
		close(c->fd);
	}
	while (c->queue_count > 0)
	{
		snc_message m;
		dequeue(c, &m);
		snc_message_free(&m);
	}
	free(c->queue);
	free(c->in);
	free(c->ws_message);
	free(c);
}

int snc_send(snc_client* c, sinew_v1_ClientMessage* message)
{
	if (message->request_id == 0)
	{
		message->request_id = c->next_id++;
	}
	uint8_t* buffer = NULL;
	size_t size = 0;
	size_t headroom = WS_HEADER_MAX > WIRE_VARINT_MAX ? WS_HEADER_MAX : WIRE_VARINT_MAX;
	if (!wire_encode_alloc(sinew_v1_ClientMessage_fields, message, headroom, &buffer, &size))
	{
		return -EINVAL;
	}
	int err;
	if (c->options.transport == SNC_WS)
	{
		err = ws_send(c, buffer + headroom, size, 0x2);
	}
	else
	{
		uint8_t prefix[WIRE_VARINT_MAX];
		size_t n = wire_varint_put(prefix, size);
		memcpy(buffer + headroom - n, prefix, n);
		err = send_all(c, buffer + headroom - n, n + size);
	}
	free(buffer);
	return err;
}

int snc_send_raw(snc_client* c, const void* bytes, size_t size)
{
	if (c->options.transport == SNC_TCP)
	{
		return send_all(c, bytes, size);
	}
	uint8_t* buffer = malloc(WS_HEADER_MAX + size + 1);
	if (buffer == NULL)
	{
		return -ENOMEM;
	}
	if (size > 0)
	{
		memcpy(buffer + WS_HEADER_MAX, bytes, size);
	}
	int err = ws_send(c, buffer + WS_HEADER_MAX, size, 0x2);
	free(buffer);
	return err;
}

static uint64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? 0 : snc_now_ns() + (uint64_t)timeout_ms * 1000000u + (timeout_ms == 0 ? 1u : 0u);
}

int snc_receive(snc_client* c, snc_message* out, int timeout_ms)
{
	if (dequeue(c, out))
	{
		return 0;
	}
	return read_message(c, out, deadline_of(timeout_ms));
}

int snc_request(snc_client* c, sinew_v1_ClientMessage* message, snc_message* reply, int timeout_ms)
{
	int err = snc_send(c, message);
	if (err != 0)
	{
		return err;
	}
	uint64_t deadline = deadline_of(timeout_ms);
	for (;;)
	{
		snc_message m;
		err = read_message(c, &m, deadline);
		if (err != 0)
		{
			return err;
		}
		if (m.msg.which_message == sinew_v1_ServerMessage_reply_tag &&
			m.msg.message.reply.request_id == message->request_id)
		{
			*reply = m;
			return 0;
		}
		enqueue(c, &m);
	}
}

// Encoders of LoadUrdf's repeated fields; arg points to the request.
static bool encode_urdf_drives(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const snc_urdf_request* r = *arg;
	for (int i = 0; i < r->drive_count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_JointDrive_fields, r->drives + i))
		{
			return false;
		}
	}
	return true;
}

static bool encode_urdf_initial(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const snc_urdf_request* r = *arg;
	for (int i = 0; i < r->initial_count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_JointValue_fields, r->initial + i))
		{
			return false;
		}
	}
	return true;
}

int snc_load_urdf(snc_client* c, const snc_urdf_request* r, snc_message* reply, int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_load_urdf_tag;
	sinew_v1_LoadUrdf* l = &m.command.load_urdf;
	l->world_id = r->world_id;
	wire_bytes text = { (const uint8_t*)r->urdf, r->urdf_size };
	l->urdf.funcs.encode = wire_encode_bytes;
	l->urdf.arg = &text;
	snprintf(l->file_name, sizeof(l->file_name), "%s", r->file_name != NULL ? r->file_name : "");
	l->base_mode = r->base_mode;
	if (r->base_pose != NULL)
	{
		l->has_base_pose = true;
		l->base_pose = *r->base_pose;
	}
	if (r->drive_all != NULL)
	{
		l->has_drive_all = true;
		l->drive_all.has_drive = true;
		l->drive_all.drive = *r->drive_all;
	}
	l->drives.funcs.encode = encode_urdf_drives;
	l->drives.arg = (void*)r;
	l->initial.funcs.encode = encode_urdf_initial;
	l->initial.arg = (void*)r;
	return snc_request(c, &m, reply, timeout_ms);
}

int snc_handshake(snc_client* c, const char* name, const char* token, sinew_v1_Role role, sinew_v1_HandshakeReply* out)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_handshake_tag;
	m.command.handshake.protocol_version = sinew_v1_ProtocolVersion_PROTOCOL_VERSION_CURRENT;
	snprintf(m.command.handshake.client_name, sizeof(m.command.handshake.client_name), "%s", name != NULL ? name : "");
	snprintf(m.command.handshake.token, sizeof(m.command.handshake.token), "%s", token != NULL ? token : "");
	m.command.handshake.role = role;
	int err = snc_send(c, &m);
	if (err != 0)
	{
		return err;
	}
	uint64_t deadline = deadline_of(c->options.timeout_ms);
	for (;;)
	{
		snc_message r;
		err = read_message(c, &r, deadline);
		if (err != 0)
		{
			return err;
		}
		if (r.msg.which_message == sinew_v1_ServerMessage_handshake_tag)
		{
			sinew_v1_HandshakeReply hr = r.msg.message.handshake;
			snc_message_free(&r);
			if (out != NULL)
			{
				*out = hr;
			}
			return hr.status.code == 0 ? 0 : SNC_REFUSED;
		}
		enqueue(c, &r);
	}
}

int32_t snc_reply_code(const snc_message* reply)
{
	if (reply->msg.which_message != sinew_v1_ServerMessage_reply_tag)
	{
		return 0;
	}
	return reply->msg.message.reply.status.code;
}

const char* snc_reply_text(const snc_message* reply)
{
	if (reply->msg.which_message != sinew_v1_ServerMessage_reply_tag)
	{
		return "";
	}
	return reply->msg.message.reply.status.message;
}

// ---- shapes -------------------------------------------------------------------------------------------

static snc_shape shape_of(pb_size_t which)
{
	snc_shape s;
	memset(&s, 0, sizeof(s));
	s.def = (sinew_v1_ShapeDef)sinew_v1_ShapeDef_init_zero;
	s.def.which_geometry = which;
	return s;
}

snc_shape snc_shape_sphere(double radius)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_sphere_tag);
	s.def.geometry.sphere.radius = radius;
	return s;
}

snc_shape snc_shape_box(double hx, double hy, double hz)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_box_tag);
	s.def.geometry.box.has_half_extents = true;
	s.def.geometry.box.half_extents.x = hx;
	s.def.geometry.box.half_extents.y = hy;
	s.def.geometry.box.half_extents.z = hz;
	return s;
}

snc_shape snc_shape_capsule(double radius, double half_length)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_capsule_tag);
	s.def.geometry.capsule.radius = radius;
	s.def.geometry.capsule.half_length = half_length;
	return s;
}

snc_shape snc_shape_cylinder(double radius, double half_height)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_cylinder_tag);
	s.def.geometry.cylinder.radius = radius;
	s.def.geometry.cylinder.half_height = half_height;
	return s;
}

snc_shape snc_shape_plane(double nx, double ny, double nz, double offset)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_plane_tag);
	s.def.geometry.plane.has_normal = true;
	s.def.geometry.plane.normal.x = nx;
	s.def.geometry.plane.normal.y = ny;
	s.def.geometry.plane.normal.z = nz;
	s.def.geometry.plane.offset = offset;
	return s;
}

snc_shape snc_shape_hull(const double* points, size_t point_values)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_hull_tag);
	s.points = points;
	s.point_values = point_values;
	return s;
}

snc_shape snc_shape_mesh(const double* vertices, size_t vertex_values, const uint32_t* indices, size_t index_count)
{
	snc_shape s = shape_of(sinew_v1_ShapeDef_mesh_tag);
	s.points = vertices;
	s.point_values = vertex_values;
	s.indices = indices;
	s.index_count = index_count;
	return s;
}

bool snc_encode_shape_values(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const snc_shape* s = *arg;
	if (s->point_values == 0)
	{
		return true;
	}
	// Packed: one tag and length, then the doubles.
	if (!pb_encode_tag(stream, PB_WT_STRING, field->tag) || !pb_encode_varint(stream, 8u * (uint64_t)s->point_values))
	{
		return false;
	}
	for (size_t i = 0; i < s->point_values; ++i)
	{
		if (!pb_encode_fixed64(stream, s->points + i))
		{
			return false;
		}
	}
	return true;
}

bool snc_encode_shape_indices(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const snc_shape* s = *arg;
	if (s->index_count == 0)
	{
		return true;
	}
	size_t size = 0;
	for (size_t i = 0; i < s->index_count; ++i)
	{
		uint32_t v = s->indices[i];
		size += v < (1u << 7) ? 1u : v < (1u << 14) ? 2u : v < (1u << 21) ? 3u : v < (1u << 28) ? 4u : 5u;
	}
	if (!pb_encode_tag(stream, PB_WT_STRING, field->tag) || !pb_encode_varint(stream, size))
	{
		return false;
	}
	for (size_t i = 0; i < s->index_count; ++i)
	{
		if (!pb_encode_varint(stream, s->indices[i]))
		{
			return false;
		}
	}
	return true;
}

void snc_shape_bind(snc_shape* s)
{
	if (s->def.which_geometry == sinew_v1_ShapeDef_hull_tag)
	{
		s->def.geometry.hull.points.funcs.encode = snc_encode_shape_values;
		s->def.geometry.hull.points.arg = s;
	}
	else if (s->def.which_geometry == sinew_v1_ShapeDef_mesh_tag)
	{
		s->def.geometry.mesh.vertices.funcs.encode = snc_encode_shape_values;
		s->def.geometry.mesh.vertices.arg = s;
		s->def.geometry.mesh.indices.funcs.encode = snc_encode_shape_indices;
		s->def.geometry.mesh.indices.arg = s;
	}
}

typedef struct shape_array
{
	const snc_shape* shapes;
	int count;
} shape_array;

static bool encode_shapes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const shape_array* a = *arg;
	for (int i = 0; i < a->count; ++i)
	{
		snc_shape s = a->shapes[i];
		snc_shape_bind(&s);
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_ShapeDef_fields, &s.def))
		{
			return false;
		}
	}
	return true;
}

int snc_create_body(snc_client* c, uint64_t world_id, const sinew_v1_BodyDef* body, const snc_shape* shapes,
					int shape_count, const double* density, snc_message* reply, int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_body_tag;
	sinew_v1_CreateBody* b = &m.command.create_body;
	b->world_id = world_id;
	if (body != NULL)
	{
		b->has_body = true;
		b->body = *body;
	}
	shape_array a = { shapes, shape_count };
	b->shapes.funcs.encode = encode_shapes;
	b->shapes.arg = &a;
	if (density != NULL)
	{
		b->has_density = true;
		b->density = *density;
	}
	return snc_request(c, &m, reply, timeout_ms);
}

int snc_create_shape(snc_client* c, uint64_t world_id, uint64_t body_id, uint64_t articulation_id, int link,
					 const snc_shape* shape, snc_message* reply, int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_create_shape_tag;
	sinew_v1_CreateShape* cs = &m.command.create_shape;
	cs->world_id = world_id;
	cs->body_id = body_id;
	cs->articulation_id = articulation_id;
	cs->link = link;
	snc_shape s = *shape;
	snc_shape_bind(&s);
	cs->has_shape = true;
	cs->shape = s.def;
	// The def was copied: its callbacks' arg must point at a shape that lives through the request.
	if (s.def.which_geometry == sinew_v1_ShapeDef_hull_tag)
	{
		cs->shape.geometry.hull.points.arg = &s;
	}
	else if (s.def.which_geometry == sinew_v1_ShapeDef_mesh_tag)
	{
		cs->shape.geometry.mesh.vertices.arg = &s;
		cs->shape.geometry.mesh.indices.arg = &s;
	}
	return snc_request(c, &m, reply, timeout_ms);
}

// ---- model assets and meshes ----------------------------------------------------------------------------

typedef struct asset_array
{
	const snc_asset* assets;
	int count;
} asset_array;

static bool encode_asset_data(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const snc_asset* a = *arg;
	if (a->data == NULL)
	{
		return true;
	}
	return pb_encode_tag_for_field(stream, field) && pb_encode_string(stream, a->data, a->size);
}

static bool encode_assets(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const asset_array* a = *arg;
	for (int i = 0; i < a->count; ++i)
	{
		const snc_asset* in = a->assets + i;
		sinew_v1_Asset out = sinew_v1_Asset_init_zero;
		snprintf(out.uri, sizeof(out.uri), "%s", in->uri != NULL ? in->uri : "");
		if (in->sha256 != NULL)
		{
			out.sha256.size = 32;
			memcpy(out.sha256.bytes, in->sha256, 32);
		}
		out.data.funcs.encode = encode_asset_data;
		out.data.arg = (void*)in;
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_Asset_fields, &out))
		{
			return false;
		}
	}
	return true;
}

int snc_load_urdf_assets(snc_client* c, const snc_urdf_request* r, const snc_asset* assets, int asset_count,
						 const char* model, snc_message* reply, int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_load_urdf_tag;
	sinew_v1_LoadUrdf* l = &m.command.load_urdf;
	l->world_id = r->world_id;
	wire_bytes text = { (const uint8_t*)r->urdf, model != NULL ? 0 : r->urdf_size };
	if (model == NULL)
	{
		l->urdf.funcs.encode = wire_encode_bytes;
		l->urdf.arg = &text;
	}
	else
	{
		snprintf(l->model, sizeof(l->model), "%s", model);
	}
	snprintf(l->file_name, sizeof(l->file_name), "%s", r->file_name != NULL ? r->file_name : "");
	l->base_mode = r->base_mode;
	l->missing_meshes_ok = r->missing_meshes_ok;
	if (r->base_pose != NULL)
	{
		l->has_base_pose = true;
		l->base_pose = *r->base_pose;
	}
	if (r->drive_all != NULL)
	{
		l->has_drive_all = true;
		l->drive_all.has_drive = true;
		l->drive_all.drive = *r->drive_all;
	}
	l->drives.funcs.encode = encode_urdf_drives;
	l->drives.arg = (void*)r;
	l->initial.funcs.encode = encode_urdf_initial;
	l->initial.arg = (void*)r;
	asset_array a = { assets, asset_count };
	l->assets.funcs.encode = encode_assets;
	l->assets.arg = &a;
	return snc_request(c, &m, reply, timeout_ms);
}

typedef struct hash_array
{
	const uint8_t (*hashes)[32];
	int count;
} hash_array;

static bool encode_hashes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const hash_array* h = *arg;
	for (int i = 0; i < h->count; ++i)
	{
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_string(stream, h->hashes[i], 32))
		{
			return false;
		}
	}
	return true;
}

int snc_find_assets(snc_client* c, const uint8_t (*hashes)[32], int count, snc_message* reply, int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_find_assets_tag;
	hash_array h = { hashes, count };
	m.command.find_assets.sha256.funcs.encode = encode_hashes;
	m.command.find_assets.sha256.arg = &h;
	return snc_request(c, &m, reply, timeout_ms);
}

int snc_put_asset(snc_client* c, const void* data, size_t size, const uint8_t* sha256, snc_message* reply,
				  int timeout_ms)
{
	sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
	m.which_command = sinew_v1_ClientMessage_put_asset_tag;
	wire_bytes bytes = { data, size };
	m.command.put_asset.data.funcs.encode = wire_encode_bytes;
	m.command.put_asset.data.arg = &bytes;
	if (sha256 != NULL)
	{
		m.command.put_asset.sha256.size = 32;
		memcpy(m.command.put_asset.sha256.bytes, sha256, 32);
	}
	return snc_request(c, &m, reply, timeout_ms);
}

int snc_get_mesh(snc_client* c, const uint8_t hash[32], uint8_t** out, size_t* size, int32_t* status, int timeout_ms)
{
	*out = NULL;
	*size = 0;
	*status = 0;
	uint8_t* buffer = NULL;
	uint64_t total = 0, have = 0;
	do
	{
		sinew_v1_ClientMessage m = sinew_v1_ClientMessage_init_zero;
		m.which_command = sinew_v1_ClientMessage_get_mesh_tag;
		m.command.get_mesh.hash.size = 32;
		memcpy(m.command.get_mesh.hash.bytes, hash, 32);
		m.command.get_mesh.offset = have;
		snc_message reply;
		int err = snc_request(c, &m, &reply, timeout_ms);
		if (err != 0)
		{
			free(buffer);
			return err;
		}
		*status = snc_reply_code(&reply);
		const sinew_v1_MeshData* d = &reply.msg.message.reply.result.mesh;
		bool bad = *status == 0 &&
			(reply.msg.message.reply.which_result != sinew_v1_Reply_mesh_tag || d->offset != have ||
			 (buffer != NULL && d->total_bytes != total) || have + reply.byte_count > d->total_bytes ||
			 (reply.byte_count == 0 && have < d->total_bytes));
		if (*status != 0 || bad)
		{
			snc_message_free(&reply);
			free(buffer);
			return bad ? -EPROTO : 0;
		}
		if (buffer == NULL)
		{
			total = d->total_bytes;
			buffer = malloc(total > 0 ? (size_t)total : 1);
			if (buffer == NULL)
			{
				snc_message_free(&reply);
				return -ENOMEM;
			}
		}
		if (reply.byte_count > 0)
		{
			memcpy(buffer + have, reply.bytes, reply.byte_count);
		}
		have += reply.byte_count;
		snc_message_free(&reply);
	} while (have < total);
	*out = buffer;
	*size = (size_t)total;
	return 0;
}
