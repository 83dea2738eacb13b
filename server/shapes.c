// Collision shapes over the wire (see shapes.h).
#include "shapes.h"

#include "convert.h"
#include "errors.h"
#include "server.h"
#include "world_host.h"

#include "sinew/articulation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- decoding -----------------------------------------------------------------------------------------

static void wire_shape_free(wire_shape* s)
{
	free(s->values);
	free(s->indices);
	s->values = NULL;
	s->indices = NULL;
	s->value_count = s->value_capacity = 0;
	s->index_count = s->index_capacity = 0;
}

void shape_list_free(shape_list* list)
{
	for (int i = 0; i < list->count; ++i)
	{
		wire_shape_free(list->items + i);
	}
	free(list->items);
	wire_shape_free(&list->loose);
	list->items = NULL;
	list->count = list->capacity = 0;
	list->current = NULL;
}

bool shape_list_decode(shape_list* list, pb_istream_t* stream, int owner)
{
	// Shapes arrive owner by owner (a link's while it decodes): count the current owner's run.
	if (list->run == 0 || list->run_owner != owner)
	{
		list->run_owner = owner;
		list->run = 0;
	}
	if (list->run >= list->max_per_owner)
	{
		list->over_limit = true;
		return true; // nanopb skips the element; the handler answers LIMIT_REACHED
	}
	if (list->count == list->capacity)
	{
		int capacity = list->capacity > 0 ? 2 * list->capacity : 8;
		wire_shape* grown = realloc(list->items, (size_t)capacity * sizeof(wire_shape));
		if (grown == NULL)
		{
			list->out_of_memory = true;
			return false;
		}
		list->items = grown;
		list->capacity = capacity;
	}
	wire_shape* s = list->items + list->count;
	memset(s, 0, sizeof(*s));
	s->owner = owner;
	s->def = (sinew_v1_ShapeDef)sinew_v1_ShapeDef_init_zero;
	list->count += 1; // counted now, so that its arrays are freed with the list even if decoding fails
	list->run += 1;
	list->current = s;
	bool ok = pb_decode(stream, sinew_v1_ShapeDef_fields, &s->def);
	list->current = NULL;
	return ok;
}

static bool grow(void** array, size_t* capacity, size_t need, size_t size)
{
	if (need <= *capacity)
	{
		return true;
	}
	size_t next = *capacity > 0 ? 2 * *capacity : 64;
	while (next < need)
	{
		next *= 2;
	}
	void* bigger = realloc(*array, next * size);
	if (bigger == NULL)
	{
		return false;
	}
	*array = bigger;
	*capacity = next;
	return true;
}

bool shape_list_decode_geometry(shape_list* list, pb_istream_t* stream, const pb_field_iter_t* field, bool* handled)
{
	bool hull = field->descriptor == &sinew_v1_Hull_msg && field->tag == sinew_v1_Hull_points_tag;
	bool vertices = field->descriptor == &sinew_v1_TriangleMesh_msg && field->tag == sinew_v1_TriangleMesh_vertices_tag;
	bool indices = field->descriptor == &sinew_v1_TriangleMesh_msg && field->tag == sinew_v1_TriangleMesh_indices_tag;
	*handled = hull || vertices || indices;
	if (!*handled)
	{
		return true;
	}
	wire_shape* s = list->current != NULL ? list->current : &list->loose;
	// A oneof that switches from a hull to a mesh (or back) starts the arrays again: the last one wins.
	if (s->values_of != field->descriptor)
	{
		s->values_of = field->descriptor;
		s->value_count = 0;
		s->index_count = 0;
	}
	// So does a hull (or mesh) that the geometry selects anew after another member: nanopb zeroes a oneof
	// member when it is selected again, callbacks included, and keeps it when the same member comes again
	// (protobuf merges). The field's callback argument, which nothing else uses, marks the arrays this
	// selection began: NULL is a new one.
	pb_callback_t* mark = field->data_size == sizeof(pb_callback_t) ? field->pData : NULL;
	if (mark != NULL && mark->arg != (void*)list)
	{
		mark->arg = list;
		if (indices)
		{
			s->index_count = 0;
		}
		else
		{
			s->value_count = 0;
		}
	}
	// Packed or not, nanopb hands over one value or a run of them; take what the stream holds, growing the
	// array once for all of it (a varint takes at least a byte, a double eight).
	size_t most = indices ? stream->bytes_left : stream->bytes_left / 8;
	bool grown = indices ? grow((void**)&s->indices, &s->index_capacity, s->index_count + most, sizeof(uint32_t))
						 : grow((void**)&s->values, &s->value_capacity, s->value_count + most, sizeof(double));
	if (!grown)
	{
		list->out_of_memory = true;
		return false;
	}
	while (stream->bytes_left > 0)
	{
		if (indices)
		{
			uint32_t v = 0;
			if (!pb_decode_varint32(stream, &v))
			{
				return false;
			}
			s->indices[s->index_count++] = v;
		}
		else
		{
			double v = 0.0;
			if (s->value_count == s->value_capacity || !pb_decode_fixed64(stream, &v))
			{
				return false;
			}
			s->values[s->value_count++] = v;
		}
	}
	return true;
}

// ---- wire to core -------------------------------------------------------------------------------------

static int32_t fail(char* why, size_t cap, int32_t code, const char* text)
{
	snprintf(why, cap, "%s", text);
	return code;
}

// The values and indices that arrived for the geometry the shape ended with. shape_list_decode_geometry
// marks each array field of the current selection in its callback argument, so a hull or mesh selected
// anew after its arrays (hull, sphere, hull without points) has none of its own.
static size_t wire_values(const wire_shape* ws)
{
	const sinew_v1_ShapeDef* d = &ws->def;
	const bool hull = d->which_geometry == sinew_v1_ShapeDef_hull_tag;
	const bool mesh = d->which_geometry == sinew_v1_ShapeDef_mesh_tag;
	const bool marked = hull ? d->geometry.hull.points.arg != NULL : mesh && d->geometry.mesh.vertices.arg != NULL;
	return marked && ws->values_of == (hull ? &sinew_v1_Hull_msg : &sinew_v1_TriangleMesh_msg) ? ws->value_count : 0;
}

static size_t wire_indices(const wire_shape* ws)
{
	const sinew_v1_ShapeDef* d = &ws->def;
	const bool marked = d->which_geometry == sinew_v1_ShapeDef_mesh_tag && d->geometry.mesh.indices.arg != NULL;
	return marked && ws->values_of == &sinew_v1_TriangleMesh_msg ? ws->index_count : 0;
}

int32_t shape_def_from_wire(const wire_shape* ws, sn_body_id body, sn_shape_def* out, void** points, char* why,
							size_t cap)
{
	const sinew_v1_ShapeDef* d = &ws->def;
	*points = NULL;
	*out = sn_default_shape_def();
	out->body = body;
	out->local_pose = cv_transform(d->has_local_pose, &d->local_pose);
	if (d->has_material)
	{
		const sinew_v1_Material* m = &d->material;
		if (m->has_friction)
		{
			out->material.friction = m->friction;
		}
		if (m->has_restitution)
		{
			out->material.restitution = m->restitution;
		}
		out->material.soft = cv_soft(m->has_soft, &m->soft, out->material.soft);
	}
	if (d->has_filter)
	{
		if (d->filter.has_category)
		{
			out->filter.category = d->filter.category;
		}
		if (d->filter.has_mask)
		{
			out->filter.mask = d->filter.mask;
		}
	}
	out->is_sensor = d->sensor;
	out->user_data = d->user_data;
	switch (d->which_geometry)
	{
		case sinew_v1_ShapeDef_sphere_tag:
			out->geometry = sn_geometry_sphere(d->geometry.sphere.radius);
			return 0;
		case sinew_v1_ShapeDef_capsule_tag:
			out->geometry = sn_geometry_capsule(d->geometry.capsule.radius, d->geometry.capsule.half_length);
			return 0;
		case sinew_v1_ShapeDef_box_tag:
			if (!d->geometry.box.has_half_extents)
			{
				return fail(why, cap, SN_ERR_INVALID_ARGUMENT, "box: half_extents is missing");
			}
			out->geometry = sn_geometry_box(cv_vec3(true, &d->geometry.box.half_extents, sn_v3(0, 0, 0)));
			return 0;
		case sinew_v1_ShapeDef_cylinder_tag:
			out->geometry = sn_geometry_cylinder(d->geometry.cylinder.radius, d->geometry.cylinder.half_height);
			return 0;
		case sinew_v1_ShapeDef_plane_tag:
			if (!d->geometry.plane.has_normal)
			{
				return fail(why, cap, SN_ERR_INVALID_ARGUMENT, "plane: normal is missing");
			}
			out->geometry =
				sn_geometry_plane(cv_vec3(true, &d->geometry.plane.normal, sn_v3(0, 0, 0)), d->geometry.plane.offset);
			return 0;
		case sinew_v1_ShapeDef_hull_tag:
		case sinew_v1_ShapeDef_mesh_tag:
			break;
		default:
			return fail(why, cap, SN_ERR_INVALID_ARGUMENT,
						"the geometry is missing (sphere, capsule, box, cylinder, hull, mesh or plane)");
	}
	bool hull = d->which_geometry == sinew_v1_ShapeDef_hull_tag;
	size_t values = wire_values(ws);
	size_t indices = hull ? 0 : wire_indices(ws);
	if (values % 3 != 0)
	{
		return fail(why, cap, SN_ERR_INVALID_ARGUMENT,
					hull ? "hull: points are x, y, z each: their count is not a multiple of 3"
						 : "mesh: vertices are x, y, z each: their count is not a multiple of 3");
	}
	if (!hull && indices % 3 != 0)
	{
		return fail(why, cap, SN_ERR_INVALID_ARGUMENT,
					"mesh: three indices per triangle: their count is not a multiple of 3");
	}
	size_t count = values / 3;
	// Counts beyond the core's bounds are its CAPACITY; they are kept from overflowing an int here.
	size_t max = hull ? (size_t)SN_SHAPE_MAX_HULL_POINTS : (size_t)SN_SHAPE_MAX_MESH_VERTICES;
	if (count > max || indices / 3 > (size_t)SN_SHAPE_MAX_MESH_TRIANGLES)
	{
		snprintf(why, cap, "%s",
				 hull ? "hull: more than the core takes (2^20 points)"
					  : "mesh: more than the core takes (2^21 triangles, 3 * 2^21 vertices)");
		return SN_ERR_CAPACITY;
	}
	sn_vec3* p = malloc((count > 0 ? count : 1) * sizeof(sn_vec3) + (indices > 0 ? indices : 1) * sizeof(int32_t));
	if (p == NULL)
	{
		return fail(why, cap, SN_ERR_NO_MEMORY, "out of memory");
	}
	for (size_t i = 0; i < count; ++i)
	{
		p[i] = sn_v3(ws->values[3 * i], ws->values[3 * i + 1], ws->values[3 * i + 2]);
	}
	int32_t* index = (int32_t*)(void*)(p + (count > 0 ? count : 1));
	for (size_t i = 0; i < indices; ++i)
	{
		// An index above INT32_MAX is out of range for any mesh the core takes: keep it so (-1).
		index[i] = ws->indices[i] <= (uint32_t)INT32_MAX ? (int32_t)ws->indices[i] : -1;
	}
	*points = p;
	out->geometry = hull ? sn_geometry_hull(p, (int)count) : sn_geometry_mesh(p, (int)count, index, (int)(indices / 3));
	return 0;
}

// ---- limits and creation ------------------------------------------------------------------------------

int64_t shapes_mesh_triangles(const wire_shape* shapes, int count)
{
	int64_t total = 0;
	for (int i = 0; i < count; ++i)
	{
		total += (int64_t)(wire_indices(shapes + i) / 3);
	}
	return total;
}

int64_t shapes_world_mesh_triangles(const sn_world* world)
{
	int n = sn_world_get_shape_count(world);
	sn_shape_id* ids = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_shape_id));
	if (ids == NULL)
	{
		return INT64_MAX;
	}
	n = sn_world_get_shapes(world, ids, n);
	int64_t total = 0;
	for (int i = 0; i < n; ++i)
	{
		sn_geometry g;
		if (sn_shape_get_type(world, ids[i]) == SN_SHAPE_MESH && sn_shape_get_geometry(world, ids[i], &g) == SN_ERR_OK)
		{
			total += g.mesh.triangle_count;
		}
	}
	free(ids);
	return total;
}

int32_t shapes_check_room(const world_host* host, int adding, int64_t adding_triangles, char* why, size_t cap)
{
	const server_limits* l = &host->srv->config.limits;
	int have = sn_world_get_shape_count(host->world);
	if ((int64_t)have + adding > l->max_shapes_per_world)
	{
		snprintf(why, cap, "max_shapes_per_world (%lld) reached: the world has %d shapes, this adds %d",
				 (long long)l->max_shapes_per_world, have, adding);
		return SV_ERR_LIMIT_REACHED;
	}
	if (adding_triangles > 0)
	{
		int64_t triangles = shapes_world_mesh_triangles(host->world);
		if (triangles > l->max_mesh_triangles_per_world - adding_triangles)
		{
			snprintf(why, cap,
					 "max_mesh_triangles_per_world (%lld) reached: the world's meshes have %lld triangles, this adds "
					 "%lld",
					 (long long)l->max_mesh_triangles_per_world, (long long)triangles, (long long)adding_triangles);
			return SV_ERR_LIMIT_REACHED;
		}
	}
	return 0;
}

int32_t shapes_create(sn_world* world, sn_body_id body, const wire_shape* shapes, int count, sn_shape_id* out,
					  const char* label, char* why, size_t cap)
{
	for (int i = 0; i < count; ++i)
	{
		sn_shape_def def;
		void* points = NULL;
		char reason[200] = "";
		int32_t code = shape_def_from_wire(shapes + i, body, &def, &points, reason, sizeof(reason));
		if (code == 0)
		{
			sn_shape_id id;
			sn_error err = sn_create_shape(world, &def, &id);
			if (err == SN_ERR_OK)
			{
				out[i] = id;
			}
			else
			{
				code = (int32_t)err;
				snprintf(reason, sizeof(reason), "%s", sn_world_last_error_detail(world));
			}
		}
		free(points);
		if (code != 0)
		{
			snprintf(why, cap, "%s[%d]: %s", label, i, reason);
			for (int k = i - 1; k >= 0; --k)
			{
				sn_destroy_shape(world, out[k]);
			}
			return code;
		}
	}
	return 0;
}

// ---- meshes of triangle-mesh shapes -------------------------------------------------------------------

asset_blob* shapes_mesh_blob(const sn_world* world, sn_shape_id shape)
{
	sn_geometry g;
	if (sn_shape_get_type(world, shape) != SN_SHAPE_MESH || sn_shape_get_geometry(world, shape, &g) != SN_ERR_OK)
	{
		return NULL;
	}
	uint32_t v = (uint32_t)g.mesh.vertex_count, t = (uint32_t)g.mesh.triangle_count;
	size_t size = wire_mesh_size(v, t, 0);
	float* positions = malloc(((size_t)v * 6 + 1) * sizeof(float));
	uint32_t* indices = malloc(((size_t)t * 3 + 1) * sizeof(uint32_t));
	asset_blob* blob = size > 0 ? asset_blob_new(ASSET_MESH, size) : NULL;
	if (positions == NULL || indices == NULL || blob == NULL)
	{
		free(positions);
		free(indices);
		asset_blob_unref(blob);
		return NULL;
	}
	float* normals = positions + 3 * (size_t)v;
	memset(normals, 0, 3 * (size_t)v * sizeof(float));
	for (uint32_t i = 0; i < v; ++i)
	{
		positions[3 * i] = (float)g.mesh.vertices[i].x;
		positions[3 * i + 1] = (float)g.mesh.vertices[i].y;
		positions[3 * i + 2] = (float)g.mesh.vertices[i].z;
	}
	// Vertex normals weighted by the triangles' areas (the cross product's length), for drawing.
	for (uint32_t k = 0; k < t; ++k)
	{
		const int32_t* tri = g.mesh.indices + 3 * (size_t)k;
		sn_vec3 a = g.mesh.vertices[tri[0]], b = g.mesh.vertices[tri[1]], c = g.mesh.vertices[tri[2]];
		sn_vec3 n = sn_cross(sn_sub(b, a), sn_sub(c, a));
		for (int j = 0; j < 3; ++j)
		{
			indices[3 * k + (uint32_t)j] = (uint32_t)tri[j];
			normals[3 * (size_t)tri[j]] += (float)n.x;
			normals[3 * (size_t)tri[j] + 1] += (float)n.y;
			normals[3 * (size_t)tri[j] + 2] += (float)n.z;
		}
	}
	for (uint32_t i = 0; i < v; ++i)
	{
		float* n = normals + 3 * (size_t)i;
		float length = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (length > 0.0f)
		{
			n[0] /= length;
			n[1] /= length;
			n[2] /= length;
		}
	}
	wire_mesh m = { v, t, 0, positions, normals, indices, NULL };
	bool ok = wire_mesh_write(&m, blob->data, blob->size) && asset_blob_hash(blob);
	free(positions);
	free(indices);
	if (!ok)
	{
		asset_blob_unref(blob);
		return NULL;
	}
	return blob;
}

asset_blob* shapes_keep_mesh(world_host* host, sn_shape_id shape, asset_blob* blob)
{
	char why[200];
	asset_blob* stored = asset_store_put(&host->srv->assets, blob, why, sizeof(why));
	if (stored == NULL)
	{
		return NULL;
	}
	uint8_t* hash = malloc(WIRE_HASH_SIZE);
	if (hash == NULL)
	{
		return NULL;
	}
	memcpy(hash, stored->hash, WIRE_HASH_SIZE);
	if (!model_registry_keep(&host->models, MODEL_SHAPE_MESH, sn_shape_id_store(shape), hash, WIRE_HASH_SIZE, &stored,
							 1))
	{
		free(hash);
		return NULL;
	}
	return stored;
}

void shapes_keep_meshes(world_host* host, const sn_shape_id* ids, int count)
{
	for (int i = 0; i < count; ++i)
	{
		if (sn_shape_get_type(host->world, ids[i]) != SN_SHAPE_MESH)
		{
			continue;
		}
		asset_blob* blob = shapes_mesh_blob(host->world, ids[i]);
		if (blob != NULL)
		{
			shapes_keep_mesh(host, ids[i], blob);
			asset_blob_unref(blob);
		}
	}
}

asset_blob* shapes_mesh_of(world_host* host, sn_shape_id shape)
{
	const model_entry* e = model_registry_find(&host->models, MODEL_SHAPE_MESH, sn_shape_id_store(shape));
	if (e != NULL && e->blob_count == 1)
	{
		return e->blobs[0];
	}
	asset_blob* blob = shapes_mesh_blob(host->world, shape);
	if (blob == NULL)
	{
		return NULL;
	}
	asset_blob* stored = shapes_keep_mesh(host, shape, blob);
	asset_blob_unref(blob);
	return stored;
}

// ---- core to wire -------------------------------------------------------------------------------------

void shapes_side(const sn_world* world, sn_shape_id shape, sn_body_id body, sinew_v1_ContactSide* out)
{
	*out = (sinew_v1_ContactSide)sinew_v1_ContactSide_init_zero;
	out->shape_id = sn_shape_id_store(shape);
	out->link = -1;
	if (sn_body_id_is_null(body))
	{
		return;
	}
	sn_articulation_id articulation;
	int link = -1;
	if (sn_body_get_link(world, body, &articulation, &link) == SN_ERR_OK)
	{
		out->articulation_id = sn_articulation_id_store(articulation);
		out->link = link;
	}
	else
	{
		out->body_id = sn_body_id_store(body);
	}
}

void shapes_mesh_ref(const asset_blob* mesh, sinew_v1_MeshRef* out)
{
	*out = (sinew_v1_MeshRef)sinew_v1_MeshRef_init_zero;
	wire_mesh m;
	if (mesh == NULL || !wire_mesh_check(mesh->data, mesh->size, &m, NULL, 0))
	{
		return;
	}
	out->hash.size = WIRE_HASH_SIZE;
	memcpy(out->hash.bytes, mesh->hash, WIRE_HASH_SIZE);
	out->vertex_count = m.vertex_count;
	out->triangle_count = m.triangle_count;
	out->size = mesh->size;
}

static void wire_soft(sn_soft s, sinew_v1_Soft* out)
{
	*out = (sinew_v1_Soft)sinew_v1_Soft_init_zero;
	switch (s.kind)
	{
		case SN_SOFT_STIFFNESS:
			out->kind = sinew_v1_SoftKind_SOFT_STIFFNESS;
			out->stiffness = s.stiffness;
			out->damping = s.damping;
			break;
		case SN_SOFT_FREQUENCY:
			out->kind = sinew_v1_SoftKind_SOFT_FREQUENCY;
			out->frequency_hz = s.frequency;
			out->damping_ratio = s.damping_ratio;
			break;
		case SN_SOFT_COMPLIANCE:
			// The wire has no compliance form: the same row as stiffness and damping (k = 1/c, b = d/c).
			if (s.compliance > 0.0)
			{
				out->kind = sinew_v1_SoftKind_SOFT_STIFFNESS;
				out->stiffness = 1.0 / s.compliance;
				out->damping = s.damping_time / s.compliance;
			}
			break;
		default:
			break;
	}
}

void shapes_info(const sn_world* world, sn_shape_id shape, const asset_blob* mesh, sinew_v1_ShapeInfo* out)
{
	*out = (sinew_v1_ShapeInfo)sinew_v1_ShapeInfo_init_zero;
	sinew_v1_ContactSide side;
	shapes_side(world, shape, sn_shape_get_body(world, shape), &side);
	out->id = side.shape_id;
	out->body_id = side.body_id;
	out->articulation_id = side.articulation_id;
	out->link = side.link;
	out->has_local_pose = true;
	wv_transform(sn_shape_get_local_pose(world, shape), &out->local_pose);
	sn_geometry g;
	if (sn_shape_get_geometry(world, shape, &g) == SN_ERR_OK)
	{
		switch (g.type)
		{
			case SN_SHAPE_SPHERE:
				out->type = sinew_v1_ShapeType_SHAPE_SPHERE;
				out->radius = g.sphere.radius;
				break;
			case SN_SHAPE_CAPSULE:
				out->type = sinew_v1_ShapeType_SHAPE_CAPSULE;
				out->radius = g.capsule.radius;
				out->half_length = g.capsule.half_length;
				break;
			case SN_SHAPE_BOX:
				out->type = sinew_v1_ShapeType_SHAPE_BOX;
				out->has_half_extents = true;
				wv_vec3(g.box.half_extents, &out->half_extents);
				break;
			case SN_SHAPE_CYLINDER:
				out->type = sinew_v1_ShapeType_SHAPE_CYLINDER;
				out->radius = g.cylinder.radius;
				out->half_length = g.cylinder.half_height;
				break;
			case SN_SHAPE_HULL:
			{
				out->type = sinew_v1_ShapeType_SHAPE_HULL;
				enum
				{
					MAX_VERTICES = (int)(sizeof(out->hull_vertices) / sizeof(out->hull_vertices[0]))
				};
				sn_vec3 vertices[MAX_VERTICES];
				int n = sn_shape_get_hull_vertices(world, shape, vertices, MAX_VERTICES);
				n = n < MAX_VERTICES ? n : MAX_VERTICES;
				for (int i = 0; i < n; ++i)
				{
					wv_vec3(vertices[i], out->hull_vertices + i);
				}
				out->hull_vertices_count = (pb_size_t)n;
				break;
			}
			case SN_SHAPE_MESH:
				out->type = sinew_v1_ShapeType_SHAPE_MESH;
				if (mesh != NULL)
				{
					out->has_mesh = true;
					shapes_mesh_ref(mesh, &out->mesh);
				}
				break;
			case SN_SHAPE_PLANE:
			default:
				out->type = sinew_v1_ShapeType_SHAPE_PLANE;
				out->has_normal = true;
				wv_vec3(g.plane.normal, &out->normal);
				out->offset = g.plane.offset;
				break;
		}
	}
	sn_material m = sn_shape_get_material(world, shape);
	out->has_material = true;
	out->material.has_friction = true;
	out->material.friction = m.friction;
	out->material.has_restitution = true;
	out->material.restitution = m.restitution;
	out->material.has_soft = m.soft.kind != SN_SOFT_RIGID;
	wire_soft(m.soft, &out->material.soft);
	sn_filter f = sn_shape_get_filter(world, shape);
	out->has_filter = true;
	out->filter.has_category = true;
	out->filter.category = f.category;
	out->filter.has_mask = true;
	out->filter.mask = f.mask;
	out->sensor = sn_shape_is_sensor(world, shape);
	out->user_data = sn_shape_get_user_data(world, shape);
}
