// Wire helpers: varint framing, exact-size encoding, and the callback hook for growing fields.
#include "wire.h"

#include <stdlib.h>

size_t wire_varint_put(uint8_t* out, uint64_t value)
{
	size_t n = 0;
	while (value >= 0x80u)
	{
		out[n++] = (uint8_t)(value | 0x80u);
		value >>= 7;
	}
	out[n++] = (uint8_t)value;
	return n;
}

int wire_varint_get(const uint8_t* p, size_t n, uint64_t* value)
{
	uint64_t v = 0;
	for (size_t i = 0; i < WIRE_VARINT_MAX; ++i)
	{
		if (i == n)
		{
			return 0;
		}
		uint64_t b = p[i];
		// The tenth byte may only hold the top bit of a 64-bit value.
		if (i == WIRE_VARINT_MAX - 1 && b > 1u)
		{
			return -1;
		}
		v |= (b & 0x7fu) << (7 * i);
		if ((b & 0x80u) == 0)
		{
			*value = v;
			return (int)(i + 1);
		}
	}
	return -1;
}

bool wire_encode_alloc(const pb_msgdesc_t* fields, const void* msg, size_t headroom, uint8_t** out, size_t* size)
{
	// Sizing pass, then the real pass into a buffer of exactly that size. Callbacks run in both passes
	// and must write the same bytes each time.
	size_t need = 0;
	if (!pb_get_encoded_size(&need, fields, msg))
	{
		return false;
	}
	uint8_t* buffer = malloc(headroom + need + 1);
	if (buffer == NULL)
	{
		return false;
	}
	pb_ostream_t stream = pb_ostream_from_buffer(buffer + headroom, need);
	if (!pb_encode(&stream, fields, msg) || stream.bytes_written != need)
	{
		free(buffer);
		return false;
	}
	*out = buffer;
	*size = need;
	return true;
}

// The hook of the decode in progress on this thread.
static _Thread_local wire_decode_hook current_hook;
static _Thread_local void* current_context;

bool wire_decode(const pb_msgdesc_t* fields, void* msg, const uint8_t* data, size_t size, wire_decode_hook hook,
				 void* context, const char** error)
{
	wire_decode_hook saved_hook = current_hook;
	void* saved_context = current_context;
	current_hook = hook;
	current_context = context;
	pb_istream_t stream = pb_istream_from_buffer(data, size);
	bool ok = pb_decode(&stream, fields, msg);
	current_hook = saved_hook;
	current_context = saved_context;
	if (!ok && error != NULL)
	{
		*error = PB_GET_ERROR(&stream);
	}
	return ok;
}

bool wire_encode_bytes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const wire_bytes* bytes = *arg;
	return pb_encode_tag_for_field(stream, field) && pb_encode_string(stream, bytes->data, bytes->size);
}

bool wire_field_callback(pb_istream_t* istream, pb_ostream_t* ostream, const pb_field_t* field)
{
	if (field->data_size == sizeof(pb_callback_t) && field->pData != NULL)
	{
		pb_callback_t* callback = field->pData;
		if (istream != NULL && callback->funcs.decode != NULL)
		{
			return callback->funcs.decode(istream, field, &callback->arg);
		}
		if (ostream != NULL && callback->funcs.encode != NULL)
		{
			return callback->funcs.encode(ostream, field, &callback->arg);
		}
	}
	if (istream != NULL && current_hook != NULL)
	{
		return current_hook(istream, field, current_context);
	}
	// Nothing to encode, or a field nobody asked for: nanopb skips its bytes.
	return true;
}
