// Wire helpers shared by the server and the clients: the varint length prefix of the TCP framing,
// encoding a message into an exact-size heap buffer, and the one callback that nanopb calls for every
// field that grows with a world (see sinew.options).
//
// Growing fields inside a oneof cannot carry their own decode callback (nanopb resets a oneof member when
// it is selected), so decoders install a per-thread hook for the duration of one pb_decode call; the hook
// tells fields apart by field->descriptor (the message) and field->tag. Encoders set pb_callback_t as
// usual.
#ifndef SINEW_WIRE_H
#define SINEW_WIRE_H

#include "sinew.pb.h"

#include <pb_decode.h>
#include <pb_encode.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The most bytes a varint takes.
#define WIRE_VARINT_MAX 10

// The subprotocol name of the WebSocket transport (one ServerMessage or ClientMessage per binary frame).
#define WIRE_WS_SUBPROTOCOL "sinew.v1"

// Write value as a varint; returns the bytes written (1 to 10).
size_t wire_varint_put(uint8_t* out, uint64_t value);

// Read a varint from p[0, n). Returns the bytes it took (> 0), 0 if n bytes do not hold all of it yet, or
// -1 if it is malformed (longer than 10 bytes or above 2^64 - 1).
int wire_varint_get(const uint8_t* p, size_t n, uint64_t* value);

// Encode msg into a new malloc'd buffer of exactly its size, after `headroom` unused bytes at the front
// (for a transport's own header). *out receives the buffer, *size the message size (without headroom).
// Returns false (and allocates nothing) if encoding fails.
bool wire_encode_alloc(const pb_msgdesc_t* fields, const void* msg, size_t headroom, uint8_t** out, size_t* size);

// Decode hook: called for a growing field that has no decode callback of its own.
typedef bool (*wire_decode_hook)(pb_istream_t* stream, const pb_field_iter_t* field, void* context);

// Decode one message with `hook` (may be NULL: growing fields are skipped) installed for this call only.
// On failure *error (if not NULL) receives nanopb's reason.
bool wire_decode(const pb_msgdesc_t* fields, void* msg, const uint8_t* data, size_t size, wire_decode_hook hook,
				 void* context, const char** error);
// The same, with the hook seeing only the growing fields at or after byte `hooked_from` (a field boundary:
// wire_oneof_run); the ones before are skipped.
bool wire_decode_from(const pb_msgdesc_t* fields, void* msg, const uint8_t* data, size_t size, size_t hooked_from,
					  wire_decode_hook hook, void* context, const char** error);

// Where the last run of a message's oneof begins: the offset of the first of the top-level fields that
// set its last member after the last one that set another member (0 if none did). Protobuf merges a member
// given again into what it had, but a member given after another starts anew, so the growing fields
// before this offset belong to a member the message replaced: wire_decode_from(..., run, ...) keeps them
// from the hook. Only one oneof per message is meant; a message that does not parse returns what it found
// so far. msg: any message of that type (only its layout is read).
size_t wire_oneof_run(const pb_msgdesc_t* fields, const void* msg, const uint8_t* data, size_t size);

// A byte range for wire_encode_bytes.
typedef struct wire_bytes
{
	const uint8_t* data;
	size_t size;
} wire_bytes;

// pb_callback_t encode function for a bytes field; arg points to a wire_bytes.
bool wire_encode_bytes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);

// The callback nanopb calls for every growing field (sinew.options: callback_function).
bool wire_field_callback(pb_istream_t* istream, pb_ostream_t* ostream, const pb_field_t* field);

// ---- strings ------------------------------------------------------------------------------------------
// Protobuf strings are UTF-8 (a conforming parser refuses anything else), and ours become C strings, so a
// NUL inside one would silently cut it. nanopb as packaged checks neither, so decoders check here.

// The offset of the first byte of s[0, size) that does not begin a valid UTF-8 character (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) or that is NUL; size if there is none.
size_t wire_utf8_check(const uint8_t* s, size_t size);

// Cut a C string at its first byte that wire_utf8_check refuses (a multi-byte character cut in half by a
// fixed-size copy, say), so that a text the server sends is always valid UTF-8.
void wire_utf8_trim(char* s);

enum
{
	WIRE_PATH_MAX = 8 // nesting depth reported (the schema nests less deeply)
};

// Where a string field is not valid: the field path (message and field number at each level, outermost
// first) and the offset of the first bad byte in the string.
typedef struct wire_string_fault
{
	const pb_msgdesc_t* message[WIRE_PATH_MAX];
	uint32_t tag[WIRE_PATH_MAX];
	int depth;
	size_t offset;
	bool nul; // the bad byte is a NUL (else invalid UTF-8)
} wire_string_fault;

// Check every string field of an encoded message (one that decodes: call after wire_decode), nested and
// repeated ones and those inside growing fields included. Returns false at the first bad one, with
// *fault (if not NULL) saying where.
bool wire_check_strings(const pb_msgdesc_t* fields, const uint8_t* data, size_t size, wire_string_fault* fault);

#endif
