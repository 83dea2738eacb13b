// What the server tells about a world's robots (see model_info.h).
//
// A client that loads a URDF learns from LoadUrdf's reply (UrdfModel) where every link, joint and visual
// went. A client that joins the world later (a dashboard opening the demo world) asks DescribeWorld: the
// host keeps each URDF articulation's UrdfModel encoded, exactly as LoadUrdf answered it, and the
// description adds every articulation's links as the core holds them now (parents, joint types, dofs,
// limits and drives), so articulations created with CreateArticulation are described too. Kept models
// are forgotten with their articulation (destroy, or a restore or reset to a state without it).
#include "model_info.h"

#include "convert.h"
#include "shapes.h"
#include "wire.h"
#include "world_host.h"

#include "sinew/articulation.h"

#include <pb_encode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_string(char* out, size_t capacity, const char* in)
{
	snprintf(out, capacity, "%s", in);
}

// ---- UrdfModel ----------------------------------------------------------------------------------------

static bool encode_links(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const model_info* r = *arg;
	for (int i = 0; i < r->model->link_count; ++i)
	{
		sinew_v1_UrdfLink out = sinew_v1_UrdfLink_init_zero;
		copy_string(out.name, sizeof(out.name), r->model->links[i].name);
		out.link = r->built->link_index[i];
		out.has_offset = true;
		wv_transform(r->built->link_offset[i], &out.offset);
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_UrdfLink_fields, &out))
		{
			return false;
		}
	}
	return true;
}

static bool encode_joints(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const model_info* r = *arg;
	for (int j = 0; j < r->model->joint_count; ++j)
	{
		const snm_joint* jt = &r->model->joints[j];
		sinew_v1_UrdfJoint out = sinew_v1_UrdfJoint_init_zero;
		copy_string(out.name, sizeof(out.name), jt->name);
		copy_string(out.type, sizeof(out.type), snm_joint_type_name(jt->type));
		out.link = r->built->joint_link[j];
		out.dof = r->built->joint_dof[j];
		out.mimic_id = sn_mimic_id_store(r->built->joint_mimic[j]);
		if (jt->mimic >= 0)
		{
			copy_string(out.mimic_of, sizeof(out.mimic_of), r->model->joints[jt->mimic].name);
			out.multiplier = jt->multiplier;
			out.offset = jt->offset;
		}
		out.lower = jt->lower;
		out.upper = jt->upper;
		out.effort = jt->effort;
		out.velocity = jt->velocity;
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_UrdfJoint_fields, &out))
		{
			return false;
		}
	}
	return true;
}

static bool encode_warning(pb_ostream_t* stream, const pb_field_t* field, const char* text)
{
	return pb_encode_tag_for_field(stream, field) && pb_encode_string(stream, (const pb_byte_t*)text, strlen(text));
}

static bool encode_warnings(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const model_info* r = *arg;
	for (int i = 0; i < r->model->warning_count; ++i)
	{
		if (!encode_warning(stream, field, r->model->warnings[i].text))
		{
			return false;
		}
	}
	for (int i = 0; i < r->built->warning_count; ++i)
	{
		if (!encode_warning(stream, field, r->built->warnings[i].text))
		{
			return false;
		}
	}
	int dropped = r->model->warnings_dropped + r->built->warnings_dropped;
	if (dropped > 0)
	{
		char text[64];
		snprintf(text, sizeof(text), "%d more warnings", dropped);
		return encode_warning(stream, field, text);
	}
	return true;
}

static bool encode_visuals(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const model_info* r = *arg;
	for (int i = 0; i < r->model->visual_count; ++i)
	{
		const snm_visual* v = &r->model->visuals[i];
		sinew_v1_UrdfVisual out = sinew_v1_UrdfVisual_init_zero;
		out.link = r->built->link_index[v->link];
		out.has_pose = true;
		wv_transform(sn_transform_mul(r->built->link_offset[v->link], v->origin), &out.pose);
		switch (v->type)
		{
			case SNM_GEOMETRY_BOX:
				out.geometry = sinew_v1_GeometryType_GEOMETRY_BOX;
				break;
			case SNM_GEOMETRY_CYLINDER:
				out.geometry = sinew_v1_GeometryType_GEOMETRY_CYLINDER;
				break;
			case SNM_GEOMETRY_SPHERE:
				out.geometry = sinew_v1_GeometryType_GEOMETRY_SPHERE;
				break;
			case SNM_GEOMETRY_MESH:
				out.geometry = sinew_v1_GeometryType_GEOMETRY_MESH;
				break;
			case SNM_GEOMETRY_NONE:
				out.geometry = sinew_v1_GeometryType_GEOMETRY_NONE;
				break;
		}
		out.has_size = true;
		wv_vec3(v->size, &out.size);
		out.radius = v->radius;
		out.length = v->length;
		copy_string(out.mesh, sizeof(out.mesh), v->mesh);
		out.has_scale = true;
		wv_vec3(v->scale, &out.scale);
		out.rgba_count = 4;
		memcpy(out.rgba, v->rgba, sizeof(v->rgba));
		copy_string(out.link_name, sizeof(out.link_name), r->model->links[v->link].name);
		out.has_color = v->has_color;
		if (v->type == SNM_GEOMETRY_MESH && r->mesh_blobs != NULL && v->mesh_index >= 0 &&
			v->mesh_index < r->model->mesh_count && r->mesh_blobs[v->mesh_index] != NULL)
		{
			out.has_mesh_ref = true;
			shapes_mesh_ref(r->mesh_blobs[v->mesh_index], &out.mesh_ref);
		}
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_UrdfVisual_fields, &out))
		{
			return false;
		}
	}
	return true;
}

void model_info_fill(sinew_v1_UrdfModel* out, const model_info* info, sn_articulation_id articulation, int dof_count)
{
	*out = (sinew_v1_UrdfModel)sinew_v1_UrdfModel_init_zero;
	out->articulation_id = sn_articulation_id_store(articulation);
	out->dof_count = (uint32_t)dof_count;
	out->link_count = (uint32_t)info->built->articulation_link_count;
	copy_string(out->robot_name, sizeof(out->robot_name), info->model->name);
	out->links.funcs.encode = encode_links;
	out->links.arg = (void*)info;
	out->joints.funcs.encode = encode_joints;
	out->joints.arg = (void*)info;
	out->visuals.funcs.encode = encode_visuals;
	out->visuals.arg = (void*)info;
	out->warnings.funcs.encode = encode_warnings;
	out->warnings.arg = (void*)info;
}

bool model_info_keep(model_registry* models, const model_info* info, sn_articulation_id articulation, int dof_count)
{
	sinew_v1_UrdfModel model;
	model_info_fill(&model, info, articulation, dof_count);
	uint8_t* bytes = NULL;
	size_t size = 0;
	if (!wire_encode_alloc(sinew_v1_UrdfModel_fields, &model, 0, &bytes, &size))
	{
		return false;
	}
	// The meshes it names stay in the asset store while the description does.
	int held = 0;
	asset_blob** blobs = malloc((size_t)(info->model->mesh_count + 1) * sizeof(asset_blob*));
	for (int i = 0; blobs != NULL && info->mesh_blobs != NULL && i < info->model->mesh_count; ++i)
	{
		if (info->mesh_blobs[i] != NULL)
		{
			blobs[held++] = info->mesh_blobs[i];
		}
	}
	bool kept = blobs != NULL &&
		model_registry_keep(models, MODEL_URDF, sn_articulation_id_store(articulation), bytes, size, blobs, held);
	free(blobs);
	if (!kept)
	{
		free(bytes);
	}
	return kept;
}

asset_blob* model_info_mesh_blob(const snm_mesh* mesh)
{
	uint32_t v = (uint32_t)mesh->vertex_count, t = (uint32_t)mesh->triangle_count, p = (uint32_t)mesh->part_count;
	size_t size = wire_mesh_size(v, t, p);
	wire_mesh_part* parts = malloc((size_t)(p > 0 ? p : 1) * sizeof(wire_mesh_part));
	asset_blob* blob = size > 0 ? asset_blob_new(ASSET_MESH, size) : NULL;
	if (parts == NULL || blob == NULL)
	{
		free(parts);
		asset_blob_unref(blob);
		return NULL;
	}
	for (uint32_t i = 0; i < p; ++i)
	{
		parts[i].first_triangle = (uint32_t)mesh->parts[i].first_triangle;
		parts[i].triangle_count = (uint32_t)mesh->parts[i].triangle_count;
		parts[i].has_color = mesh->parts[i].has_color;
		memcpy(parts[i].rgba, mesh->parts[i].rgba, sizeof(parts[i].rgba));
	}
	wire_mesh m = { v, t, p, mesh->positions, mesh->normals, mesh->indices, parts };
	bool ok = wire_mesh_write(&m, blob->data, blob->size) && asset_blob_hash(blob);
	free(parts);
	if (!ok)
	{
		asset_blob_unref(blob);
		return NULL;
	}
	return blob;
}

sn_error model_info_load_own_meshes(snm_model* model, const char* urdf_path, const char* model_path, snm_error* error)
{
	char dir[SNM_PATH_MAX];
	const char* slash = strrchr(urdf_path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash != NULL ? (int)(slash - urdf_path) : 1, slash != NULL ? urdf_path : ".");
	snm_mesh_options o = snm_default_mesh_options();
	o.base_dir = dir[0] != '\0' ? dir : "/";
	o.package_path = model_path;
	o.use_env_path = false; // the model path is the server's own setting (flag or variable)
	o.missing_fallback = true;
	return snm_model_load_meshes(model, &o, error);
}

asset_blob** model_info_store_meshes(asset_store* store, const snm_model* model)
{
	if (model->mesh_count == 0)
	{
		return NULL;
	}
	asset_blob** out = calloc((size_t)model->mesh_count, sizeof(asset_blob*));
	for (int i = 0; out != NULL && i < model->visual_count; ++i)
	{
		int k = model->visuals[i].mesh_index;
		if (model->visuals[i].type != SNM_GEOMETRY_MESH || k < 0 || k >= model->mesh_count || out[k] != NULL)
		{
			continue;
		}
		asset_blob* blob = model_info_mesh_blob(model->meshes[k]);
		char why[200];
		asset_blob* stored = blob != NULL ? asset_store_put(store, blob, why, sizeof(why)) : NULL;
		asset_blob_ref(stored);
		asset_blob_unref(blob);
		out[k] = stored;
	}
	return out;
}

void model_info_release_meshes(asset_blob** blobs, int count)
{
	for (int i = 0; blobs != NULL && i < count; ++i)
	{
		asset_blob_unref(blobs[i]);
	}
	free(blobs);
}

// ---- DescribeWorld ------------------------------------------------------------------------------------

// What the description's callbacks read: the articulations to describe and the current one.
typedef struct description
{
	world_host* host;
	sn_articulation_id* ids;
	int count;
	sn_articulation_id current; // set by encode_articulations for the links and urdf callbacks
	sn_shape_id* shapes;        // the shapes described, and the meshes of the triangle-mesh ones
	asset_blob** meshes;
	int shape_count;
	sinew_v1_ShapeInfo* scratch; // one shape at a time
} description;

static bool encode_shapes(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const description* d = *arg;
	for (int i = 0; i < d->shape_count; ++i)
	{
		shapes_info(d->host->world, d->shapes[i], d->meshes[i], d->scratch);
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_ShapeInfo_fields, d->scratch))
		{
			return false;
		}
	}
	return true;
}

// The shapes to describe: every shape of the world, or those of one articulation's links. The meshes of
// triangle-mesh shapes are looked up (made if a restored world has none yet) now, before encoding.
static bool gather_shapes(description* d, sn_articulation_id articulation)
{
	const sn_world* world = d->host->world;
	int n = sn_world_get_shape_count(world);
	d->shapes = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_shape_id));
	d->meshes = malloc((size_t)(n > 0 ? n : 1) * sizeof(asset_blob*));
	d->scratch = malloc(sizeof(sinew_v1_ShapeInfo));
	if (d->shapes == NULL || d->meshes == NULL || d->scratch == NULL)
	{
		return false;
	}
	n = sn_world_get_shapes(world, d->shapes, n);
	int kept = 0;
	for (int i = 0; i < n; ++i)
	{
		sn_shape_id id = d->shapes[i];
		if (!sn_articulation_id_is_null(articulation))
		{
			sn_articulation_id of;
			int link = -1;
			sn_body_id body = sn_shape_get_body(world, id);
			if (sn_body_id_is_null(body) || sn_body_get_link(world, body, &of, &link) != SN_ERR_OK ||
				sn_articulation_id_store(of) != sn_articulation_id_store(articulation))
			{
				continue;
			}
		}
		d->shapes[kept] = id;
		d->meshes[kept] = sn_shape_get_type(world, id) == SN_SHAPE_MESH ? shapes_mesh_of(d->host, id) : NULL;
		kept += 1;
	}
	d->shape_count = kept;
	return true;
}

static bool encode_links_info(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const description* d = *arg;
	const sn_world* world = d->host->world;
	int links = sn_articulation_get_link_count(world, d->current);
	for (int l = 0; l < links; ++l)
	{
		sn_link_def def;
		if (sn_articulation_get_link_def(world, d->current, l, &def) != SN_ERR_OK)
		{
			return false;
		}
		sinew_v1_LinkInfo out = sinew_v1_LinkInfo_init_zero;
		out.parent = def.parent;
		out.joint_type = def.joint_type == SN_LINK_JOINT_REVOLUTE ? sinew_v1_LinkJointType_LINK_REVOLUTE
			: def.joint_type == SN_LINK_JOINT_PRISMATIC           ? sinew_v1_LinkJointType_LINK_PRISMATIC
			: def.joint_type == SN_LINK_JOINT_SPHERICAL           ? sinew_v1_LinkJointType_LINK_SPHERICAL
																  : sinew_v1_LinkJointType_LINK_FIXED;
		int first = sn_articulation_get_link_dof_offset(world, d->current, l);
		int count = sn_articulation_get_link_dof_count(world, d->current, l);
		out.first_dof = (uint32_t)(first > 0 ? first : 0);
		out.dof_count = (uint32_t)(count > 0 ? count : 0);
		for (int k = 0; k < count && k < SN_LINK_MAX_DOFS; ++k)
		{
			sinew_v1_Limit* lim = out.limits + k;
			lim->enabled = def.limit[k].enabled;
			lim->lower = def.limit[k].lower;
			lim->upper = def.limit[k].upper;
			sinew_v1_Drive* dr = out.drives + k;
			dr->enabled = def.drive[k].enabled;
			dr->type = def.drive[k].type == SN_DRIVE_ACCELERATION ? sinew_v1_DriveType_DRIVE_ACCELERATION
																  : sinew_v1_DriveType_DRIVE_FORCE;
			dr->stiffness = def.drive[k].stiffness;
			dr->damping = def.drive[k].damping;
			dr->target_position = def.drive[k].target_position;
			dr->target_velocity = def.drive[k].target_velocity;
			dr->has_max_force = isfinite(def.drive[k].max_force);
			dr->max_force = dr->has_max_force ? def.drive[k].max_force : 0.0;
		}
		out.limits_count = (pb_size_t)out.dof_count;
		out.drives_count = (pb_size_t)out.dof_count;
		if (!pb_encode_tag_for_field(stream, field) || !pb_encode_submessage(stream, sinew_v1_LinkInfo_fields, &out))
		{
			return false;
		}
	}
	return true;
}

// The kept UrdfModel bytes are a whole encoded message: written as the submessage's contents.
static bool encode_kept_urdf(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	const description* d = *arg;
	const model_entry* m = model_registry_find(&d->host->models, MODEL_URDF, sn_articulation_id_store(d->current));
	if (m == NULL)
	{
		return true;
	}
	return pb_encode_tag_for_field(stream, field) && pb_encode_string(stream, m->bytes, m->size);
}

static bool encode_articulations(pb_ostream_t* stream, const pb_field_t* field, void* const* arg)
{
	description* d = *arg;
	const sn_world* world = d->host->world;
	for (int i = 0; i < d->count; ++i)
	{
		d->current = d->ids[i];
		sinew_v1_ArticulationInfo out = sinew_v1_ArticulationInfo_init_zero;
		out.id = sn_articulation_id_store(d->current);
		out.dof_count = (uint32_t)sn_articulation_get_dof_count(world, d->current);
		out.link_count = (uint32_t)sn_articulation_get_link_count(world, d->current);
		out.fixed_base = sn_articulation_is_fixed_base(world, d->current);
		out.links.funcs.encode = encode_links_info;
		out.links.arg = d;
		out.urdf.funcs.encode = encode_kept_urdf;
		out.urdf.arg = d;
		if (!pb_encode_tag_for_field(stream, field) ||
			!pb_encode_submessage(stream, sinew_v1_ArticulationInfo_fields, &out))
		{
			return false;
		}
	}
	return true;
}

bool model_info_describe(world_host* host, sn_articulation_id articulation, sinew_v1_WorldDescription* out,
						 void** scratch)
{
	description* d = calloc(1, sizeof(*d));
	if (d == NULL)
	{
		return false;
	}
	d->host = host;
	int n = sn_articulation_id_is_null(articulation) ? sn_world_get_articulations(host->world, NULL, 0) : 1;
	d->ids = malloc((size_t)(n > 0 ? n : 1) * sizeof(sn_articulation_id));
	if (d->ids == NULL)
	{
		free(d);
		return false;
	}
	if (sn_articulation_id_is_null(articulation))
	{
		d->count = sn_world_get_articulations(host->world, d->ids, n);
	}
	else
	{
		d->ids[0] = articulation;
		d->count = 1;
	}
	if (!gather_shapes(d, articulation))
	{
		model_info_free_description(d);
		return false;
	}
	*out = (sinew_v1_WorldDescription)sinew_v1_WorldDescription_init_zero;
	out->world_id = host->id;
	out->shapes.funcs.encode = encode_shapes;
	out->shapes.arg = d;
	copy_string(out->name, sizeof(out->name), host->name);
	out->articulations.funcs.encode = encode_articulations;
	out->articulations.arg = d;
	*scratch = d;
	return true;
}

int model_info_description_objects(const void* scratch)
{
	const description* d = scratch;
	int objects = d->shape_count;
	for (int i = 0; i < d->count; ++i)
	{
		const int links = sn_articulation_get_link_count(d->host->world, d->ids[i]);
		objects += links > 0 ? links : 0;
	}
	return objects;
}

void model_info_free_description(void* scratch)
{
	description* d = scratch;
	if (d != NULL)
	{
		free(d->ids);
		free(d->shapes);
		free(d->meshes);
		free(d->scratch);
		free(d);
	}
}
