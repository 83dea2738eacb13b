// URDF text into an snm_model: expat reports start and end tags, and a small context stack decides what
// each element means where it stands. The reading is strict where a value is read (numbers, required
// attributes, one <origin> per owner, limits on sizes) and lenient where urdfdom is (unknown elements are
// skipped with their contents). The first error stops the parse; the model is freed and *error says what
// and where. Tree-level checks (names, one root, cycles, mimic references) follow in model.c.
//
// Bounds: the input size is checked before expat sees a byte; the link, joint, visual and material
// counts and the nesting depth are checked as elements open; names and file names must fit their fixed
// buffers. A DOCTYPE stops the parse, so no entity is ever declared or expanded. Every allocation is the
// model's own growable arrays and expat's parser, both freed on every path.
#include "model_internal.h"

#include <errno.h>
#include <expat.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// What an open element is, which decides what its children may be.
typedef enum context
{
	CTX_DOCUMENT = 0,
	CTX_ROBOT,
	CTX_LINK,
	CTX_INERTIAL,
	CTX_VISUAL,
	CTX_COLLISION,
	CTX_GEOMETRY,
	CTX_MATERIAL,        // top-level <material>
	CTX_VISUAL_MATERIAL, // <material> inside a <visual>
	CTX_JOINT,
	CTX_LEAF, // a known element without known children (origin, mass, limit, ...): children are skipped
	CTX_SKIP, // an unknown element and everything inside it
} context;

// Elements seen once per owner, to reject a second <origin> or <inertial> rather than silently pick one.
enum
{
	SEEN_ORIGIN = 1 << 0,
	SEEN_INERTIAL = 1 << 1,
	SEEN_MASS = 1 << 2,
	SEEN_INERTIA = 1 << 3,
	SEEN_GEOMETRY = 1 << 4,
	SEEN_MATERIAL = 1 << 5,
	SEEN_COLOR = 1 << 6,
	SEEN_TEXTURE = 1 << 7,
	SEEN_PARENT = 1 << 8,
	SEEN_CHILD = 1 << 9,
	SEEN_AXIS = 1 << 10,
	SEEN_LIMIT = 1 << 11,
	SEEN_DYNAMICS = 1 << 12,
	SEEN_MIMIC = 1 << 13,
	SEEN_SHAPE = 1 << 14,
};

#define MAX_DEPTH_HARD 1024

typedef struct parser_state
{
	XML_Parser xml;
	snm_model* model;
	snm_limits limits;
	snm_error* error;
	bool failed;
	int depth;
	context stack[MAX_DEPTH_HARD];
	int seen[MAX_DEPTH_HARD]; // SEEN_* flags per open element
	int link_capacity, joint_capacity, visual_capacity, material_capacity, collision_capacity;
	// Index of the element being filled, -1 when none.
	int link, joint, visual, material, collision;
	int robot_line;
} parser_state;

static int current_line(const parser_state* st)
{
	XML_Size line = XML_GetCurrentLineNumber(st->xml);
	return line > (XML_Size)INT_MAX ? INT_MAX : (int)line;
}

static int current_column(const parser_state* st)
{
	XML_Size column = XML_GetCurrentColumnNumber(st->xml);
	return column >= (XML_Size)INT_MAX ? INT_MAX : (int)column + 1;
}

// Describe the element being read, e.g. <joint name="elbow"> <limit>, for messages.
static void describe(const parser_state* st, const char* tag, char* out, size_t capacity)
{
	const snm_model* m = st->model;
	if (st->joint >= 0 && strcmp(tag, "joint") != 0)
	{
		snprintf(out, capacity, "<joint name=\"%.40s\"> <%.24s>", m->joints[st->joint].name, tag);
	}
	else if (st->joint >= 0)
	{
		snprintf(out, capacity, "<joint name=\"%.40s\">", m->joints[st->joint].name);
	}
	else if (st->link >= 0 && strcmp(tag, "link") != 0)
	{
		snprintf(out, capacity, "<link name=\"%.40s\"> <%.24s>", m->links[st->link].name, tag);
	}
	else if (st->link >= 0)
	{
		snprintf(out, capacity, "<link name=\"%.40s\">", m->links[st->link].name);
	}
	else if (st->material >= 0 && strcmp(tag, "material") != 0)
	{
		snprintf(out, capacity, "<material name=\"%.40s\"> <%.24s>", m->materials[st->material].name, tag);
	}
	else
	{
		snprintf(out, capacity, "<%.60s>", tag);
	}
}

// Stop the parse with an error at the current tag.
static void fail_at(parser_state* st, const char* tag, sn_error code, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static void fail_at(parser_state* st, const char* tag, sn_error code, const char* format, ...)
{
	if (st->failed)
	{
		return;
	}
	char element[96];
	describe(st, tag, element, sizeof(element));
	va_list args;
	va_start(args, format);
	model_vfail(st->error, code, st->model->file, current_line(st), current_column(st), element, format, args);
	va_end(args);
	st->failed = true;
	XML_StopParser(st->xml, XML_FALSE);
}

static const char* find_attr(const XML_Char** atts, const char* name)
{
	for (int i = 0; atts[i] != NULL; i += 2)
	{
		if (strcmp(atts[i], name) == 0)
		{
			return atts[i + 1];
		}
	}
	return NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Read exactly count finite numbers separated by white space from text into out. On failure stops the
// parse with a message naming the attribute.
static bool parse_numbers(parser_state* st, const char* tag, const char* attr, const char* text, double* out, int count)
{
	const char* s = text;
	for (int i = 0; i < count; ++i)
	{
		while (is_space(*s))
		{
			++s;
		}
		if (*s == '\0')
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "%s=\"%.40s\": expected %d number%s, found %d", attr, text, count,
					count == 1 ? "" : "s", i);
			return false;
		}
		char* end = NULL;
		errno = 0;
		double v = strtod(s, &end);
		if (end == s || (*end != '\0' && !is_space(*end)))
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "%s=\"%.40s\": not a number", attr, text);
			return false;
		}
		if (!isfinite(v))
		{
			fail_at(st, tag, SN_ERR_NOT_FINITE, "%s=\"%.40s\": numbers must be finite", attr, text);
			return false;
		}
		out[i] = v;
		s = end;
	}
	while (is_space(*s))
	{
		++s;
	}
	if (*s != '\0')
	{
		fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "%s=\"%.40s\": expected %d number%s, found more", attr, text, count,
				count == 1 ? "" : "s");
		return false;
	}
	return true;
}

// An optional numeric attribute: keeps *out when absent.
static bool optional_numbers(parser_state* st, const char* tag, const XML_Char** atts, const char* attr, double* out,
							 int count)
{
	const char* text = find_attr(atts, attr);
	return text == NULL || parse_numbers(st, tag, attr, text, out, count);
}

static bool required_numbers(parser_state* st, const char* tag, const XML_Char** atts, const char* attr, double* out,
							 int count)
{
	const char* text = find_attr(atts, attr);
	if (text == NULL)
	{
		fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "the attribute %s is required", attr);
		return false;
	}
	return parse_numbers(st, tag, attr, text, out, count);
}

static bool non_negative(parser_state* st, const char* tag, const char* attr, double value)
{
	if (value < 0.0)
	{
		fail_at(st, tag, SN_ERR_NEGATIVE_VALUE, "%s must be >= 0, got %.17g", attr, value);
		return false;
	}
	return true;
}

// Copy a required string attribute into a fixed buffer.
static bool copy_attr(parser_state* st, const char* tag, const XML_Char** atts, const char* attr, char* out,
					  size_t capacity, bool required)
{
	const char* text = find_attr(atts, attr);
	if (text == NULL)
	{
		if (required)
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "the attribute %s is required", attr);
			return false;
		}
		out[0] = '\0';
		return true;
	}
	if (required && text[0] == '\0')
	{
		fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "the attribute %s must not be empty", attr);
		return false;
	}
	if (!model_copy_name(out, capacity, text))
	{
		fail_at(st, tag, SN_ERR_CAPACITY, "%s=\"%.32s...\" is longer than %zu bytes", attr, text, capacity - 1);
		return false;
	}
	return true;
}

// Mark an element seen under its owner (the element one level up); a second one is an error.
static bool once(parser_state* st, const char* tag, int flag)
{
	int* seen = &st->seen[st->depth - 1];
	if (*seen & flag)
	{
		fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "a second <%s> here; only one is allowed", tag);
		return false;
	}
	*seen |= flag;
	return true;
}

// Grow an array to hold one more element, within a count limit.
static void* grow(parser_state* st, const char* tag, void* array, int* capacity, int count, int limit, size_t size,
				  const char* what)
{
	if (count >= limit)
	{
		fail_at(st, tag, SN_ERR_CAPACITY, "more than %d %s (the import limit)", limit, what);
		return NULL;
	}
	if (count < *capacity)
	{
		return array;
	}
	int next = *capacity == 0 ? 8 : *capacity * 2;
	if (next > limit)
	{
		next = limit;
	}
	void* bigger = realloc(array, (size_t)next * size);
	if (bigger == NULL)
	{
		fail_at(st, tag, SN_ERR_NO_MEMORY, "out of memory reading %s", what);
		return NULL;
	}
	*capacity = next;
	return bigger;
}

// <origin xyz rpy> into a transform.
static bool read_origin(parser_state* st, const char* tag, const XML_Char** atts, sn_transform* out)
{
	double xyz[3] = { 0.0, 0.0, 0.0 }, rpy[3] = { 0.0, 0.0, 0.0 };
	if (!optional_numbers(st, tag, atts, "xyz", xyz, 3) || !optional_numbers(st, tag, atts, "rpy", rpy, 3))
	{
		return false;
	}
	out->p = sn_v3(xyz[0], xyz[1], xyz[2]);
	out->q = snm_quat_from_rpy(rpy[0], rpy[1], rpy[2]);
	return true;
}

static bool read_rgba(parser_state* st, const char* tag, const XML_Char** atts, double* rgba)
{
	if (!required_numbers(st, tag, atts, "rgba", rgba, 4))
	{
		return false;
	}
	for (int i = 0; i < 4; ++i)
	{
		if (rgba[i] < 0.0 || rgba[i] > 1.0)
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "rgba values must be in [0, 1], got %.17g", rgba[i]);
			return false;
		}
	}
	return true;
}

static bool parse_joint_type(const char* text, snm_joint_type* out)
{
	static const struct
	{
		const char* name;
		snm_joint_type type;
	} types[] = {
		{ "fixed", SNM_JOINT_FIXED },           { "revolute", SNM_JOINT_REVOLUTE },
		{ "continuous", SNM_JOINT_CONTINUOUS }, { "prismatic", SNM_JOINT_PRISMATIC },
		{ "floating", SNM_JOINT_FLOATING },     { "planar", SNM_JOINT_PLANAR },
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i)
	{
		if (strcmp(text, types[i].name) == 0)
		{
			*out = types[i].type;
			return true;
		}
	}
	return false;
}

// ---- Opening elements, by context ----

static context open_robot_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_model* m = st->model;
	if (strcmp(tag, "link") == 0)
	{
		snm_link* links =
			grow(st, tag, m->links, &st->link_capacity, m->link_count, st->limits.max_links, sizeof(snm_link), "links");
		if (links == NULL)
		{
			return CTX_SKIP;
		}
		m->links = links;
		snm_link* l = &m->links[m->link_count];
		memset(l, 0, sizeof(*l));
		l->line = current_line(st);
		l->inertial_frame = sn_transform_identity();
		l->first_visual = m->visual_count;
		l->first_collision = m->collision_count;
		l->parent_joint = -1;
		st->link = m->link_count++;
		copy_attr(st, tag, atts, "name", l->name, sizeof(l->name), true);
		return CTX_LINK;
	}
	if (strcmp(tag, "joint") == 0)
	{
		snm_joint* joints = grow(st, tag, m->joints, &st->joint_capacity, m->joint_count, st->limits.max_joints,
								 sizeof(snm_joint), "joints");
		if (joints == NULL)
		{
			return CTX_SKIP;
		}
		m->joints = joints;
		snm_joint* j = &m->joints[m->joint_count];
		memset(j, 0, sizeof(*j));
		j->line = current_line(st);
		j->origin = sn_transform_identity();
		j->axis = sn_v3(1.0, 0.0, 0.0);
		j->parent = j->child = j->mimic = -1;
		j->multiplier = 1.0;
		st->joint = m->joint_count++;
		if (!copy_attr(st, tag, atts, "name", j->name, sizeof(j->name), true))
		{
			return CTX_SKIP;
		}
		const char* type = find_attr(atts, "type");
		if (type == NULL)
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "the attribute type is required");
		}
		else if (!parse_joint_type(type, &j->type))
		{
			fail_at(st, tag, SN_ERR_INVALID_ARGUMENT,
					"unknown joint type \"%.32s\" (revolute, continuous, prismatic, fixed, floating or planar)", type);
		}
		return CTX_JOINT;
	}
	if (strcmp(tag, "material") == 0)
	{
		snm_material* materials = grow(st, tag, m->materials, &st->material_capacity, m->material_count,
									   st->limits.max_materials, sizeof(snm_material), "materials");
		if (materials == NULL)
		{
			return CTX_SKIP;
		}
		m->materials = materials;
		snm_material* mat = &m->materials[m->material_count];
		memset(mat, 0, sizeof(*mat));
		mat->line = current_line(st);
		st->material = m->material_count++;
		copy_attr(st, tag, atts, "name", mat->name, sizeof(mat->name), true);
		return CTX_MATERIAL;
	}
	return CTX_SKIP;
}

static context open_link_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_model* m = st->model;
	snm_link* l = &m->links[st->link];
	if (strcmp(tag, "inertial") == 0)
	{
		if (!once(st, tag, SEEN_INERTIAL))
		{
			return CTX_SKIP;
		}
		l->has_inertial = true;
		l->inertial_line = current_line(st);
		return CTX_INERTIAL;
	}
	if (strcmp(tag, "visual") == 0)
	{
		snm_visual* visuals = grow(st, tag, m->visuals, &st->visual_capacity, m->visual_count, st->limits.max_visuals,
								   sizeof(snm_visual), "visuals");
		if (visuals == NULL)
		{
			return CTX_SKIP;
		}
		m->visuals = visuals;
		snm_visual* v = &m->visuals[m->visual_count];
		memset(v, 0, sizeof(*v));
		v->link = st->link;
		v->line = current_line(st);
		v->origin = sn_transform_identity();
		v->scale = sn_v3(1.0, 1.0, 1.0);
		v->rgba[0] = v->rgba[1] = v->rgba[2] = 0.7;
		v->rgba[3] = 1.0;
		v->mesh_index = -1;
		st->visual = m->visual_count++;
		l->visual_count++;
		copy_attr(st, tag, atts, "name", v->name, sizeof(v->name), false);
		return CTX_VISUAL;
	}
	if (strcmp(tag, "collision") == 0)
	{
		snm_collision* collisions = grow(st, tag, m->collisions, &st->collision_capacity, m->collision_count,
										 st->limits.max_collisions, sizeof(snm_collision), "collisions");
		if (collisions == NULL)
		{
			return CTX_SKIP;
		}
		m->collisions = collisions;
		snm_collision* c = &m->collisions[m->collision_count];
		memset(c, 0, sizeof(*c));
		c->link = st->link;
		c->line = current_line(st);
		c->origin = sn_transform_identity();
		c->scale = sn_v3(1.0, 1.0, 1.0);
		c->mesh_index = -1;
		st->collision = m->collision_count++;
		l->collision_count++;
		copy_attr(st, tag, atts, "name", c->name, sizeof(c->name), false);
		return CTX_COLLISION;
	}
	return CTX_SKIP;
}

static context open_inertial_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_link* l = &st->model->links[st->link];
	if (strcmp(tag, "origin") == 0)
	{
		if (once(st, tag, SEEN_ORIGIN))
		{
			read_origin(st, tag, atts, &l->inertial_frame);
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "mass") == 0)
	{
		if (once(st, tag, SEEN_MASS) && required_numbers(st, tag, atts, "value", &l->mass, 1) && l->mass < 0.0)
		{
			fail_at(st, tag, SN_ERR_NON_POSITIVE_MASS, "mass must be >= 0 kg, got %.17g", l->mass);
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "inertia") == 0)
	{
		if (!once(st, tag, SEEN_INERTIA))
		{
			return CTX_LEAF;
		}
		l->inertia_line = current_line(st);
		static const char* names[6] = { "ixx", "ixy", "ixz", "iyy", "iyz", "izz" };
		double v[6];
		for (int i = 0; i < 6; ++i)
		{
			if (!required_numbers(st, tag, atts, names[i], &v[i], 1))
			{
				return CTX_LEAF;
			}
		}
		// Columns of the symmetric tensor [ixx ixy ixz; ixy iyy iyz; ixz iyz izz].
		l->inertia.cx = sn_v3(v[0], v[1], v[2]);
		l->inertia.cy = sn_v3(v[1], v[3], v[4]);
		l->inertia.cz = sn_v3(v[2], v[4], v[5]);
		return CTX_LEAF;
	}
	return CTX_SKIP;
}

// Where a <geometry>'s child is written: a visual's or a collision's fields.
typedef struct geometry_out
{
	snm_geometry_type* type;
	sn_vec3* size;
	double* radius;
	double* length;
	sn_vec3* scale;
	char* mesh;
} geometry_out;

static geometry_out geometry_of(parser_state* st)
{
	geometry_out g;
	if (st->collision >= 0)
	{
		snm_collision* c = &st->model->collisions[st->collision];
		g = (geometry_out){ &c->type, &c->size, &c->radius, &c->length, &c->scale, c->mesh };
	}
	else
	{
		snm_visual* v = &st->model->visuals[st->visual];
		g = (geometry_out){ &v->type, &v->size, &v->radius, &v->length, &v->scale, v->mesh };
	}
	return g;
}

static context open_collision_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_collision* c = &st->model->collisions[st->collision];
	if (strcmp(tag, "origin") == 0)
	{
		if (once(st, tag, SEEN_ORIGIN))
		{
			read_origin(st, tag, atts, &c->origin);
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "geometry") == 0)
	{
		once(st, tag, SEEN_GEOMETRY);
		return CTX_GEOMETRY;
	}
	return CTX_SKIP; // <material> and extensions (contact coefficients, ...)
}

static context open_visual_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_visual* v = &st->model->visuals[st->visual];
	if (strcmp(tag, "origin") == 0)
	{
		if (once(st, tag, SEEN_ORIGIN))
		{
			read_origin(st, tag, atts, &v->origin);
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "geometry") == 0)
	{
		once(st, tag, SEEN_GEOMETRY);
		return CTX_GEOMETRY;
	}
	if (strcmp(tag, "material") == 0)
	{
		if (once(st, tag, SEEN_MATERIAL))
		{
			copy_attr(st, tag, atts, "name", v->material, sizeof(v->material), false);
		}
		return CTX_VISUAL_MATERIAL;
	}
	return CTX_SKIP;
}

static context open_geometry_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	geometry_out v = geometry_of(st);
	double values[3];
	if (strcmp(tag, "box") == 0)
	{
		if (once(st, tag, SEEN_SHAPE) && required_numbers(st, tag, atts, "size", values, 3) &&
			non_negative(st, tag, "size", fmin(values[0], fmin(values[1], values[2]))))
		{
			*v.type = SNM_GEOMETRY_BOX;
			*v.size = sn_v3(values[0], values[1], values[2]);
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "cylinder") == 0)
	{
		if (once(st, tag, SEEN_SHAPE) && required_numbers(st, tag, atts, "radius", v.radius, 1) &&
			required_numbers(st, tag, atts, "length", v.length, 1) && non_negative(st, tag, "radius", *v.radius) &&
			non_negative(st, tag, "length", *v.length))
		{
			*v.type = SNM_GEOMETRY_CYLINDER;
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "sphere") == 0)
	{
		if (once(st, tag, SEEN_SHAPE) && required_numbers(st, tag, atts, "radius", v.radius, 1) &&
			non_negative(st, tag, "radius", *v.radius))
		{
			*v.type = SNM_GEOMETRY_SPHERE;
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "mesh") == 0)
	{
		double scale[3] = { 1.0, 1.0, 1.0 };
		if (once(st, tag, SEEN_SHAPE) && copy_attr(st, tag, atts, "filename", v.mesh, SNM_PATH_MAX, true) &&
			optional_numbers(st, tag, atts, "scale", scale, 3))
		{
			*v.type = SNM_GEOMETRY_MESH;
			*v.scale = sn_v3(scale[0], scale[1], scale[2]);
		}
		return CTX_LEAF;
	}
	return CTX_SKIP; // capsule and other extensions: the visual keeps SNM_GEOMETRY_NONE
}

// <color> and <texture> inside a material, top-level or in a visual.
static context open_material_child(parser_state* st, const char* tag, const XML_Char** atts, bool* has_color,
								   double* rgba, char* texture)
{
	if (strcmp(tag, "color") == 0)
	{
		if (once(st, tag, SEEN_COLOR) && read_rgba(st, tag, atts, rgba))
		{
			*has_color = true;
		}
		return CTX_LEAF;
	}
	if (strcmp(tag, "texture") == 0)
	{
		if (once(st, tag, SEEN_TEXTURE))
		{
			copy_attr(st, tag, atts, "filename", texture, SNM_PATH_MAX, false);
		}
		return CTX_LEAF;
	}
	return CTX_SKIP;
}

static context open_joint_child(parser_state* st, const char* tag, const XML_Char** atts)
{
	snm_joint* j = &st->model->joints[st->joint];
	if (strcmp(tag, "origin") == 0)
	{
		if (once(st, tag, SEEN_ORIGIN))
		{
			read_origin(st, tag, atts, &j->origin);
		}
	}
	else if (strcmp(tag, "parent") == 0)
	{
		j->parent_line = current_line(st);
		if (once(st, tag, SEEN_PARENT))
		{
			copy_attr(st, tag, atts, "link", j->parent_name, sizeof(j->parent_name), true);
		}
	}
	else if (strcmp(tag, "child") == 0)
	{
		j->child_line = current_line(st);
		if (once(st, tag, SEEN_CHILD))
		{
			copy_attr(st, tag, atts, "link", j->child_name, sizeof(j->child_name), true);
		}
	}
	else if (strcmp(tag, "axis") == 0)
	{
		double xyz[3] = { 1.0, 0.0, 0.0 };
		if (once(st, tag, SEEN_AXIS) && optional_numbers(st, tag, atts, "xyz", xyz, 3))
		{
			j->axis = sn_v3(xyz[0], xyz[1], xyz[2]);
		}
	}
	else if (strcmp(tag, "limit") == 0)
	{
		j->limit_line = current_line(st);
		if (once(st, tag, SEEN_LIMIT) && optional_numbers(st, tag, atts, "lower", &j->lower, 1) &&
			optional_numbers(st, tag, atts, "upper", &j->upper, 1) &&
			required_numbers(st, tag, atts, "effort", &j->effort, 1) &&
			required_numbers(st, tag, atts, "velocity", &j->velocity, 1) &&
			non_negative(st, tag, "effort", j->effort) && non_negative(st, tag, "velocity", j->velocity))
		{
			j->has_limit = true;
		}
	}
	else if (strcmp(tag, "dynamics") == 0)
	{
		if (once(st, tag, SEEN_DYNAMICS) && optional_numbers(st, tag, atts, "damping", &j->damping, 1) &&
			optional_numbers(st, tag, atts, "friction", &j->friction, 1))
		{
			if (non_negative(st, tag, "damping", j->damping))
			{
				non_negative(st, tag, "friction", j->friction);
			}
		}
	}
	else if (strcmp(tag, "mimic") == 0)
	{
		j->mimic_line = current_line(st);
		if (once(st, tag, SEEN_MIMIC) &&
			copy_attr(st, tag, atts, "joint", j->mimic_name, sizeof(j->mimic_name), true) &&
			optional_numbers(st, tag, atts, "multiplier", &j->multiplier, 1) &&
			optional_numbers(st, tag, atts, "offset", &j->offset, 1))
		{
			j->has_mimic = true;
		}
	}
	else
	{
		return CTX_SKIP; // calibration, safety_controller and extensions
	}
	return CTX_LEAF;
}

static void XMLCALL on_start(void* user, const XML_Char* tag, const XML_Char** atts)
{
	parser_state* st = user;
	if (st->failed)
	{
		return;
	}
	context parent = st->depth > 0 ? st->stack[st->depth - 1] : CTX_DOCUMENT;
	if (st->depth >= st->limits.max_depth || st->depth >= MAX_DEPTH_HARD)
	{
		fail_at(st, tag, SN_ERR_CAPACITY, "elements nested deeper than %d (the import limit)", st->limits.max_depth);
		return;
	}
	if (parent != CTX_SKIP && strncmp(tag, "xacro:", 6) == 0)
	{
		fail_at(st, tag, SN_ERR_UNSUPPORTED, "this is a xacro file: expand it with xacro first");
		return;
	}
	context ctx = CTX_SKIP;
	switch (parent)
	{
		case CTX_DOCUMENT:
			if (strcmp(tag, "robot") != 0)
			{
				fail_at(st, tag, SN_ERR_INVALID_ARGUMENT, "the root element must be <robot>, not <%.40s>", tag);
				return;
			}
			st->robot_line = current_line(st);
			copy_attr(st, tag, atts, "name", st->model->name, sizeof(st->model->name), false);
			ctx = CTX_ROBOT;
			break;
		case CTX_ROBOT:
			ctx = open_robot_child(st, tag, atts);
			break;
		case CTX_LINK:
			ctx = open_link_child(st, tag, atts);
			break;
		case CTX_INERTIAL:
			ctx = open_inertial_child(st, tag, atts);
			break;
		case CTX_VISUAL:
			ctx = open_visual_child(st, tag, atts);
			break;
		case CTX_COLLISION:
			ctx = open_collision_child(st, tag, atts);
			break;
		case CTX_GEOMETRY:
			ctx = open_geometry_child(st, tag, atts);
			break;
		case CTX_MATERIAL:
		{
			snm_material* mat = &st->model->materials[st->material];
			ctx = open_material_child(st, tag, atts, &mat->has_color, mat->rgba, mat->texture);
			break;
		}
		case CTX_VISUAL_MATERIAL:
		{
			snm_visual* v = &st->model->visuals[st->visual];
			ctx = open_material_child(st, tag, atts, &v->has_color, v->rgba, v->texture);
			break;
		}
		case CTX_JOINT:
			ctx = open_joint_child(st, tag, atts);
			break;
		case CTX_LEAF:
		case CTX_SKIP:
			ctx = CTX_SKIP;
			break;
	}
	st->stack[st->depth] = ctx;
	st->seen[st->depth] = 0;
	st->depth++;
}

// Checks that need the whole element.
static void close_inertial(parser_state* st)
{
	snm_link* l = &st->model->links[st->link];
	int seen = st->seen[st->depth];
	if (!(seen & SEEN_MASS))
	{
		fail_at(st, "inertial", SN_ERR_INVALID_ARGUMENT, "<inertial> needs a <mass value>");
		return;
	}
	if (!(seen & SEEN_INERTIA))
	{
		fail_at(st, "inertial", SN_ERR_INVALID_ARGUMENT, "<inertial> needs an <inertia>");
		return;
	}
	// No principal moment may be negative (a positive semidefinite tensor); zero ones are the build's to
	// judge (a link merged by a fixed joint or welded to the world needs no inertia of its own). Rounding of
	// the tensor's entries allows 1e-12 of its largest moment.
	double moments[3];
	model_sym_eigen(l->inertia, moments, NULL);
	if (!(moments[0] >= -1e-12 * fabs(moments[2])))
	{
		model_fail(st->error, SN_ERR_INERTIA_NOT_PD, st->model->file, l->inertia_line, 0, "<inertia>",
				   "link \"%.40s\": the inertia tensor is not positive semidefinite (principal moments %.6g, %.6g, "
				   "%.6g kg*m^2)",
				   l->name, moments[0], moments[1], moments[2]);
		st->failed = true;
		XML_StopParser(st->xml, XML_FALSE);
	}
}

static void close_joint(parser_state* st)
{
	snm_joint* j = &st->model->joints[st->joint];
	int seen = st->seen[st->depth];
	if (!(seen & SEEN_PARENT))
	{
		fail_at(st, "joint", SN_ERR_INVALID_ARGUMENT, "a joint needs a <parent link>");
		return;
	}
	if (!(seen & SEEN_CHILD))
	{
		fail_at(st, "joint", SN_ERR_INVALID_ARGUMENT, "a joint needs a <child link>");
		return;
	}
	bool limited = j->type == SNM_JOINT_REVOLUTE || j->type == SNM_JOINT_PRISMATIC;
	if (limited && !j->has_limit)
	{
		fail_at(st, "joint", SN_ERR_INVALID_ARGUMENT, "a %s joint needs a <limit lower upper effort velocity>",
				snm_joint_type_name(j->type));
		return;
	}
	if (limited && j->lower > j->upper)
	{
		model_fail(st->error, SN_ERR_LIMITS_ORDER, st->model->file, j->limit_line, 0, "<limit>",
				   "joint \"%.40s\": lower %.17g is above upper %.17g", j->name, j->lower, j->upper);
		st->failed = true;
		XML_StopParser(st->xml, XML_FALSE);
		return;
	}
	bool uses_axis = j->type != SNM_JOINT_FIXED && j->type != SNM_JOINT_FLOATING;
	double length = sn_length(j->axis);
	if (uses_axis && !(length > 1e-12))
	{
		fail_at(st, "joint", SN_ERR_ZERO_AXIS, "the <axis xyz> of a %s joint must not be zero",
				snm_joint_type_name(j->type));
		return;
	}
	if (length > 1e-12)
	{
		j->axis = sn_scale(1.0 / length, j->axis);
	}
}

static void XMLCALL on_end(void* user, const XML_Char* tag)
{
	parser_state* st = user;
	(void)tag;
	if (st->failed || st->depth <= 0)
	{
		return;
	}
	st->depth--;
	switch (st->stack[st->depth])
	{
		case CTX_LINK:
			st->link = -1;
			break;
		case CTX_INERTIAL:
			close_inertial(st);
			break;
		case CTX_VISUAL:
			st->visual = -1;
			break;
		case CTX_COLLISION:
			st->collision = -1;
			break;
		case CTX_MATERIAL:
			st->material = -1;
			break;
		case CTX_JOINT:
			close_joint(st);
			st->joint = -1;
			break;
		default:
			break;
	}
}

static void XMLCALL on_doctype(void* user, const XML_Char* name, const XML_Char* sysid, const XML_Char* pubid,
							   int has_internal_subset)
{
	parser_state* st = user;
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	fail_at(st, "!DOCTYPE", SN_ERR_UNSUPPORTED, "a DOCTYPE is not allowed in a URDF (no entities are expanded)");
}

snm_limits snm_default_limits(void)
{
	snm_limits l;
	l.max_bytes = (size_t)8 << 20;
	l.max_links = 1024;
	l.max_joints = 1024;
	l.max_visuals = 4096;
	l.max_collisions = 4096;
	l.max_materials = 1024;
	l.max_depth = 64;
	return l;
}

static sn_error check_limits(const snm_limits* l, snm_error* error, const char* file)
{
	if (l->max_bytes == 0 || l->max_bytes > (size_t)INT_MAX || l->max_links < 1 || l->max_joints < 0 ||
		l->max_visuals < 0 || l->max_collisions < 0 || l->max_materials < 0 || l->max_depth < 2 ||
		l->max_depth > MAX_DEPTH_HARD)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, file, 0, 0, "",
						  "import limits out of range (max_bytes 1..%d, max_links >= 1, max_depth 2..%d)", INT_MAX,
						  MAX_DEPTH_HARD);
	}
	return SN_ERR_OK;
}

sn_error snm_parse_urdf(const char* text, size_t size, const char* file_name, const snm_limits* limits,
						snm_model** out_model, snm_error* error)
{
	model_error_clear(error);
	if (out_model == NULL)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, file_name, 0, 0, "", "out_model is NULL");
	}
	*out_model = NULL;
	const char* file = file_name != NULL ? file_name : "<urdf>";
	snm_limits lim = limits != NULL ? *limits : snm_default_limits();
	sn_error err = check_limits(&lim, error, file);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	if (text == NULL && size > 0)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, file, 0, 0, "", "text is NULL");
	}
	if (size > lim.max_bytes)
	{
		return model_fail(error, SN_ERR_CAPACITY, file, 0, 0, "", "the URDF is %zu bytes, more than the limit of %zu",
						  size, lim.max_bytes);
	}

	snm_model* model = calloc(1, sizeof(*model));
	parser_state* st = calloc(1, sizeof(*st));
	XML_Parser xml = XML_ParserCreate(NULL);
	if (model == NULL || st == NULL || xml == NULL)
	{
		free(model);
		free(st);
		if (xml != NULL)
		{
			XML_ParserFree(xml);
		}
		return model_fail(error, SN_ERR_NO_MEMORY, file, 0, 0, "", "out of memory");
	}
	model->root = -1;
	// A file name too long for the buffer is shortened for messages only: it is not part of the model.
	snprintf(model->file, sizeof(model->file), "%s", file);
	st->xml = xml;
	st->model = model;
	st->limits = lim;
	st->error = error;
	st->link = st->joint = st->visual = st->material = st->collision = -1;
	XML_SetUserData(xml, st);
	XML_SetElementHandler(xml, on_start, on_end);
	XML_SetStartDoctypeDeclHandler(xml, on_doctype);

	enum XML_Status status = XML_Parse(xml, text != NULL ? text : "", (int)size, XML_TRUE);
	if (!st->failed && status != XML_STATUS_OK)
	{
		XML_Size line = XML_GetCurrentLineNumber(xml), column = XML_GetCurrentColumnNumber(xml);
		model_fail(error, SN_ERR_INVALID_ARGUMENT, model->file, line > (XML_Size)INT_MAX ? INT_MAX : (int)line,
				   column >= (XML_Size)INT_MAX ? INT_MAX : (int)column + 1, "", "XML: %s",
				   XML_ErrorString(XML_GetErrorCode(xml)));
		st->failed = true;
	}
	if (!st->failed && st->robot_line == 0)
	{
		model_fail(error, SN_ERR_INVALID_ARGUMENT, model->file, 0, 0, "", "no <robot> element");
		st->failed = true;
	}
	if (!st->failed && model->link_count == 0)
	{
		model_fail(error, SN_ERR_INVALID_ARGUMENT, model->file, st->robot_line, 0, "<robot>", "a robot needs a <link>");
		st->failed = true;
	}
	XML_ParserFree(xml);
	bool failed = st->failed;
	free(st);
	if (failed)
	{
		snm_model_destroy(model);
		return error != NULL ? error->code : SN_ERR_INVALID_ARGUMENT;
	}
	err = model_finish(model, error);
	if (err != SN_ERR_OK)
	{
		snm_model_destroy(model);
		return err;
	}
	*out_model = model;
	return SN_ERR_OK;
}

sn_error snm_load_urdf_file(const char* path, const snm_limits* limits, snm_model** out_model, snm_error* error)
{
	model_error_clear(error);
	if (out_model != NULL)
	{
		*out_model = NULL;
	}
	if (path == NULL)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, "<urdf>", 0, 0, "", "path is NULL");
	}
	snm_limits lim = limits != NULL ? *limits : snm_default_limits();
	sn_error err = check_limits(&lim, error, path);
	if (err != SN_ERR_OK)
	{
		return err;
	}
	FILE* f = fopen(path, "rb");
	if (f == NULL)
	{
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, path, 0, 0, "", "cannot open: %s", strerror(errno));
	}
	// Read at most max_bytes + 1 bytes: one more than allowed tells that the file is too large.
	size_t capacity = 1 << 16, size = 0;
	bool out_of_memory = false;
	char* text = malloc(capacity);
	out_of_memory = text == NULL;
	while (!out_of_memory)
	{
		if (size == capacity)
		{
			if (capacity > lim.max_bytes)
			{
				break;
			}
			size_t next = capacity * 2 > lim.max_bytes + 1 ? lim.max_bytes + 1 : capacity * 2;
			char* bigger = realloc(text, next);
			if (bigger == NULL)
			{
				out_of_memory = true;
				break;
			}
			text = bigger;
			capacity = next;
		}
		size_t n = fread(text + size, 1, capacity - size, f);
		size += n;
		if (n == 0)
		{
			break;
		}
	}
	bool read_error = ferror(f) != 0;
	fclose(f);
	if (out_of_memory)
	{
		free(text);
		return model_fail(error, SN_ERR_NO_MEMORY, path, 0, 0, "", "out of memory reading the file");
	}
	if (size > lim.max_bytes)
	{
		free(text);
		return model_fail(error, SN_ERR_CAPACITY, path, 0, 0, "", "the file is larger than the limit of %zu bytes",
						  lim.max_bytes);
	}
	if (read_error)
	{
		free(text);
		return model_fail(error, SN_ERR_INVALID_ARGUMENT, path, 0, 0, "", "read error");
	}
	err = snm_parse_urdf(text, size, path, &lim, out_model, error);
	free(text);
	return err;
}
