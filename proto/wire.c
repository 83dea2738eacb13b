// Wire helpers: varint framing, exact-size encoding, and the callback hook for growing fields.
#include "wire.h"

#include <pb_common.h>

#include <stdlib.h>
#include <string.h>

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
	return wire_decode_from(fields, msg, data, size, 0, hook, context, error);
}

bool wire_decode_from(const pb_msgdesc_t* fields, void* msg, const uint8_t* data, size_t size, size_t hooked_from,
					  wire_decode_hook hook, void* context, const char** error)
{
	wire_decode_hook saved_hook = current_hook;
	void* saved_context = current_context;
	// The fields before the cut without the hook (their growing fields are skipped), then the rest into the
	// same message with it: nanopb merges the second part into the first as one decode of the whole would.
	const size_t cut = hooked_from < size ? hooked_from : size;
	current_hook = NULL;
	current_context = NULL;
	pb_istream_t head = pb_istream_from_buffer(data, cut);
	pb_istream_t tail = pb_istream_from_buffer(data + cut, size - cut);
	const bool head_ok = pb_decode(&head, fields, msg);
	bool ok = head_ok;
	if (head_ok)
	{
		current_hook = hook;
		current_context = context;
		ok = pb_decode_noinit(&tail, fields, msg);
	}
	current_hook = saved_hook;
	current_context = saved_context;
	if (!ok && error != NULL)
	{
		*error = head_ok ? PB_GET_ERROR(&tail) : PB_GET_ERROR(&head);
	}
	return ok;
}

size_t wire_oneof_run(const pb_msgdesc_t* fields, const void* msg, const uint8_t* data, size_t size)
{
	pb_istream_t stream = pb_istream_from_buffer(data, size);
	pb_field_iter_t iter;
	if (!pb_field_iter_begin_const(&iter, fields, msg))
	{
		return 0;
	}
	uint32_t last = 0;
	size_t run = 0;
	while (stream.bytes_left > 0)
	{
		const size_t at = size - stream.bytes_left;
		uint32_t tag = 0;
		pb_wire_type_t type;
		bool eof = false;
		if (!pb_decode_tag(&stream, &type, &tag, &eof) || eof || !pb_skip_field(&stream, type))
		{
			return run; // the decode itself reports what is wrong
		}
		if (pb_field_iter_find(&iter, tag) && PB_HTYPE(iter.type) == PB_HTYPE_ONEOF && tag != last)
		{
			last = tag;
			run = at;
		}
	}
	return run;
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

// ---- strings ------------------------------------------------------------------------------------------

size_t wire_utf8_check(const uint8_t* s, size_t size)
{
	size_t i = 0;
	while (i < size)
	{
		uint8_t b = s[i];
		if (b == 0)
		{
			return i;
		}
		if (b < 0x80u)
		{
			i += 1;
			continue;
		}
		// Lead byte: sequence length and the range its first continuation byte may take (which excludes
		// overlong forms, surrogates U+D800..DFFF and code points above U+10FFFF; RFC 3629 section 4).
		size_t n = 0;
		uint8_t lo = 0x80u, hi = 0xbfu;
		if (b >= 0xc2u && b <= 0xdfu)
		{
			n = 2;
		}
		else if (b >= 0xe0u && b <= 0xefu)
		{
			n = 3;
			lo = b == 0xe0u ? 0xa0u : 0x80u;
			hi = b == 0xedu ? 0x9fu : 0xbfu;
		}
		else if (b >= 0xf0u && b <= 0xf4u)
		{
			n = 4;
			lo = b == 0xf0u ? 0x90u : 0x80u;
			hi = b == 0xf4u ? 0x8fu : 0xbfu;
		}
		else
		{
			return i;
		}
		if (size - i < n || s[i + 1] < lo || s[i + 1] > hi)
		{
			return i;
		}
		for (size_t k = 2; k < n; ++k)
		{
			if (s[i + k] < 0x80u || s[i + k] > 0xbfu)
			{
				return i;
			}
		}
		i += n;
	}
	return size;
}

void wire_utf8_trim(char* s)
{
	size_t n = strlen(s);
	s[wire_utf8_check((const uint8_t*)s, n)] = '\0';
}

// The field of `message` with number `tag`, or false.
static bool find_field(const pb_msgdesc_t* message, uint32_t tag, pb_field_iter_t* it)
{
	// Without a message the iterator gives types and tags only (nanopb 0.4.6 on leaves field addresses NULL).
	return pb_field_iter_begin(it, message, NULL) && pb_field_iter_find(it, tag);
}

static bool check_message(const pb_msgdesc_t* message, const uint8_t* p, size_t size, int depth,
						  wire_string_fault* fault)
{
	size_t pos = 0;
	while (pos < size)
	{
		uint64_t key = 0;
		int n = wire_varint_get(p + pos, size - pos, &key);
		if (n <= 0)
		{
			return true; // not well formed: the decoder has its own say about that
		}
		pos += (size_t)n;
		uint32_t tag = (uint32_t)(key >> 3);
		uint64_t length = 0;
		switch (key & 7u)
		{
			case 0: // varint
				n = wire_varint_get(p + pos, size - pos, &length);
				if (n <= 0)
				{
					return true;
				}
				pos += (size_t)n;
				continue;
			case 1: // 64 bits
				pos += 8;
				continue;
			case 5: // 32 bits
				pos += 4;
				continue;
			case 2: // length-delimited: below
				break;
			default:
				return true;
		}
		n = wire_varint_get(p + pos, size - pos, &length);
		if (n <= 0 || length > size - pos - (size_t)n)
		{
			return true;
		}
		pos += (size_t)n;
		const uint8_t* value = p + pos;
		pos += (size_t)length;
		pb_field_iter_t it;
		if (!find_field(message, tag, &it))
		{
			continue; // an unknown field: skipped by the decoder too
		}
		pb_type_t ltype = PB_LTYPE(it.type);
		bool is_string = ltype == PB_LTYPE_STRING;
		bool is_message = PB_LTYPE_IS_SUBMSG(it.type) && it.submsg_desc != NULL;
		if (!is_string && !is_message)
		{
			continue; // bytes, or a packed array of numbers
		}
		if (depth < WIRE_PATH_MAX && fault != NULL)
		{
			fault->message[depth] = message;
			fault->tag[depth] = tag;
		}
		if (is_string)
		{
			size_t bad = wire_utf8_check(value, (size_t)length);
			if (bad < (size_t)length)
			{
				if (fault != NULL)
				{
					fault->depth = depth < WIRE_PATH_MAX ? depth + 1 : WIRE_PATH_MAX;
					fault->offset = bad;
					fault->nul = value[bad] == 0;
				}
				return false;
			}
		}
		else if (!check_message(it.submsg_desc, value, (size_t)length, depth + 1, fault))
		{
			return false;
		}
	}
	return true;
}

bool wire_check_strings(const pb_msgdesc_t* fields, const uint8_t* data, size_t size, wire_string_fault* fault)
{
	if (fault != NULL)
	{
		memset(fault, 0, sizeof(*fault));
	}
	return check_message(fields, data, size, 0, fault);
}
