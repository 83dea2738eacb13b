// Structure-aware mutation of ClientMessages from nanopb's descriptors: every numeric or string field
// reachable from a command (through optional, repeated and oneof submessages, and through the growing
// fields decoded one element at a time), found without a hand-written list, so a field added to the
// schema is attacked too. A leaf is set on a valid template command, and the path to it made present
// (has_ flags, oneof cases, a first array element).
#ifndef SINEW_HOSTILE_MUTATE_H
#define SINEW_HOSTILE_MUTATE_H

#include "sinew.pb.h"

#include <pb_common.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum
{
	LEAF_DEPTH = 8
};

typedef struct leaf
{
	int depth;
	const pb_msgdesc_t* message[LEAF_DEPTH]; // message at each level, the command's oneof at 0
	uint32_t tag[LEAF_DEPTH];
	pb_type_t type;       // of the leaf field
	pb_size_t data_size;  // of the leaf field's C type (one element)
	pb_size_t array_size; // elements of a static array (1 for a single value or string)
} leaf;

// Leaves under the command with oneof tag `command` of ClientMessage: numeric ones (strings false) or
// strings. Returns how many (at most cap are written).
int collect_leaves(pb_size_t command, bool strings, leaf* out, int cap);

// A growing field's elements for encoding: `prefix_count` template elements first, then `element` if not
// NULL. The encoder is installed by the template or by leaf_apply.
typedef struct growing_field
{
	const pb_msgdesc_t* message;
	const void* prefix;
	size_t prefix_count;
	size_t element_size;
	void* element;
} growing_field;
bool encode_growing(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);

// Bytes of a bytes field (the URDF text): arg points to a wire_bytes.
bool encode_bytes_field(pb_ostream_t* stream, const pb_field_t* field, void* const* arg);

// Make the path to `l` present in m and return the address of the leaf's value (element 0). Growing
// fields on the way get one element after their template's (see mutate.c: the registry of templates).
void* leaf_apply(sinew_v1_ClientMessage* m, const leaf* l);

// A readable path ("create_joint.hinge.limit.lower"), for messages.
void leaf_name(const leaf* l, char* out, size_t cap);

#endif
