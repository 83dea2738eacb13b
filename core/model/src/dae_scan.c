// The DAE scan: what expat checks in a Collada file before assimp reads it. assimp's Collada reader (5.2)
// trusts the numbers a file states, so a file of a few hundred bytes could make it allocate gigabytes, read
// past its arrays, recurse or loop forever; every such number is checked here against what the file holds.
//
//   - No DOCTYPE (so no entity is declared or expanded); nesting at most max_xml_depth.
//   - The scene graph expanded on paper: each <node> counts itself, its child nodes and the nodes its
//     <instance_node>s name, and each <instance_geometry> the bytes of the <geometry> it names. A cycle, more
//     than DAE_MAX_EXPANDED_NODES nodes or more geometry bytes than max_file_bytes once expanded is refused:
//     assimp expands instances recursively and then copies every instance's vertices
//     (aiProcess_PreTransformVertices), so a file of a few kilobytes could otherwise ask for 2^30 copies (the
//     Collada form of "billion laughs") or recurse forever.
//   - Counts against contents (found by fuzz_mesh): a data array's count= is reserved before its values are
//     read (4 bytes per float, 32 per name), so it may not exceed the values its text holds; an <accessor>
//     (offset + count * stride values) must lie inside the float array it names, because assimp indexes the
//     array by it without a bounds check; a primitive element reserves count * corners * inputs indices
//     (for a <polylist>, the sum of its <vcount>), so that many must be in its <p>s; an <input>'s offset
//     is below 64 (it multiplies the index count); a strip, fan or polygon has a count and enough corners
//     per <p> (assimp computes corners - 2 unsigned).
//   - Every value of a <p> or <vcount> is an integer: assimp reads <p> until its text ends, and a value it
//     cannot parse (a letter) does not advance it, so it would append zeros until memory ran out.
//   - Count attributes are plain decimals below 2^32 (what exporters write): anything else is refused
//     rather than guessed at as assimp's XML reader would read it.
//   - No <controller> (skins, morphs) and no <animation>: a link's mesh is rigid, and assimp follows a
//     controller's source chain without a cycle check.
#include "model_internal.h"

#include <expat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Nodes of a DAE's scene graph once instances are expanded: 65536 (a robot link's DAE has tens). The same
// bound caps the instances, data arrays and accessors the scan records.
#define DAE_MAX_EXPANDED_NODES 65536
// <visual_scene>s of a DAE: 64 (files have one).
#define DAE_MAX_SCENES 64
// An <input>'s offset: below 64 (files use 0 to 3; the index count is multiplied by the largest plus one).
#define DAE_MAX_INPUT_OFFSET 63
// Bytes of an id, url or source attribute: at most 127 (exporters write tens). Longer ones are refused:
// the scan could not name them, and an instance it cannot resolve would escape the expansion's count.
#define DAE_MAX_ID 127

typedef struct dae_item
{
	char id[DAE_MAX_ID + 1]; // "" when the element has none
	bool geometry;           // a <geometry> (else a <node>)
	size_t bytes;            // a geometry's bytes
	int parent;              // enclosing node, -1 at the top
} dae_item;

typedef struct dae_ref
{
	int owner;                   // the node that holds the instance, or -1 (a scene's top level)
	char target[DAE_MAX_ID + 1]; // the id named by url="#..."
	bool geometry;               // instance_geometry (else instance_node)
	bool all_geometry;           // instance_controller: counted as every geometry of the file
	int resolved;                // the target item, -1 when none (dae_resolve)
} dae_ref;


// What the text of an open element is, for the count checks.
typedef enum dae_text
{
	TEXT_NONE = 0,
	TEXT_VALUES,  // a data array's values
	TEXT_INDICES, // a <p>: integers
	TEXT_VCOUNT,  // a <vcount>: non-negative integers
} dae_text;

typedef struct dae_array
{
	char id[DAE_MAX_ID + 1];
	uint64_t count; // its count= (checked against the values it holds)
	bool floats;    // a float_array (else a Name_array or IDREF_array)
} dae_array;

typedef struct dae_accessor
{
	char source[DAE_MAX_ID + 1]; // the array named by source="#..." ("" when it names none)
	uint64_t count, offset, stride;
} dae_accessor;

typedef enum dae_prim_kind
{
	PRIM_NONE = 0,
	PRIM_TRIANGLES,
	PRIM_LINES,
	PRIM_POLYLIST,
	PRIM_POLYGONS,
	PRIM_TRISTRIPS,
	PRIM_TRIFANS,
	PRIM_LINESTRIPS,
} dae_prim_kind;

// The open primitive element (<triangles>, <polylist>, ...): what its count= promises and what it holds.
typedef struct dae_prim
{
	dae_prim_kind kind;
	const char* name;
	int depth; // its depth: its <input>s and <p>s are at depth + 1
	uint64_t count;
	uint64_t max_offset;    // largest <input offset>
	uint64_t indices;       // values in all its <p>s
	uint64_t min_indices;   // fewest values in one <p>
	int p_count;            // its <p>s
	int vcount_count;       // its <vcount>s
	uint64_t vcount_values; // values in its <vcount>
	uint64_t vcount_sum;    // sum of the first count of them
} dae_prim;

typedef struct dae_scan
{
	XML_Parser xml;
	int depth, max_depth;
	bool failed;
	snm_asset_error kind;
	char message[160];
	dae_item* items;
	int item_count, item_capacity;
	dae_ref* refs;
	int ref_count, ref_capacity;
	int stack[SNM_MESH_MAX_XML_DEPTH + 1]; // open item per depth, -1 when the element is not an item
	int open_geometry;                     // item index of the open <geometry>, -1 when none
	XML_Index geometry_start;
	size_t total_geometry_bytes;
	char scene_ids[DAE_MAX_SCENES][DAE_MAX_ID + 1]; // ids of the <visual_scene>s
	int scene_count;
	char scene_url[DAE_MAX_ID + 1]; // the target of <instance_visual_scene url="#...">, "" when none
	int scene_instances;
	// Count checks (see the top of the file).
	unsigned char text[SNM_MESH_MAX_XML_DEPTH + 1]; // dae_text of each open element
	uint64_t values;                                // values so far in the open list element's text
	bool in_value;                                  // inside a value of it
	bool value_signed, value_digits, value_bad;     // the value's sign, whether it has digits, other characters
	uint64_t value;                                 // the value so far (saturating), for <vcount>
	int open_array;                                 // index in arrays of the open data array, -1 when none
	dae_array* arrays;
	int array_count, array_capacity;
	dae_accessor* accessors;
	int accessor_count, accessor_capacity;
	dae_prim prim;
} dae_scan;

static void dae_stop(dae_scan* s, snm_asset_error kind, const char* message)
{
	if (!s->failed)
	{
		s->failed = true;
		s->kind = kind;
		snprintf(s->message, sizeof(s->message), "%s", message);
		XML_StopParser(s->xml, XML_FALSE);
	}
}

static void dae_stopf(dae_scan* s, snm_asset_error kind, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void dae_stopf(dae_scan* s, snm_asset_error kind, const char* format, ...)
{
	if (!s->failed)
	{
		char message[sizeof(s->message)];
		va_list args;
		va_start(args, format);
		vsnprintf(message, sizeof(message), format, args);
		va_end(args);
		dae_stop(s, kind, message);
	}
}

static const char* dae_attr(const XML_Char** atts, const char* name)
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

// Element names without a namespace prefix.
static const char* local_name(const char* tag)
{
	const char* colon = strrchr(tag, ':');
	return colon != NULL ? colon + 1 : tag;
}

static int dae_open_node(dae_scan* s)
{
	for (int d = s->depth - 1; d >= 0; --d)
	{
		if (s->stack[d] >= 0 && !s->items[s->stack[d]].geometry)
		{
			return s->stack[d];
		}
	}
	return -1;
}

// ---- Counts against contents (see the top of the file) ----

// A count-like attribute: a plain decimal below 2^32; *out = fallback when absent. False (and stopped)
// when it is anything else.
static bool dae_number(dae_scan* s, const XML_Char** atts, const char* name, const char* element, uint64_t fallback,
					   uint64_t* out)
{
	const char* v = dae_attr(atts, name);
	*out = fallback;
	if (v == NULL)
	{
		return true;
	}
	uint64_t n = 0;
	size_t i = 0;
	while (i < 10 && v[i] >= '0' && v[i] <= '9')
	{
		n = 10 * n + (uint64_t)(v[i++] - '0');
	}
	if (i == 0 || v[i] != '\0' || n > UINT32_MAX)
	{
		dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s %s=\"%.24s\">: not a decimal count below 2^32", element, name, v);
		return false;
	}
	*out = n;
	return true;
}

static bool dae_grow(dae_scan* s, void** items, int* capacity, int count, size_t size)
{
	if (count >= DAE_MAX_EXPANDED_NODES)
	{
		dae_stop(s, SNM_ASSET_TOO_LARGE, "more data arrays or accessors than the limit (65536)");
		return false;
	}
	if (count == *capacity)
	{
		int next = *capacity == 0 ? 16 : 2 * *capacity;
		void* grown = realloc(*items, (size_t)next * size);
		if (grown == NULL)
		{
			dae_stop(s, SNM_ASSET_UNREADABLE, "out of memory");
			return false;
		}
		*items = grown;
		*capacity = next;
	}
	return true;
}

static dae_prim_kind prim_kind_of(const char* name)
{
	static const struct
	{
		const char* name;
		dae_prim_kind kind;
	} kinds[] = {
		{ "triangles", PRIM_TRIANGLES },   { "lines", PRIM_LINES },         { "polylist", PRIM_POLYLIST },
		{ "polygons", PRIM_POLYGONS },     { "tristrips", PRIM_TRISTRIPS }, { "trifans", PRIM_TRIFANS },
		{ "linestrips", PRIM_LINESTRIPS },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i)
	{
		if (strcmp(name, kinds[i].name) == 0)
		{
			return kinds[i].kind;
		}
	}
	return PRIM_NONE;
}

// An element opens: records what the count checks need; returns the kind of its text.
static dae_text dae_count_start(dae_scan* s, const char* name, const XML_Char** atts)
{
	if (strcmp(name, "controller") == 0 || strcmp(name, "animation") == 0 || strcmp(name, "animation_clip") == 0)
	{
		dae_stopf(s, SNM_ASSET_UNSUPPORTED, "<%s> is not read (a link's mesh is rigid: no skins, morphs or animations)",
				  name);
		return TEXT_NONE;
	}
	bool floats = strcmp(name, "float_array") == 0;
	if (floats || strcmp(name, "Name_array") == 0 || strcmp(name, "IDREF_array") == 0)
	{
		uint64_t count;
		if (!dae_number(s, atts, "count", name, 0, &count) ||
			!dae_grow(s, (void**)&s->arrays, &s->array_capacity, s->array_count, sizeof(dae_array)))
		{
			return TEXT_NONE;
		}
		dae_array* a = &s->arrays[s->array_count];
		const char* id = dae_attr(atts, "id");
		snprintf(a->id, sizeof(a->id), "%s", id != NULL ? id : "");
		a->count = count;
		a->floats = floats;
		s->open_array = s->array_count++;
		s->values = 0;
		return TEXT_VALUES;
	}
	if (strcmp(name, "accessor") == 0)
	{
		uint64_t count, offset, stride;
		if (!dae_number(s, atts, "count", name, 0, &count) || !dae_number(s, atts, "offset", name, 0, &offset) ||
			!dae_number(s, atts, "stride", name, 1, &stride) ||
			!dae_grow(s, (void**)&s->accessors, &s->accessor_capacity, s->accessor_count, sizeof(dae_accessor)))
		{
			return TEXT_NONE;
		}
		dae_accessor* a = &s->accessors[s->accessor_count++];
		const char* source = dae_attr(atts, "source");
		snprintf(a->source, sizeof(a->source), "%s", source != NULL && source[0] == '#' ? source + 1 : "");
		a->count = count;
		a->offset = offset;
		a->stride = stride;
		return TEXT_NONE;
	}
	dae_prim_kind kind = prim_kind_of(name);
	if (kind != PRIM_NONE)
	{
		if (s->prim.kind != PRIM_NONE)
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s> inside <%s>", name, s->prim.name);
			return TEXT_NONE;
		}
		uint64_t count;
		if (!dae_number(s, atts, "count", name, 0, &count))
		{
			return TEXT_NONE;
		}
		memset(&s->prim, 0, sizeof(s->prim));
		s->prim.kind = kind;
		s->prim.name = kind == PRIM_TRIANGLES ? "triangles"
			: kind == PRIM_LINES              ? "lines"
			: kind == PRIM_POLYLIST           ? "polylist"
			: kind == PRIM_POLYGONS           ? "polygons"
			: kind == PRIM_TRISTRIPS          ? "tristrips"
			: kind == PRIM_TRIFANS            ? "trifans"
											  : "linestrips";
		s->prim.depth = s->depth;
		s->prim.count = count;
		s->prim.min_indices = UINT64_MAX;
		return TEXT_NONE;
	}
	bool in_prim = s->prim.kind != PRIM_NONE && s->depth == s->prim.depth + 1;
	if (strcmp(name, "input") == 0 && in_prim)
	{
		uint64_t offset;
		if (!dae_number(s, atts, "offset", name, 0, &offset))
		{
			return TEXT_NONE;
		}
		if (offset > DAE_MAX_INPUT_OFFSET)
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<input offset=\"%llu\"> in <%s>: offsets are below %d",
					  (unsigned long long)offset, s->prim.name, DAE_MAX_INPUT_OFFSET + 1);
			return TEXT_NONE;
		}
		s->prim.max_offset = offset > s->prim.max_offset ? offset : s->prim.max_offset;
		return TEXT_NONE;
	}
	if (strcmp(name, "p") == 0)
	{
		s->values = 0;
		return TEXT_INDICES;
	}
	if (strcmp(name, "vcount") == 0)
	{
		if (in_prim && ++s->prim.vcount_count > 1)
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "more than one <vcount> in <%s>", s->prim.name);
			return TEXT_NONE;
		}
		s->values = 0;
		return TEXT_VCOUNT;
	}
	return TEXT_NONE;
}

// A value of a list element's text ends.
static void dae_value_end(dae_scan* s, dae_text text)
{
	s->in_value = false;
	if (text == TEXT_INDICES || text == TEXT_VCOUNT)
	{
		if (s->value_bad || !s->value_digits || (text == TEXT_VCOUNT && s->value_signed))
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s> holds a value that is not an integer",
					  text == TEXT_INDICES ? "p" : "vcount");
			return;
		}
	}
	if (text == TEXT_VCOUNT && s->prim.kind != PRIM_NONE && s->values <= s->prim.count)
	{
		uint64_t sum = s->prim.vcount_sum + s->value;
		s->prim.vcount_sum = sum > UINT32_MAX ? UINT32_MAX : sum;
	}
}

static void XMLCALL dae_characters(void* user, const XML_Char* chars, int length)
{
	dae_scan* s = user;
	if (s->failed || s->depth <= 0)
	{
		return;
	}
	dae_text text = (dae_text)s->text[s->depth - 1];
	if (text == TEXT_NONE)
	{
		return;
	}
	for (int i = 0; i < length && !s->failed; ++i)
	{
		char c = chars[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		{
			if (s->in_value)
			{
				dae_value_end(s, text);
			}
			continue;
		}
		if (!s->in_value)
		{
			s->in_value = true;
			s->values++;
			s->value = 0;
			s->value_signed = false;
			s->value_digits = false;
			s->value_bad = false;
			if (c == '-' || c == '+')
			{
				s->value_signed = true;
				continue;
			}
		}
		if (c >= '0' && c <= '9')
		{
			s->value_digits = true;
			s->value = s->value > UINT32_MAX ? s->value : 10 * s->value + (uint64_t)(c - '0');
		}
		else
		{
			s->value_bad = true;
		}
	}
}

static void dae_prim_check(dae_scan* s)
{
	dae_prim* p = &s->prim;
	uint64_t inputs = p->max_offset + 1;
	uint64_t corners = 0; // the indices assimp reserves, per input
	switch (p->kind)
	{
		case PRIM_TRIANGLES:
			corners = 3 * p->count;
			break;
		case PRIM_LINES:
			corners = 2 * p->count;
			break;
		case PRIM_POLYLIST:
			if (p->count > p->vcount_values)
			{
				dae_stopf(s, SNM_ASSET_UNREADABLE, "<polylist count=\"%llu\"> has %llu values in its <vcount>",
						  (unsigned long long)p->count, (unsigned long long)p->vcount_values);
				return;
			}
			corners = p->vcount_sum;
			break;
		default:
		{
			// Strips, fans and polygons: one per <p>, of at least 3 corners (2 for a line strip).
			uint64_t least = (p->kind == PRIM_LINESTRIPS ? 2 : 3) * inputs;
			if (p->p_count > 0 && (p->count == 0 || p->min_indices < least))
			{
				dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s count=\"%llu\"> needs a count and %llu indices per <p>",
						  p->name, (unsigned long long)p->count, (unsigned long long)least);
				return;
			}
			break;
		}
	}
	if (corners * inputs > p->indices)
	{
		dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s count=\"%llu\"> needs %llu indices (%llu inputs), its <p>s hold %llu",
				  p->name, (unsigned long long)p->count, (unsigned long long)(corners * inputs),
				  (unsigned long long)inputs, (unsigned long long)p->indices);
	}
}

// An element closes (s->depth is still its depth + 1).
static void dae_count_end(dae_scan* s)
{
	dae_text text = (dae_text)s->text[s->depth - 1];
	if (text != TEXT_NONE && s->in_value)
	{
		dae_value_end(s, text);
	}
	if (s->failed)
	{
		return;
	}
	bool in_prim = s->prim.kind != PRIM_NONE && s->depth - 1 == s->prim.depth + 1;
	if (text == TEXT_VALUES && s->open_array >= 0)
	{
		const dae_array* a = &s->arrays[s->open_array];
		if (a->count > s->values)
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s id=\"%.40s\" count=\"%llu\"> holds %llu values",
					  a->floats ? "float_array" : "Name_array", a->id, (unsigned long long)a->count,
					  (unsigned long long)s->values);
		}
		s->open_array = -1;
	}
	else if (text == TEXT_INDICES && in_prim)
	{
		s->prim.indices += s->values;
		s->prim.min_indices = s->values < s->prim.min_indices ? s->values : s->prim.min_indices;
		s->prim.p_count++;
	}
	else if (text == TEXT_VCOUNT && in_prim)
	{
		s->prim.vcount_values = s->values;
	}
	else if (s->prim.kind != PRIM_NONE && s->depth - 1 == s->prim.depth)
	{
		dae_prim_check(s);
		s->prim.kind = PRIM_NONE;
	}
}

static int dae_array_compare(const void* a, const void* b)
{
	return strcmp(((const dae_array*)a)->id, ((const dae_array*)b)->id);
}

// Every accessor lies inside the float array it names (every array of that id, when several share it: the
// reader keeps one of them). An accessor that names no array of the file is assimp's to refuse.
static void dae_check_accessors(dae_scan* s)
{
	if (s->array_count > 0)
	{
		qsort(s->arrays, (size_t)s->array_count, sizeof(dae_array), dae_array_compare);
	}
	for (int i = 0; i < s->accessor_count && !s->failed; ++i)
	{
		const dae_accessor* acc = &s->accessors[i];
		// The first array of that id (binary search), then every one of the same id.
		int lo = 0, hi = s->array_count;
		while (lo < hi)
		{
			int mid = lo + (hi - lo) / 2;
			if (strcmp(s->arrays[mid].id, acc->source) < 0)
			{
				lo = mid + 1;
			}
			else
			{
				hi = mid;
			}
		}
		for (int k = lo; k < s->array_count && strcmp(s->arrays[k].id, acc->source) == 0; ++k)
		{
			const dae_array* a = &s->arrays[k];
			uint64_t end = acc->offset + acc->count * acc->stride; // each below 2^32: no overflow
			if (!a->floats || end > a->count)
			{
				dae_stopf(s, SNM_ASSET_UNREADABLE,
						  "<accessor source=\"#%.40s\" count=\"%llu\" stride=\"%llu\" offset=\"%llu\"> reads past "
						  "the %llu values of its %s",
						  acc->source, (unsigned long long)acc->count, (unsigned long long)acc->stride,
						  (unsigned long long)acc->offset, (unsigned long long)a->count,
						  a->floats ? "float_array" : "array (not a float_array)");
				break;
			}
		}
	}
}

static void XMLCALL dae_start(void* user, const XML_Char* tag, const XML_Char** atts)
{
	dae_scan* s = user;
	if (s->failed)
	{
		return;
	}
	if (s->depth >= s->max_depth)
	{
		dae_stop(s, SNM_ASSET_TOO_DEEP, "elements nested deeper than the limit");
		return;
	}
	const char* name = local_name(tag);
	for (int i = 0; atts[i] != NULL; i += 2)
	{
		const char* key = local_name(atts[i]);
		if ((strcmp(key, "id") == 0 || strcmp(key, "url") == 0 || strcmp(key, "source") == 0) &&
			strlen(atts[i + 1]) > DAE_MAX_ID)
		{
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s %s=\"%.24s...\">: longer than %d bytes", name, key, atts[i + 1],
					  DAE_MAX_ID);
			return;
		}
	}
	int item = -1;
	bool is_node = strcmp(name, "node") == 0;
	bool is_geometry = strcmp(name, "geometry") == 0 && s->open_geometry < 0;
	if (is_node || is_geometry)
	{
		if (s->item_count >= DAE_MAX_EXPANDED_NODES)
		{
			dae_stop(s, SNM_ASSET_TOO_LARGE, "more nodes and geometries than the limit");
			return;
		}
		if (s->item_count == s->item_capacity)
		{
			int next = s->item_capacity == 0 ? 64 : 2 * s->item_capacity;
			dae_item* grown = realloc(s->items, (size_t)next * sizeof(dae_item));
			if (grown == NULL)
			{
				dae_stop(s, SNM_ASSET_UNREADABLE, "out of memory");
				return;
			}
			s->items = grown;
			s->item_capacity = next;
		}
		item = s->item_count++;
		dae_item* it = &s->items[item];
		memset(it, 0, sizeof(*it));
		it->geometry = is_geometry;
		it->parent = dae_open_node(s);
		const char* id = dae_attr(atts, "id");
		if (id != NULL && strlen(id) < sizeof(it->id))
		{
			strcpy(it->id, id);
		}
		if (is_geometry)
		{
			s->open_geometry = item;
			s->geometry_start = XML_GetCurrentByteIndex(s->xml);
		}
	}
	// The scene: assimp 5.2 leaks what it has read when <instance_visual_scene> names no scene of the file
	// (found by fuzz_mesh), so its target is checked here (dae_check_scene).
	if (strcmp(name, "visual_scene") == 0)
	{
		if (s->scene_count >= DAE_MAX_SCENES)
		{
			dae_stop(s, SNM_ASSET_TOO_LARGE, "more than 64 visual scenes");
			return;
		}
		const char* id = dae_attr(atts, "id");
		snprintf(s->scene_ids[s->scene_count++], sizeof(s->scene_ids[0]), "%s",
				 id != NULL && strlen(id) < sizeof(s->scene_ids[0]) ? id : "");
	}
	if (strcmp(name, "instance_visual_scene") == 0)
	{
		const char* url = dae_attr(atts, "url");
		s->scene_instances++;
		if (url == NULL || url[0] != '#' || url[1] == '\0' || strlen(url + 1) >= sizeof(s->scene_url))
		{
			dae_stop(s, SNM_ASSET_UNREADABLE, "<instance_visual_scene> needs url=\"#id\"");
			return;
		}
		strcpy(s->scene_url, url + 1);
	}
	bool instance_node = strcmp(name, "instance_node") == 0;
	bool instance_geometry = strcmp(name, "instance_geometry") == 0;
	bool instance_controller = strcmp(name, "instance_controller") == 0;
	if (instance_node || instance_geometry || instance_controller)
	{
		if (s->ref_count >= DAE_MAX_EXPANDED_NODES)
		{
			dae_stop(s, SNM_ASSET_TOO_LARGE, "more instances than the limit");
			return;
		}
		if (s->ref_count == s->ref_capacity)
		{
			int next = s->ref_capacity == 0 ? 64 : 2 * s->ref_capacity;
			dae_ref* grown = realloc(s->refs, (size_t)next * sizeof(dae_ref));
			if (grown == NULL)
			{
				dae_stop(s, SNM_ASSET_UNREADABLE, "out of memory");
				return;
			}
			s->refs = grown;
			s->ref_capacity = next;
		}
		dae_ref* r = &s->refs[s->ref_count++];
		memset(r, 0, sizeof(*r));
		r->owner = dae_open_node(s);
		r->geometry = !instance_node;
		r->all_geometry = instance_controller;
		const char* url = dae_attr(atts, "url");
		if (url == NULL || url[0] != '#')
		{
			// assimp 5.2 leaks what it has read when an instance has no url, or one that is not "#id",
			// which it refuses half way (found by fuzz_mesh).
			dae_stopf(s, SNM_ASSET_UNREADABLE, "<%s> needs url=\"#id\"", name);
			return;
		}
		if (url[0] == '#' && strlen(url + 1) < sizeof(r->target))
		{
			strcpy(r->target, url + 1);
		}
		else if (instance_node)
		{
			// An instance of another file ("#" alone): assimp cannot resolve it and skips it.
			s->ref_count--;
		}
	}
	dae_text text = dae_count_start(s, name, atts);
	s->text[s->depth] = (unsigned char)text;
	s->stack[s->depth++] = item;
}

static void XMLCALL dae_end(void* user, const XML_Char* tag)
{
	dae_scan* s = user;
	(void)tag;
	if (s->failed || s->depth <= 0)
	{
		return;
	}
	dae_count_end(s);
	int item = s->stack[--s->depth];
	if (item >= 0 && item == s->open_geometry)
	{
		XML_Index end = XML_GetCurrentByteIndex(s->xml);
		size_t bytes = end > s->geometry_start ? (size_t)(end - s->geometry_start) : 0;
		s->items[item].bytes = bytes;
		s->total_geometry_bytes += bytes;
		s->open_geometry = -1;
	}
}

static void XMLCALL dae_doctype(void* user, const XML_Char* name, const XML_Char* sysid, const XML_Char* pubid,
								int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	dae_stop(user, SNM_ASSET_UNSUPPORTED, "a DOCTYPE is not allowed in a DAE (no entities are expanded)");
}

// Resolve every instance's target once, through a hash table of the ids (a linear search per instance
// would be quadratic: 65536 instances of 65536 nodes). The first item with an id wins.
static bool dae_resolve(dae_scan* s)
{
	size_t slots = 16;
	while (slots < 2 * (size_t)s->item_count)
	{
		slots *= 2;
	}
	int* table = malloc(slots * sizeof(int));
	if (table == NULL)
	{
		return false;
	}
	memset(table, 0xff, slots * sizeof(int));
	for (int i = 0; i < s->item_count; ++i)
	{
		const dae_item* it = &s->items[i];
		if (it->id[0] == '\0')
		{
			continue;
		}
		size_t slot = (size_t)(snm_fnv1a64(it->id, strlen(it->id)) ^ (uint64_t)it->geometry) & (slots - 1);
		while (table[slot] >= 0 &&
			   !(s->items[table[slot]].geometry == it->geometry && strcmp(s->items[table[slot]].id, it->id) == 0))
		{
			slot = (slot + 1) & (slots - 1);
		}
		if (table[slot] < 0)
		{
			table[slot] = i;
		}
	}
	for (int r = 0; r < s->ref_count; ++r)
	{
		dae_ref* ref = &s->refs[r];
		ref->resolved = -1;
		if (ref->all_geometry || ref->target[0] == '\0')
		{
			continue;
		}
		size_t slot = (size_t)(snm_fnv1a64(ref->target, strlen(ref->target)) ^ (uint64_t)ref->geometry) & (slots - 1);
		while (table[slot] >= 0)
		{
			const dae_item* it = &s->items[table[slot]];
			if (it->geometry == ref->geometry && strcmp(it->id, ref->target) == 0)
			{
				ref->resolved = table[slot];
				break;
			}
			slot = (slot + 1) & (slots - 1);
		}
	}
	free(table);
	return true;
}

static double sat_add(double a, double b)
{
	double c = a + b;
	return c > 1e300 ? 1e300 : c;
}

// Expand the scene graph on paper: per node, the nodes and geometry bytes it stands for once every
// instance is expanded (iterative depth-first search, so that no input can exhaust the stack; a node met
// again while open is a cycle). Counts are doubles that saturate: only whether they pass the limits
// matters.
static bool dae_expand(dae_scan* s, size_t max_bytes)
{
	int n = s->item_count;
	if (n <= 0)
	{
		return true;
	}
	if (!dae_resolve(s))
	{
		dae_stop(s, SNM_ASSET_UNREADABLE, "out of memory");
		return false;
	}
	// Children per node: structural children and instance targets, as edges (target item, or a geometry's
	// bytes).
	int* edge_start = calloc((size_t)n + 1, sizeof(int));
	int edge_total = 0;
	for (int i = 0; i < n; ++i)
	{
		if (!s->items[i].geometry && s->items[i].parent >= 0)
		{
			edge_total++;
		}
	}
	edge_total += s->ref_count;
	int* edges = malloc((size_t)(edge_total > 0 ? edge_total : 1) * sizeof(int)); // item index, or -2 - ref
	int* fill = calloc((size_t)n + 1, sizeof(int));
	double* nodes = calloc((size_t)n, sizeof(double));
	double* bytes = calloc((size_t)n, sizeof(double));
	unsigned char* state = calloc((size_t)n, 1);
	int* stack = malloc((size_t)n * sizeof(int));
	int* cursor = calloc((size_t)n, sizeof(int));
	bool ok = edge_start != NULL && edges != NULL && fill != NULL && nodes != NULL && bytes != NULL && state != NULL &&
		stack != NULL && cursor != NULL;
	if (!ok)
	{
		dae_stop(s, SNM_ASSET_UNREADABLE, "out of memory");
	}
	// Count, then place the edges of each owner (top-level ones, owner -1, are the roots' business).
	for (int i = 0; ok && i < n; ++i)
	{
		if (!s->items[i].geometry && s->items[i].parent >= 0)
		{
			edge_start[s->items[i].parent + 1]++;
		}
	}
	for (int r = 0; ok && r < s->ref_count; ++r)
	{
		if (s->refs[r].owner >= 0)
		{
			edge_start[s->refs[r].owner + 1]++;
		}
	}
	for (int i = 0; ok && i < n; ++i)
	{
		edge_start[i + 1] += edge_start[i];
	}
	for (int i = 0; ok && i < n; ++i)
	{
		if (!s->items[i].geometry && s->items[i].parent >= 0)
		{
			int o = s->items[i].parent;
			edges[edge_start[o] + fill[o]++] = i;
		}
	}
	for (int r = 0; ok && r < s->ref_count; ++r)
	{
		int o = s->refs[r].owner;
		if (o >= 0)
		{
			edges[edge_start[o] + fill[o]++] = -2 - r;
		}
	}
	double limit_nodes = DAE_MAX_EXPANDED_NODES;
	double total_nodes = 0.0, total_bytes = 0.0;
	for (int root = 0; ok && root < n; ++root)
	{
		// Every node is a root of its own expansion: a top-level node (in a scene or a library) counts
		// whole; a nested one is counted again through its parent, which only overestimates.
		if (s->items[root].geometry || state[root] == 2)
		{
			continue;
		}
		int top = 0;
		stack[top++] = root;
		state[root] = 1;
		cursor[root] = edge_start[root];
		nodes[root] = 1.0;
		while (ok && top > 0)
		{
			int v = stack[top - 1];
			if (cursor[v] == edge_start[v + 1])
			{
				state[v] = 2;
				--top;
				if (top > 0)
				{
					int u = stack[top - 1];
					nodes[u] = sat_add(nodes[u], nodes[v]);
					bytes[u] = sat_add(bytes[u], bytes[v]);
				}
				continue;
			}
			int e = edges[cursor[v]++];
			int target = e;
			if (e <= -2)
			{
				const dae_ref* r = &s->refs[-2 - e];
				if (r->all_geometry)
				{
					bytes[v] = sat_add(bytes[v], (double)s->total_geometry_bytes);
					continue;
				}
				target = r->resolved;
				if (target < 0)
				{
					continue; // unresolved: assimp skips it
				}
				if (r->geometry)
				{
					bytes[v] = sat_add(bytes[v], (double)s->items[target].bytes);
					continue;
				}
			}
			if (state[target] == 1)
			{
				dae_stop(s, SNM_ASSET_UNREADABLE, "the scene graph has a cycle (a node instances itself)");
				ok = false;
				break;
			}
			if (state[target] == 2)
			{
				nodes[v] = sat_add(nodes[v], nodes[target]);
				bytes[v] = sat_add(bytes[v], bytes[target]);
				continue;
			}
			state[target] = 1;
			cursor[target] = edge_start[target];
			nodes[target] = 1.0;
			stack[top++] = target;
		}
		if (ok && s->items[root].parent < 0)
		{
			total_nodes = sat_add(total_nodes, nodes[root]);
			total_bytes = sat_add(total_bytes, bytes[root]);
		}
	}
	// Top-level instances (outside any node) count too.
	for (int r = 0; ok && r < s->ref_count; ++r)
	{
		const dae_ref* ref = &s->refs[r];
		if (ref->owner >= 0)
		{
			continue;
		}
		int target = ref->all_geometry ? -1 : ref->resolved;
		if (ref->all_geometry)
		{
			total_bytes = sat_add(total_bytes, (double)s->total_geometry_bytes);
		}
		else if (target >= 0 && ref->geometry)
		{
			total_bytes = sat_add(total_bytes, (double)s->items[target].bytes);
		}
		else if (target >= 0)
		{
			total_nodes = sat_add(total_nodes, nodes[target]);
			total_bytes = sat_add(total_bytes, bytes[target]);
		}
	}
	if (ok && total_nodes > limit_nodes)
	{
		dae_stop(s, SNM_ASSET_TOO_LARGE, "its instances expand to more nodes than the limit (65536)");
		ok = false;
	}
	if (ok && total_bytes > (double)max_bytes)
	{
		dae_stop(s, SNM_ASSET_TOO_LARGE, "its instances expand to more geometry than max_file_bytes");
		ok = false;
	}
	free(edge_start);
	free(edges);
	free(fill);
	free(nodes);
	free(bytes);
	free(state);
	free(stack);
	free(cursor);
	return ok;
}

// <instance_visual_scene> (at most one) must name a <visual_scene> of the file.
static void dae_check_scene(dae_scan* s)
{
	if (s->scene_instances > 1)
	{
		dae_stop(s, SNM_ASSET_UNREADABLE, "more than one <instance_visual_scene>");
		return;
	}
	if (s->scene_instances == 0)
	{
		return;
	}
	for (int i = 0; i < s->scene_count; ++i)
	{
		if (strcmp(s->scene_ids[i], s->scene_url) == 0)
		{
			return;
		}
	}
	dae_stop(s, SNM_ASSET_UNREADABLE, "<instance_visual_scene> names no <visual_scene> of the file");
}

bool model_scan_dae(const void* data, size_t size, const snm_mesh_limits* limits, snm_asset_error* kind, char* message,
					size_t message_capacity)
{
	dae_scan* s = calloc(1, sizeof(*s));
	XML_Parser xml = XML_ParserCreate(NULL);
	if (s == NULL || xml == NULL)
	{
		free(s);
		if (xml != NULL)
		{
			XML_ParserFree(xml);
		}
		*kind = SNM_ASSET_UNREADABLE;
		snprintf(message, message_capacity, "out of memory");
		return false;
	}
	s->xml = xml;
	s->max_depth = limits->max_xml_depth;
	s->open_geometry = -1;
	XML_SetUserData(xml, s);
	s->open_array = -1;
	XML_SetElementHandler(xml, dae_start, dae_end);
	XML_SetCharacterDataHandler(xml, dae_characters);
	XML_SetStartDoctypeDeclHandler(xml, dae_doctype);
	enum XML_Status status = XML_Parse(xml, data, (int)size, XML_TRUE);
	if (!s->failed && status != XML_STATUS_OK)
	{
		char what[160];
		snprintf(what, sizeof(what), "XML line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(xml),
				 XML_ErrorString(XML_GetErrorCode(xml)));
		dae_stop(s, SNM_ASSET_UNREADABLE, what);
	}
	if (!s->failed)
	{
		dae_check_scene(s);
	}
	if (!s->failed)
	{
		dae_check_accessors(s);
	}
	if (!s->failed)
	{
		dae_expand(s, limits->max_file_bytes);
	}
	bool ok = !s->failed;
	if (!ok)
	{
		*kind = s->kind;
		snprintf(message, message_capacity, "%s", s->message);
	}
	XML_ParserFree(xml);
	free(s->items);
	free(s->refs);
	free(s->arrays);
	free(s->accessors);
	free(s);
	return ok;
}
