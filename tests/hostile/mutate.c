// Structure-aware mutation (see mutate.h).
#include "mutate.h"

#include "wire.h"

#include <pb_encode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The growing fields the mutation enters, with the template elements that go before the mutated one.
// CreateArticulation.links: a fixed base, so the mutated element is a jointed link (parent 0).
static sinew_v1_LinkDef base_link(void)
{
	sinew_v1_LinkDef l = sinew_v1_LinkDef_init_zero;
	l.parent = -1;
	l.has_mass = true;
	l.mass = 1.0;
	return l;
}

typedef struct growing_entry
{
	const pb_msgdesc_t* message; // the message holding the growing field
	uint32_t tag;
	const pb_msgdesc_t* element;
	size_t element_size;
	int prefix_count; // template elements before the mutated one (see element_template)
} growing_entry;

static const growing_entry growing_entries[] = {
	{ &sinew_v1_CreateArticulation_msg, sinew_v1_CreateArticulation_links_tag, &sinew_v1_LinkDef_msg,
	  sizeof(sinew_v1_LinkDef), 1 },
	{ &sinew_v1_LoadUrdf_msg, sinew_v1_LoadUrdf_drives_tag, &sinew_v1_JointDrive_msg, sizeof(sinew_v1_JointDrive), 0 },
	{ &sinew_v1_LoadUrdf_msg, sinew_v1_LoadUrdf_initial_tag, &sinew_v1_JointValue_msg, sizeof(sinew_v1_JointValue), 0 },
	{ &sinew_v1_LoadUrdf_msg, sinew_v1_LoadUrdf_assets_tag, &sinew_v1_Asset_msg, sizeof(sinew_v1_Asset), 0 },
	{ &sinew_v1_CreateBody_msg, sinew_v1_CreateBody_shapes_tag, &sinew_v1_ShapeDef_msg, sizeof(sinew_v1_ShapeDef), 0 },
	{ &sinew_v1_LinkDef_msg, sinew_v1_LinkDef_shapes_tag, &sinew_v1_ShapeDef_msg, sizeof(sinew_v1_ShapeDef), 0 },
};

static const growing_entry* find_growing(const pb_msgdesc_t* message, uint32_t tag)
{
	for (size_t i = 0; i < sizeof(growing_entries) / sizeof(growing_entries[0]); ++i)
	{
		if (growing_entries[i].message == message && growing_entries[i].tag == tag)
		{
			return growing_entries + i;
		}
	}
	return NULL;
}

// The template element a mutated one starts from (a revolute link about z for links, a sphere of 0.1 m for
// shapes; zero otherwise).
static void element_template(const growing_entry* g, void* element)
{
	memset(element, 0, g->element_size);
	if (g->element == &sinew_v1_ShapeDef_msg)
	{
		sinew_v1_ShapeDef shape = sinew_v1_ShapeDef_init_zero;
		shape.which_geometry = sinew_v1_ShapeDef_sphere_tag;
		shape.geometry.sphere.radius = 0.1;
		memcpy(element, &shape, sizeof(shape));
	}
	if (g->element == &sinew_v1_LinkDef_msg)
	{
		sinew_v1_LinkDef l = sinew_v1_LinkDef_init_zero;
		l.parent = 0;
		l.joint_type = sinew_v1_LinkJointType_LINK_REVOLUTE;
		l.has_mass = true;
		l.mass = 1.0;
		l.has_parent_frame = true;
		l.parent_frame.has_position = true;
		l.parent_frame.position.x = 0.5;
		memcpy(element, &l, sizeof(l));
	}
}

bool encode_growing(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const growing_field* g = *arg;
	for (size_t i = 0; i < g->prefix_count; ++i)
	{
		const void* e = (const uint8_t*)g->prefix + i * g->element_size;
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, g->message, e))
		{
			return false;
		}
	}
	if (g->element != NULL)
	{
		return pb_encode_tag_for_field(stream, field) && pb_encode_submessage(stream, g->message, g->element);
	}
	return true;
}

bool encode_bytes_field(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	return wire_encode_bytes(stream, field, arg);
}

static bool is_number(pb_type_t type)
{
	pb_type_t l = PB_LTYPE(type);
	return l == PB_LTYPE_BOOL || l == PB_LTYPE_VARINT || l == PB_LTYPE_UVARINT || l == PB_LTYPE_SVARINT ||
		l == PB_LTYPE_FIXED32 || l == PB_LTYPE_FIXED64;
}

static void collect(const pb_msgdesc_t* message, leaf* path, bool strings, leaf* out, int* count, int cap)
{
	pb_field_iter_t it;
	if (path->depth >= LEAF_DEPTH || !pb_field_iter_begin(&it, message, NULL))
	{
		return;
	}
	do
	{
		leaf next = *path;
		next.message[next.depth] = message;
		next.tag[next.depth] = it.tag;
		next.depth += 1;
		bool sub = PB_LTYPE_IS_SUBMSG(it.type) && it.submsg_desc != NULL;
		if (PB_ATYPE(it.type) == PB_ATYPE_CALLBACK)
		{
			if (sub && find_growing(message, it.tag) != NULL)
			{
				collect(it.submsg_desc, &next, strings, out, count, cap);
			}
			continue;
		}
		if (sub)
		{
			collect(it.submsg_desc, &next, strings, out, count, cap);
			continue;
		}
		bool wanted = strings ? PB_LTYPE(it.type) == PB_LTYPE_STRING : is_number(it.type);
		if (wanted)
		{
			next.type = it.type;
			next.data_size = it.data_size;
			next.array_size = it.array_size;
			if (*count < cap)
			{
				out[*count] = next;
			}
			*count += 1;
		}
	} while (pb_field_iter_next(&it));
}

int collect_leaves(pb_size_t command, bool strings, leaf* out, int cap)
{
	pb_field_iter_t it;
	if (!pb_field_iter_begin(&it, &sinew_v1_ClientMessage_msg, NULL) || !pb_field_iter_find(&it, command) ||
		it.submsg_desc == NULL)
	{
		return 0;
	}
	leaf root;
	memset(&root, 0, sizeof(root));
	root.message[0] = &sinew_v1_ClientMessage_msg;
	root.tag[0] = command;
	root.depth = 1;
	int count = 0;
	collect(it.submsg_desc, &root, strings, out, &count, cap);
	return count;
}

void* leaf_apply(sinew_v1_ClientMessage* m, const leaf* l)
{
	static _Alignas(16) uint8_t elements[LEAF_DEPTH][4096];
	static sinew_v1_LinkDef prefix_links[1];
	static growing_field growing[LEAF_DEPTH];
	void* message = m;
	for (int d = 0; d < l->depth; ++d)
	{
		pb_field_iter_t it;
		if (!pb_field_iter_begin(&it, l->message[d], message) || !pb_field_iter_find(&it, l->tag[d]))
		{
			fprintf(stderr, "mutate: no field %u at depth %d\n", (unsigned)l->tag[d], d);
			abort();
		}
		if (PB_ATYPE(it.type) == PB_ATYPE_CALLBACK)
		{
			const growing_entry* e = find_growing(l->message[d], l->tag[d]);
			if (e == NULL || e->element_size > sizeof(elements[0]))
			{
				abort();
			}
			growing_field* g = growing + d;
			g->message = e->element;
			g->element_size = e->element_size;
			g->prefix_count = (size_t)e->prefix_count;
			prefix_links[0] = base_link();
			g->prefix = prefix_links;
			g->element = elements[d];
			element_template(e, g->element);
			pb_callback_t* callback = it.pData;
			callback->funcs.encode = encode_growing;
			callback->arg = g;
			message = g->element;
			continue;
		}
		if (PB_HTYPE(it.type) == PB_HTYPE_ONEOF)
		{
			if (*(pb_size_t*)it.pSize != it.tag)
			{
				memset(it.pData, 0, it.data_size);
				*(pb_size_t*)it.pSize = it.tag;
			}
		}
		else if (PB_HTYPE(it.type) == PB_HTYPE_OPTIONAL && it.pSize != NULL)
		{
			*(bool*)it.pSize = true;
		}
		else if (PB_HTYPE(it.type) == PB_HTYPE_REPEATED && it.pSize != NULL && it.pSize != &it.array_size)
		{
			if (*(pb_size_t*)it.pSize == 0)
			{
				*(pb_size_t*)it.pSize = 1;
			}
		}
		if (d == l->depth - 1)
		{
			return it.pData;
		}
		message = it.pData;
	}
	return NULL;
}

void leaf_name(const leaf* l, char* out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (int d = 0; d < l->depth && n < cap; ++d)
	{
		int w = snprintf(out + n, cap - n, "%s%u", d == 0 ? "command " : ".", (unsigned)l->tag[d]);
		n += w > 0 ? (size_t)w : 0;
	}
}
